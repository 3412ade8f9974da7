"""`abyss-mc design`: the card and rule values closest to the given ones that meet a designer's
targets, verified on fresh deals and under players that adapt to them.

The procedure (docs/design.md says how to read it):
1. **The search.** A well-kept multi-objective optimiser (optuna's TPE, seeded from the run's seed
   and the batch, so a resumed search asks the very same candidates) proposes candidates in
   batches; the first is the data as given. Each is measured on the same deals of the search's
   seed (common random numbers, `reports.design_targets.measure`) and scored on two objectives,
   both minimised: the *shortfall* (each target's distance from holding, in units of the given
   data's standard error of that metric, summed) and the *distance* (each varied key's change
   from its given value as a share of its range, summed; 1 for another choice).
2. **The finalists.** The candidates that might meet every target (each target's interval
   reaches the side it asks), nearest first, and the data as given: they get more games, on
   fresh deals (another seed), so the winner's curse of the search (the luckiest candidates
   look best) is not carried over. Without such a candidate, the closest ones are re-played, so
   that "unreachable" rests on fresh deals too.
3. **The verdict.** A finalist is *verified* when every target holds on the fresh deals; the
   *recommended* candidate is the verified one nearest the given data (the given data itself:
   "no change needed"). None verified: unreachable, with the closest candidates.
4. **Players that adapt.** The line-up's tunable strategies are re-tuned under the recommended
   values (a small `tune` each, `reports.tune`) and the targets measured again on deals of their
   own with the re-tuned players (`adapted`), and with the learned player in every seat where
   the game has one (`learned`). A recommendation that holds only with the old players says so.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from reports import seeds as S
from reports.design_targets import Estimate, Field, Target, Vary, measure
from reports.seeds import derived_seed
from sim.core.errors import UserError

#: Streams of the run's seed (`reports.tune.derived_seed`): the fresh deals of each stage.
REEVAL, ADAPT, LEARNED, RETUNE, SAMPLER = (S.DESIGN_REEVAL, S.DESIGN_ADAPT, S.DESIGN_LEARNED,
                                          S.DESIGN_RETUNE, S.DESIGN_SAMPLER)  # fmt: skip
#: The share of `--minutes` the search may use; the rest is for the finalists and the players.
SEARCH_SHARE = 0.6


@dataclass
class Budget:
    """Candidates in batches of `batch`, each on `blocks` deals; `finalists` re-played on
    `reeval_blocks` fresh deals; the re-tune of each strategy: `retune_candidates` candidates of
    `retune_blocks` deals. `minutes` bounds the search (None: `candidates` only)."""

    candidates: int = 48
    batch: int = 8
    blocks: int = 200
    finalists: int = 4
    reeval_blocks: int = 800
    retune_candidates: int = 16
    retune_blocks: int = 100
    minutes: float | None = None

    def __post_init__(self) -> None:
        if self.candidates < 2 or self.batch < 1 or self.blocks < 3 or self.reeval_blocks < 3:
            raise UserError("a design search needs at least 2 candidates and 3 deals a stage")
        if self.finalists < 1:
            raise UserError(f"--finalists must be at least 1; got {self.finalists}")
        if self.minutes is not None and self.minutes <= 0:
            raise UserError(f"--minutes must be above 0; got {self.minutes:g}")


@dataclass
class Problem:
    """What is searched: `varies` over the play of `field`, toward `targets`, from `seed`."""

    field: Field
    varies: list[Vary]
    targets: list[Target]
    seed: int

    def start(self) -> dict:
        return {v.key: v.start for v in self.varies}

    def distance(self, values: dict) -> float:
        return float(sum(v.distance(values[v.key]) for v in self.varies))


@dataclass
class Candidate:
    """One candidate's values and its measured targets at one stage."""

    number: int
    batch: int
    values: dict
    estimates: dict[str, Estimate]
    distance: float
    shortfall: float = math.nan
    stage: str = "search"

    def holds(self, targets: list[Target]) -> bool:
        return all(t.holds(*_vlh(self.estimates[t.name])) for t in targets)

    def might_hold(self, targets: list[Target]) -> bool:
        """Every target's interval reaches the side it asks (not told to miss it)."""
        out = True
        for t in targets:
            e = self.estimates[t.name]
            lo, hi = (e.value, e.value) if math.isnan(e.lo) else (e.lo, e.hi)
            out &= {"<=": lo <= t.bound, ">=": hi >= t.bound, "==": lo <= t.bound <= hi}[t.op]
        return bool(out)


