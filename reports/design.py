"""`abyss-mc design`: the card and rule values closest to the given ones that meet a designer's
targets, chosen on some deals and confirmed on deals never used to choose.

The procedure (docs/design.md says how to read it):
1. **The search.** A well-kept multi-objective optimiser (optuna's TPE, seeded from the run's seed
   and the batch, so a resumed search asks the very same candidates) proposes candidates in
   batches; the first is the data as given. Each is measured on the same deals of the search's
   seed (common random numbers, `reports.design_targets.measure`) and scored on two objectives,
   both minimised: the *shortfall* (each target's point estimate's distance from holding, in
   units of the given data's standard error of that metric, summed: it guides, it decides
   nothing) and the *distance* (each varied key's change from its given value as a share of its
   range, summed; 1 for another choice).
2. **The finalists, round by round.** The candidates that might meet every target (no target's
   interval wholly on the wrong side), nearest first, in rounds of `--finalists`; the first
   round holds the data as given too. Each round plays deals of its own (`REEVAL`, index the
   round), so a round never chooses on deals an earlier one chose on. A candidate *meets* a
   target when its 95% interval lies on the side asked (`Target.says`); the first round with a
   candidate that meets every target chooses its nearest one, and no further round is played.
3. **The confirmation.** The chosen candidate is played once more, on deals nothing has chosen
   on (`CONFIRM`): the answer is its figures there. It is *recommended* (or "no change needed"
   for the data as given) only when it meets every target on them; else the run says "not
   confirmed" and chooses nothing more. Whatever the search and the rounds did, a candidate that
   truly misses a target is recommended at most as often as its confirmation interval lies wholly
   on the wrong side of its truth: 2.5%.
4. **Other players.** The line-up's tunable strategies are re-tuned under the recommended values
   (a small `tune` each, `reports.tune`) and the targets measured again on deals of their own
   with the re-tuned players (`adapted`); and with the learned player in every seat (`learned`)
   where the game has one: its weights were fitted under the rules as given, not re-fitted.
With `--minutes`, the whole run is bounded (`Timer`): the search stops in time for the first
round and the confirmation; later rounds and the other players are skipped when they would not
fit, and the summary says so.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import zip_longest

import numpy as np

from reports.design_targets import CANNOT_TELL, MEETS, MISSES, Estimate, Field, Target, Vary
from reports.design_targets import measure as measure_games
from reports.play import seeds as S
from reports.play.seeds import derived_seed
from sim.core.errors import UserError

#: Streams of the run's seed (`reports.play.seeds`): the deals of each stage.
REEVAL, ADAPT, LEARNED, RETUNE, SAMPLER, CONFIRM = (
    S.DESIGN_REEVAL, S.DESIGN_ADAPT, S.DESIGN_LEARNED, S.DESIGN_RETUNE, S.DESIGN_SAMPLER,
    S.DESIGN_CONFIRM)  # fmt: skip
#: rounds of finalists at most: the next `finalists` are played while none meets every target
ROUNDS = 3


@dataclass
class Budget:
    """Candidates in batches of `batch`, each on `blocks` deals; `finalists` a round on
    `reeval_blocks` deals of its own, the confirmation on as many; the re-tune of each strategy:
    `retune_candidates` candidates of `retune_blocks` deals. `minutes` bounds the whole run
    (None: `candidates` only)."""

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
        if self.minutes is not None and not self.minutes > 0:
            raise UserError(f"--minutes must be above 0; got {self.minutes:g}")


@dataclass
class Problem:
    """What is searched: `varies` over the play of `field`, toward `targets`, from `seed`;
    `measure(field, values, targets, seed=, blocks=, client=)` plays a candidate's games
    (`reports.design_targets.measure`; a test gives a knob of known truth)."""

    field: Field
    varies: list[Vary]
    targets: list[Target]
    seed: int
    measure: Callable = field(default=measure_games, repr=False)

    def start(self) -> dict:
        return {v.key: v.start for v in self.varies}

    def distance(self, values: dict) -> float:
        return float(sum(v.distance(values[v.key]) for v in self.varies))

    def games(self, blocks: int) -> int:
        """Games one candidate plays on `blocks` deals (the unit of the time budget and the
        progress bar)."""
        fld = self.field
        names = [t.metric for t in self.targets]
        games = blocks * fld.n_players if set(names) - {"card_value", "max_card_value"} else 0
        games += 2 * blocks * fld.n_players * names.count("card_value")
        if "max_card_value" in names:
            games += 60 * blocks * fld.n_players
        return games


@dataclass
class Candidate:
    """One candidate's values and its measured targets at one stage (on `seed`'s deals)."""

    number: int
    batch: int
    values: dict
    estimates: dict[str, Estimate]
    distance: float
    shortfall: float = math.nan
    stage: str = "search"
    seed: int | None = None

    def says(self, target: Target) -> str:
        e = self.estimates[target.name]
        return target.says(e.value, e.lo, e.hi)

    def holds(self, targets: list[Target]) -> bool:
        """Every target met: its interval on the side asked."""
        return all(self.says(t) == MEETS for t in targets)

    def might_hold(self, targets: list[Target]) -> bool:
        """No target missed (its interval wholly on the wrong side)."""
        return all(self.says(t) != MISSES for t in targets)

    def likely(self, targets: list[Target], shrink: float) -> bool:
        """Every target met by the point estimate with its interval's half-width times `shrink`
        (the half-width more deals would give: sqrt(deals / more deals)): a finalist likely to
        meet on its round's deals."""
        out = True
        for t in targets:
            e = self.estimates[t.name]
            half = shrink * (e.hi - e.lo) / 2
            out &= t.says(e.value, e.value - half, e.value + half) == MEETS
        return out


