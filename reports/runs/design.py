"""`abyss-mc design` as a run: the procedure of `reports.design` with each stage stored as it
finishes (the search batch by batch, each round of finalists, the confirmation, the other
players), so that `--resume` picks up there, and what it writes (candidates.parquet and .csv, the
trade-off chart, the summary, the report, the manifest with the seeds by purpose)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path

from reports.design import Budget, Candidate, Memory, Problem, Timer
from reports.design_targets import Estimate


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
