"""`abyss-mc design`: which card and rule values meet a designer's targets (`reports.design`)."""

from __future__ import annotations

import shlex
import sys
import time
from importlib import import_module
from pathlib import Path

import typer

from cli.commands import common as c
from reports.run_dir import Run, card_digest, data_args, data_paths
from sim.core.errors import UserError


@c.user_errors
def design(
    vary: c.option(list[str] | None, "--vary", "A card-data or rules value to search (any key "
                   "--set takes): a range of integers or reals, or choices; repeatable, e.g. "
                   "--vary rules.seat_4_pearls=0..4.", "KEY=LO..HI|KEY=A|B") = None,
    target: c.option(list[str] | None, "--target", "What the values must achieve: METRIC<=X, "
                     ">=X (the 95% interval on that side) or ==X±M (inside X-M..X+M; +-M too; "
                     "without M a margin per metric, docs/design.md); shares as fractions "
                     "(24.5% also reads 0.245). Metrics: seat_spread, "
                     "seat_share:N, win_rate:STRATEGY, rounds, card_value:KEY (e.g. "
                     "card_value:lord.jailer), max_card_value, lead_changes, decisive_point, "
                     "comeback, margin. Repeatable.", "METRIC<=X") = None,
    game: c.GameOption = "abyss",
    players: c.PlayersOption = 4,
    strategies: c.option(str | None, "--strategies", "The line-up, cycled to --players. Default: "
                         "the game's tournament strategies but random, one per seat, each tuned "
                         "for the player count where a tuned preset exists.", "A,B,...") = None,
    card_strategy: c.option(str | None, "--card-strategy", "The strategy whose cards are valued "
                            "(card_value targets; it plays every seat). Default: the line-up's "
                            "first.", "S") = None,
    minutes: c.option(float | None, "--minutes", "Bound the whole run to about this many "
                      "minutes: the search stops in time for the first finalists and the "
                      "confirmation; later rounds and the other players' checks are skipped "
                      "(and said so) when they would not fit. Default: --candidates only.",
                      "M") = None,
    candidates: c.option(int, "--candidates", "Candidates the search asks at most.") = 48,
    blocks: c.option(int, "--blocks", "Deals each candidate plays in the search (every seat "
                     "rotation, the same deals for every candidate).") = 200,
    finalists: c.option(int, "--finalists", "Candidates a round of finalists plays on deals of "
                        "its own.") = 4,
    reeval_blocks: c.option(int, "--reeval-blocks", "Deals of each finalist, of the "
                            "confirmation and of the other players' checks.") = 800,
    retune_candidates: c.option(int, "--retune-candidates", "Candidates of each strategy's "
                                "re-tune under the recommended values.") = 16,
    seed: c.SeedOption = 1,
    expansions: c.ExpansionsOption = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    presets: c.PresetsOption = None,
    out: c.OutDirOption = None,
    resume: c.option(Path | None, "--resume", "Finish an interrupted search: its finished "
                     "batches and stages are kept.", "DIR") = None,
    backend: c.BackendOption = "local",
    scheduler: c.SchedulerOption = None,
    threads: c.ThreadsOption = None,
) -> None:
    """Search card and rule values for those nearest the data as given that meet the targets,
    choose among finalists on deals of their own, confirm the choice on deals nothing chose
    on, and check the answer with re-tuned players and the learned player."""
    options = {"vary": list(vary or []), "target": list(target or []), "game": game,
               "players": players, "strategies": strategies, "card_strategy": card_strategy,
               "minutes": minutes, "candidates": candidates, "blocks": blocks,
               "finalists": finalists, "reeval_blocks": reeval_blocks,
               "retune_candidates": retune_candidates, "seed": seed,
               "expansions": expansions}  # fmt: skip
    run, o, set_, cards, presets, out = c.resumed("design", resume, options, set_, cards,
                                                  presets, out)  # fmt: skip
    c.check_backend(backend, scheduler)
    _design(o, cards, set_, presets, out, run, backend, scheduler, threads)