def verdict_of(c: Candidate | None, targets: list[Target]) -> bool | None:
    """True: every target met; False: one missed; None: not measured, or cannot tell."""
    if c is None:
        return None
    if c.holds(targets):
        return True
    return None if c.might_hold(targets) else False


def word(c: Candidate | None, targets: list[Target]) -> str:
    return {True: MEETS, False: MISSES, None: CANNOT_TELL}[verdict_of(c, targets)]


@dataclass
class Timer:
    """The run's clock against `--minutes` (None: no bound). Every stage's games are timed; a
    game's cost is the median over the stages so far (the first, which compiles, does not count
    more than any other), and a stage `fits` when its games at that cost end before the bound."""

    minutes: float | None = None
    clock: Callable[[], float] = time.monotonic
    start: float = math.nan
    per_game: list[float] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if math.isnan(self.start):
            self.start = self.clock()

    def elapsed(self) -> float:
        return self.clock() - self.start

    def cost(self, games: int) -> float:
        """Seconds `games` are expected to take (0 before any is timed)."""
        return games * statistics.median(self.per_game) if self.per_game else 0.0

    def fits(self, games: int) -> bool:
        return self.minutes is None or self.elapsed() + self.cost(games) <= 60 * self.minutes

    def timed(self, games: int, compute):
        t0 = self.clock()
        out = compute()
        if games > 0:
            self.per_game.append((self.clock() - t0) / games)
        return out

    def skip(self, what: str, games: int) -> None:
        left = max(0.0, 60 * self.minutes - self.elapsed()) if self.minutes else 0.0
        self.skipped.append(f"{what} (about {self.cost(games) / 60:.1f} min; "
                            f"{left / 60:.1f} of --minutes {self.minutes:g} left)")  # fmt: skip


class Memory:
    """Where a run keeps its stages: nowhere (`reports.runs.design` keeps them on disk, so that
    `--resume` plays none again). `stored`: batch -> its candidates; `batches`: how many the
    search played, once it has ended."""

    stored: dict | None = None
    batches: int | None = None

    def batch(self, b: int, candidates: list[Candidate]) -> None:
        pass

    def searched(self, n_batches: int) -> None:
        pass

    def has(self, name: str) -> bool:
        return False

    def stage(self, name: str, compute):
        return compute()


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


def _vlh(e: Estimate) -> tuple[float, float, float]:
    return e.value, e.lo, e.hi


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


