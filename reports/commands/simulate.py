"""`abyss-mc simulate`: games of one line-up on either engine, resumable, locally or on Dask."""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from reports.commands.common import (
    DEFAULT_STRATEGIES,
    CardsOption,
    ExpansionsOption,
    GameOption,
    OutDirOption,
    PlayersOption,
    PresetsOption,
    SeedOption,
    SetOption,
    StrategiesOption,
    ThreadsOption,
    abyss_policies,
    card_digest,
    check_backend,
    check_engine,
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
    seal_plan,
    use_presets,
    user_errors,
    wilds_tables,
    write_plan,
)
from sim.core.errors import UserError


@user_errors
def simulate(
    players: PlayersOption = 4,
    games: Annotated[int, typer.Option("--games", help="Number of games (>= 1).")] = 1000,
    seed: SeedOption = 1,
    strategies: StrategiesOption = DEFAULT_STRATEGIES,
    out: OutDirOption = None,
    cards: CardsOption = None,
    set_: SetOption = None,
    expansions: ExpansionsOption = "",
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            metavar="fast|reference",
            help="fast: the compiled kernel on all threads (default); reference: the readable "
            "engine (same games, much slower).",
        ),
    ] = "fast",
    threads: ThreadsOption = None,
    per_game: Annotated[
        bool,
        typer.Option(
            "--per-game/--no-per-game",
            help="Write the per-game tables seats.parquet and games.parquet (the aggregates are "
            "always written).",
        ),
    ] = True,
    presets: PresetsOption = None,
    game: GameOption = "abyss",
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            metavar="local|dask",
            help="local: this machine's threads; dask: chunks of games on a Dask cluster "
            "(--scheduler ADDRESS, or a local cluster), the same results.",
        ),
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", metavar="ADDRESS", help="A running Dask scheduler."),
    ] = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            "--chunk-size",
            help="Games per chunk (the unit of progress and of --resume); default: about a "
            "second of work each.",
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Finish an interrupted run (Ctrl-C, a killed process) of the fast engine: "
            "its finished chunks are kept, the rest is played with the run's own options; the "
            "results are those of an uninterrupted run.",
        ),
    ] = None,
) -> None:
    """Simulate games; write results + manifest to a new directory; print a summary."""
    check_backend(backend, scheduler)
    if backend == "dask" and (engine != "fast" or resume is not None):
        raise UserError("--backend dask runs the fast engine and cannot --resume")
    if resume is not None:
        from sim.core.runs import partial_dir

        if partial_dir(resume).is_dir():  # the run's own game (a bad path fails below)
            game = read_plan(partial_dir(resume)).get("game", "abyss")
    if check_game(game) == "wilds":
        check_seed(seed)
        if engine != "fast" or resume is not None:
            raise UserError(
                "Wilds runs play the fast path in one go (no --engine reference, no --resume); "
                "`abyss-mc bench --game wilds` compares the engines"
            )
        if games < 2:
            raise UserError(f"--games must be at least 2; got {games}")
        _simulate_wilds(games, seed, cards, set_, out, backend, scheduler, threads, chunk_size)
        return
    if game == "conspiracy":
        from reports import conspiracy_cli

        if resume is not None:
            options = read_plan(partial_dir(resume))
            players, games, seed = options["n_players"], options["n_games"], options["seed"]
            strategies, set_ = ",".join(options["strategies"]), options["set"]
            cards = Path(options["cards"]) if options["cards"] else None
            presets = Path(options["presets"]) if options["presets"] else None

        check_engine(engine)
        check_seed(seed)
        conspiracy_cli.simulate(
            players=players,
            games=games,
            seed=seed,
            strategies=conspiracy_cli.DEFAULT_STRATEGIES
            if strategies == DEFAULT_STRATEGIES
            else strategies,
            out=out,
            cards_dir=cards,
            set_=set_,
            engine=engine,
            threads=threads,
            presets=presets,
            expansions=expansions,
            resume=resume,
            chunk_size=chunk_size,
            backend=backend,
            scheduler=scheduler,
        )
        return
    t_start = time.perf_counter()
    from sim.core.runs import create_run_dir, default_run_dir, write_manifest, write_parquet

    if resume is not None:
        from sim.core.runs import resume_run_dir

        out_dir = resume
        staging = resume_run_dir(resume)
        plan = read_plan(staging.dir)
        players, games, seed = plan["n_players"], plan["n_games"], plan["seed"]
        strategies, engine, per_game = ",".join(plan["strategies"]), "fast", plan["per_game"]
        expansions = ",".join(plan["expansions"])
        cards = Path(plan["cards"]) if plan["cards"] else None
        set_, presets = plan["set"], Path(plan["presets"]) if plan["presets"] else None
    use_presets(presets)
    exp = parse_expansions(expansions)
    check_players(players, exp)
    if games < 1:
        raise UserError(f"--games must be at least 1; got {games}")
    check_seed(seed)
    check_engine(engine)
    if chunk_size is not None and chunk_size < 1:
        raise UserError(f"--chunk-size must be at least 1; got {chunk_size}")
    lineup = parse_lineup(strategies, players)

    if resume is None:
        out_dir = out if out is not None else default_run_dir("runs", seed=seed)
        # refuses an existing directory before any work; the fast engine's runs can resume
        staging = create_run_dir(out_dir, resumable=engine == "fast")
        write_plan(
            staging.dir,
            {
                "n_players": players,
                "n_games": games,
                "seed": seed,
                "strategies": lineup,
                "per_game": per_game,
                "expansions": list(exp),
                "cards": str(cards) if cards is not None else None,
                "set": list(set_ or []),
                "presets": str(presets) if presets is not None else None,
            },
        )
    with staging, interrupt_note(staging, out_dir):
        t0 = time.perf_counter()
        tables = load_tables(cards, set_, exp)
        seal_plan(staging, resume is not None, tables, presets, out_dir)
        t_cards = time.perf_counter() - t0

        from sim.abyss.runner import run_games

        t0 = time.perf_counter()
        if backend == "dask":
            run_games = dask_runner(scheduler, threads)  # noqa: F811
        seats_rows, games_rows, agg, runner_timings = run_games(
            tables,
            engine=engine,
            n_players=players,
            n_games=games,
            seed=seed,
            strategies=abyss_policies(lineup),
            expansions=exp,
            threads=threads,
            per_game=per_game,
            progress=sys.stderr.isatty(),
            store=chunk_store(staging) if engine == "fast" else None,
            chunk_size=chunk_size,
        )
        t_run = time.perf_counter() - t0

        from reports.summary import summarize_aggregates
        from sim.core.runs import atomic_write_text
        from sim.core.schema import SCHEMA_VERSION, games_frame, seats_frame

        t0 = time.perf_counter()
        if per_game:
            write_parquet(seats_frame(seats_rows), staging.dir / "seats.parquet")
            write_parquet(games_frame(games_rows), staging.dir / "games.parquet")
        agg.save(staging.dir / "aggregates.npz")
        summary = summarize_aggregates(agg)
        atomic_write_text(staging.dir / "summary.txt", summary)
        t_write = time.perf_counter() - t0
        write_manifest(
            staging.dir,
            command=["abyss-mc", *sys.argv[1:]],
            seed=seed,
            config={
                "command": "simulate",
                "n_players": players,
                "n_games": games,
                "seed": seed,
                "strategies": lineup,
                "expansions": list(exp),
                "engine": engine,
                "threads": runner_timings.get("threads"),
                "per_game": per_game,
                **data_options(cards, set_, presets, out_dir),
            },
            card_digest=card_digest(tables, cards, set_),
            timings={
                "load_cards": t_cards,
                "run_simulation": t_run,
                "write": t_write,
                "total": time.perf_counter() - t_start,
                "runner": dict(runner_timings or {}),
            },
            extra={"schema_version": SCHEMA_VERSION},
        )
        finish_run(staging)

    typer.echo(summary, nl=False)
    typer.echo(f"results: {out_dir}")