def _design(o, cards, set_, presets, out, run, backend, scheduler, threads) -> None:
    from reports.design import Budget, Problem, Timer
    from reports.design_targets import Field, parse_targets, parse_vary, with_starts
    from reports.runs.design import run_design

    timer = Timer(o["minutes"], time.monotonic)
    varies = parse_vary(o["vary"])
    targets = parse_targets(o["target"], o["players"])
    budget = Budget(candidates=o["candidates"], blocks=o["blocks"], finalists=o["finalists"],
                    reeval_blocks=o["reeval_blocks"],
                    retune_candidates=o["retune_candidates"], minutes=o["minutes"])  # fmt: skip
    spec = c.game_spec(o["game"])
    set_value = import_module(spec.cards_module).set_value
    if spec.analysis_module is not None or set_value is None:
        raise UserError(f"{spec.title} has no design search: its runs are not games of a line-up")
    spec, registry, exp, tables = c.field_setup(o, cards, set_, presets)
    n = o["players"]
    lineup, _ = c.game_lineup(spec, o["strategies"] or default_lineup(spec, registry, n), n)
    card_strategy = (o["card_strategy"] or lineup[0]).strip()
    if any(t.metric in ("card_value", "max_card_value") for t in targets):
        if spec.report().restrictions is None:
            raise UserError(f"{spec.title} has no restricted play: no card_value targets")
        registry.make_policy(card_strategy)
    from sim.core.carddata import parse_set_options

    given = parse_set_options(list(set_ or []))
    varies = with_starts(varies, lambda key: set_value(cards, given, key))
    fld = Field(spec, lineup, n, card_strategy, cards, list(set_ or []), exp)
    for v in varies:  # both ends of every range are valid card data, before any game
        for end in ((v.low, v.high) if v.kind != "choice" else v.choices):
            fld.tables({v.key: int(end) if v.kind == "int" else end})
    check_targets(spec, fld, tables, targets)
    problem = Problem(fld, varies, targets, o["seed"])
    command = recorded_command(o, spec, exp, lineup, card_strategy, cards, set_, presets)
    if run is None:
        run = Run.start("design", out, o["seed"], {
            "options": o, "game": spec.name, **data_paths(cards, set_, presets)})  # fmt: skip
    total = (budget.candidates * problem.games(budget.blocks)
             + (budget.finalists + 2) * problem.games(budget.reeval_blocks))
    progress = c.GamesProgress(total, sys.stderr.isatty())
    config = {"game": spec.name, "command": "design", **o, "expansions": list(exp),
              "lineup": lineup, "card_strategy": card_strategy, "recorded_command": command,
              "starts": {v.key: v.start for v in varies}}  # fmt: skip
    summary, out_dir = run_design(problem, budget, run, progress, config=config,
                                  sealed=(tables, presets), cluster=(backend, scheduler, threads),
                                  card_digest=card_digest(tables, cards, set_),
                                  timer=timer)  # fmt: skip
    typer.echo(summary, nl=False)
    typer.echo(f"results: {out_dir}")


def default_lineup(spec, registry, n_players: int) -> str:
    """The game's tournament strategies but random, one per seat, each as its preset tuned for
    the player count where there is one (`c.mixed_lineup`)."""
    presets = registry.presets()
    names = c.mixed_lineup(spec, n_players).split(",")
    return ",".join(f"{s}_tuned_{n_players}p" if f"{s}_tuned_{n_players}p" in presets else s
                    for s in names)  # fmt: skip


def recorded_command(o, spec, exp, lineup, card_strategy, cards, set_, presets) -> str:
    """The command that makes this design again, every option that changes its result written
    out (the line-up as played, the budget); not where it is written nor played."""
    args = ["abyss-mc", "design", "--game", spec.name, "--players", str(o["players"]),
            "--strategies", ",".join(lineup), "--card-strategy", card_strategy]  # fmt: skip
    for item in o["vary"]:
        args += ["--vary", item]
    for item in o["target"]:
        args += ["--target", item]
    if exp or spec.tournament_expansions:
        args += ["--expansions", ",".join(exp)]
    for key in ("candidates", "blocks", "finalists", "reeval_blocks", "retune_candidates",
                "seed"):  # fmt: skip
        args += ["--" + key.replace("_", "-"), str(o[key])]
    if o["minutes"] is not None:
        args += ["--minutes", f"{o['minutes']:g}"]
    return shlex.join(args + data_args(cards, set_, presets))


def check_targets(spec, fld, tables, targets) -> None:
    """The cards and strategies the targets name exist, before any game."""
    from reports.design_targets import card_of

    for t in targets:
        if t.metric == "card_value":
            card_of(t.arg, spec.report().restrictions(tables))
        if t.metric == "win_rate" and t.arg not in fld.lineup:
            raise UserError(f"--target {t.text}: {t.arg} is not in the line-up "
                            f"({', '.join(fld.lineup)})")  # fmt: skip
