"""What `abyss-mc design` varies and aims at: `--vary KEY=LO..HI` and `--target METRIC<=X`, and
the measurement of every target on one candidate's games.

A *candidate* is a set of `--set` values (one per varied key) on top of the card data the run
was given. Its targets are measured on games played with common random numbers: every candidate
of a stage plays the same deals (a game's deal is a pure function of the seed and the game
index, `sim.core.rng`), so two candidates differ only by their values.

The metrics (docs/design.md defines each; shares are fractions), with their 95% intervals:
- `seat_spread`: the largest minus the smallest seat's win share (percentile bootstrap over
  blocks, the seats of a block resampled together);
- `seat_share:N`: seat N's win share (seats from 1); `win_rate:S`: strategy S's win share in
  the line-up; `rounds`: rounds per game, turns over players (t over blocks);
- `card_value:KEY`: the win share a strategy loses when forbidden the card KEY, by restricted
  play (t over blocks); `max_card_value`: the largest of every card's (Holm-adjusted,
  `reports.restrict`);
- `lead_changes`, `decisive_point`, `comeback`, `margin`: tension (`reports.metrics.tension`, over
the
  games a tournament samples; t over their deals).

A target *meets* on a candidate's games when the metric's 95% interval lies on the side it asks
(`<=X`: its upper end at most X; `>=X`: its lower end at least X); `==X±M` is an equivalence
test (Schuirmann's two one-sided tests): its interval inside [X-M, X+M]. It *misses* when the
interval lies wholly outside, and *cannot tell* across (`Target.says`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from sim.core.errors import UserError

#: metric name -> (takes an argument, what it is); the order of `--help` and docs/design.md
METRICS = {
    "seat_spread": (False, "largest minus smallest seat win share"),
    "seat_share": (True, "seat N's win share (seat_share:4)"),
    "win_rate": (True, "a strategy's win share (win_rate:farmer)"),
    "rounds": (False, "rounds per game"),
    "card_value": (True, "a card's restricted-play value (card_value:lord.jailer)"),
    "max_card_value": (False, "the largest restricted-play value of any card"),
    "lead_changes": (False, "lead changes per game"),
    "decisive_point": (False, "share of the game after which the winner leads for good"),
    "comeback": (False, "win share of the seat last after a third of the game"),
    "margin": (False, "the winner's lead over the runner-up at the end"),
}
TENSION = ("lead_changes", "decisive_point", "comeback", "margin")
OPS = ("<=", ">=", "==")


# --- --vary -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Vary:
    """A varied `--set` key: integers or reals in low..high, or one of `choices`; `start` is its
    value in the run's card data (its own `--set` included): distances are measured from it."""

    key: str
    kind: str  # "int", "float" or "choice"
    low: float = 0
    high: float = 0
    choices: tuple = ()
    start: object = None

    def distance(self, value) -> float:
        """How far `value` is from the start: a share of the range, or 1 for another choice."""
        if self.kind == "choice":
            return float(value != self.start)
        span = max(self.high - self.low, 1e-12)
        return abs(float(value) - float(self.start)) / span

    def text(self, value) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)