def _simulate_wilds(games: int, seed: int, cards, set_, out, backend="local", scheduler=None,
                    threads=None, chunk_size=None) -> None:  # fmt: skip
    """`simulate --game wilds`: episodes of every strike setting and warp-deck variant; the
    long-form table, a summary and the report (all data PLACEHOLDER). On `--backend dask` the
    episodes are played on the cluster, with the same results."""

    from reports.wilds import build_report, distributed_runner, effort, run_analysis
    from sim.core.runs import (
        atomic_write_text,
        create_run_dir,
        default_run_dir,
        write_manifest,
        write_parquet,
    )

    t_start = time.perf_counter()
    tables = wilds_tables(cards, set_)
    out_dir = out if out is not None else default_run_dir("runs", seed=seed)
    with create_run_dir(out_dir) as staging, contextlib.ExitStack() as stack:
        if backend == "dask":
            from sim.core.dask_backend import client

            c = stack.enter_context(client(scheduler, threads))
            frame = run_analysis(tables, seed, games, run=distributed_runner(c, chunk_size))
        else:
            frame = run_analysis(tables, seed, games)
        write_parquet(frame, staging.dir / "crystals.parquet")
        table = effort(frame[frame["deck"] == "as given"], ["setting", "warped"])
        text = (
            "Warped crystals (ALL DATA IS PLACEHOLDER): per crystal broken, mean strikes and "
            f"turns spent on it, {games:,} episodes per setting\n"
            + table[["setting", "warped", "strikes", "turns_spent", "warps"]].to_string(
                index=False, float_format=lambda x: f"{x:.2f}"
            )
            + "\n"
        )
        atomic_write_text(staging.dir / "summary.txt", text)
        command = " ".join(["abyss-mc", *sys.argv[1:]])
        build_report(frame, tables, command).write(staging.dir / "report")
        write_manifest(
            staging.dir,
            command=["abyss-mc", *sys.argv[1:]],
            seed=seed,
            config={"game": "wilds", "command": "simulate", "n_games": games, "seed": seed,
                    **data_options(cards, set_, None, out_dir)},
            card_digest=tables.digest,
            timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        staging.commit()
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
    typer.echo(f"report: {out_dir / 'report' / 'report.html'}")
