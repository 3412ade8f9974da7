"""Fitting the learned player (issue 30; design note learned-player.md): a linear option
scorer per decision code, score(option) = w_code . f(option), the option with the highest score
played (the first among equals), distilled from the search's records.

The fit is a conditional logit: at each recorded decision a softmax over its options, fitted by
its cross-entropy against a soft target made from the search's rollouts (`TARGETS`), with an L2
penalty, by L-BFGS-B from zero weights (no randomness: the same records give the same weights
byte for byte). A decision counts in proportion to its share of its code's rollouts (more
rollouts, more trust; the shares sum to 1, so the penalty means the same whatever the number of
records). Features are standardised per code for the fit and the weights are returned in the
features' own units, so the kernel scores raw features with `to_fixed` weights and no scaling.
Only a feature's differences between the options of one decision can move a softmax: a feature
equal across every decision's options gets weight 0 (the penalty's choice).

scipy is imported when a fit is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

#: The soft targets: the search's visit shares, a one-hot of the option it played, or a softmax
#: of its per-option mean rewards over a temperature.
TARGETS = ("visits", "chosen", "means")
#: The mean rewards at 0.1 recovered a planted scorer from UCB1 records as well as any target
#: measured, the one-hot clearly worst (measured once, not a test: `learn` fits the visit
#: shares, `reports.runs.learn.LearnSetup.target`, which tests/core/test_learned_fit.py tests).
#: Mean rewards are win shares: at 0.1 a gap of 0.1 between two options is a factor e in the
#: target.
DEFAULT_TARGET = "means"
DEFAULT_TEMPERATURE = 0.1
#: L2 penalty on the standardised weights, per unit of record weight.
DEFAULT_PENALTY = 1e-3
#: `evaluate`'s code for the row over all codes.
ALL_CODES = -1
#: `to_fixed` refuses weights whose fixed-point value passes this (int32 keeps headroom).
FIXED_LIMIT = 2**30


@dataclass(eq=False)
class Records:
    """R decisions of the search, at most K options and F features each (options past `n` are
    padding and ignored, whatever they hold): `code` int[R] the decision type, `n` int[R]
    options (2..K), `features` float[R, K, F], `visits` float[R, K] rollouts per option, `total`
    float[R, K] summed reward per option, `chosen` int[R] the option the search played, `seat`
    and `game` int[R] (a held-out split keeps each game's decisions together)."""

    code: np.ndarray
    n: np.ndarray
    features: np.ndarray
    visits: np.ndarray
    total: np.ndarray
    chosen: np.ndarray
    seat: np.ndarray
    game: np.ndarray

    def __post_init__(self) -> None:
        for name in ("code", "n", "chosen", "seat", "game"):
            setattr(self, name, _ints(name, getattr(self, name)))
        for name in ("features", "visits", "total"):
            setattr(self, name, np.asarray(getattr(self, name), dtype=np.float64))
        _check(self)

    def __len__(self) -> int:
        return len(self.code)

    @classmethod
    def from_tables(cls, rec: tuple, games: np.ndarray) -> Records:
        """The records of a game's `learn_tables` (`sim.core.learn`) for games `games`."""
        count, row, n_options, features, visits, total, chosen, seat, _turn = rec
        keep = np.arange(row.shape[1])[None, :] < count[:, None]
        game_ids = np.broadcast_to(np.asarray(games)[:, None], row.shape)
        return cls(code=row[keep], n=n_options[keep], features=features[keep].astype(float),
                   visits=visits[keep], total=total[keep], chosen=chosen[keep], seat=seat[keep],
                   game=game_ids[keep])  # fmt: skip

    @property
    def live(self) -> np.ndarray:
        """bool[R, K]: the option exists (its index is below the record's `n`)."""
        return np.arange(self.features.shape[1]) < self.n[:, None]

    @classmethod
    def concat(cls, parts: list[Records]) -> Records:
        """The records of `parts`, in order (their K options at most must agree)."""
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in _FIELDS))

    def take(self, index) -> Records:
        """The records at `index` (a boolean mask or indices), in that order."""
        return Records(*(getattr(self, name)[index] for name in _FIELDS))


