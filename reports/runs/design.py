"""`abyss-mc design` as a run: the procedure of `reports.design` with each stage stored as it
finishes (the search batch by batch, each round of finalists, the confirmation, the other
players), so that `--resume` picks up there, and what it writes (candidates.parquet and .csv, the
trade-off chart, the summary, the report, the manifest with the seeds by purpose)."""

from __future__ import annotations

import json
import math
import shlex
import time
from dataclasses import asdict
from pathlib import Path

from reports.design import Budget, Candidate, Memory, Problem, Timer
from reports.design_targets import Estimate
from reports.run_dir import Run, card_digest, data_args, data_paths
from reports.runs import setup as S
from reports.runs.options import DesignOptions
from sim.core.errors import UserError


def run(o: DesignOptions) -> S.Output:
    """Check the options, search into a new (or the resumed) run directory."""
    run, o = S.start_or_resume("design", o)
    S.check_backend(o.backend, o.scheduler)
    timer = Timer(o.minutes, time.monotonic)
    problem, budget, tables, config = checked(o)
    total = (budget.candidates * problem.games(budget.blocks)
             + (budget.finalists + 2) * problem.games(budget.reeval_blocks))
    if run is None and o.minutes is None:  # (--minutes is the user's own budget)
        fld = problem.field
        S.check_size(fld.spec, "design search", most_games(problem, budget) * o.players,
                     per_game=False, out=o.out, yes=o.yes, threads=o.threads,
                     n_players=o.players, expansions=fld.expansions,
                     policies=fld.spec.strategies().make_policies(fld.lineup, o.players))
    if run is None:
        run = Run.start("design", o.out, o.seed, {
            "options": o.stored(), "game": problem.field.spec.name,
            **data_paths(o.cards, o.set_, o.presets)})  # fmt: skip
    progress = S.GamesProgress(total, o.progress)
    summary, out_dir = run_design(problem, budget, run, progress, config=config,
                                  sealed=(tables, o.presets),
                                  cluster=(o.backend, o.scheduler, o.threads),
                                  card_digest=card_digest(tables, o.cards, o.set_),
                                  timer=timer)  # fmt: skip
    return S.Output(summary, out_dir, (f"results: {out_dir}",))


def most_games(problem: Problem, budget: Budget) -> int:
    """The games a design search plays at most (its size estimate): the candidates, every round
    of finalists (`reports.design.ROUNDS`), the confirmation and the baseline, then the re-tune
    of each player of the line-up with something to tune (its candidates, then 3 finalists and
    the start when it is not among them, each on twice the deals) and the checks of the
    re-tuned players and the learned one."""
    from reports.design import ROUNDS, retune_games, retune_plan

    one = problem.games(budget.reeval_blocks)
    plan = retune_plan(problem)
    return (budget.candidates * problem.games(budget.blocks)
            + (ROUNDS * budget.finalists + 2) * one + retune_games(problem, budget, len(plan))
            + (1 + bool(plan)) * one)


def checked(o: DesignOptions) -> tuple[Problem, Budget, object, dict]:
    """`(problem, budget, tables, config)`: the options checked before any game (a one-line
    `UserError` each; both ends of every range valid card data) and resolved (the line-up, the
    card strategy, each value's start), `config` what the manifest records."""
    from reports.design_targets import Field, parse_targets, parse_vary

    varies = parse_vary(o.vary)
    targets = parse_targets(o.target, o.players)
    budget = Budget(candidates=o.candidates, blocks=o.blocks, finalists=o.finalists,
                    reeval_blocks=o.reeval_blocks, retune_candidates=o.retune_candidates,
                    minutes=o.minutes)  # fmt: skip
    set_value = _set_value(S.game_spec(o.game))
    spec, registry, exp, tables = S.field_setup(o)
    n = o.players
    lineup, policies = S.game_lineup(spec, o.strategies or default_lineup(spec, registry, n), n)
    spec.check_effect(tables, [n], o.set_, policies)  # e.g. a Lord forbidden beyond the deck
    card_strategy = (o.card_strategy or lineup[0]).strip()
    if any(t.metric in ("card_value", "max_card_value") for t in targets):
        if spec.report().restrictions is None:
            raise UserError(f"{spec.title} has no restricted play: no card_value targets")
        spec.check_effect(tables, [n], o.set_, registry.table_policies([card_strategy], n))
    fld = Field(spec, lineup, n, card_strategy, o.cards, list(o.set_ or []), exp)
    varies = _started(varies, fld, set_value, o)  # (an unknown key is named there first)
    spec.check_effect(tables, [n], [f"{v.key}=0" for v in varies])  # a knob that turns nothing
    check_targets(spec, fld, tables, targets)
    command = recorded_command(o, spec, exp, lineup, card_strategy)
    config = {"game": spec.name, "command": "design", **o.stored(), "expansions": list(exp),
              "lineup": lineup, "card_strategy": card_strategy, "recorded_command": command,
              "starts": {v.key: v.start for v in varies}}  # fmt: skip
    return Problem(fld, varies, targets, o.seed), budget, tables, config


