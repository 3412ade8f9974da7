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
