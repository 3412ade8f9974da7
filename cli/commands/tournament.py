"""`abyss-mc tournament`: strategies compared with seat rotation, intervals over blocks."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

from cli.commands import common as c
from cli.strength_options import (
    CardBlocksOption,
    MinutesOption,
    SearchBlocksOption,
    SearchRolloutsOption,
    StrengthsOption,
)
from reports.run_dir import (
    Run,
    recorded_paths,
)
from sim.core.errors import UserError


@c.user_errors
def tournament(
    strategies: c.option(str, "--strategies", "The strategies to compare (at least two, each "
                         "once), with optional parameters: name:param=value. Default: every "
                         "built-in strategy of the game and the random policy.", "A,B,...") = None,
    players: c.option(str, "--players", "Players per game: 2-4, or 2-5 with Leviathan; several "
                      "counts (e.g. 3,4) play one tournament each and the report compares their "
                      "seat advantage. Default: every count the game allows.", "N[,N...]") = "all",
    blocks: c.option(int, "--blocks", "Deals to play; every table of the design plays each deal "
                     "(common random numbers). Games = blocks x tables.") = 2500,
    design: c.option(str, "--design", "Line-ups when there are more strategies than seats: "
                     "balanced (default: each strategy in n line-ups of every block, the "
                     "strategies in a fresh random order each block, so every pair meets equally "
                     "often in expectation), cyclic (one fixed order) or every combination. Each "
                     "line-up plays in every rotation of its seats.",
                     "balanced|cyclic|all") = "balanced",
    crn: c.option(str, "--crn", "Common random numbers: every table of a block plays the same "
                  "deal (block), only the rotations of each line-up (lineup), or every table its "
                  "own deal (none); auto (default): block with one line-up, none with several, as "
                  "measured best in docs/tournament.md.", "auto|block|lineup|none") = "auto",
    sequential: c.option(float | None, "--sequential", "Stop as soon as every pair of strategies "
                         "is told apart, with family-wise error rate ALPHA at any stopping time; "
                         "--blocks is then the budget.", "ALPHA") = None,
    backend: c.BackendOption = "local",
    scheduler: c.SchedulerOption = None,
    seed: c.SeedOption = 1,
    out: c.OutDirOption = None,
    report: c.option(bool, "--report/--no-report", "Also write the balance report.") = False,
    expansions: c.ExpansionsOption = None,
    fight_points: c.option(int, "--fight-points", "With Leviathan: decision points of the "
                           "fight-or-explore rollouts for the report (also as many games of rule "
                           "rollouts); 0 skips them. See `abyss-mc ev rollout` for the full "
                           "analysis.") = 2000,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    threads: c.ThreadsOption = None,
    presets: c.PresetsOption = None,
    game: c.GameOption = "abyss",
    resume: c.option(Path | None, "--resume", "Finish an interrupted tournament: its finished "
                     "chunks of blocks are kept, the rest is played with its own options.",
                     "DIR") = None,
    strengths: StrengthsOption = "auto",
    search_blocks: SearchBlocksOption = 20,
    search_rollouts: SearchRolloutsOption = 32,
    card_blocks: CardBlocksOption = None,
    minutes: MinutesOption = None,
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
        minutes = options.get("card_minutes")
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
    from reports.strengths import resolve_options

    strengths, card_blocks = resolve_options(spec, strengths, card_blocks, report,
                                             builtin=strategies is None, minutes=minutes)
    if strengths == "search" and min(search_blocks, search_rollouts) < 1:
        raise UserError("--search-blocks and --search-rollouts must be at least 1")
    from reports.play.tournament import crn_mode, make_design

    crn = crn_mode(crn)
    for name in names:
        spec.strategies().make_policy(name)  # unknown names and parameters fail before any work
    plans = {n: make_design(names, n, design) for n in counts}

    from reports.runs import tournament as TR

    if run is None:
        run = Run.start("tournament", out, seed, {
            **c.tournament_options(
                ",".join(names), players, blocks, design, crn, seed, report,
                ",".join(exp), fight_points, cards, set_, presets, spec.name,
            ),
            "sequential": sequential,
            "strengths": strengths,
            "card_blocks": card_blocks,
            "card_minutes": minutes,
            "search_blocks": search_blocks,
            "search_rollouts": search_rollouts,
        })  # fmt: skip
    setup = TR.TournamentSetup(
        spec, tables, exp, names, counts, plans, blocks, seed, design, crn, sequential,
        strengths, card_blocks, (search_blocks, search_rollouts), fight_points, report, cards,
        set_, presets, threads, t_start, minutes)
    progress = lambda total: c.GamesProgress(total, sys.stderr.isatty())  # noqa: E731
    text, out_dir = TR.play(setup, run, backend, scheduler, progress)
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
    if report:
        table = out_dir / "report" / "verdicts.txt"  # the report's first screen
        if table.is_file():
            typer.echo("\nverdicts (colours and details in the report):\n" + table.read_text())
        typer.echo(f"report: {out_dir / 'report' / 'report.html'}")