def mandatory_games(problem: Problem, budget: Budget) -> int:
    """The games that must follow the search: the first round (the finalists and the data as
    given) and the confirmation."""
    return (budget.finalists + 2) * problem.games(budget.reeval_blocks)


def search(problem: Problem, budget: Budget, *, keep: Memory | None = None, client=None,
           timer: Timer | None = None, progress=None) -> list[Candidate]:  # fmt: skip
    """The search's candidates in order. `keep.stored` maps a batch to its candidates' recorded
    values and estimates (a resumed run): not played again, and they must be the ones asked
    again; `keep.batch(b, candidates)` is told each new batch. With `budget.minutes` (`timer`)
    no new batch is asked once it and the stages that must follow would not fit; a resumed run
    whose search had ended (`keep.batches`) plays exactly that many."""
    import optuna

    keep, timer = keep or Memory(), timer or Timer(budget.minutes)
    stored, batches = keep.stored or {}, keep.batches
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    dist = distributions(problem.varies)
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=_sampler(0))
    study.enqueue_trial(problem.start())
    out, cache = [], {}
    each = problem.games(budget.blocks)
    n_batches = -(-budget.candidates // budget.batch) if batches is None else batches
    unit: dict[str, float] | None = None
    for b in range(n_batches):
        n = min(budget.batch, budget.candidates - b * budget.batch)
        if batches is None and b > 0 and b not in stored \
                and not timer.fits(n * each + mandatory_games(problem, budget)):  # fmt: skip
            break
        study.sampler = _sampler(derived_seed(problem.seed, SAMPLER, b))
        trials = [study.ask(dist) for _ in range(n)]
        values = [_rounded(t.params, problem.varies) for t in trials]
        if b in stored:
            batch = stored[b]
            if [c.values for c in batch] != values:
                raise UserError("the stored search does not match this one (other options or "
                                "another optuna version); start a new run")  # fmt: skip
        else:
            batch = []
            for i, v in enumerate(values):
                key = tuple(v.items())
                if key not in cache:  # the same values on the same deals: the same games
                    cache[key] = timer.timed(each, lambda v=v: problem.measure(
                        problem.field, v, problem.targets, seed=problem.seed,
                        blocks=budget.blocks, client=client))  # fmt: skip
                batch.append(Candidate(b * budget.batch + i, b, v, cache[key],
                                       problem.distance(v), seed=problem.seed))  # fmt: skip
        for c in batch:
            cache.setdefault(tuple(c.values.items()), c.estimates)
        if unit is None:
            unit = scales(batch[0], problem.targets)
        for t, c in zip(trials, batch, strict=True):
            c.shortfall = shortfall(c, problem.targets, unit)
            study.tell(t, (c.shortfall, c.distance))
        out += batch
        if b not in stored:
            keep.batch(b, batch)
        if progress is not None:
            progress.advance(len(batch) * each)
    keep.searched(out[-1].batch + 1)
    return out


# --- 2. the finalists, 3. the confirmation ----------------------------------------------------
def finalists(cands: list[Candidate], targets: list[Target], k: int, rounds: int = ROUNDS,
              shrink: float = 1.0) -> list[list[Candidate]]:  # fmt: skip
    """The finalists in rounds of up to `k` distinct candidates, among those that might meet
    every target on the search's games (no target missed): those `likely` to meet them on a
    round's deals (`shrink`: sqrt(search deals / round deals)) in turn with those that meet them
    on their point estimates only (the nearest candidates of a continuous knob are all on the
    border: the round would cannot tell), then the others, each nearest the given data first;
    the closest ones when none might. The first round holds the given data too (candidate 0):
    "no change needed" is chosen on the same footing."""
    distinct: dict[tuple, Candidate] = {}
    for c in cands:
        distinct.setdefault(tuple(c.values.items()), c)
    pool = list(distinct.values())
    maybe = [c for c in pool if c.might_hold(targets)]
    if maybe:
        maybe.sort(key=lambda c: (c.distance, c.shortfall, c.number))
        likely = [c for c in maybe if c.likely(targets, shrink)]
        border = [c for c in maybe if c.shortfall == 0 and c not in likely]
        rest = [c for c in maybe if c.shortfall > 0 and c not in likely]
        ordered = [c for pair in zip_longest(likely, border) for c in pair if c is not None]
        ordered += rest
    else:
        ordered = sorted(pool, key=lambda c: (c.shortfall, c.distance, c.number))[:k]
    ordered = [c for c in ordered if c.number != 0]
    groups = [ordered[i:i + k] for i in range(0, min(len(ordered), k * rounds), k)] or [[]]
    groups[0].append(cands[0])
    return groups


def round_seed(seed: int, r: int) -> int:
    """The deals of round `r` of finalists (from 0)."""
    return derived_seed(seed, REEVAL, r)


def reevaluate(problem: Problem, chosen: list[Candidate], budget: Budget, unit: dict,
               r: int = 0, client=None) -> list[Candidate]:  # fmt: skip
    """Round `r` of finalists, on deals of its own."""
    seed = round_seed(problem.seed, r)
    out = []
    for c in chosen:
        est = problem.measure(problem.field, c.values, problem.targets, seed=seed,
                              blocks=budget.reeval_blocks, client=client)  # fmt: skip
        fresh = Candidate(c.number, c.batch, c.values, est, c.distance,
                          stage=f"finalists {r + 1}", seed=seed)  # fmt: skip
        fresh.shortfall = shortfall(fresh, problem.targets, unit)
        out.append(fresh)
    return out


def recommend(fresh: list[Candidate], targets: list[Target]) -> Candidate | None:
    """The finalist nearest the given data that meets every target on its round's deals, or
    None: the one to confirm."""
    ok = [c for c in fresh if c.holds(targets)]
    return min(ok, key=lambda c: (c.distance, c.shortfall, c.number)) if ok else None


def confirm(problem: Problem, c: Candidate, budget: Budget, unit: dict,
            client=None) -> Candidate:  # fmt: skip
    """`c` on the confirmation's deals, which choose nothing."""
    seed = derived_seed(problem.seed, CONFIRM)
    est = problem.measure(problem.field, c.values, problem.targets, seed=seed,
                          blocks=budget.reeval_blocks, client=client)  # fmt: skip
    out = Candidate(c.number, c.batch, c.values, est, c.distance, stage="confirmation",
                    seed=seed)  # fmt: skip
    out.shortfall = shortfall(out, problem.targets, unit)
    return out


def decide(problem: Problem, budget: Budget, searched: list[Candidate], *,
           keep: Memory | None = None, client=None, timer: Timer | None = None,
           progress=None) -> tuple[list[list[Candidate]], Candidate | None]:  # fmt: skip
    """The rounds of finalists, each on deals of its own, until one has a candidate that meets
    every target (its nearest is chosen), and the chosen one's confirmation (or None)."""
    keep, timer = keep or Memory(), timer or Timer(budget.minutes)
    unit = scales(searched[0], problem.targets)
    one = problem.games(budget.reeval_blocks)
    groups = finalists(searched, problem.targets, budget.finalists,
                       shrink=math.sqrt(budget.blocks / budget.reeval_blocks))  # fmt: skip
    rounds: list[list[Candidate]] = []
    chosen = None
    for r, group in enumerate(groups):
        games = len(group) * one
        if r > 0 and not keep.has(f"reeval{r}") and not timer.fits(games + one):
            timer.skip(f"finalists' rounds {r + 1} to {len(groups)}", games)
            break

        def play(group=group, r=r, games=games):
            return timer.timed(games, lambda: reevaluate(problem, group, budget, unit, r, client))

        rounds.append(keep.stage(f"reeval{r}", play))
        if progress is not None:
            progress.advance(games)
        chosen = recommend(rounds[-1], problem.targets)
        if chosen is not None:
            break
    if chosen is None:
        return rounds, None
    [confirmed] = keep.stage("confirm", lambda: [timer.timed(one, lambda: confirm(
        problem, chosen, budget, unit, client))])  # fmt: skip
    if progress is not None:
        progress.advance(one)
    return rounds, confirmed


# --- 4. other players -------------------------------------------------------------------------
@dataclass
class Retune:
    """One strategy's re-tune: its index among the line-up's strategies (its seed's), the policy
    and the space searched near its own values."""

    index: int
    start: str
    policy: str
    values: dict
    space: dict
    held: dict


def retune_plan(problem: Problem) -> list[Retune]:
    """The line-up's strategies (and the one whose cards are valued) that have something to tune
    within their archetype; the others play as they are."""
    fld = problem.field
    registry = fld.spec.strategies()
    out = []
    for i, start in enumerate(dict.fromkeys([*fld.lineup, fld.card_strategy])):
        policy = registry.make_policy(start)
        name = next(k for k, cls in registry.policies.items() if type(policy) is cls)
        try:
            space, held = _archetype(registry, start, name)
        except UserError:  # nothing to tune (random, a policy without parameters, the search)
            continue
        values = {p: getattr(policy, p) for p in registry.parameters(name)}
        out.append(Retune(i, start, name, values, near(space, values), held))
    return out


def retune_seed(seed: int, retune: Retune) -> int:
    return derived_seed(seed, RETUNE, retune.index)


def retune_games(problem: Problem, budget: Budget, n_strategies: int) -> int:
    """The games of the re-tunes, at most: each strategy's candidates, then its 3 finalists and
    the start when it is not among them (`reports.tune.finalists`) on twice the deals
    (`retuned_lineup`)."""
    n = problem.field.n_players
    return n_strategies * n * budget.retune_blocks * (budget.retune_candidates + 4 * 2)


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
    out = {s: s for s in dict.fromkeys([*fld.lineup, fld.card_strategy])}
    for rt in retune_plan(problem):
        others = [s for s in fld.lineup if s != rt.start] or [rt.start]
        opponents = [others[j % len(others)] for j in range(n - 1)]
        seed = retune_seed(problem.seed, rt)
        tp = T.Problem(fld.spec.name, tables, n, rt.start, rt.policy, rt.values, rt.space,
                       opponents, seed, registry, rt.held)  # fmt: skip
        rows = T.run_search(tp, T.Search(candidates=budget.retune_candidates,
                                         blocks=budget.retune_blocks), client=client)  # fmt: skip
        final = T.finalists(rows, 3)
        shares = T.evaluate(tp, [r["spec"] for r in final], seed=derived_seed(seed, REEVAL),
                            n_blocks=2 * budget.retune_blocks, client=client)  # fmt: skip
        out[rt.start] = final[int(shares.mean(axis=1).argmax())]["spec"]
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
    within its own archetype (`reports.tune.search_space`)."""
    import re

    from reports.tune import search_space, within_archetype

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
    seed = derived_seed(problem.seed, ADAPT)
    est = problem.measure(other, c.values, problem.targets, seed=seed,
                          blocks=budget.reeval_blocks, client=client)  # fmt: skip
    return Candidate(c.number, c.batch, c.values, est, c.distance, stage="re-tuned players",
                     seed=seed)  # fmt: skip


def learned_check(problem: Problem, c: Candidate, budget: Budget,
                  client=None) -> tuple[Candidate | None, str]:  # fmt: skip
    """The targets of `c` with the learned player in every seat (and valuing the cards), on
    deals of their own, or None and why it was not checked. The learned player's weights were
    fitted under the rules as given: it does not adapt to `c`'s values."""
    fld = problem.field
    if any(t.metric == "win_rate" for t in problem.targets):
        return None, "not checked: a win_rate target names a strategy of the line-up"
    if set(fld.lineup) == {"learned"} and fld.card_strategy == "learned":
        return None, "not checked: the line-up is the learned player (the answer's own games)"
    seed = derived_seed(problem.seed, LEARNED)
    try:
        fld.spec.strategies().table_policies(["learned"] * fld.n_players, fld.n_players)
        other = Field(fld.spec, ["learned"] * fld.n_players, fld.n_players, "learned",
                      fld.cards, fld.base, fld.expansions)  # fmt: skip
        est = problem.measure(other, c.values, problem.targets, seed=seed,
                              blocks=budget.reeval_blocks, client=client)  # fmt: skip
    except (UserError, ValueError, KeyError) as exc:  # no learned player here, or no forbid
        return None, f"not checked: {exc}"
    return Candidate(c.number, c.batch, c.values, est, c.distance, stage="learned player",
                     seed=seed), ""  # fmt: skip


def other_players(problem: Problem, best: Candidate, budget: Budget, *, client=None,
                  timer: Timer | None = None, progress=None) -> dict:  # fmt: skip
    """The re-tuned players' check and the learned player's, each when it fits the time left:
    {"retuned", "adapted", "learned", "learned_note", "skipped"}."""
    timer = timer or Timer(budget.minutes)
    one = problem.games(budget.reeval_blocks)
    out = {"retuned": {}, "adapted": None, "learned": None, "learned_note": "", "skipped": []}
    skipped = len(timer.skipped)
    plan = retune_plan(problem)
    games = retune_games(problem, budget, len(plan)) + (one if plan else 0)
    if not timer.fits(games):
        timer.skip("the re-tuned players' check", games)
    elif plan:
        retuned = timer.timed(games - one, lambda: retuned_lineup(problem, best.values, budget,
                                                                  client, progress))  # fmt: skip
        out["retuned"] = retuned
        if any(k != v for k, v in retuned.items()):  # else: the same games again
            out["adapted"] = timer.timed(one, lambda: adapted_check(problem, best, retuned,
                                                                    budget, client))  # fmt: skip
    else:
        out["retuned"] = {s: s for s in dict.fromkeys([*problem.field.lineup,
                                                        problem.field.card_strategy])}
    if not timer.fits(one):
        timer.skip("the learned player's check", one)
    else:
        out["learned"], out["learned_note"] = timer.timed(
            one, lambda: learned_check(problem, best, budget, client))
    out["skipped"] = timer.skipped[skipped:]
    return out


# --- the whole procedure ----------------------------------------------------------------------
def answer(problem: Problem, budget: Budget, *, keep: Memory | None = None, client=None,
           timer: Timer | None = None, progress=None) -> Outcome:  # fmt: skip
    """The search, the rounds of finalists, the confirmation and, for a confirmed change, the
    other players; `keep` stores each stage as it ends (`reports.runs.design`)."""
    keep, timer = keep or Memory(), timer or Timer(budget.minutes)
    searched = search(problem, budget, keep=keep, client=client, timer=timer, progress=progress)
    rounds, confirmed = decide(problem, budget, searched, keep=keep, client=client, timer=timer,
                               progress=progress)  # fmt: skip
    outcome = Outcome(problem, searched, rounds, confirmed, budget=budget)
    best = outcome.recommended
    if best is not None and best.number != 0:
        resumed = keep.has("players")
        players = keep.stage("players", lambda: other_players(
            problem, best, budget, client=client, timer=timer, progress=progress))  # fmt: skip
        if resumed:
            timer.skipped += players["skipped"]
        outcome.retuned = players["retuned"]
        outcome.adapted, outcome.learned = players["adapted"], players["learned"]
        outcome.learned_note = players["learned_note"]
    outcome.skipped = list(timer.skipped)
    outcome.minutes_used = timer.elapsed() / 60
    return outcome


# --- the outcome ------------------------------------------------------------------------------
@dataclass
class Outcome:
    problem: Problem
    searched: list[Candidate]
    rounds: list[list[Candidate]]
    confirmation: Candidate | None  # the chosen candidate on the confirmation's deals
    adapted: Candidate | None = None
    learned: Candidate | None = None
    retuned: dict = field(default_factory=dict)
    budget: Budget | None = None
    learned_note: str = ""
    skipped: list[str] = field(default_factory=list)
    minutes_used: float = math.nan

    @property
    def fresh(self) -> list[Candidate]:
        """Every finalist of every round, on its round's deals."""
        return [c for r in self.rounds for c in r]

    @property
    def confirmed(self) -> bool | None:
        """Does the chosen candidate meet every target on the confirmation's deals? None when
        nothing was chosen, or the data cannot tell."""
        return verdict_of(self.confirmation, self.problem.targets)

    @property
    def recommended(self) -> Candidate | None:
        """The confirmation, when it meets every target."""
        return self.confirmation if self.confirmed else None

    @property
    def verdict(self) -> str:
        """"change", "no change needed", "not confirmed" (chosen, not met on the confirmation),
        "cannot tell" (no finalist met every target, some missed none) or "unreachable" (every
        finalist missed a target)."""
        if self.confirmation is not None:
            if not self.confirmed:
                return "not confirmed"
            return "no change needed" if self.confirmation.number == 0 else "change"
        targets = self.problem.targets
        return "cannot tell" if any(c.might_hold(targets) for c in self.fresh) else "unreachable"

    @property
    def adapts(self) -> bool | None:
        """Does the recommendation hold with the re-tuned players? True when every target is met
        on their games, False when one is missed, None when not checked or cannot tell."""
        return verdict_of(self.adapted, self.problem.targets)

    @property
    def learned_holds(self) -> bool | None:
        """The same with the learned player (weights of the rules as given) in every seat."""
        return verdict_of(self.learned, self.problem.targets)


def purposes(outcome: Outcome) -> dict[str, int]:
    """The seeds of the run's deals by purpose (for its manifest): which chose, which reported."""
    p = outcome.problem
    out = {"search (chooses the finalists)": p.seed}
    for r in range(len(outcome.rounds)):
        out[f"finalists round {r + 1} (chooses)"] = round_seed(p.seed, r)
    if outcome.confirmation is not None:
        out["confirmation (reports)"] = outcome.confirmation.seed
    if outcome.retuned:
        for rt in retune_plan(p):
            seed = retune_seed(p.seed, rt)
            out[f"re-tune of {rt.start} (chooses)"] = seed
            out[f"re-tune of {rt.start}, its finalists (chooses)"] = derived_seed(seed, REEVAL)
    for c, what in ((outcome.adapted, "re-tuned players' check"),
                    (outcome.learned, "learned player's check")):  # fmt: skip
        if c is not None:
            out[f"{what} (reports)"] = c.seed
    return out


def candidates_frame(outcome: Outcome):
    """One row per candidate and stage, long form: `stage` (search, finalists 1.., confirmation,
    re-tuned players, learned player), its deals (`seed`, `deals`), the candidate's values (a
    column per varied key), per target its value, `_lo` and `_hi`, the distance, the
    shortfall, the games, `meets` (every target met on the row's deals) and `recommended` (the
    confirmation's row of a confirmed answer)."""
    import pandas as pd

    p, b = outcome.problem, outcome.budget
    seen, rows = set(), []
    later = [*outcome.fresh, outcome.confirmation, outcome.adapted, outcome.learned]
    distinct = []
    for c in outcome.searched:
        if tuple(c.values.items()) not in seen:
            seen.add(tuple(c.values.items()))
            distinct.append(c)
    for c in [*distinct, *(c for c in later if c is not None)]:
        row = {"candidate": c.number, "batch": c.batch, "stage": c.stage, "seed": c.seed,
               "deals": (b.blocks if c.stage == "search" else b.reeval_blocks) if b else pd.NA,
               **c.values}  # fmt: skip
        for t in p.targets:
            e = c.estimates[t.name]
            row.update({t.name: e.value, f"{t.name}_lo": e.lo, f"{t.name}_hi": e.hi})
        row.update({"distance": c.distance, "shortfall": c.shortfall,
                    "games": max(e.games for e in c.estimates.values()),
                    "meets": c.holds(p.targets),
                    "recommended": c is outcome.recommended})  # fmt: skip
        rows.append(row)
    df = pd.DataFrame(rows)
    df["seed"] = df["seed"].astype("Int64")
    return df


def pareto(df) -> np.ndarray:
    """Rows not dominated in (shortfall, distance): the trade-off's front."""
    s, d = df["shortfall"].to_numpy(float), df["distance"].to_numpy(float)
    front = np.ones(len(df), dtype=bool)
    for i in range(len(df)):
        worse = (s <= s[i]) & (d <= d[i]) & ((s < s[i]) | (d < d[i]))
        front[i] = not worse.any()
    return front