def _vlh(e: Estimate) -> tuple[float, float, float]:
    return e.value, e.lo, e.hi


def scales(start: Candidate, targets: list[Target]) -> dict[str, float]:
    """Each target's unit of shortfall: the given data's standard error of its metric (its
    interval's half-width over 1.96), so that targets in other units weigh alike."""
    out = {}
    for t in targets:
        e = start.estimates[t.name]
        half = (e.hi - e.lo) / 2 if not (math.isnan(e.lo) or math.isnan(e.hi)) else math.nan
        out[t.name] = half / 1.96 if half > 0 else max(abs(t.bound), 1.0) * 1e-3
    return out


def shortfall(c: Candidate, targets: list[Target], unit: dict[str, float]) -> float:
    return float(sum(t.shortfall(*_vlh(c.estimates[t.name])) / unit[t.name] for t in targets))


# --- 1. the search ----------------------------------------------------------------------------
def distributions(varies: list[Vary]) -> dict:
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    out = {}
    for v in varies:
        if v.kind == "choice":
            out[v.key] = CategoricalDistribution(list(v.choices))
        elif v.kind == "int":
            out[v.key] = IntDistribution(int(v.low), int(v.high))
        else:
            out[v.key] = FloatDistribution(float(v.low), float(v.high))
    return out


def _sampler(seed: int):
    import optuna

    return optuna.samplers.TPESampler(seed=seed % 2**32, multivariate=True, n_startup_trials=8)


def _rounded(params: dict, varies: list[Vary]) -> dict:
    """The candidate's values in the order of --vary, reals to 4 significant digits (a value
    the card data shows as typed)."""
    return {v.key: float(f"{params[v.key]:.4g}") if v.kind == "float" else params[v.key]
            for v in varies}  # fmt: skip


