"""`abyss-mc simulate`: games of one line-up on either engine, resumable, locally or on Dask."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

from cli.commands import common as c
from reports.run_dir import (
    Run,
    card_digest,
    data_options,
    data_paths,
    recorded_paths,
    schema_entry,
)
from sim.core.errors import UserError


@c.user_errors
def simulate(
    players: c.PlayersOption = 4,
    games: c.option(int, "--games", "Number of games (>= 1).") = 1000,
    seed: c.SeedOption = 1,
    strategies: c.StrategiesOption = None,
    out: c.OutDirOption = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    expansions: c.ExpansionsOption = None,
    engine: c.option(str | None, "--engine", "fast: the compiled kernel on all threads; "
                     "reference: the readable engine (same games, much slower). Default: fast, "
                     "except on the very first run, before the fast path is compiled: a run that "
                     "finishes sooner on the reference engine than the compile takes plays there "
                     "while the fast path compiles in the background.", "fast|reference") = None,
    threads: c.ThreadsOption = None,
    per_game: c.option(bool, "--per-game/--no-per-game", "Write the per-game tables seats.parquet "
                       "and games.parquet (the aggregates are always written).") = True,
    presets: c.PresetsOption = None,
    game: c.GameOption = "abyss",
    backend: c.BackendOption = "local",
    scheduler: c.SchedulerOption = None,
    chunk_size: c.option(int | None, "--chunk-size", "Games per chunk (the unit of progress and "
                         "of --resume); default: about a second of work each.") = None,
    resume: c.option(Path | None, "--resume", "Finish an interrupted run (Ctrl-C, a killed "
                     "process) of the fast engine: its finished chunks are kept, the rest is "
                     "played with the run's own options; the results are those of an "
                     "uninterrupted run.", "DIR") = None,
) -> None:
    """Simulate games; write results + manifest to a new directory; print a summary."""
    c.check_backend(backend, scheduler)
    if backend == "dask" and engine not in (None, "fast"):
        raise UserError("--backend dask runs the fast engine")
    run = plan = None
    if resume is not None:
        run = Run.resume("simulate", resume)
        plan = run.plan
        game = plan.get("game", "abyss")
    spec = c.game_spec(game)
    c.check_seed(seed)
    if spec.analysis_module is not None:
        if engine not in (None, "fast") or resume is not None:
            raise UserError(
                f"{spec.title} runs play the fast path in one go (no --engine reference, no "
                f"--resume); `abyss-mc bench --game {spec.name}` compares the engines"
            )
        typer.echo(spec.analysis().simulate(
            games=games, seed=seed, cards=cards, set_=set_, out=out, backend=backend,
            scheduler=scheduler, threads=threads, chunk_size=chunk_size,
        ), nl=False)  # fmt: skip
        return
    if plan is not None:  # the run's own options
        players, games, seed = plan["n_players"], plan["n_games"], plan["seed"]
        strategies, engine, per_game = ",".join(plan["strategies"]), "fast", plan["per_game"]
        expansions, set_ = ",".join(plan["expansions"]), plan["set"]
        cards, presets = recorded_paths(plan)
    _simulate(spec, players, games, seed, strategies, out, cards, set_, expansions, engine,
              threads, per_game, presets, backend, scheduler, chunk_size, run)  # fmt: skip


def _simulate(spec, players, games, seed, strategies, out, cards, set_, expansions, engine,
              threads, per_game, presets, backend, scheduler, chunk_size,
              run) -> None:  # fmt: skip
    """Games of one line-up of `spec`'s game, through its play and report modules (`run`: the
    resumed run, or None for a new one)."""
    from sim.core.runs import atomic_write_text, write_parquet

    t_start = time.perf_counter()
    spec.strategies().use_presets(presets)
    exp = c.game_expansions(spec, expansions)
    if engine is not None:
        spec.check_engine(engine)
    if games < 1:
        raise UserError(f"--games must be at least 1; got {games}")
    if chunk_size is not None and chunk_size < 1:
        raise UserError(f"--chunk-size must be at least 1; got {chunk_size}")
    t0 = time.perf_counter()
    tables = spec.load_cards(cards, set_, exp)
    t_cards = time.perf_counter() - t0
    spec.check_players(tables, players, exp)
    lineup, policies = c.game_lineup(spec, strategies, players)
    if engine is None:  # not asked for: the fast path, or the reference engine while it compiles
        local_start = backend == "local" and run is None
        engine = c.cold_start_engine(spec, players, games, policies) if local_start else "fast"
    if run is None:  # refuses an existing directory before any work
        run = Run.start("simulate", out, seed, {
            "game": spec.name, "n_players": players, "n_games": games, "seed": seed,
            "strategies": lineup, "per_game": per_game, "expansions": list(exp),
            **data_paths(cards, set_, presets),
        }, resumable=engine in spec.resumable_engines)  # fmt: skip
    out_dir = run.out
    with run:
        run.seal(tables, presets)
        t0 = time.perf_counter()
        played = spec.play().run_games(
            tables, engine=engine, n_players=players, n_games=games, seed=seed,
            policies=policies, expansions=exp, threads=threads, per_game=per_game,
            progress=sys.stderr.isatty(), store=run.store(), chunk_size=chunk_size,
            client=run.cluster(backend, scheduler, threads),
        )  # fmt: skip
        t_run = time.perf_counter() - t0

        t0 = time.perf_counter()
        if played.seats is not None and (per_game or played.aggregates is None):
            write_parquet(played.seats, run.dir / "seats.parquet")
            write_parquet(played.games, run.dir / "games.parquet")
        if played.aggregates is not None:
            played.aggregates.save(run.dir / "aggregates.npz")
        summary = spec.report().summary(played, players)
        atomic_write_text(run.dir / "summary.txt", summary)
        t_write = time.perf_counter() - t0
        run.write_manifest(
            seed,
            {
                "game": spec.name,
                "command": "simulate",
                "n_players": players,
                "n_games": games,
                "seed": seed,
                "strategies": lineup,
                "expansions": list(exp),
                "engine": engine,
                "threads": played.timings.get("threads"),
                "per_game": per_game,
                **data_options(cards, set_, presets, out_dir),
            },
            card_digest=card_digest(tables, cards, set_),
            timings={
                "load_cards": t_cards,
                "run_simulation": t_run,
                "write": t_write,
                "total": time.perf_counter() - t_start,
                "runner": dict(played.timings),
            },
            extra=schema_entry(spec),
        )
        run.finish()

    typer.echo(summary, nl=False)
    typer.echo(f"results: {out_dir}")
