"""`abyss-mc sweep`: the default card data and every point of a grid, on the same seeds."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from reports.commands.common import (
    CardsOption,
    ExpansionsOption,
    GameOption,
    OutDirOption,
    PlayersOption,
    PresetsOption,
    SeedOption,
    StrategiesOption,
    ThreadsOption,
    abyss_policies,
    card_digest,
    check_game,
    check_players,
    check_seed,
    chunk_store,
    dask_runner,
    data_options,
    finish_run,
    interrupt_note,
    load_tables,
    parse_expansions,
    parse_lineup,
    read_plan,
    run_digests,
    seal_plan,
    use_presets,
    user_errors,
    wilds_tables,
    write_plan,
)
from sim.core.errors import UserError


@user_errors
def sweep(
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=V1,V2,...",
            help="A card-data or rules value to sweep, with its values; repeat for a grid "
            "(every combination), e.g. --set leviathan_game.hand_limit=8,10,12,14.",
        ),
    ] = None,
    fixed: Annotated[
        list[str] | None,
        typer.Option("--fixed", metavar="KEY=VALUE", help="An override for every point."),
    ] = None,
    players: PlayersOption = 4,
    games: Annotated[int, typer.Option("--games", help="Games per point (>= 2).")] = 20_000,
    seed: SeedOption = 1,
    strategies: StrategiesOption = "greedy",
    expansions: ExpansionsOption = "leviathan",
    cards: CardsOption = None,
    out: OutDirOption = None,
    report: Annotated[bool, typer.Option("--report/--no-report")] = True,
    threads: ThreadsOption = None,
    presets: PresetsOption = None,
    game: GameOption = "abyss",
    backend: Annotated[
        str, typer.Option("--backend", metavar="local|dask", help="As for simulate (Abyss).")
    ] = "local",
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", metavar="ADDRESS", help="A Dask scheduler.")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Finish an interrupted sweep: its finished points are kept, the rest is "
            "played with the sweep's own options.",
        ),
    ] = None,
) -> None:
    """Play the default and every point of a grid of card-data or rules values on the same
    seeds; report what changes, with intervals and multiple-comparison correction."""
    from reports.sweep import build_report, parse_sweep, run_sweep, sweep_text
    from sim.core.runs import (
        atomic_write_text,
        create_run_dir,
        default_run_dir,
        resume_run_dir,
        write_manifest,
        write_parquet,
    )

    if resume is not None:
        staging = resume_run_dir(resume)
        sweep_plan = read_plan(staging.dir)
        set_, fixed, players = sweep_plan["set"], sweep_plan["fixed"], sweep_plan["players"]
        games, seed, strategies = sweep_plan["games"], sweep_plan["seed"], sweep_plan["strategies"]
        expansions, game = sweep_plan["expansions"], sweep_plan["game"]
        cards = Path(sweep_plan["cards"]) if sweep_plan["cards"] else None
        presets = Path(sweep_plan["presets"]) if sweep_plan["presets"] else None
    if backend not in ("local", "dask"):
        raise UserError(f"--backend must be local or dask; got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise UserError("--scheduler needs --backend dask")
    check_seed(seed)
    if games < 2:
        raise UserError(f"--games must be at least 2; got {games}")
    axes = parse_sweep(list(set_ or []))
    base = list(fixed or [])
    name = check_game(game)
    if name == "wilds":
        from reports.sweep import wilds_run

        if backend == "dask":
            raise UserError("--backend dask does not run Wilds sweeps; use --backend local")

        def load(setting):
            return wilds_tables(cards, base + [f"{k}={v}" for k, v in setting.items()])

        run = wilds_run(games, seed)
    elif name == "conspiracy":
        from reports import conspiracy_cli

        conspiracy_cli.use_presets(presets)
        conspiracy_cli.check_expansions("" if expansions == "leviathan" else expansions)

        def load(setting):
            items = base + [f"{k}={v}" for k, v in setting.items()]
            return conspiracy_cli.load_tables(cards, items)

        probe = load({})
        conspiracy_cli.check_players(probe, players)
        lineup = conspiracy_cli.lineup_of(
            "key_hunter,pile_raider" if strategies == "greedy" else strategies, players
        )
        policies = conspiracy_cli.make_policies(lineup, players)

        def run(tables):
            from sim.conspiracy.fast import run_distributed, run_fast

            if backend == "dask":
                from sim.core.dask_backend import client

                with client(scheduler, threads) as c:
                    seats, game_cols, _ = run_distributed(
                        c, tables, n_players=players, n_games=games, seed=seed,
                        strategies=policies,
                    )  # fmt: skip
                return seats, game_cols
            seats, game_cols, _ = run_fast(
                tables, n_players=players, n_games=games, seed=seed, strategies=policies,
                threads=threads,
            )  # fmt: skip
            return seats, game_cols
    else:
        use_presets(presets)
        exp = parse_expansions(expansions)
        check_players(players, exp)
        lineup = parse_lineup(strategies, players)
        policies = abyss_policies(lineup)

        def load(setting):
            items = base + [f"{k}={v}" for k, v in setting.items()]
            return load_tables(cards, items, exp)

        def run(tables):
            from sim.abyss.fast import run_fast
            from sim.core.results import win_shares

            if backend == "dask":
                seats, game_cols, _, _ = dask_runner(scheduler, threads)(
                    tables, n_players=players, n_games=games, seed=seed, strategies=policies,
                    per_game=True, chunk_size=None,
                )  # fmt: skip
            else:
                seats, game_cols, _, _ = run_fast(
                    tables, n_players=players, n_games=games, seed=seed, strategies=policies,
                    threads=threads,
                )  # fmt: skip
            seats["win"] = win_shares(seats["rank"].reshape(-1, players)).ravel()
            return seats, game_cols

    if resume is None:
        out_dir = out if out is not None else default_run_dir("runs", seed=seed)
        staging = create_run_dir(out_dir, resumable=True)
        write_plan(
            staging.dir,
            {
                "set": list(set_ or []),
                "fixed": base,
                "players": players,
                "games": games,
                "seed": seed,
                "strategies": strategies,
                "expansions": expansions,
                "game": name,
                "cards": str(cards) if cards is not None else None,
                "presets": str(presets) if presets is not None else None,
            },
        )
    else:
        out_dir = resume
    with staging, interrupt_note(staging, out_dir, "sweep"):
        seal_plan(staging, resume is not None, load({}), presets, out_dir)
        result = run_sweep(
            load,
            run,
            axes,
            progress=lambda text: typer.echo(text, err=True),
            store=chunk_store(staging),
        )
        command = " ".join(["abyss-mc", *sys.argv[1:]])
        rep, diffs = build_report(result, name, command)
        write_parquet(result.points.astype(str), staging.dir / "points.parquet")
        write_parquet(result.seats, staging.dir / "seats.parquet")
        write_parquet(result.games, staging.dir / "games.parquet")
        write_parquet(diffs, staging.dir / "differences.parquet")
        text = sweep_text(result, diffs)
        atomic_write_text(staging.dir / "summary.txt", text)
        if report:
            rep.write(staging.dir / "report")
        write_manifest(
            staging.dir,
            command=["abyss-mc", *sys.argv[1:]],
            seed=seed,
            config={
                "command": "sweep",
                "game": name,
                "axes": {k: list(v) for k, v in axes},
                "fixed": base,
                "n_players": players,
                "n_games": games,
                "strategies": strategies,
                "expansions": expansions,
                **data_options(cards, base, presets, out_dir),
            },
            card_digest=card_digest(load({}), cards, base),
            timings={},
            extra={"digests": run_digests(load({}), presets)},
        )
        finish_run(staging)
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