def search(problem: Problem, budget: Budget, *, stored: dict | None = None, on_batch=None,
           client=None, clock=time.monotonic,
           batches: int | None = None) -> list[Candidate]:  # fmt: skip
    """The search's candidates in order. `stored` maps a batch to its candidates' recorded
    values and estimates (a resumed run): not played again, and they must be the ones asked
    again. `on_batch(batch, candidates)` is called after each new batch. With `budget.minutes`
    the search asks no new batch once its share of the time is spent; `batches` (a resumed run
    whose search had ended) plays exactly that many."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    dist = distributions(problem.varies)
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=_sampler(0))
    study.enqueue_trial(problem.start())
    t0, out, cache = clock(), [], {}
    n_batches = -(-budget.candidates // budget.batch) if batches is None else batches
    unit: dict[str, float] | None = None
    for b in range(n_batches):
        if batches is None and budget.minutes is not None and b > 0 \
                and (stored is None or b not in stored) \
                and clock() - t0 > SEARCH_SHARE * budget.minutes * 60:  # fmt: skip
            break
        study.sampler = _sampler(derived_seed(problem.seed, SAMPLER, b))
        n = min(budget.batch, budget.candidates - b * budget.batch)
        trials = [study.ask(dist) for _ in range(n)]
        values = [_rounded(t.params, problem.varies) for t in trials]
        if stored is not None and b in stored:
            batch = stored[b]
            if [c.values for c in batch] != values:
                raise UserError("the stored search does not match this one (other options or "
                                "another optuna version); start a new run")  # fmt: skip
            new = False
        else:
            batch = []
            for i, v in enumerate(values):
                key = tuple(v.items())
                if key not in cache:  # the same values on the same deals: the same games
                    cache[key] = measure(problem.field, v, problem.targets, seed=problem.seed,
                                         blocks=budget.blocks, client=client)  # fmt: skip
                batch.append(Candidate(b * budget.batch + i, b, v, cache[key],
                                       problem.distance(v)))  # fmt: skip
            new = True
        for c in batch:
            cache.setdefault(tuple(c.values.items()), c.estimates)
        if unit is None:
            unit = scales(batch[0], problem.targets)
        for t, c in zip(trials, batch, strict=True):
            c.shortfall = shortfall(c, problem.targets, unit)
            study.tell(t, (c.shortfall, c.distance))
        out += batch
        if new and on_batch is not None:
            on_batch(b, batch)
    return out


# --- 2. the finalists, 3. the verdict ---------------------------------------------------------
#: rounds of finalists at most: the next `finalists` are re-played while none is verified
ROUNDS = 3


def finalists(cands: list[Candidate], targets: list[Target], k: int,
              rounds: int = ROUNDS) -> list[list[Candidate]]:  # fmt: skip
    """The finalists in rounds of up to `k` distinct candidates: those that meet every target
    on the search's games, then those that might (each target's interval reaches its side),
    each nearest the given data first; the closest ones when none might. The first round holds
    the given data too (candidate 0): "no change needed" rests on fresh deals as well."""
    distinct: dict[tuple, Candidate] = {}
    for c in cands:
        distinct.setdefault(tuple(c.values.items()), c)
    pool = list(distinct.values())
    maybe = [c for c in pool if c.might_hold(targets)]
    if maybe:
        ordered = sorted(maybe, key=lambda c: (c.shortfall > 0, c.distance, c.shortfall,
                                               c.number))  # fmt: skip
    else:
        ordered = sorted(pool, key=lambda c: (c.shortfall, c.distance, c.number))[:k]
    ordered = [c for c in ordered if c.number != 0]
    groups = [ordered[i:i + k] for i in range(0, min(len(ordered), k * rounds), k)] or [[]]
    groups[0].append(cands[0])
    return groups


def reevaluate(problem: Problem, chosen: list[Candidate], budget: Budget, unit: dict,
               client=None) -> list[Candidate]:  # fmt: skip
    """The finalists on fresh deals (`REEVAL` seed), with more games."""
    seed = derived_seed(problem.seed, REEVAL)
    out = []
    for c in chosen:
        est = measure(problem.field, c.values, problem.targets, seed=seed,
                      blocks=budget.reeval_blocks, client=client)  # fmt: skip
        fresh = Candidate(c.number, c.batch, c.values, est, c.distance, stage="re-evaluated")
        fresh.shortfall = shortfall(fresh, problem.targets, unit)
        out.append(fresh)
    return out


def recommend(fresh: list[Candidate], targets: list[Target]) -> Candidate | None:
    """The verified finalist nearest the given data, or None."""
    ok = [c for c in fresh if c.holds(targets)]
    return min(ok, key=lambda c: (c.distance, c.shortfall, c.number)) if ok else None


# --- 4. players that adapt --------------------------------------------------------------------
def retuned_lineup(problem: Problem, values: dict, budget: Budget, client=None,
                   progress=None) -> dict[str, str]:  # fmt: skip
    """Each tunable strategy of the line-up (and the one whose cards are valued) re-tuned under
    `values`, against the others of the line-up: strategy -> its re-tuned spec (itself when it
    has nothing to tune within its archetype)."""
    from reports import tune as T

    fld = problem.field
    registry = fld.spec.strategies()
    tables = fld.tables(values)
    n = fld.n_players
    out = {}
    for i, start in enumerate(dict.fromkeys([*fld.lineup, fld.card_strategy])):
        policy = registry.make_policy(start)
        name = next(k for k, cls in registry.policies.items() if type(policy) is cls)
        try:
            space, held = _archetype(registry, start, name)
        except UserError:  # nothing to tune (random, a policy without parameters, the search)
            out[start] = start
            continue
        values = {p: getattr(policy, p) for p in registry.parameters(name)}
        space = near(space, values)
        others = [s for s in fld.lineup if s != start] or [start]
        opponents = [others[j % len(others)] for j in range(n - 1)]
        seed = derived_seed(problem.seed, RETUNE, i)
        tp = T.Problem(fld.spec.name, tables, n, start, name, values, space, opponents, seed,
                       registry, held)  # fmt: skip
        rows = T.run_search(tp, T.Search(candidates=budget.retune_candidates,
                                         blocks=budget.retune_blocks), client=client)  # fmt: skip
        final = T.finalists(rows, 3)
        shares = T.evaluate(tp, [r["spec"] for r in final], seed=derived_seed(seed, REEVAL),
                            n_blocks=2 * budget.retune_blocks, client=client)  # fmt: skip
        out[start] = final[int(shares.mean(axis=1).argmax())]["spec"]
        if progress is not None:
            progress.advance(0)
    return out


#: a re-tune moves each parameter by at most this share of its range from the player's value
NEAR = 0.1


def near(space: dict, values: dict, share: float = NEAR) -> dict:
    """The search `space` narrowed to a neighbourhood of the player's `values`: a player adapts
    to a small change of the rules by small changes of its play (a small re-tune drawing from
    the whole space finds nothing better than a tuned preset: 16 draws won 0-18% where the
    preset won 11-53%); choices are held."""
    out = {}
    for p, (kind, *b) in space.items():
        if kind == "choice":
            continue
        lo, hi = b
        value = min(max(values[p], lo), hi)
        step = share * (hi - lo)
        a, z = max(lo, value - step), min(hi, value + step)
        if kind == "int":
            a, z = int(math.floor(a)), int(math.ceil(z))
        else:  # the policies' 0.001 grid
            a, z = math.ceil(a * 1000) / 1000, math.floor(z * 1000) / 1000
        if z > a:
            out[p] = (kind, a, z)
    return out


def _archetype(registry, start: str, policy: str) -> tuple[dict, dict]:
    """The space a strategy is re-tuned in: a tuned preset (`<preset>_tuned_<N>p`) from its
    own values within the archetype of the hand-written preset it was tuned from (its own
    values would hold every parameter), an open one (`_open_`) over every parameter, any other
    within its own archetype (`reports.tune_run.search_space`)."""
    import re

    from reports.tune import within_archetype
    from reports.tune_run import search_space

    m = re.fullmatch(r"(.+)_(tuned|open)_\d+p", start)
    if m is None or m.group(1) not in registry.hand_written_presets():
        return search_space(registry, start, policy, None, False)
    full = registry.search_space(policy)
    if m.group(2) == "open" or not full:
        return full, {}
    space, held = within_archetype(registry, m.group(1), policy, full)
    if not space:
        raise UserError(f"{start}: nothing to tune within its archetype")
    return space, held


def adapted_check(problem: Problem, c: Candidate, specs: dict[str, str], budget: Budget,
                  client=None) -> Candidate:  # fmt: skip
    """The targets of `c` measured with the re-tuned players, on deals of their own."""
    fld = problem.field
    other = Field(fld.spec, [specs[s] for s in fld.lineup], fld.n_players,
                  specs.get(fld.card_strategy, fld.card_strategy), fld.cards, fld.base,
                  fld.expansions)  # fmt: skip
    est = measure(other, c.values, problem.targets, seed=derived_seed(problem.seed, ADAPT),
                  blocks=budget.reeval_blocks, client=client)  # fmt: skip
    return Candidate(c.number, c.batch, c.values, est, c.distance, stage="re-tuned players")


def learned_check(problem: Problem, c: Candidate, budget: Budget,
                  client=None) -> tuple[Candidate | None, str]:  # fmt: skip
    """The targets of `c` with the learned player in every seat (and valuing the cards), on
    deals of their own, or None and why it was not checked."""
    fld = problem.field
    if any(t.metric == "win_rate" for t in problem.targets):
        return None, "a win_rate target names a strategy of the line-up"
    if set(fld.lineup) == {"learned"} and fld.card_strategy == "learned":
        return None, "the line-up is the learned player (the recommendation's own games)"
    try:
        fld.spec.strategies().table_policies(["learned"] * fld.n_players, fld.n_players)
        other = Field(fld.spec, ["learned"] * fld.n_players, fld.n_players, "learned",
                      fld.cards, fld.base, fld.expansions)  # fmt: skip
        est = measure(other, c.values, problem.targets, seed=derived_seed(problem.seed, LEARNED),
                      blocks=budget.reeval_blocks, client=client)  # fmt: skip
    except (UserError, ValueError, KeyError) as exc:  # no learned player here, or no forbid
        return None, f"not checked: {exc}"
    return Candidate(c.number, c.batch, c.values, est, c.distance, stage="learned player"), ""


# --- the outcome ------------------------------------------------------------------------------
@dataclass
class Outcome:
    problem: Problem
    searched: list[Candidate]
    fresh: list[Candidate]
    recommended: Candidate | None
    adapted: Candidate | None = None
    learned: Candidate | None = None
    retuned: dict = field(default_factory=dict)
    budget: Budget | None = None
    learned_note: str = ""

    @property
    def verdict(self) -> str:
        """"no change needed", "change" or "unreachable"."""
        if self.recommended is None:
            return "unreachable"
        return "no change needed" if self.recommended.number == 0 else "change"

    @property
    def adapts(self) -> bool | None:
        """Does the recommendation hold with the re-tuned players? True when every target holds
        on their games, False when one is told to miss (its interval on the wrong side), None
        when not checked or the data cannot tell."""
        return _check(self.adapted, self.problem.targets)

    @property
    def learned_holds(self) -> bool | None:
        """The same with the learned player in every seat."""
        return _check(self.learned, self.problem.targets)


def _check(c: Candidate | None, targets: list[Target]) -> bool | None:
    """True: every target holds; False: one is told to miss; None: unchecked or cannot tell."""
    if c is None:
        return None
    if c.holds(targets):
        return True
    return False if not c.might_hold(targets) else None


def candidates_frame(outcome: Outcome):
    """One row per distinct candidate: its values (a column per varied key), per target its
    value, `_lo` and `_hi` (on the fresh deals for a finalist, else the search's), the distance,
    the shortfall, the stage and games, `verified`, `adapted`, `learned` and `recommended`."""
    import pandas as pd

    p = outcome.problem
    fresh = {c.number: c for c in outcome.fresh}
    seen, rows = set(), []
    for c in outcome.searched:
        key = tuple(c.values.items())
        if key in seen:
            continue
        seen.add(key)
        shown = fresh.get(c.number, c)
        row = {"candidate": c.number, "batch": c.batch, **c.values}
        for t in p.targets:
            e = shown.estimates[t.name]
            row.update({t.name: e.value, f"{t.name}_lo": e.lo, f"{t.name}_hi": e.hi})
        row.update({"distance": c.distance, "shortfall": shown.shortfall, "stage": shown.stage,
                    "games": max(e.games for e in shown.estimates.values()),
                    "verified": shown.holds(p.targets) if c.number in fresh else pd.NA})
        rec = outcome.recommended is not None and c.number == outcome.recommended.number
        row["adapted"] = outcome.adapts if rec and outcome.adapts is not None else pd.NA
        row["learned"] = outcome.learned_holds \
            if rec and outcome.learned_holds is not None else pd.NA  # fmt: skip
        row["recommended"] = rec
        rows.append(row)
    df = pd.DataFrame(rows)
    for col in ("verified", "adapted", "learned"):
        df[col] = df[col].astype("boolean")
    return df


def pareto(df) -> np.ndarray:
    """Rows not dominated in (shortfall, distance): the trade-off's front."""
    s, d = df["shortfall"].to_numpy(float), df["distance"].to_numpy(float)
    front = np.ones(len(df), dtype=bool)
    for i in range(len(df)):
        worse = (s <= s[i]) & (d <= d[i]) & ((s < s[i]) | (d < d[i]))
        front[i] = not worse.any()
    return front
