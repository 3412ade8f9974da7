"""`abyss-mc tournament`: strategies compared with seat rotation, intervals over blocks."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c
from reports.run import (
    Run,
    card_digest,
    data_options,
    load_array,
    read_plan,
    recorded_paths,
    save_array,
)
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
    strengths: Annotated[
        str,
        typer.Option(
            "--strengths",
            metavar="auto|tuned|search|none",
            help="Also play the tuned versions made for each player count of the line-up's "
            "presets (<preset>_tuned_<N>p; a second tournament in strengths/tuned/), so the "
            "report says whether each verdict holds across play strengths, and names the "
            "strategies without one. search: also search players modelling the best tuned "
            "presets (a third tournament in strengths/search/; minutes, not seconds). auto "
            "(default): tuned, with --report.",
        ),
    ] = "auto",
    search_blocks: Annotated[
        int,
        typer.Option(
            "--search-blocks",
            metavar="B",
            help="Blocks of the search tier's tournaments (--strengths search).",
        ),
    ] = 20,
    search_rollouts: Annotated[
        int,
        typer.Option(
            "--search-rollouts",
            metavar="R",
            help="Rollouts per decision of the search tier's players (--strengths search).",
        ),
    ] = 32,
    card_blocks: Annotated[
        int | None,
        typer.Option(
            "--card-blocks",
            metavar="B",
            help="Restricted play for the report's card values: deals per card for the best "
            "strategy of each play strength at 4 players (`abyss-mc restrict`); 0 skips. "
            "Default: 250 with --report and the built-in line-up, else 0.",
        ),
    ] = None,
) -> None:
    """Compare strategies with seat rotation and common random numbers; print the ranking."""
    run = None
    if resume is not None:
        run = Run.resume("tournament", resume)
        options = run.plan
        strategies, players, blocks = options["strategies"], options["players"], options["blocks"]
        design, crn, seed = options["design"], options["crn"], options["seed"]
        report, expansions = options["report"], options["expansions"]
        fight_points, game, set_ = options["fight_points"], options["game"], options["set"]
        cards, presets = recorded_paths(options)
        out, sequential = resume, options.get("sequential")
        strengths, card_blocks = options.get("strengths", "none"), options.get("card_blocks", 0)
        search_blocks = options.get("search_blocks", search_blocks)
        search_rollouts = options.get("search_rollouts", search_rollouts)
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
    strengths, card_blocks = _strength_options(spec, strengths, card_blocks, report,
                                               builtin=strategies is None)  # fmt: skip
    if strengths == "search" and min(search_blocks, search_rollouts) < 1:
        raise UserError("--search-blocks and --search-rollouts must be at least 1")
    from reports.tournament import crn_mode, make_design

    crn = crn_mode(crn)
    for name in names:
        spec.strategies().make_policy(name)  # unknown names and parameters fail before any work
    plans = {n: make_design(names, n, design) for n in counts}

    from sim.core.runs import write_parquet

    if run is None:
        run = Run.start("tournament", out, seed, {
            **c.tournament_options(
                ",".join(names), players, blocks, design, crn, seed, report,
                ",".join(exp), fight_points, cards, set_, presets, spec.name,
            ),
            "sequential": sequential,
            "strengths": strengths,
            "card_blocks": card_blocks,
            "search_blocks": search_blocks,
            "search_rollouts": search_rollouts,
        })  # fmt: skip
    out_dir = run.out
    with run:
        run.seal(tables, presets)
        cluster = run.cluster(backend, scheduler, threads)
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
                store=run.store(f"{n}p"),
                client=cluster,
            )
        typed = [spec.play().tournament_frames(r.seats, r.games) for r in results.values()]
        seats_df = pd.concat([t[0] for t in typed], ignore_index=True)
        games_df = pd.concat([t[1] for t in typed], ignore_index=True)
        write_parquet(seats_df, run.dir / "seats.parquet")
        write_parquet(games_df, run.dir / "games.parquet")
        for n, r in results.items():
            if r.aggregates is not None:
                name = "aggregates.npz" if len(counts) == 1 else f"aggregates-{n}p.npz"
                r.aggregates.save(run.dir / name)
        text = "".join(
            (f"== {n} players ==\n" if len(counts) > 1 else "") + tournament_text(r)
            for n, r in results.items()
        )
        atomic_write_text(run.dir / "summary.txt", text)
        extras = spec.report().tournament_extras
        extra_config = extras(
            tables, names=names, counts=counts, seed=seed, expansions=exp,
            fight_points=fight_points, run_dir=run.dir,
        ) if extras is not None else {}  # fmt: skip
        extra_config |= _play_strengths(
            spec, tables, names, counts, results, run, cluster, strengths=strengths,
            card_blocks=card_blocks, blocks=blocks, design=design, crn=crn, seed=seed,
            threads=threads, fight_points=fight_points, expansions=exp,
            search=(search_blocks, search_rollouts),
        )  # fmt: skip
        one = len(counts) == 1
        run.write_manifest(
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
                **data_options(cards, set_, presets, out_dir),
            },  # fmt: skip
            card_digest=card_digest(tables, cards, set_),
            timings={
                "total": time.perf_counter() - t_start,
                "runner": {str(n): r.timings for n, r in results.items()},
            },
            extra=c.schema_entry(spec),
        )
        if report:
            spec.report().write_report(run.dir, run.dir / "report")
        run.finish()
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
    if report:
        typer.echo(f"report: {out_dir / 'report' / 'report.html'}")


def _strength_options(spec, strengths: str, card_blocks: int | None, report: bool, *,
                      builtin: bool):  # fmt: skip
    """`--strengths` and `--card-blocks` resolved ("tuned", "search" or "none"; a number of
    blocks): with `--report` the tuned tier is played for any line-up, the card values only for
    the built-in one (`builtin`)."""
    if strengths not in ("auto", "tuned", "search", "none"):
        raise UserError(f"--strengths must be auto, tuned, search or none; got {strengths!r}")
    if strengths == "auto":
        strengths = "tuned" if report else "none"
    if strengths == "search" and "search" not in spec.strategies().policies:
        raise UserError(f"--strengths search: {spec.title} has no search player yet; "
                        "use --strengths tuned")  # fmt: skip
    if card_blocks is None:
        card_blocks = CARD_BLOCKS if report and builtin else 0
    if card_blocks < 0 or card_blocks == 1:
        raise UserError(f"--card-blocks must be 0 or at least 2; got {card_blocks}")
    if card_blocks and spec.report().restrictions is None:
        card_blocks = 0  # a game without restricted play yet
    return strengths, card_blocks


#: Deals per card of the report's restricted play (docs/restricted-play.md: what it can tell).
CARD_BLOCKS = 250


def _play_strengths(spec, tables, names, counts, results, run, cluster, *, strengths,
                    card_blocks, blocks, design, crn, seed, threads, fight_points,
                    expansions, search) -> dict:  # fmt: skip
    """The tuned tier's tournaments (strengths/tuned/), the search tier's (strengths/search/)
    and the card values of the tiers of presets (card_values/<tier>/): `reports.strengths`.
    The manifest's entries (with the tuned tier: `tuned_versions`, player count -> strategy ->
    its tuned version or None, for the report's note on those without)."""
    import pandas as pd

    from reports import strengths as St
    from reports.tournament import run_tournament

    registry = spec.strategies()
    tiers = {St.HAND if not any(St.is_tuned(s) for s in names) else "as run": (names, results)}

    def play_tier(tier, lineups, n_blocks):
        played = {n: run_tournament(
            tables, lineup, n_players=n, n_blocks=n_blocks, seed=seed, design=design, crn=crn,
            threads=threads, progress=sys.stderr.isatty(), game=spec.name,
            store=run.store(f"{tier}-{n}p"), client=cluster,
        ) for n, lineup in lineups.items()}  # fmt: skip
        if played:
            _write_tier(spec, tables, run, tier, lineups, played, seed=seed,
                        expansions=expansions, fight_points=fight_points)  # fmt: skip
        return played

    versions = {}
    if strengths in ("tuned", "search"):
        versions = {str(n): St.tuned_versions(registry, names, n) for n in counts}
        lineups = {n: St.tuned_lineup(registry, names, n) for n in counts}
        lineups = {n: lineup for n, lineup in lineups.items() if lineup}
        tuned = play_tier(St.TUNED, lineups, blocks)
        if tuned:
            tiers[St.TUNED] = (sorted({s for x in lineups.values() for s in x}), tuned)
        if strengths == "search" and tuned:
            n_blocks, rollouts = search
            seats = pd.read_parquet(run.dir / St.TUNED_DIR / "seats.parquet")
            lineups = {n: St.search_lineup(seats, n, rollouts) for n in tuned}
            play_tier(St.SEARCH, lineups, n_blocks)
    if card_blocks:  # not the search tier's: restricted play of a search player costs hours
        for tier, (_, res) in tiers.items():
            _card_values(spec, tables, run, cluster, tier, res, card_blocks, seed)
    played = list(tiers) + ([St.SEARCH] if (run.dir / St.SEARCH_DIR).is_dir() else [])
    return {"strengths": played, "card_blocks": card_blocks,
            **({"tuned_versions": versions} if versions else {})}  # fmt: skip


