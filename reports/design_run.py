"""`abyss-mc design` as a run: the search batch by batch, the finalists on fresh deals, the
players re-tuned, and what it writes (candidates.parquet and .csv, the trade-off chart, the
summary, the report, the manifest); each stage stored as it finishes, so that `--resume` picks up
there (`reports.design` holds the procedure; the command parses the options)."""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict
from pathlib import Path

from reports.design import Budget, Candidate, Outcome, Problem
from reports.design_targets import Estimate


def run_design(problem: Problem, budget: Budget, run, progress, *, config: dict, sealed: tuple,
               cluster: tuple, card_digest: str, t_start: float) -> tuple[str, Path]:  # fmt: skip
    """The design search inside `run` (`sealed`: its tables and presets, `Run.seal`; `cluster`:
    backend, scheduler, workers, `Run.cluster`); returns (the summary, the run directory)."""
    from reports import design as D
    from reports.design_report import chart_png, summary_text, write_report
    from sim.core.runs import atomic_write_text, write_parquet

    with run, progress:
        run.seal(*sealed)
        client = run.cluster(*cluster)
        stored = _stored(run.store("search"))
        searched_store = run.store("searched")
        batches = _load_json(searched_store, "searched.json")
        each = per_candidate_games(problem, budget.blocks)
        progress.advance(sum(len(v) for v in stored.values()) * each)

        def keep(b: int, batch: list[Candidate]) -> None:
            _save_json(run.store("search"), b, "batch.json", [_dump(c) for c in batch])
            progress.advance(len(batch) * each)

        searched = D.search(problem, budget, stored=stored, on_batch=keep, client=client,
                            batches=batches)  # fmt: skip
        n_batches = searched[-1].batch + 1
        _save_json(searched_store, 0, "searched.json", n_batches)
        unit = D.scales(searched[0], problem.targets)
        fresh: list[Candidate] = []
        for r, group in enumerate(D.finalists(searched, problem.targets, budget.finalists)):
            fresh += _stage(run.store(f"reeval{r}"),
                            lambda g=group: D.reevaluate(problem, g, budget, unit, client))
            progress.advance(len(group) * per_candidate_games(problem, budget.reeval_blocks))
            if D.recommend(fresh, problem.targets) is not None:
                break  # the next round would only play candidates further away
        best = D.recommend(fresh, problem.targets)
        outcome = Outcome(problem, searched, fresh, best, budget=budget)
        if best is not None and best.number != 0:
            players = _load_json(run.store("players"), "players.json")
            if players is None:
                retuned = D.retuned_lineup(problem, best.values, budget, client, progress)
                changed = any(k != v for k, v in retuned.items())  # else: the same games again
                adapted = D.adapted_check(problem, best, retuned, budget, client) \
                    if changed else None  # fmt: skip
                learned, note = D.learned_check(problem, best, budget, client)
                players = {"retuned": retuned, "learned_note": note,
                           "adapted": _dump(adapted) if adapted is not None else None,
                           "learned": _dump(learned) if learned is not None else None}
                _save_json(run.store("players"), 0, "players.json", players)
            outcome.retuned = players["retuned"]
            outcome.adapted = _load(players["adapted"]) if players["adapted"] else None
            outcome.learned = _load(players["learned"]) if players["learned"] else None
            outcome.learned_note = players["learned_note"]
        df = D.candidates_frame(outcome)
        write_parquet(df, run.dir / "candidates.parquet")
        atomic_write_text(run.dir / "candidates.csv", df.to_csv(index=False))
        summary = summary_text(outcome, config.get("recorded_command", ""))
        atomic_write_text(run.dir / "summary.txt", summary)
        (run.dir / "tradeoff.png").write_bytes(chart_png(outcome, df))
        write_report(outcome, df, run.dir / "report", config.get("recorded_command", ""))
        rec = outcome.recommended
        run.write_manifest(
            problem.seed,
            {**config, "verdict": outcome.verdict, "search_batches": n_batches,
             "candidates": len(df), "budget": asdict(budget),
             "recommended": rec.values if rec is not None else None,
             "adapted": outcome.adapts, "retuned": outcome.retuned},
            card_digest=card_digest, timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        run.finish()
    return summary, run.out


def per_candidate_games(problem: Problem, blocks: int) -> int:
    """Games one candidate plays on `blocks` deals (the progress bar's unit)."""
    fld = problem.field
    names = {t.metric for t in problem.targets}
    games = 0
    if names - {"card_value", "max_card_value"}:
        games += blocks * fld.n_players  # every rotation of the line-up
    if "card_value" in names:
        games += 2 * blocks * fld.n_players * sum(t.metric == "card_value"
                                                  for t in problem.targets)  # fmt: skip
    if "max_card_value" in names:
        games += 60 * blocks * fld.n_players
    return games


# --- storing the stages -----------------------------------------------------------------------
def _dump(c: Candidate) -> dict:
    return {"number": c.number, "batch": c.batch, "values": c.values, "distance": c.distance,
            "shortfall": c.shortfall, "stage": c.stage,
            "estimates": {k: [e.value, e.lo, e.hi, e.games] for k, e in c.estimates.items()}}


def _load(d: dict) -> Candidate:
    est = {k: Estimate(*(math.nan if x is None else x for x in v[:3]), int(v[3]))
           for k, v in d["estimates"].items()}  # fmt: skip
    return Candidate(d["number"], d["batch"], d["values"], est, d["distance"],
                     d["shortfall"] if d["shortfall"] is not None else math.nan, d["stage"])


def _stored(store) -> dict:
    if store is None:
        return {}
    return {first: [_load(d) for d in json.loads(store.path(first, "batch.json").read_text())]
            for first, _ in store.completed()}  # fmt: skip


def _stage(store, compute) -> list[Candidate]:
    found = _load_json(store, "stage.json")
    if found is not None:
        return [_load(d) for d in found]
    out = compute()
    _save_json(store, 0, "stage.json", [_dump(c) for c in out])
    return out


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