def _set_value(spec):
    """The game's `set_value` (a `--set` key's value in the card data), or a `UserError` for a
    game without a design search."""
    from importlib import import_module

    set_value = import_module(spec.cards_module).set_value
    if spec.analysis_module is not None or set_value is None:
        raise UserError(f"{spec.title} has no design search: its runs are not games of a line-up")
    return set_value


def _started(varies, fld, set_value, o: DesignOptions):
    """The values to search, each with its start (its value in the card data as given), both
    ends of every range checked as valid card data before any game."""
    from reports.design_targets import with_starts
    from sim.core.carddata import parse_set_options

    given = parse_set_options(list(o.set_ or []))
    varies = with_starts(varies, lambda key: set_value(o.cards, given, key))
    for v in varies:
        for end in ((v.low, v.high) if v.kind != "choice" else v.choices):
            fld.tables({v.key: int(end) if v.kind == "int" else end})
    return varies


def default_lineup(spec, registry, n_players: int) -> str:
    """The game's tournament strategies but random, one per seat, each as its preset tuned for
    the player count where there is one (`setup.mixed_lineup`)."""
    presets = registry.presets()
    names = S.mixed_lineup(spec, n_players).split(",")
    return ",".join(f"{s}_tuned_{n_players}p" if f"{s}_tuned_{n_players}p" in presets else s
                    for s in names)  # fmt: skip


def recorded_command(o: DesignOptions, spec, exp, lineup, card_strategy) -> str:
    """The command that makes this design again, every option that changes its result written
    out (the line-up as played, the budget); not where it is written nor played."""
    args = ["abyss-mc", "design", "--game", spec.name, "--players", str(o.players),
            "--strategies", ",".join(lineup), "--card-strategy", card_strategy]  # fmt: skip
    for item in o.vary:
        args += ["--vary", item]
    for item in o.target:
        args += ["--target", item]
    if exp or spec.tournament_expansions:
        args += ["--expansions", ",".join(exp)]
    for key in ("candidates", "blocks", "finalists", "reeval_blocks", "retune_candidates",
                "seed"):  # fmt: skip
        args += ["--" + key.replace("_", "-"), str(getattr(o, key))]
    if o.minutes is not None:
        args += ["--minutes", f"{o.minutes:g}"]
    return shlex.join(args + data_args(o.cards, o.set_, o.presets))


def check_targets(spec, fld, tables, targets) -> None:
    """The cards and strategies the targets name exist, before any game."""
    from reports.design_targets import card_of

    for t in targets:
        if t.metric == "card_value":
            card_of(t.arg, spec.report().restrictions(tables))
        if t.metric == "win_rate" and t.arg not in fld.lineup:
            raise UserError(f"--target {t.text}: {t.arg} is not in the line-up "
                            f"({', '.join(fld.lineup)})")  # fmt: skip