_FIELDS = ("code", "n", "features", "visits", "total", "chosen", "seat", "game")


def _ints(name: str, values) -> np.ndarray:
    values = np.asarray(values)
    if values.dtype.kind not in "iu":
        raise ValueError(f"records: {name} must be integers, not {values.dtype}")
    return values.astype(np.int64)


def _check(r: Records) -> None:
    """One line per problem, the first found: shapes, then option counts, then values."""
    if r.features.ndim != 3:
        raise ValueError(f"records: features must be [R, K, F], not of shape {r.features.shape}")
    size, k, _ = r.features.shape
    for name in ("visits", "total"):
        if getattr(r, name).shape != (size, k):
            raise ValueError(f"records: {name} has shape {getattr(r, name).shape}, "
                             f"features {r.features.shape} (want {(size, k)})")  # fmt: skip
    for name in ("code", "n", "chosen", "seat", "game"):
        if getattr(r, name).shape != (size,):
            raise ValueError(f"records: {name} has shape {getattr(r, name).shape}, want {(size,)}")
    bad = np.flatnonzero((r.n < 2) | (r.n > k))
    if len(bad):
        raise ValueError(f"records: record {bad[0]} has {r.n[bad[0]]} options (want 2..{k})")
    if np.any(r.code < 0):
        raise ValueError(f"records: record {np.flatnonzero(r.code < 0)[0]} has a negative code")
    bad = np.flatnonzero((r.chosen < 0) | (r.chosen >= r.n))
    if len(bad):
        raise ValueError(f"records: record {bad[0]} chose option {r.chosen[bad[0]]} "
                         f"of {r.n[bad[0]]}")  # fmt: skip
    live = r.live
    for name in ("features", "visits", "total"):
        values = getattr(r, name)[live]
        if not np.all(np.isfinite(values)):
            raise ValueError(f"records: {name} must be finite on the options that exist")
    if np.any(r.visits[live] < 0):
        raise ValueError("records: visits must be >= 0")


def _live_features(records: Records) -> np.ndarray:
    """The features with padding options zeroed (padding may hold anything, nan included)."""
    return np.where(records.live[:, :, None], records.features, 0.0)


def record_weights(records: Records) -> np.ndarray:
    """float[R]: each decision's rollouts over its options (0: no rollout, no target)."""
    return np.where(records.live, records.visits, 0.0).sum(axis=1)