def _write_tier(spec, tables, run, tier, lineups, results, *, seed, expansions,
                fight_points):  # fmt: skip
    import json
    import shutil

    import pandas as pd

    from reports import strengths as St
    from reports.tournament import tournament_text
    from sim.core.runs import atomic_write_text, write_parquet

    d = run.dir / "strengths" / tier
    shutil.rmtree(d, ignore_errors=True)  # a resumed run writes it again from its chunks
    d.mkdir(parents=True)
    typed = [spec.play().tournament_frames(r.seats, r.games) for r in results.values()]
    games = pd.concat([x[1] for x in typed], ignore_index=True)
    write_parquet(pd.concat([x[0] for x in typed], ignore_index=True), d / "seats.parquet")
    write_parquet(games, d / "games.parquet")
    for n, r in results.items():
        if r.aggregates is not None:
            r.aggregates.save(d / f"aggregates-{n}p.npz")
    text = "".join(f"== {n} players, {St.title(tier)} ==\n" + tournament_text(r)
                   for n, r in results.items())  # fmt: skip
    atomic_write_text(d / "summary.txt", text)
    extras = spec.report().tournament_extras
    if extras is not None and tier != St.SEARCH:  # the fight rollouts fork no search player
        n = St.card_players(list(lineups))
        extras(tables, names=lineups[n], counts=[n], seed=seed, expansions=expansions,
               fight_points=fight_points, run_dir=d)  # fmt: skip
    plan = read_plan(run.dir)  # the run's card data and options
    manifest = St.tier_manifest({**plan, "expansions": list(expansions), "seed": seed}, tier,
                                lineups, len(games))  # fmt: skip
    atomic_write_text(d / "manifest.json", json.dumps(manifest, indent=1) + "\n")