def parse_vary(items: list[str]) -> list[Vary]:
    """`KEY=LO..HI` (integers if both ends are, else reals) or `KEY=A|B|C` (choices)."""
    out: list[Vary] = []
    for item in items:
        key, sep, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not re.fullmatch(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+", key) or not text:
            raise UserError(f"--vary {item!r}: expected KEY=LO..HI or KEY=A|B|C, e.g. "
                            "lord.jailer.ip=0..20")  # fmt: skip
        if key in {v.key for v in out}:
            raise UserError(f"--vary {key} is given twice")
        if ".." in text:
            lo_text, _, hi_text = text.partition("..")
            lo, hi = _number(lo_text, item), _number(hi_text, item)
            if lo >= hi:
                raise UserError(f"--vary {item!r}: LO must be below HI")
            kind = "int" if isinstance(lo, int) and isinstance(hi, int) else "float"
            out.append(Vary(key, kind, lo, hi))
        else:
            choices = tuple(_scalar(c.strip()) for c in text.split("|"))
            if len(choices) < 2 or len(set(choices)) != len(choices) or "" in choices:
                raise UserError(f"--vary {item!r}: give two or more distinct choices, A|B|C, "
                                "or a range LO..HI")  # fmt: skip
            out.append(Vary(key, "choice", choices=choices))
    if not out:
        raise UserError("give at least one --vary KEY=LO..HI (the values to search)")
    return out


def _number(text: str, item: str) -> int | float:
    value = _scalar(text.strip())
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UserError(f"--vary {item!r}: {text.strip()!r} is not a number")
    return value


def _scalar(text: str):
    from sim.core.carddata import parse_set_options

    return parse_set_options([f"v.v={text}"])["v.v"]


def with_starts(varies: list[Vary], value_of) -> list[Vary]:
    """The varied keys with their values in the run's card data (`value_of(key)`)."""
    out = []
    for v in varies:
        start = value_of(v.key)
        if v.kind == "choice" and start not in v.choices:
            v = Vary(v.key, v.kind, choices=(start, *v.choices))  # the data's value is a choice
        elif v.kind != "choice":
            if isinstance(start, bool) or not isinstance(start, (int, float)):
                raise UserError(f"--vary {v.key}: its value is {start!r}, not a number; give "
                                "choices A|B|C")  # fmt: skip
            if v.kind == "int" and not isinstance(start, int):
                v = Vary(v.key, "float", v.low, v.high)
        out.append(Vary(v.key, v.kind, v.low, v.high, v.choices, start))
    return out


# --- --target ---------------------------------------------------------------------------------
#: `METRIC==X` without `±M`: the equivalence margin (docs/design.md), in the metric's units:
#: 2 points of win share, 1 point of win rate for a card (`reports.restrict.MARGIN`, "too weak
#: to matter"), half a round, a quarter of a lead change, 5% of the game, 1 point of score.
MARGINS = {"seat_spread": 0.02, "seat_share": 0.02, "win_rate": 0.02, "rounds": 0.5,
           "card_value": 0.01, "max_card_value": 0.01, "lead_changes": 0.25,
           "decisive_point": 0.05, "comeback": 0.02, "margin": 1.0}  # fmt: skip
#: the values a metric can take; a bound outside them is refused (shares are fractions)
SHARES = ("seat_spread", "seat_share", "win_rate", "decisive_point", "comeback")
RANGES = {**{m: (0.0, 1.0) for m in SHARES}, "card_value": (-1.0, 1.0),
          "max_card_value": (-1.0, 1.0), "rounds": (0.0, math.inf),
          "lead_changes": (0.0, math.inf), "margin": (0.0, math.inf)}  # fmt: skip
#: what a target says of a candidate's 95% interval
MEETS, MISSES, CANNOT_TELL = "meets", "misses", "cannot tell"


@dataclass(frozen=True)
class Target:
    """`metric[:arg] op bound`, e.g. seat_spread<=0.02, card_value:lord.jailer==0±0.01; `margin`:
    the equivalence margin of `==` (0 for `<=` and `>=`)."""

    metric: str
    arg: str
    op: str
    bound: float
    margin: float = 0.0

    @property
    def name(self) -> str:
        """The metric as typed (a column of candidates.csv)."""
        return f"{self.metric}:{self.arg}" if self.arg else self.metric

    @property
    def text(self) -> str:
        margin = f"±{self.margin:g}" if self.op == "==" else ""
        return f"{self.name}{self.op}{self.bound:g}{margin}"

    @property
    def band(self) -> tuple[float, float]:
        """The values the target accepts."""
        return {"<=": (-math.inf, self.bound), ">=": (self.bound, math.inf),
                "==": (self.bound - self.margin, self.bound + self.margin)}[self.op]  # fmt: skip

    def says(self, value: float, lo: float, hi: float) -> str:
        """MEETS when the 95% interval lies inside the band (a one-sided test at 2.5%; for `==`
        Schuirmann's two one-sided tests, each at 2.5%), MISSES when it lies wholly outside,
        else CANNOT_TELL (and without an interval)."""
        if math.isnan(value) or math.isnan(lo) or math.isnan(hi):
            return CANNOT_TELL
        a, z = self.band
        if a <= lo and hi <= z:
            return MEETS
        return MISSES if hi < a or lo > z else CANNOT_TELL

    def holds(self, value: float, lo: float, hi: float) -> bool:
        return self.says(value, lo, hi) == MEETS

    def shortfall(self, value: float, lo: float, hi: float) -> float:
        """How far the point estimate is from the band (0 inside it), in the metric's units:
        what guides the search; `says` decides."""
        if math.isnan(value):
            return math.inf
        a, z = self.band
        return max(0.0, a - value, value - z)


def parse_targets(items: list[str], n_players: int) -> list[Target]:
    """`METRIC<=X`, `>=X` or `==X±M` (`+-M` too; without it the metric's MARGINS), each refused
    in one line when it cannot be meant (outside the metric's range, not finite, a share typed
    as a percent) or when the targets on one metric cannot all hold."""
    out: list[Target] = []
    for item in items:
        m = re.fullmatch(r"\s*([a-z_]+)(?::([A-Za-z0-9_.\-]+))?\s*(<=|>=|==)\s*(\S+?)"
                         r"(?:\s*(?:±|\+-)\s*(\S+))?\s*", item)  # fmt: skip
        if not m:
            raise UserError(f"--target {item!r}: expected METRIC<=X, METRIC>=X or METRIC==X±M, "
                            "e.g. seat_spread<=0.02")  # fmt: skip
        metric, arg, op = m.group(1), m.group(2) or "", m.group(3)
        if metric not in METRICS:
            raise UserError(f"--target {item!r}: unknown metric {metric!r}; known: "
                            f"{', '.join(METRICS)}")  # fmt: skip
        if METRICS[metric][0] != bool(arg):
            what = f"needs an argument ({METRICS[metric][1]})" if METRICS[metric][0] else \
                "takes no argument"  # fmt: skip
            raise UserError(f"--target {item!r}: {metric} {what}")
        if metric == "seat_share" and not (arg.isdigit() and 1 <= int(arg) <= n_players):
            raise UserError(f"--target {item!r}: seats are 1..{n_players}")
        bound = _bound(m.group(4), item, metric)
        if m.group(5) is not None and op != "==":
            raise UserError(f"--target {item!r}: a margin ±M goes with == only")
        margin = MARGINS[metric] if m.group(5) is None else _number_of(m.group(5), item)
        if margin < 0:
            raise UserError(f"--target {item!r}: the margin must be 0 or more")
        target = Target(metric, arg, op, bound, margin if op == "==" else 0.0)
        if (target.name, target.op) in {(t.name, t.op) for t in out}:
            raise UserError(f"--target {target.name}{target.op} is given twice")
        out.append(target)
    if not out:
        raise UserError("give at least one --target, e.g. --target seat_spread<=0.02")
    _check_bands(out)
    return out


def _number_of(text: str, item: str) -> float:
    """A finite number; `%` divides by 100."""
    try:
        value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise UserError(f"--target {item!r}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise UserError(f"--target {item!r}: {text!r} is not a finite number")
    return value


def _bound(text: str, item: str, metric: str) -> float:
    """The bound, within the metric's range; a share above 1 typed without `%` is named."""
    value = _number_of(text, item)
    lo, hi = RANGES[metric]
    if lo <= value <= hi:
        return value
    if hi == 1.0 and not text.endswith("%") and 1 < abs(value) <= 100:
        raise UserError(f"--target {item!r}: {metric} is a fraction from {lo:g} to 1; {text} "
                        f"reads as a percent: write {value / 100:g} or {text}%")  # fmt: skip
    where = f"from {lo:g} to {hi:g}" if math.isfinite(hi) else f"{lo:g} or more"
    raise UserError(f"--target {item!r}: {metric} is {where}; {text} is outside")


def _check_bands(targets: list[Target]) -> None:
    """The targets on one metric must leave values that meet them all."""
    for name in dict.fromkeys(t.name for t in targets):
        on = [t for t in targets if t.name == name]
        low = max(on, key=lambda t: t.band[0])
        high = min(on, key=lambda t: t.band[1])
        if low.band[0] > high.band[1]:
            raise UserError(f"--target {low.text} and {high.text} cannot both hold: no value "
                            "meets both")  # fmt: skip


# --- measuring a candidate --------------------------------------------------------------------
@dataclass
class Estimate:
    value: float
    lo: float
    hi: float
    games: int


@dataclass
class Field:
    """What plays a candidate's games: the game, its line-up at `n_players`, the strategy whose
    cards are valued (restricted play) and the card data's other inputs."""

    spec: object
    lineup: list[str]
    n_players: int
    card_strategy: str
    cards: object = None
    base: list[str] = field(default_factory=list)  # the run's own --set
    expansions: tuple = ()

    def tables(self, values: dict):
        """The card data of a candidate: the run's, with the candidate's values set. The values
        go to the game's card loader as they are, not as `--set` text: the run's own `--set`
        text is read by the one `--set` parser."""
        return self.spec.load_cards(self.cards, self.base, self.expansions, values=values)


def card_of(target_arg: str, cardlist: list[tuple[str, str, str]]) -> tuple[str, str, str]:
    """The card of `card_value:KEY`: KEY is its `--set` prefix (`lord.jailer`: kind and slug of
    its name) or its name as `abyss-mc restrict` lists it."""
    from sim.core.carddata import slugify, suggest

    for card in cardlist:
        if target_arg in (f"{card[0]}.{slugify(card[1])}", card[1]):
            return card
    keys = [f"{k}.{slugify(n)}" for k, n, _ in cardlist]
    raise UserError(f"--target card_value:{target_arg}: no such card; "
                    + suggest(target_arg, keys, "e.g. card_value:" + keys[0]))  # fmt: skip


def measure(fld: Field, values: dict, targets: list[Target], *, seed: int, blocks: int,
            client=None, lineup: list[str] | None = None) -> dict[str, Estimate]:  # fmt: skip
    """Every target's metric on one candidate's games (`blocks` deals of `seed`, every seat
    rotation; restricted play on the same deals): target name -> Estimate."""
    tables = fld.tables(values)
    names = {t.metric for t in targets}
    out: dict[str, Estimate] = {}
    if names & {"seat_spread", "seat_share", "win_rate", "rounds", *TENSION}:
        out.update(_tournament_metrics(fld, tables, targets, seed, blocks, client,
                                       lineup or fld.lineup))  # fmt: skip
    if names & {"card_value", "max_card_value"}:
        out.update(_card_metrics(fld, tables, targets, seed, blocks, client))
    return out


def play_lineup(spec, tables, lineup: list[str], *, seed: int, blocks: int, client=None):
    """Each of `blocks` deals of `seed` in every rotation of the line-up (rotation r seats
    lineup[(s + r) % n] in seat s; a strategy may sit in several seats): (win [block, rotation,
    seat] shares, turns [block, rotation], the games' aggregates or None), chunk by chunk (on a
    Dask `client`, the same numbers)."""
    from reports.play import blocks as B

    parts = B.play(B.Rotations(spec.name, list(lineup), seed), tables, blocks, client=client)
    win = np.concatenate([w for w, _, _ in parts])
    turns = np.concatenate([t for _, t, _ in parts])
    agg = None
    for _, _, part in parts:
        agg = part if agg is None else (agg.merge(part) if part is not None else agg)
    return win, turns, agg


def _tournament_metrics(fld, tables, targets, seed, blocks, client, lineup):
    from reports.play.blocks import rotations

    n = fld.n_players
    win, turns, agg = play_lineup(fld.spec, tables, lineup, seed=seed, blocks=blocks,
                                  client=client)  # fmt: skip
    n_games = win.shape[0] * n
    per_seat = win.mean(axis=1)  # [block, seat]
    out = {}
    for t in targets:
        if t.name in out:  # a band: two targets on one metric
            continue
        if t.metric == "seat_spread":
            out[t.name] = _spread(per_seat, n_games)
        elif t.metric == "seat_share":
            out[t.name] = _mean(per_seat[:, int(t.arg) - 1], n_games)
        elif t.metric == "win_rate":
            mine = np.array(lineup)[rotations(n)] == t.arg  # [rotation, seat]
            if not mine.any():
                raise UserError(f"--target {t.text}: {t.arg} is not in the line-up "
                                f"({', '.join(lineup)})")  # fmt: skip
            per_block = win[:, mine].mean(axis=1)  # per seat-game it plays
            out[t.name] = _mean(per_block, int(mine.sum()) * win.shape[0])
        elif t.metric == "rounds":
            out[t.name] = _mean(turns.mean(axis=1) / n, n_games)
        elif t.metric in TENSION:
            out[t.name] = _tension(fld.spec, agg, t)
    return out


def _tension(spec, aggregates, target: Target) -> Estimate:
    from reports.metrics.tension import comeback_round, tension

    hook = spec.report().tension_sample
    sample = hook(aggregates) if hook is not None and aggregates is not None else None
    if sample is None or len(sample.scores) == 0:
        raise UserError(f"--target {target.text}: {spec.title} keeps no per-round scores of "
                        "these games (no tension metrics)")  # fmt: skip
    k = comeback_round(sample)
    metric = {"comeback": f"comeback_{k}"}.get(target.metric, target.metric)
    t = tension(sample.scores, sample.win, sample.final, ks=[k], deal=sample.deal)
    c = t.clustered(metric)  # the interval over deals: a deal's tables are one draw
    return Estimate(c.mean, c.lo, c.hi, c.games)


def _card_metrics(fld, tables, targets, seed, blocks, client):
    from reports.restrict import impact_frame, play_restricted, restricted_specs
    from reports.stats.blocks import paired_test
    from reports.tune import Problem, evaluate

    cardlist = fld.spec.report().restrictions(tables)
    n, start = fld.n_players, fld.card_strategy
    problem = Problem(fld.spec.name, tables, n, start, "", {}, {}, [start] * (n - 1), seed,
                      fld.spec.strategies())  # fmt: skip
    out = {}
    for t in targets:
        if t.name in out:  # a band: two targets on one metric
            continue
        if t.metric == "card_value":
            card = card_of(t.arg, cardlist)
            shares = evaluate(problem, restricted_specs(start, [card]), seed=seed,
                              n_blocks=blocks, client=client)  # fmt: skip
            value, lo, hi, _ = paired_test(shares[0] - shares[1], 0.95)
            out[t.name] = Estimate(value, lo, hi, shares.size * n)
        elif t.metric == "max_card_value":
            shares = play_restricted(problem, cardlist, blocks=blocks, seed=seed, client=client)
            df = impact_frame(cardlist, shares, n)
            top = df.iloc[0]
            out[t.name] = Estimate(float(top["value"]), float(top["lo"]), float(top["hi"]),
                                   int(shares.size * n))  # fmt: skip
    return out


def _mean(per_block: np.ndarray, games: int) -> Estimate:
    from reports.stats.intervals import mean_halfwidth

    x = per_block[~np.isnan(per_block)]
    mean = float(x.mean()) if len(x) else math.nan
    half = mean_halfwidth(x, 0.95) if len(x) > 1 else math.nan
    return Estimate(mean, mean - half, mean + half, games)


def _spread(per_seat: np.ndarray, games: int) -> Estimate:
    """max - min of the seats' mean win shares, with a percentile bootstrap over blocks (scipy;
    its resampling seeded, so the interval is a function of the games)."""
    from scipy.stats import bootstrap

    def spread(*seats, axis=-1):
        means = np.stack([s.mean(axis=axis) for s in seats])
        return means.max(axis=0) - means.min(axis=0)

    value = float(spread(*per_seat.T))
    if len(per_seat) < 3:
        return Estimate(value, math.nan, math.nan, games)
    # the seats of a block resampled together (paired): their shares are of the same deals
    res = bootstrap(tuple(per_seat.T), spread, paired=True, vectorized=True, n_resamples=999,
                    method="percentile", random_state=np.random.default_rng(0))  # fmt: skip
    ci = res.confidence_interval
    return Estimate(value, float(ci.low), float(ci.high), games)
