"""`abyss-mc tune`: the parameters of a strategy that win most against a field of opponents.

The problem. A strategy (a preset or a policy) of `n` players is played against a *field* of
`n - 1` opponents (by default the strongest built-in strategies at that player count, found by
a short screening tournament). A *candidate* is the strategy with some of its parameters
changed; its value is its win rate (share of the win, ties split) against the field.

How a candidate is judged, so that differences between candidates are not luck of the deal:
- Common random numbers. A *block* is one deal (game index of a seed): the candidate and the
  field play it in every rotation of the seats (the candidate in every seat once), seated in a
  cyclic order that changes with the block (`reports.play.tournament.block_seatings`). Every
  candidate plays the same blocks, so two candidates differ only by their own decisions.
- The search. A well-kept optimiser for noisy black-box functions (optuna; its sampler chosen by
  measurement, docs/decisions.md) proposes candidates in batches; the first candidate is the
  starting strategy itself. The batches are asked and told in a fixed order, each with a
  sampler seeded from the run's seed and the batch, so the search is a pure function of its
  options: the same on any backend, and a resumed search replays the stored evaluations to the
  very same candidates.
- The winner's curse. The best candidates of a noisy search are, on average, luckier than they
  are good. The finalists (the best few, and the starting strategy) are therefore played again
  on fresh deals (another seed), and the best of that re-evaluation is chosen.
- The held-out check. The chosen candidate and the starting strategy play a third seed's deals,
  never seen by the search or the re-evaluation (at least 20,000 games each by default), paired
  by block: the difference of their win rates has a t interval over blocks. A tune whose stages
  would share a deal stops before it plays (`check_fresh_deals`).
- The archetype. A preset is named after what it does, and the parameters it sets are what it
  does: by default they stay on its side (`within_archetype`); `--open` searches them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reports.play import seeds as S
from reports.play.seeds import derived_seed
from sim.core.errors import UserError

SAMPLERS = ("tpe", "cmaes", "random")
#: The sampler chosen by measurement (docs/decisions.md, "Tuning: optuna's TPE").
DEFAULT_SAMPLER = "tpe"
#: Streams of the run's seed: the re-evaluation, the held-out check, the screening tournament
#: and the samplers get deals and draws of their own (`reports.play.seeds`).
REEVAL, HELDOUT, SCREEN, SAMPLER = (S.TUNE_REEVAL, S.TUNE_HELDOUT, S.TUNE_SCREEN,
                                    S.TUNE_SAMPLER)  # fmt: skip


def stage_seeds(seed: int) -> dict[str, int]:
    """The deals of each stage: the search plays the run's seed, the re-evaluation and the
    held-out check seeds of their own."""
    return {"search": seed, "re-evaluation": derived_seed(seed, REEVAL),
            "held-out check": derived_seed(seed, HELDOUT)}  # fmt: skip


def stage_deals(n_players: int, seed: int, n_blocks: int) -> set[tuple[int, int]]:
    """The deals a stage of `n_blocks` blocks of `seed` plays: (seed, game index) pairs (a
    game's deal is a pure function of them)."""
    games, _ = seating_plan(n_players, seed, 0, n_blocks)
    return {(seed, int(g)) for g in np.unique(games)}


def check_fresh_deals(n_players: int, stages: dict[str, tuple[int, int]]) -> None:
    """Stop a tune whose re-evaluation or held-out check would replay a deal of an earlier stage
    (`stages`: name -> (seed, blocks), in the order they play): their estimates would share the
    search's luck, and the winner's curse would go unchecked."""
    # A deal is (seed, game index): only stages of one seed can share one, so only theirs are
    # listed (listing all took 37 s and gigabytes before a 10^10-game tune was refused for size).
    earlier: dict[int, list[tuple[str, int]]] = {}
    for name, (seed, n_blocks) in stages.items():
        if seed in earlier:
            deals = stage_deals(n_players, seed, n_blocks)
            shared = sorted(other for other, blocks in earlier[seed]
                            if deals & stage_deals(n_players, seed, blocks))  # fmt: skip
            if shared:
                raise UserError(f"the {name} would replay deals of the "
                                f"{' and the '.join(shared)}: its deals must be fresh (seeds of "
                                "its own)")  # fmt: skip
        earlier.setdefault(seed, []).append((name, n_blocks))


# --- the archetype ----------------------------------------------------------------------------
def within_archetype(registry, start: str, policy: str, space: dict) -> tuple[dict, dict]:
    """The search `space` kept to the starting strategy's archetype, and the rule held for each
    parameter that defines it (name -> "= v", ">= v" or "<= v").

    The parameters a preset sets (and those changed in the spec, `preset:p=v`) define it. A
    choice (a guild) is held. A number set away from the policy's default may move only further
    that way, on the archetype's side (farmer's guild_bonus = 4 only up, leviathan_hunter's
    fight_p = 0.3 only down); one set at the default is held (pearl_economist's plot_pearls = 99:
    it never plots). A policy's own name defines nothing: everything is searched."""
    name, *changed = start.split(":")
    preset = registry.presets().get(name)
    defining = dict.fromkeys(preset.params if preset is not None else ())
    defining.update(dict.fromkeys(item.partition("=")[0] for item in changed))
    values = registry.make_policy(start)
    default = registry.defaults(policy)
    narrowed, held = dict(space), {}
    for p in (p for p in defining if p in space):
        value, (kind, *bounds) = getattr(values, p), space[p]
        if kind != "choice" and value > default[p] and value < bounds[1]:
            narrowed[p], held[p] = (kind, max(bounds[0], value), bounds[1]), f">= {_text(value)}"
        elif kind != "choice" and value < default[p] and value > bounds[0]:
            narrowed[p], held[p] = (kind, bounds[0], min(bounds[1], value)), f"<= {_text(value)}"
        else:  # a choice, the default, or the end of the range on the archetype's side
            del narrowed[p]
            held[p] = f"= {_text(value)}"
    return narrowed, held


@dataclass
class Problem:
    """What is tuned: `start` (a strategy spec) at `n_players` against `opponents` (the field:
    one spec per other seat), over the parameters of `space` (name -> ("int"|"float", low, high) or
    ("choice", names)); `values` are the starting strategy's values of every parameter."""

    game: str
    tables: object
    n_players: int
    start: str
    policy: str
    values: dict
    space: dict
    opponents: list[str]
    seed: int
    registry: object = field(repr=False, default=None)
    #: the rules that keep the archetype's parameters (`within_archetype`)
    held: dict = field(default_factory=dict)
    #: every parameter searched (`--open`): nothing held
    open: bool = False

    def spec(self, params: dict) -> str:
        """The strategy spec of a candidate: the start with `params` changed (the start itself
        for its own values, `start_params`)."""
        if params == self.start_params():
            return self.start
        changed = ":".join(f"{k}={_text(v)}" for k, v in params.items())
        return f"{self.start}:{changed}"

    def start_params(self) -> dict:
        """The starting values of the searched parameters, brought into the search ranges (a
        value beyond a `search` range acts as its nearest end, e.g. never plotting)."""
        out = {}
        for name, space in self.space.items():
            value = self.values[name]
            if space[0] != "choice":
                value = min(max(value, space[1]), space[2])
            out[name] = value
        return out


def _text(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


# --- playing candidates against the field ---------------------------------------------------
def seating_plan(n_players: int, seed: int, first_block: int, n_blocks: int):
    """Deals and seatings of blocks first_block .. +n_blocks: every rotation of (candidate,
    field...) on the block's deal, in the block's cyclic order. Seat value 0 is the candidate,
    j >= 1 the field's j-th strategy. Returns (games, seatings) with n_players tables a block."""
    from reports.play.tournament import block_games, make_design

    design = make_design([f"s{i}" for i in range(n_players)], n_players, "balanced", seed)
    _, _, games, seatings = block_games(design, first_block, n_blocks, "block")
    return games, seatings


def evaluate(problem: Problem, specs: list[str], *, seed: int, first_block: int = 0,
             n_blocks: int, client=None) -> np.ndarray:  # fmt: skip
    """Each candidate's win share per block (rows: `specs`, columns: blocks), every candidate
    on the same deals of `seed`. On a Dask `client` the blocks are played in chunks on the
    cluster: the same numbers."""
    from reports.play import blocks

    plan = AgainstField(problem.game, problem.n_players, list(specs), list(problem.opponents),
                        seed)  # fmt: skip
    parts = blocks.play(plan, problem.tables, n_blocks, first_block=first_block, client=client)
    return np.concatenate(parts, axis=1)


@dataclass
class AgainstField:
    """The blocks of `evaluate` (a `reports.play.blocks.Plan`): every candidate of `specs` in
    every rotation of (candidate, field...) on the block's deal (`seating_plan`), candidate by
    candidate. Part: (candidates, blocks) win shares."""

    game: str
    n_players: int
    specs: list[str]
    opponents: list[str]
    seed: int

    @property
    def tables_per_block(self) -> int:
        return self.n_players * max(1, len(self.specs))

    def policies(self, spec) -> list:
        """The candidates' and the opponents' policies, each made for a table of `n_players`
        (a learned player takes that count's weights, or refuses another count's)."""
        return spec.strategies().table_policies([*self.specs, *self.opponents], self.n_players)

    def deals(self, first: int, n: int):
        q = len(self.specs)
        games, seat = seating_plan(self.n_players, self.seed, first, n)
        seat_of = np.where(seat == 0, 0, q + seat - 1)
        seatings = np.concatenate([np.where(seat == 0, c, seat_of) for c in range(q)])
        return np.tile(games, q), seatings

    def part(self, first: int, n: int, seatings, seats: dict, cols: dict, aggregates):
        p, q = self.n_players, len(self.specs)
        win = np.asarray(seats["win"], dtype=np.float64).reshape(q, n, p, p)
        mine = (seatings[: n * p] == 0).reshape(n, p, p)  # the first candidate's seats
        return (win * mine).sum(axis=(2, 3)) / p


# --- the search -------------------------------------------------------------------------------
@dataclass
class Search:
    """The search's budget: `candidates` in batches of `batch`, each on `blocks` blocks."""

    sampler: str = DEFAULT_SAMPLER
    candidates: int = 384
    batch: int = 8
    blocks: int = 780

    def __post_init__(self) -> None:
        if self.sampler not in SAMPLERS:
            raise UserError(f"--sampler must be one of {', '.join(SAMPLERS)}; got {self.sampler!r}")
        if self.candidates < 2 or self.batch < 1 or self.blocks < 2:
            raise UserError("a search needs at least 2 candidates of at least 2 blocks each")

    @property
    def n_batches(self) -> int:
        return -(-self.candidates // self.batch)


def make_sampler(name: str, seed: int):
    import optuna

    seed32 = seed % 2**32
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed32, multivariate=True, n_startup_trials=16)
    if name == "cmaes":
        return optuna.samplers.CmaEsSampler(
            seed=seed32, n_startup_trials=8, warn_independent_sampling=False
        )
    return optuna.samplers.RandomSampler(seed=seed32)


def distributions(space: dict) -> dict:
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    out = {}
    for name, s in space.items():
        if s[0] == "choice":
            out[name] = CategoricalDistribution(list(s[1]))
        elif s[0] == "int":
            out[name] = IntDistribution(int(s[1]), int(s[2]))
        else:
            out[name] = FloatDistribution(float(s[1]), float(s[2]), step=0.001)
    return out


def run_search(problem: Problem, search: Search, *, stored: dict | None = None, on_batch=None,
               client=None) -> list[dict]:  # fmt: skip
    """The search's candidates in order, each a dict: candidate, batch, params, spec, win_rate.
    `stored` maps a batch to its candidates' recorded win rates (a resumed run): those batches
    are not played again, and their candidates must be the ones asked again (else the stored
    search came from other options). `on_batch(batch, rows)` is called after each new batch."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    dist = distributions(problem.space)
    study = optuna.create_study(direction="maximize", sampler=make_sampler(search.sampler, 0))
    study.enqueue_trial(problem.start_params())
    rows: list[dict] = []
    for b in range(search.n_batches):
        study.sampler = make_sampler(search.sampler, derived_seed(problem.seed, SAMPLER, b))
        n = min(search.batch, search.candidates - b * search.batch)
        trials = [study.ask(dist) for _ in range(n)]
        params = [_rounded(t.params, problem.space) for t in trials]
        specs = [problem.spec(p) for p in params]
        if stored is not None and b in stored:
            recorded = stored[b]
            if [r["spec"] for r in recorded] != specs:
                raise UserError("the stored search does not match this one (other options or "
                                "another optuna version); start a new run")  # fmt: skip
            values = [r["win_rate"] for r in recorded]
            new = False
        else:
            values = evaluate(problem, specs, seed=problem.seed, n_blocks=search.blocks,
                              client=client).mean(axis=1).tolist()  # fmt: skip
            new = True
        batch_rows = [
            {"candidate": b * search.batch + i, "batch": b, "params": p, "spec": s,
             "win_rate": float(v), "games": search.blocks * problem.n_players}
            for i, (p, s, v) in enumerate(zip(params, specs, values, strict=True))
        ]  # fmt: skip
        for t, v in zip(trials, values, strict=True):
            study.tell(t, v)
        rows += batch_rows
        if new and on_batch is not None:
            on_batch(b, batch_rows)
    return rows


def _rounded(params: dict, space: dict) -> dict:
    """Params in the space's own order, floats on the policies' 0.001 grid."""
    out = {}
    for name, s in space.items():
        value = params[name]
        out[name] = round(float(value), 3) if s[0] == "float" else value
    return out


def finalists(rows: list[dict], k: int) -> list[dict]:
    """The `k` best distinct candidates of the search, and the start (candidate 0) if it is not
    among them."""
    best: dict[str, dict] = {}
    for row in sorted(rows, key=lambda r: (-r["win_rate"], r["candidate"])):
        best.setdefault(row["spec"], row)
    chosen = list(best.values())[:k]
    if all(r["candidate"] != 0 for r in chosen):
        chosen.append(rows[0])
    return chosen


# --- the verdict ------------------------------------------------------------------------------
@dataclass
class HeldOut:
    """The chosen candidate against the start on the held-out deals, paired by block."""

    games: int  # games of each
    tuned: float
    start: float
    diff: float
    lo: float
    hi: float
    p: float
    per_block: np.ndarray = field(repr=False, default=None)

    @property
    def verdict(self) -> str:
        if self.lo > 0:
            return "better"
        if self.hi < 0:
            return "worse"
        return "cannot tell"


def held_out(shares: np.ndarray, n_players: int, conf: float = 0.95) -> HeldOut:
    """`shares`: rows tuned, start; columns held-out blocks."""
    from reports.stats.blocks import paired_test

    d = shares[0] - shares[1]
    mean, lo, hi, p = paired_test(d, conf)
    return HeldOut(shares.shape[1] * n_players, float(shares[0].mean()), float(shares[1].mean()),
                   mean, lo, hi, p, d)  # fmt: skip


def search_space(registry, start: str, policy: str, names: str | None, open_: bool):
    """The searched parameters (all of the policy's, or the listed ones) and the archetype's
    rules (`reports.tune.within_archetype`; none with --open)."""
    space = registry.search_space(policy)
    if not space:
        raise UserError(f"{policy} has no parameters to tune")
    known, held = list(space), {}
    if not open_:
        space, held = within_archetype(registry, start, policy, space)
    wanted = [p.strip() for p in names.split(",") if p.strip()] if names else list(space)
    fixed = [p for p in wanted if p in held and p not in space]
    if fixed:
        rules = ", ".join(f"{p} {held[p]}" for p in fixed)
        raise UserError(f"--params: {', '.join(fixed)} define {start} and stay as they are "
                        f"({rules}); --open tunes them too")  # fmt: skip
    unknown = [p for p in wanted if p not in space]
    if unknown or (names and not wanted):
        raise UserError(f"--params: unknown parameter {', '.join(unknown) or '(none)'} of "
                        f"{policy}; known: {', '.join(known)}")  # fmt: skip
    if not wanted:
        raise UserError(f"every parameter of {start} defines it: nothing is left to tune "
                        "within its archetype (--open tunes them all)")  # fmt: skip
    return {p: space[p] for p in wanted}, held
