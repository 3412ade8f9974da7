"""`abyss-mc tournament`: strategies compared with seat rotation, intervals over blocks."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from reports.commands import common as c
from sim.core.errors import UserError


@c.user_errors
def tournament(
    strategies: Annotated[
        str,
        typer.Option(
            "--strategies",
            metavar="A,B,...",
            help="The strategies to compare (at least two, each once), with optional "
            "parameters: name:param=value. Default: every built-in strategy of the game and "
            "the random policy.",
        ),
    ] = None,
    players: Annotated[
        str,
        typer.Option(
            "--players",
            metavar="N[,N...]",
            help="Players per game: 2-4, or 2-5 with Leviathan; several counts (e.g. 3,4) play "
            "one tournament each and the report compares their seat advantage. Default: every "
            "count the game allows.",
        ),
    ] = "all",
    blocks: Annotated[
        int,
        typer.Option(
            "--blocks",
            help="Deals to play; every table of the design plays each deal (common random "
            "numbers). Games = blocks x tables.",
        ),
    ] = 2500,
    design: Annotated[
        str,
        typer.Option(
            "--design",
            metavar="balanced|cyclic|all",
            help="Line-ups when there are more strategies than seats: balanced (default: each "
            "strategy in n line-ups of every block, the strategies in a fresh random order each "
            "block, so every pair meets equally often in expectation), cyclic (one fixed order) "
            "or every combination. Each line-up plays in every rotation of its seats.",
        ),
    ] = "balanced",
    crn: Annotated[
        str,
        typer.Option(
            "--crn",
            metavar="auto|block|lineup|none",
            help="Common random numbers: every table of a block plays the same deal (block), "
            "only the rotations of each line-up (lineup), or every table its own deal (none); "
            "auto (default): block with one line-up, none with several, as measured best in "
            "docs/tournament.md.",
        ),
    ] = "auto",
    sequential: Annotated[
        float | None,
        typer.Option(
            "--sequential",
            metavar="ALPHA",
            help="Stop as soon as every pair of strategies is told apart, with family-wise "
            "error rate ALPHA at any stopping time; --blocks is then the budget.",
        ),
    ] = None,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            metavar="local|dask",
            help="Where the blocks are played: here, or on a Dask cluster (chunks of blocks; "
            "the same results). Not with --sequential.",
        ),
    ] = "local",
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", metavar="ADDRESS", help="A Dask scheduler.")
    ] = None,
    seed: c.SeedOption = 1,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="New directory for the results (must not "
            "exist). Default: a new runs/<UTC time>-seed<seed>.",
        ),
    ] = None,
    report: Annotated[
        bool, typer.Option("--report/--no-report", help="Also write the balance report.")
    ] = False,
    expansions: c.ExpansionsOption = None,
    fight_points: Annotated[
        int,
        typer.Option(
            "--fight-points",
            help="With Leviathan: decision points of the fight-or-explore rollouts for the "
            "report (also as many games of rule rollouts); 0 skips them. See `abyss-mc ev "
            "rollout` for the full analysis.",
        ),
    ] = 2000,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    threads: c.ThreadsOption = None,
    presets: c.PresetsOption = None,
    game: c.GameOption = "abyss",
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Finish an interrupted tournament: its finished chunks of blocks are kept, the "
            "rest is played with its own options.",
        ),
    ] = None,
) -> None:
    """Compare strategies with seat rotation and common random numbers; print the ranking."""
    staging = None
    if resume is not None:
        from sim.core.runs import resume_run_dir

        staging = resume_run_dir(resume)
        options = c.read_plan(staging.dir)
        strategies, players, blocks = options["strategies"], options["players"], options["blocks"]
        design, crn, seed = options["design"], options["crn"], options["seed"]
        report, expansions = options["report"], options["expansions"]
        fight_points, game, set_ = options["fight_points"], options["game"], options["set"]
        cards, presets = c.recorded_paths(options)
        out, sequential = resume, options.get("sequential")
    c.check_backend(backend, scheduler)
    if backend == "dask" and sequential is not None:
        raise UserError("--backend dask does not run --sequential tournaments; use local")
    spec = c.game_spec(game)
    spec.play()  # a game without games of strategies says so here
    t_start = time.perf_counter()
    spec.strategies().use_presets(presets)
    exp = c.game_expansions(spec, expansions, spec.tournament_expansions)
    tables = spec.load_cards(cards, set_, exp)
    counts = (
        list(spec.play().player_counts(tables, exp)) if players == "all"
        else c.parse_player_counts(players)
    )  # fmt: skip
    for n in counts:
        spec.check_players(tables, n, exp)
    c.check_seed(seed)
    if blocks < 1:
        raise UserError(f"--blocks must be at least 1; got {blocks}")
    if fight_points < 0 or fight_points == 1:
        raise UserError(f"--fight-points must be 0 or at least 2; got {fight_points}")
    if sequential is not None and not 0 < sequential < 1:
        raise UserError(f"--sequential must be between 0 and 1; got {sequential}")
    names = [p.strip() for p in (strategies or spec.default_tournament).split(",") if p.strip()]
    from reports.tournament import crn_mode, make_design

    crn = crn_mode(crn)
    for name in names:
        spec.strategies().make_policy(name)  # unknown names and parameters fail before any work
    plans = {n: make_design(names, n, design) for n in counts}

    from sim.core.runs import create_run_dir, default_run_dir, write_parquet

    out_dir = out if out is not None else default_run_dir("runs", seed=seed)
    resumed = staging is not None
    if staging is None:
        staging = create_run_dir(out_dir, resumable=True)
        c.write_plan(
            staging.dir,
            {
                **c.tournament_options(
                    ",".join(names), players, blocks, design, crn, seed, report,
                    ",".join(exp), fight_points, cards, set_, presets, spec.name,
                ),
                "sequential": sequential,
            },
        )  # fmt: skip
    with staging, c.interrupt_note(staging, out_dir, "tournament"), \
            c.cluster_for(backend, scheduler, threads) as cluster:  # fmt: skip
        c.seal_plan(staging, resumed, tables, presets, out_dir)
        import pandas as pd

        from reports.tournament import run_tournament, tournament_text
        from sim.core.runs import atomic_write_text

        results = {}
        for n in counts:
            results[n] = run_tournament(
                tables,
                names,
                n_players=n,
                n_blocks=blocks,
                seed=seed,
                design=design,
                crn=crn,
                threads=threads,
                progress=sys.stderr.isatty(),
                sequential_alpha=sequential,
                game=spec.name,
                store=c.chunk_store(staging, f"{n}p"),
                client=cluster,
            )
        typed = [spec.play().tournament_frames(r.seats, r.games) for r in results.values()]
        seats_df = pd.concat([t[0] for t in typed], ignore_index=True)
        games_df = pd.concat([t[1] for t in typed], ignore_index=True)
        write_parquet(seats_df, staging.dir / "seats.parquet")
        write_parquet(games_df, staging.dir / "games.parquet")
        for n, r in results.items():
            if r.aggregates is not None:
                name = "aggregates.npz" if len(counts) == 1 else f"aggregates-{n}p.npz"
                r.aggregates.save(staging.dir / name)
        text = "".join(
            (f"== {n} players ==\n" if len(counts) > 1 else "") + tournament_text(r)
            for n, r in results.items()
        )
        atomic_write_text(staging.dir / "summary.txt", text)
        extras = getattr(spec.report(), "tournament_extras", None)
        extra_config = extras(
            tables, names=names, counts=counts, seed=seed, expansions=exp,
            fight_points=fight_points, run_dir=staging.dir,
        ) if extras is not None else {}  # fmt: skip
        one = len(counts) == 1
        c.write_run_manifest(
            staging,
            seed,
            {
                "game": spec.name,
                "command": "tournament",
                **extra_config,
                "n_players": counts[0] if one else counts,
                "strategies": names,
                "blocks": results[counts[0]].n_blocks
                if one
                else {n: r.n_blocks for n, r in results.items()},
                "blocks_budget": blocks,
                "tables": plans[counts[0]].n_tables
                if one
                else {n: p.n_tables for n, p in plans.items()},
                "n_games": int(len(games_df)),
                "design": design,
                "crn": crn,
                "sequential": sequential,
                "stopped_early": all(r.stopped_early for r in results.values()),
                "seed": seed,
                "expansions": list(exp),
                **c.data_options(cards, set_, presets, out_dir),
            },  # fmt: skip
            card_digest=c.card_digest(tables, cards, set_),
            timings={
                "total": time.perf_counter() - t_start,
                "runner": {str(n): r.timings for n, r in results.items()},
            },
            extra=c.schema_entry(spec),
        )
        if report:
            spec.report().write_report(staging.dir, staging.dir / "report")
        c.finish_run(staging)
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
    if report:
        typer.echo(f"report: {out_dir / 'report' / 'report.html'}")