def targets(records: Records, target: str = DEFAULT_TARGET,
            temperature: float = DEFAULT_TEMPERATURE) -> np.ndarray:  # fmt: skip
    """float[R, K]: the distribution over each decision's options the fit imitates (0 on
    padding; a decision without rollouts gets zeros from "visits" and "means"). "means" leaves
    out options with no rollout (their mean is unknown)."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}: one of {', '.join(TARGETS)}")
    live = records.live
    visits = np.where(live, records.visits, 0.0)
    if target == "chosen":
        return (np.arange(live.shape[1]) == records.chosen[:, None]).astype(np.float64)
    if target == "visits":
        sums = visits.sum(axis=1, keepdims=True)
        return np.divide(visits, sums, out=np.zeros_like(visits), where=sums > 0)
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, not {temperature}")
    seen = visits > 0
    means = np.divide(records.total, visits, out=np.zeros_like(visits), where=seen)
    logits = np.where(seen, means / temperature, -np.inf)
    top = logits.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    e = np.exp(logits - top)
    sums = e.sum(axis=1, keepdims=True)
    return np.divide(e, sums, out=np.zeros_like(e), where=sums > 0)


def objective(w, x, live, t, a, penalty):
    """The penalised cross-entropy and its gradient: sum_r a_r (log sum_i exp(w.x_ri) -
    sum_i t_ri w.x_ri) + penalty / 2 |w|^2, over the options that exist. x: [m, K, F] with
    padding zeroed, t: [m, K] targets, a: [m] record weights."""
    m, k, f = x.shape
    flat = x.reshape(m * k, f)
    s = (flat @ w).reshape(m, k)
    s_live = np.where(live, s, -np.inf)
    top = s_live.max(axis=1, keepdims=True)
    e = np.exp(s_live - top)
    z = e.sum(axis=1, keepdims=True)
    loss = a @ (top[:, 0] + np.log(z[:, 0]) - (t * s).sum(axis=1)) + 0.5 * penalty * (w @ w)
    grad = flat.T @ (a[:, None] * (e / z - t)).ravel() + penalty * w
    return loss, grad


@dataclass(frozen=True, eq=False)
class Fit:
    """The fitted scorer: `weights` float[n_codes, F] in the features' own units (zeros for a
    code without records), per code the records it saw (`n_records`), the penalised loss L-BFGS
    reached (`loss`, nan where not fitted) and whether it converged; how it was fitted."""

    weights: np.ndarray
    codes_fitted: tuple[int, ...]
    n_records: np.ndarray
    loss: np.ndarray
    converged: np.ndarray
    target: str
    temperature: float
    penalty: float


def fit(records: Records, *, target: str = DEFAULT_TARGET,
        temperature: float = DEFAULT_TEMPERATURE, penalty: float = DEFAULT_PENALTY,
        n_codes: int | None = None, max_iterations: int = 2000) -> Fit:  # fmt: skip
    """Fit one conditional logit per decision code of `records` (module docstring). A code is
    fitted when its decisions hold at least one rollout; `n_codes` (default: the largest code
    + 1) sets the rows of the weights."""
    from scipy.optimize import minimize

    if not penalty >= 0:
        raise ValueError(f"penalty must be >= 0, not {penalty}")
    t_all = targets(records, target, temperature)
    n_codes = int(records.code.max(initial=-1)) + 1 if n_codes is None else n_codes
    if len(records) and records.code.max() >= n_codes:
        raise ValueError(f"records: code {records.code.max()} is not below n_codes = {n_codes}")
    n_features = records.features.shape[2]
    weights = np.zeros((n_codes, n_features))
    loss, converged = np.full(n_codes, np.nan), np.zeros(n_codes, dtype=bool)
    n_records = np.bincount(records.code, minlength=n_codes)
    a_all, x_all, live_all = record_weights(records), _live_features(records), records.live
    fitted = []
    for code in range(n_codes):
        rows = np.flatnonzero((records.code == code) & (a_all > 0))
        if len(rows) == 0:
            continue
        live = live_all[rows]
        mean, scale = _standard(x_all[rows][live])
        x = np.where(live[:, :, None], (x_all[rows] - mean) / scale, 0.0)
        a = a_all[rows] / a_all[rows].sum()
        options = {"maxiter": max_iterations, "ftol": 1e-12, "gtol": 1e-7}
        result = minimize(objective, np.zeros(n_features), method="L-BFGS-B", jac=True,
                          args=(x, live, t_all[rows], a, penalty), options=options)  # fmt: skip
        # w.(x - mean)/scale = (w/scale).x - a constant, and a softmax ignores constants
        weights[code] = result.x / scale
        loss[code], converged[code] = result.fun, result.success
        fitted.append(code)
    return Fit(weights, tuple(fitted), n_records, loss, converged, target, temperature, penalty)


def _standard(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and scale of each feature over the options' rows; a constant feature gets scale 1."""
    mean, scale = rows.mean(axis=0), rows.std(axis=0)
    scale[scale <= 1e-12 * np.maximum(1.0, np.abs(mean))] = 1.0
    return mean, scale


def scores(weights: np.ndarray, records: Records) -> np.ndarray:
    """float[R, K]: each option's score under its code's weights (float or fixed point);
    -inf on padding, so padding never wins."""
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != records.features.shape[2]:
        raise ValueError(f"weights of shape {weights.shape} do not fit "
                         f"{records.features.shape[2]} features")  # fmt: skip
    if len(records) and records.code.max() >= len(weights):
        raise ValueError(f"records: code {records.code.max()} has no weights "
                         f"({len(weights)} codes)")  # fmt: skip
    s = np.einsum("rkf,rf->rk", _live_features(records), weights[records.code])
    return np.where(records.live, s, -np.inf)