def _card_values(spec, tables, run, cluster, tier, results, card_blocks, seed) -> None:
    import pandas as pd

    from reports import restrict as R
    from reports import strengths as St
    from reports.tune import Problem

    n = St.card_players(list(results))
    seats = spec.play().tournament_frames(results[n].seats, results[n].games)[0]
    best = St.best_of(pd.DataFrame(seats), n)
    registry = spec.strategies()
    cardlist = spec.report().restrictions(tables)
    problem = Problem(spec.name, tables, n, best, "", {}, {}, [best] * (n - 1), seed, registry)
    store = run.store(f"cards-{tier}")
    done = {first: load_array(store, first) for first, _ in store.completed()} \
        if store is not None else {}  # fmt: skip
    progress = c.GamesProgress((1 + len(cardlist)) * card_blocks * n, sys.stderr.isatty())
    with progress:
        shares = R.play_restricted(
            problem, cardlist, blocks=card_blocks, seed=seed, client=cluster, done=done,
            save=(lambda f, k, part: save_array(store, f, k, part)) if store else None,
            progress=progress,
        )  # fmt: skip
    St.save_card_values(run.dir / St.CARDS_DIR / tier, R.impact_frame(cardlist, shares, n),
                        strategy=best, players=n, unrestricted=float(shares[0].mean()),
                        blocks=card_blocks)  # fmt: skip
