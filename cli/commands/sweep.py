"""`abyss-mc sweep`: the default card data and every point of a grid, on the same seeds."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c
from reports.run_dir import Run, card_digest, data_options, data_paths, recorded_paths, run_digests
from sim.core.errors import UserError


@c.user_errors
def sweep(
    set_: c.option(list[str] | None, "--set", "A card-data or rules value to sweep, with its "
                   "values; repeat for a grid (every combination), e.g. --set "
                   "leviathan_game.hand_limit=8,10,12,14.", "KEY=V1,V2,...") = None,
    fixed: c.option(list[str] | None, "--fixed", "An override for every point.",
                    "KEY=VALUE") = None,
    players: c.PlayersOption = 4,
    games: c.option(int, "--games", "Games per point (>= 2).") = 20_000,
    seed: c.SeedOption = 1,
    strategies: c.option(str | None, "--strategies", "Strategy per seat, cycled if shorter than "
                         "--players. Default: a different strategy in every seat (the game's "
                         "tournament strategies but random, in order; Abyss at 4 players: greedy, "
                         "lord_rusher, key_hunter, council_hoarder), so a change that favours one "
                         "style shows.", "A,B,...") = None,
    expansions: c.ExpansionsOption = None,
    cards: c.CardsOption = None,
    out: c.OutDirOption = None,
    report: Annotated[bool, typer.Option("--report/--no-report")] = True,
    threads: c.ThreadsOption = None,
    presets: c.PresetsOption = None,
    game: c.GameOption = "abyss",
    backend: c.BackendOption = "local",
    scheduler: c.SchedulerOption = None,
    resume: c.option(Path | None, "--resume", "Finish an interrupted sweep: its finished points "
                     "are kept, the rest is played with the sweep's own options.", "DIR") = None,
) -> None:
    """Play the default and every point of a grid of card-data or rules values on the same
    seeds; report what changes, with intervals and multiple-comparison correction."""
    from reports.runs.sweep import build_report, parse_sweep, run_sweep, sweep_text
    from sim.core.runs import atomic_write_text, write_parquet

    run = None
    if resume is not None:
        run = Run.resume("sweep", resume)
        sweep_plan = run.plan
        set_, fixed, players = sweep_plan["set"], sweep_plan["fixed"], sweep_plan["players"]
        games, seed, strategies = sweep_plan["games"], sweep_plan["seed"], sweep_plan["strategies"]
        expansions, game = sweep_plan["expansions"], sweep_plan["game"]
        cards, presets = recorded_paths(sweep_plan)
    c.check_backend(backend, scheduler)
    c.check_seed(seed)
    if games < 2:
        raise UserError(f"--games must be at least 2; got {games}")
    axes = parse_sweep(list(set_ or []))
    base = list(fixed or [])
    spec = c.game_spec(game)
    if spec.analysis_module is not None:
        load, play_point, sources = spec.analysis().sweep_run(
            games=games, seed=seed, cards=cards, base=base, backend=backend
        )
        exp: tuple[str, ...] = ()
    else:
        spec.strategies().use_presets(presets)
        exp = c.game_expansions(spec, expansions, spec.tournament_expansions)

        def load(setting):
            return spec.load_cards(cards, base + [f"{k}={v}" for k, v in setting.items()], exp)

        spec.check_players(load({}), players, exp)
        lineup, policies = c.game_lineup(
            spec, strategies or c.mixed_lineup(spec, players), players
        )
        strategies, sources = ",".join(lineup), None
        play_point = _point_runner(spec, policies, players, games, seed, exp, threads,
                                   lambda: run.cluster(backend, scheduler, threads))  # fmt: skip

    if run is None:
        run = Run.start("sweep", out, seed, {
            **data_paths(cards, [], presets),
            "set": list(set_ or []),  # the axes (the fixed overrides are `fixed`)
            "fixed": base,
            "players": players,
            "games": games,
            "seed": seed,
            "strategies": strategies,
            "expansions": ",".join(exp),
            "game": spec.name,
        })  # fmt: skip
    out_dir = run.out
    with run:
        run.seal(load({}), presets)
        result = run_sweep(
            load,
            play_point,
            axes,
            progress=lambda text: typer.echo(text, err=True),
            store=run.store(),
            sources=sources,
        )
        command = " ".join(["abyss-mc", *sys.argv[1:]])
        rep, diffs = build_report(result, spec.name, command)
        write_parquet(result.points.astype(str), run.dir / "points.parquet")
        write_parquet(result.seats, run.dir / "seats.parquet")
        write_parquet(result.games, run.dir / "games.parquet")
        write_parquet(diffs, run.dir / "differences.parquet")
        text = sweep_text(result, diffs)
        atomic_write_text(run.dir / "summary.txt", text)
        if report:
            rep.write(run.dir / "report")
        run.write_manifest(
            seed,
            {
                "command": "sweep",
                "game": spec.name,
                "axes": {k: list(v) for k, v in axes},
                "fixed": base,
                "n_players": players,
                "n_games": games,
                "strategies": strategies,
                "expansions": list(exp),
                **data_options(cards, base, presets, out_dir),
            },
            card_digest=card_digest(load({}), cards, base),
            timings={},
            extra={"digests": run_digests(load({}), presets)},
        )
        run.finish()
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")


def _point_runner(spec, policies, players, games, seed, exp, threads, cluster):
    """`run(tables) -> (seats, games)` of a sweep point: the line-up's games on the fast path
    (or the Dask cluster: `cluster()`, the run's client or None), the seats with their share of
    the win."""

    def run(tables):
        from sim.core.results import win_shares

        played = spec.play().run_games(
            tables, engine=spec.engines[0], n_players=players, n_games=games, seed=seed,
            policies=policies, expansions=exp, threads=threads, client=cluster(),
        )  # fmt: skip
        seats = played.seats
        if "win" not in seats:
            seats["win"] = win_shares(seats["rank"].to_numpy().reshape(-1, players)).ravel()
        return seats, played.games

    return run