def picks(weights: np.ndarray, records: Records) -> np.ndarray:
    """int[R]: the option the scorer plays, the first among equal scores (as the kernel)."""
    return _first_best(scores(weights, records))


def _first_best(s: np.ndarray) -> np.ndarray:
    return np.argmax(s, axis=1)  # the first of equal maxima


def evaluate(fit: Fit, records: Records, *, target: str | None = None,
             temperature: float | None = None) -> pd.DataFrame:  # fmt: skip
    """How the scorer matches the search on `records`, one row per code present and a row over
    all codes (code `ALL_CODES`): `agreement`, the share of decisions where it plays the search's
    choice; `log_loss`, the cross-entropy against the fit's target (or `target`), weighted like
    the fit; `reward_gap`, the mean over decisions of the search's mean reward of the scorer's
    option minus that of the search's (0 where they agree, below 0 where the scorer gives up
    reward in the search's own estimate), over the `gap_records` where both have rollouts."""
    s = scores(fit.weights, records)
    pick = _first_best(s)
    top = s.max(axis=1, keepdims=True)
    log_p = np.where(records.live, s - top - np.log(np.exp(s - top).sum(axis=1, keepdims=True)),
                     0.0)  # fmt: skip
    target = fit.target if target is None else target
    t = targets(records, target, fit.temperature if temperature is None else temperature)
    cross = -(t * log_p).sum(axis=1)
    a = record_weights(records)
    rows = np.arange(len(records))
    v_pick, v_chosen = records.visits[rows, pick], records.visits[rows, records.chosen]
    known = (v_pick > 0) & (v_chosen > 0)
    gap = np.full(len(records), np.nan)
    gap[known] = (records.total[rows, pick][known] / v_pick[known]
                  - records.total[rows, records.chosen][known] / v_chosen[known])  # fmt: skip
    agree = pick == records.chosen
    out = []
    for code in [*np.unique(records.code).tolist(), ALL_CODES]:
        m = records.code == code if code != ALL_CODES else np.ones(len(records), dtype=bool)
        out.append({"code": code, "records": int(m.sum()),
                    "agreement": agree[m].mean() if m.any() else np.nan,
                    "log_loss": a[m] @ cross[m] / a[m].sum() if a[m].sum() > 0 else np.nan,
                    "reward_gap": gap[m & known].mean() if (m & known).any() else np.nan,
                    "gap_records": int((m & known).sum())})  # fmt: skip
    return pd.DataFrame(out)


def split_by_game(records: Records, held_out_share: float,
                  seed: int) -> tuple[Records, Records]:  # fmt: skip
    """(training, held out): the decisions of round(share x games) games drawn by `seed` are held
    out, every seat's; the same records, share and seed give the same split, whatever the
    records' order."""
    if not 0 <= held_out_share <= 1:
        raise ValueError(f"held_out_share must be in [0, 1], not {held_out_share}")
    games = np.unique(records.game)
    order = np.random.default_rng(seed).permutation(len(games))
    held = np.isin(records.game, games[order[: round(held_out_share * len(games))]])
    return records.take(~held), records.take(held)


def to_fixed(weights: np.ndarray, bits: int = 12) -> np.ndarray:
    """int32 weights for the kernel: round(w x 2**bits). Refused when a weight would pass
    2**30 (its sums with others could pass int32) or is not finite."""
    w = np.asarray(weights, dtype=np.float64)
    if not 0 <= bits <= 30:
        raise ValueError(f"bits must be in 0..30, not {bits}")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite")
    scaled = w * 2.0**bits
    if np.any(np.abs(scaled) > FIXED_LIMIT):
        raise ValueError(f"weight {w.flat[np.argmax(np.abs(scaled))]:.6g} is too large for "
                         f"{bits} fractional bits (|w| <= {2.0 ** (30 - bits):g})")  # fmt: skip
    return np.rint(scaled).astype(np.int32)
