"""Drama and decisiveness with an oracle (docs/metrics.md), after Ludii's state-evaluation metrics
(Browne's Drama and Decisiveness; Ludii's `Drama` and `DecisivenessMoves`), measured on rounds
with a rollout estimate of each seat's chance to win (`sim.core.oracle`), read above the floor
that the rollouts' noise alone would give.

`values[g, r, k, seat]`: game g's estimate before round r (r = 0: at the start) by fold k of its
rollouts (`sim.core.oracle.FOLDS` equal folds), NaN after its end; the game's last row is its
result (each seat's share of the win).

- **Drama** of a round: the favourite's chance minus the eventual winner's (the mean over the
  winners of a shared win). The favourite is picked on the other folds and both chances are
  read on fold k (cross-fitting), averaged over k: a maximum over noisy estimates read on the
  estimates that chose it is biased up (0.10 to 0.13 at 16 rollouts when every seat's chance is
  equal all game), while E[fold k's chance of a seat the other folds chose] is that seat's true
  chance. So drama reads 0 in a game whose chances are equal, and otherwise at most the true
  drama (the favourite of three quarters of the rollouts is sometimes not the true one). A
  game's drama is its mean over the rounds before the result (Ludii averages over moves).
- **Peak drama**: the drama of the round the other folds find the most dramatic, read on fold
  k (the same cross-fitting, over rounds too): 0 at equal chances, at most the true peak.
- **Decisiveness**: the threshold is the best estimate any loser ever reached; the game is
  decided at the first round at which a winner's estimate exceeds it, and decisiveness is that
  round over the rounds before the result (1 when only the result does: Ludii's
  `DecisivenessMoves` on rounds), on all the rollouts. A first crossing of a maximum has no
  unbiased estimate: it is read against its **floor**, what a game of the same rounds, players
  and winners reads when every seat's chance is equal all game (true value 1) at the same
  rollouts (`decisiveness_floor`, by simulation); below the floor: decided earlier than noise.

Each metric is a mean over games with its t interval at 95%, the deal the unit: the tables of
one deal (a tournament seats it at several rotations) are averaged first.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
import pandas as pd

CONF = 0.95
METRICS = ("drama", "drama_peak", "decisiveness")
#: the floor's draws per (rounds, players, winners, rollouts): its error, about 0.005, is shared
#: by every game of those rounds, so it is kept well below a table's interval
FLOOR_DRAWS = 4000


class Measured(NamedTuple):
    """What `abyss-mc drama` measured at one player count: values [game, row, fold, seat], each
    game's deal (its game index: the tables of one deal share it) and the rollouts a row."""

    values: np.ndarray
    games: np.ndarray
    rollouts: int


def _decided(est: np.ndarray, winners: np.ndarray, rounds) -> np.ndarray:
    """Decisiveness of games est[..., row, seat] (the rounds before the result; rows past a
    game's `rounds`: -inf) whose winners are winners[..., seat]: the first round at which a
    winner beats the best any loser ever had, over the rounds."""
    won = np.broadcast_to(winners[..., None, :], est.shape)
    threshold = np.where(won, -np.inf, est).max(axis=(-2, -1))  # -inf: no loser
    ahead = (np.where(won, est, -np.inf) > threshold[..., None, None]).any(axis=-1)
    return np.where(ahead.any(axis=-1), ahead.argmax(axis=-1), rounds) / rounds