def run_design(problem: Problem, budget: Budget, run, progress, *, config: dict, sealed: tuple,
               cluster: tuple, card_digest: str, timer: Timer) -> tuple[str, Path]:  # fmt: skip
    """The design search inside `run` (`sealed`: its tables and presets, `Run.seal`; `cluster`:
    backend, scheduler, workers, `Run.cluster`; `timer`: the clock of `--minutes`, started with
    the command); returns (the summary, the run directory)."""
    from reports import design as D
    from reports.sections.design import chart_png, summary_text, write_report
    from sim.core.runs import atomic_write_text, write_parquet

    with run, progress:
        run.seal(*sealed)
        client = run.cluster(*cluster)
        keep = Stored(run)
        progress.advance(sum(len(v) for v in keep.stored.values())
                         * problem.games(budget.blocks))  # fmt: skip
        outcome = D.answer(problem, budget, keep=keep, client=client, timer=timer,
                           progress=progress)  # fmt: skip
        df = D.candidates_frame(outcome)
        write_parquet(df, run.dir / "candidates.parquet")
        atomic_write_text(run.dir / "candidates.csv", df.to_csv(index=False))
        summary = summary_text(outcome, config.get("recorded_command", ""))
        atomic_write_text(run.dir / "summary.txt", summary)
        (run.dir / "tradeoff.png").write_bytes(chart_png(outcome, df))
        write_report(outcome, df, run.dir / "report", config.get("recorded_command", ""))
        rec, conf = outcome.recommended, outcome.confirmation
        run.write_manifest(
            problem.seed,
            {**config, "verdict": outcome.verdict, "search_batches": outcome.searched[-1].batch + 1,
             "rounds": len(outcome.rounds), "candidates": len(outcome.searched),
             "budget": asdict(budget), "purposes": D.purposes(outcome),
             "chosen": conf.values if conf is not None else None,
             "recommended": rec.values if rec is not None else None,
             "adapted": outcome.adapts, "retuned": outcome.retuned,
             "skipped": outcome.skipped},
            card_digest=card_digest, timings={"total": timer.elapsed()},
        )  # fmt: skip
        run.finish()
    return summary, run.out


class Stored(Memory):
    """The stages of a design run in its stores (`Run.store`): the search's batches, how many
    it played, and every later stage by name."""

    def __init__(self, run) -> None:
        self.run = run
        store = run.store("search")
        self.stored = {} if store is None else {
            first: [_load(d) for d in json.loads(store.path(first, "batch.json").read_text())]
            for first, _ in store.completed()}  # fmt: skip
        self.batches = _load_json(run.store("searched"), "searched.json")

    def batch(self, b: int, candidates: list[Candidate]) -> None:
        _save_json(self.run.store("search"), b, "batch.json", [_dump(c) for c in candidates])

    def searched(self, n_batches: int) -> None:
        _save_json(self.run.store("searched"), 0, "searched.json", n_batches)

    def has(self, name: str) -> bool:
        return _load_json(self.run.store(name), "stage.json") is not None

    def stage(self, name: str, compute):
        store = self.run.store(name)
        found = _load_json(store, "stage.json")
        if found is not None:
            return _decode(found)
        out = compute()
        _save_json(store, 0, "stage.json", _encode(out))
        return out


# --- storing the stages -----------------------------------------------------------------------
def _encode(value):
    """A stage's value as JSON: candidates (in lists and dicts too) as their fields."""
    if isinstance(value, Candidate):
        return {"__candidate__": _dump(value)}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


def _decode(value):
    if isinstance(value, dict):
        if "__candidate__" in value:
            return _load(value["__candidate__"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _dump(c: Candidate) -> dict:
    return {"number": c.number, "batch": c.batch, "values": c.values, "distance": c.distance,
            "shortfall": c.shortfall, "stage": c.stage, "seed": c.seed,
            "estimates": {k: [e.value, e.lo, e.hi, e.games] for k, e in c.estimates.items()}}


def _load(d: dict) -> Candidate:
    est = {k: Estimate(*(math.nan if x is None else x for x in v[:3]), int(v[3]))
           for k, v in d["estimates"].items()}  # fmt: skip
    return Candidate(d["number"], d["batch"], d["values"], est, d["distance"],
                     d["shortfall"] if d["shortfall"] is not None else math.nan, d["stage"],
                     d.get("seed"))  # fmt: skip


def _load_json(store, name: str):
    if store is None or store.end() == 0:
        return None
    return json.loads(store.path(0, name).read_text())


def _save_json(store, first: int, name: str, value) -> None:
    if store is None:
        return
    from sim.core.runs import atomic_write_text

    text = json.dumps(value, allow_nan=True)
    store.save(first, 1, {name: lambda path: atomic_write_text(path, text)})