def _mean_over(x: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """x[g, row, fold, seat] averaged over the seats seats[g, row, fold, seat] (booleans)."""
    return (x * seats).sum(axis=-1) / seats.sum(axis=-1)


def _cross_fit(before: np.ndarray, winners: np.ndarray, played: np.ndarray):
    """Drama and peak drama of games before[g, row, fold, seat] (rows before the result, where
    played[g, row]): the favourite (and the peak round) picked on the other folds, the chances
    read on the fold left out, averaged over it. Seats tied as the favourite count equally (no
    seat order decides)."""
    folds = before.shape[2]
    won = np.broadcast_to(winners[:, None, None, :], before.shape)
    rest = (before.sum(axis=2, keepdims=True) - before) / (folds - 1)
    best = rest.max(axis=-1, keepdims=True)
    behind = _mean_over(before, np.isclose(rest, best)) - _mean_over(before, won)
    rest_behind = np.where(played[..., None], best[..., 0] - _mean_over(rest, won), -np.inf)
    at = rest_behind.argmax(axis=1)  # [g, fold]: each fold's peak round, picked on the others
    peak = np.take_along_axis(behind, at[:, None, :], axis=1)[:, 0].mean(axis=1)
    drama = (behind * played[..., None]).sum(axis=(1, 2)) / (played.sum(axis=1) * folds)
    return drama, peak


def per_game(values: np.ndarray, deals=None) -> pd.DataFrame:
    """One row per game: its deal (default: the game's position), players, rounds before the
    result, winners, drama, peak drama and decisiveness. A game without a round before its
    result, or without a winner, is left out."""
    if values.ndim != 4 or values.shape[2] < 2:
        raise ValueError("values must be [game, row, fold, seat] with at least two folds")
    deals = np.arange(len(values)) if deals is None else np.asarray(deals)
    rows = (~np.isnan(values[:, :, 0, 0])).sum(axis=1)  # the result is the last
    result = values[np.arange(len(values)), np.maximum(rows - 1, 0), 0]
    winners = np.nan_to_num(result) > 0
    keep = (rows > 1) & winners.any(axis=1)
    rounds, winners, values = rows[keep] - 1, winners[keep], values[keep]
    played = np.arange(values.shape[1]) < rounds[:, None]
    before = np.where(played[..., None, None], np.nan_to_num(values), 0.0)
    drama, peak = _cross_fit(before, winners, played)
    est = np.where(played[..., None], before.mean(axis=2), -np.inf)
    return pd.DataFrame({"deal": deals[keep].astype(int), "players": values.shape[3],
                         "rounds": rounds, "winners": winners.sum(axis=1), "drama": drama,
                         "drama_peak": peak,
                         "decisiveness": _decided(est, winners, rounds)})  # fmt: skip


@functools.cache
def decisiveness_floor(rounds: int, players: int, winners: int, rollouts: int) -> float:
    """Mean decisiveness of a game of `rounds` rounds before its result, won by `winners` of its
    `players` seats, when every seat's chance is 1/players all game (true decisiveness 1) and
    each round's estimates are the shares of `rollouts` rollouts (multinomial): the floor the
    rollouts' noise puts under decisiveness. By simulation, seeded by its arguments."""
    rng = np.random.default_rng([rounds, players, winners, rollouts])
    est = rng.multinomial(rollouts, np.full(players, 1 / players), size=(FLOOR_DRAWS, rounds))
    won = np.arange(players) < winners
    return float(_decided(est / rollouts, won, rounds).mean())


def _t_interval(x: np.ndarray, conf: float) -> tuple[float, float, float]:
    from scipy import stats

    mean = float(x.mean()) if len(x) else math.nan
    half = (float(stats.t.ppf(0.5 + conf / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
            if len(x) > 1 else math.nan)  # fmt: skip
    return mean, mean - half, mean + half


def summary(measured: Measured, conf: float = CONF) -> dict:
    """Each metric's mean over games with its t interval over deals (`lo`, `hi`: each deal's
    games averaged first), the games and deals; decisiveness's floor (`decisiveness_floor`,
    the games' mean) and decisiveness minus its floor with its interval (`below_floor`)."""
    df = per_game(measured.values, measured.games)
    games = df[["rounds", "players", "winners"]].itertuples(index=False)
    df["floor"] = [decisiveness_floor(*g, int(measured.rollouts)) for g in games]
    df["below_floor"] = df["decisiveness"] - df["floor"]
    by_deal = df.groupby("deal")[[*METRICS, "floor", "below_floor"]].mean()
    floor = float(by_deal["floor"].mean()) if len(df) else math.nan
    out = {"games": len(df), "deals": len(by_deal), "decisiveness_floor": floor}
    for m in (*METRICS, "below_floor"):
        mean, lo, hi = _t_interval(by_deal[m].to_numpy(), conf)
        out |= {m: mean, f"{m}_lo": lo, f"{m}_hi": hi}
    return out


def _cell(s: dict, m: str) -> str:
    return f"{s[m]:.2f} [{s[f'{m}_lo']:.2f}, {s[f'{m}_hi']:.2f}]"


def frame(by_tier: dict[str, dict[int, Measured]]) -> pd.DataFrame:
    """One row per play strength and player count: games, deals, then each metric `mean [lo,
    hi]`, decisiveness's floor and decisiveness minus it."""
    rows = []
    for tier, by_count in by_tier.items():
        for n, measured in sorted(by_count.items()):
            s = summary(measured)
            rows.append({"strength": tier, "players": n, "games": s["games"], "deals": s["deals"],
                         "drama": _cell(s, "drama"), "peak drama": _cell(s, "drama_peak"),
                         "decisiveness": _cell(s, "decisiveness"),
                         "floor": f"{s['decisiveness_floor']:.2f}",
                         "minus floor": _cell(s, "below_floor")})  # fmt: skip
    return pd.DataFrame(rows)


def chart(by_tier: dict[str, dict[int, Measured]]):
    """Drama, peak drama and decisiveness (mean and 95% interval over deals) by player count,
    one line per play strength; the floor each reads at equal chances dashed (0 for drama)."""
    from reports.charts import error_bars, figure, legend_of_panels

    fig = figure(figsize=(8.0, 2.6))
    axes = fig.subplots(1, len(METRICS), squeeze=False)[0]
    titles = {"drama": "drama (at least)", "drama_peak": "peak drama (at least)",
              "decisiveness": "decisiveness"}  # fmt: skip
    for i, (tier, by_count) in enumerate(by_tier.items()):
        counts = sorted(by_count)
        stats = [summary(by_count[n]) for n in counts]
        x = np.array(counts) + 0.08 * (i - 1)
        for ax, m in zip(axes, METRICS, strict=True):
            y = np.array([[s[m], s[f"{m}_lo"], s[f"{m}_hi"]] for s in stats])
            ax.errorbar(x, y[:, 0], yerr=error_bars(*y.T), marker="o", markersize=3, capsize=2,
                        linewidth=1, color=f"C{i}", label=tier)  # fmt: skip
        axes[-1].plot(x, [s["decisiveness_floor"] for s in stats], linestyle="--",
                      linewidth=1, color=f"C{i}")  # fmt: skip
    for ax, m in zip(axes, METRICS, strict=True):
        ax.set_title(titles[m], fontsize=9)
        ax.set_xlabel("players", fontsize=8)
        ax.tick_params(labelsize=7)
        if m != "decisiveness":
            ax.axhline(0, color="grey", linewidth=0.8, linestyle="--")
    axes[-1].set_ylim(0, 1.0)
    axes[-1].plot([], [], linestyle="--", color="grey", linewidth=1, label="equal chances")
    axes[0].set_ylabel("per game", fontsize=8)
    legend_of_panels(axes)
    return fig


def load(dirs: dict) -> tuple[dict, list]:
    """{strength: {n: Measured}} of the run directories `dirs` ({strength: directory}) in which
    `abyss-mc drama` measured them (`drama-<n>p.npz`), and the files measured before the
    oracle kept its rollouts in folds (to measure again)."""
    out, stale = {}, []
    for tier, d in dirs.items():
        for path in sorted(d.glob("drama-*p.npz")):
            with np.load(path) as z:
                if z["values"].ndim != 4:
                    stale.append(path)
                    continue
                out.setdefault(tier, {})[int(path.stem.split("-")[1][:-1])] = Measured(
                    z["values"], z["games"], int(z["rollouts"]))
    return out, stale


SECTION_TEXT = (
    "Each seat's chance to win was estimated before every round by rollouts from the position "
    "(what no player can see redealt; the seats' own strategies to the end), the rollouts kept in"
    " {folds} folds. **Drama**: the favourite's chance minus the eventual winner's, averaged over"
    " the rounds (0: the winner was always the favourite); its **peak**: the largest. The "
    "favourite (and the peak round) is picked on the other folds and both chances read on the "
    "fold left out, so a game in which every seat's chance is equal all game reads 0: its floor "
    "is 0, and an interval above 0 is drama beyond the rollouts' noise; otherwise both read at "
    "most the true value (at least this much drama). **Decisiveness**: the share of the game "
    "played before the winner's chance first exceeds the best any loser ever had (low: decided "
    "early), on all the rollouts. Noise alone makes it read below 1 (its true value when every "
    "chance is equal): the **floor** column is what a game of the same rounds, players and "
    "winners reads then at the same rollouts; decisiveness minus its floor below 0 is a game "
    "decided before its end by more than the noise. Intervals: t at 95% over deals (the tables of"
    " one deal averaged first). docs/metrics.md defines them after Ludii's.")


def readings(by_tier: dict[str, dict[int, Measured]]) -> str:
    """What the table shows against the floors, row by row (a strength at a player count)."""
    from reports.verdicts import the

    rows = [summary(m) for by_count in by_tier.values() for m in by_count.values()]
    above = sum(s["drama_lo"] > 0 for s in rows)
    peak = sum(s["drama_peak_lo"] > 0 for s in rows)
    below = sum(s["below_floor_hi"] < 0 for s in rows)
    return (f"Of {the(len(rows), 'row')} (a play strength at a player count), drama's interval is "
            f"above its floor of 0 in {above}, peak drama's in {peak}: there the eventual winner "
            "was not always the favourite, by more than the rollouts' noise, and the true values "
            "are at least the readings. Decisiveness is below its floor (minus floor's interval "
            f"under 0) in {below}: decided before the end by more than the noise. The rows are "
            "not compared with one another: no difference between them is tested, and two lower "
            "bounds say nothing of the true drama's order.")


def add_section(report, dirs: dict) -> None:
    """`Drama and decisiveness with an oracle`, when `abyss-mc drama` measured them in the run
    directories `dirs` ({strength: directory})."""
    found, stale = load(dirs)
    if not found and not stale:
        return
    sec = report.section("Drama and decisiveness with an oracle")
    if found:
        sec.figure(chart(found), "drama", "Drama and peak drama (cross-fitted: 0 at equal "
                   "chances) and decisiveness with its floor at equal chances (dashed), per "
                   "game (95% t intervals over deals), by player count and play strength")
        sec.table(frame(found).set_index(["strength", "players"]),
                  caption="Per game, mean [95% t interval over deals] over the sampled games")
        folds = next(iter(next(iter(found.values())).values())).values.shape[2]
        sec.paragraph(readings(found))
        sec.paragraph(SECTION_TEXT.format(folds=folds))
    if stale:
        sec.paragraph("Measured before the oracle kept its rollouts in folds, so not shown (its "
                      "drama would be a maximum over noise): " + ", ".join(
                          f"{p.parent.name}/{p.name}" for p in stale)
                      + "; measure again with `abyss-mc drama`.")  # fmt: skip
