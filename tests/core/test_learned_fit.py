"""Tests of `reports.learned_fit` against planted scorers and known answers: records whose search
prefers options by a known linear score (a softmax of it, UCB1 on win chances that rise with
it, or the search's own decision as a default `learn` records it), records where the features
say nothing, and hand-computed targets, losses and verdicts. Statistical claims hold on every
one of 20 seeds, or by a test over the 20 seeds, not one lucky draw."""

from __future__ import annotations

import dataclasses
import inspect
import math
from functools import cache

import numpy as np
import pytest
from scipy.optimize import check_grad
from scipy.stats import ttest_1samp
from search_table import decide

from reports import learned_fit as lf
from reports.learned_fit import Records
from reports.runs.learn import LearnSetup

SEEDS = range(20)
#: The features' own units: means and spreads far from 0 and 1, so the standardisation matters.
OFFSET = np.array([0.0, 50.0, -2.0, 1.0, 0.0])
SCALE = np.array([1.0, 10.0, 0.1, 3.0, 1.0])


def planted_weights(rng, n_codes=2):
    """Weights whose standardised values are N(0, 1), in the features' own units."""
    return rng.normal(size=(n_codes, len(SCALE))) / SCALE


def decisions(rng, w, size, k=6):
    """Codes, option counts, features and the planted scores w . f of `size` decisions."""
    code = rng.integers(0, len(w), size)
    n = rng.integers(2, k + 1, size)
    x = OFFSET + SCALE * rng.normal(size=(size, k, len(SCALE)))
    return code, n, x, np.einsum("rkf,rf->rk", x, w[code])


def records_of(code, n, x, visits, total):
    """Records with the search's choice its most visited option (the best total among equals),
    eight decisions per game, four seats."""
    live = np.arange(x.shape[1]) < n[:, None]
    chosen = np.where(live, visits * (visits.max() + 2) + total, -np.inf).argmax(axis=1)
    size = len(code)
    return Records(code, n, x, visits, total, chosen, np.arange(size) % 4, np.arange(size) // 8)


def softmax_records(rng, w, size, budget=64, noise=0.5):
    """Visits drawn from a softmax of the planted score plus noise; rewards won with a chance
    rising with the score."""
    code, n, x, value = decisions(rng, w, size)
    live = np.arange(x.shape[1]) < n[:, None]
    logits = np.where(live, value + noise * rng.normal(size=value.shape), -np.inf)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    visits = np.array([rng.multinomial(budget, q / q.sum()) for q in p])
    win = 1 / (1 + np.exp(value.mean(axis=1, keepdims=True) - value))
    return records_of(code, n, x, visits.astype(float), rng.binomial(visits, win).astype(float))


def ucb_records(rng, w, size, budget=64, c=0.7, spread=0.1):
    """The search's own allocation: UCB1 (exploration c) over win-or-loss rollouts whose win
    chance is 0.3 + spread x tanh(score / 2), the score centred over the decision's options."""
    code, n, x, value = decisions(rng, w, size)
    live = np.arange(x.shape[1]) < n[:, None]
    centred = value - np.where(live, value, 0.0).sum(axis=1, keepdims=True) / n[:, None]
    chance = 0.3 + spread * np.tanh(centred / 2)
    visits, total, rows = np.zeros(value.shape), np.zeros(value.shape), np.arange(size)
    for r in range(budget):
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = total / visits + c * np.sqrt(math.log(max(r, 1)) / visits)
        i = np.where(live, np.where(visits == 0, np.inf, bound), -np.inf).argmax(axis=1)
        visits[rows, i] += 1
        total[rows, i] += rng.random(size) < chance[rows, i]
    return records_of(code, n, x, visits, total)


def cosine(a, b):
    return a @ b / np.linalg.norm(a) / np.linalg.norm(b)


def small_records():
    """Four hand-made decisions, two codes, one feature, at most three options."""
    return Records(code=np.array([0, 0, 1, 1]), n=np.array([3, 2, 3, 2]),
                   features=np.array([[0.5, 2, 1], [3, 3, 9], [1, 0, 2], [0, 1, 0]])[:, :, None],
                   visits=np.array([[10, 30, 0], [4, 4, 0], [5, 0, 5], [2, 2, 0]], dtype=float),
                   total=np.array([[5, 12, 0], [3, 1, 0], [1, 0, 4], [2, 0, 0]], dtype=float),
                   chosen=np.array([1, 1, 2, 0]), seat=np.zeros(4, int),
                   game=np.arange(4))  # fmt: skip


def test_targets_known_answers():
    r = small_records()
    assert np.allclose(lf.targets(r, "visits")[0], [0.25, 0.75, 0])
    assert np.allclose(lf.targets(r, "chosen"), np.eye(3)[[1, 1, 2, 0]])
    means = lf.targets(r, "means", temperature=0.1)
    assert np.allclose(means[0], np.array([math.e**5, math.e**4, 0]) / (math.e**5 + math.e**4))
    assert np.allclose(means[2], [1 / (1 + math.e**6), 0, 1 / (1 + math.e**-6)])  # no rollout: 0


@pytest.mark.parametrize("seed", range(5))
def test_gradient_matches_finite_differences(seed):
    rng = np.random.default_rng(seed)
    r = softmax_records(rng, planted_weights(rng), 50)
    x = lf._live_features(r) / SCALE
    t, a = lf.targets(r, "visits"), rng.random(len(r))
    args = (x, r.live, t, a / a.sum(), 0.3)
    for _ in range(3):
        w = rng.normal(size=x.shape[2])
        f = lambda w: lf.objective(w, *args)[0]  # noqa: E731
        g = lambda w: lf.objective(w, *args)[1]  # noqa: E731
        assert check_grad(f, g, w) < 1e-5 * max(1.0, np.linalg.norm(g(w)))


def recovery(make, target=lf.DEFAULT_TARGET, size=2000, **kwargs):
    """Per seed: held-out agreement with the planted scorer's choices, the worst cosine between
    fitted and planted standardised weights, and whether every code converged."""
    out = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        w = planted_weights(rng)
        train, held = lf.split_by_game(make(rng, w, size, **kwargs), 0.3, seed)
        fit = lf.fit(train, target=target)
        agree = np.mean(lf.picks(fit.weights, held) == lf.picks(w, held))
        worst = min(cosine(fit.weights[c] * SCALE, w[c] * SCALE) for c in range(len(w)))
        out.append((agree, worst, fit.converged.all()))
    return np.array(out)


@pytest.mark.parametrize("target", lf.TARGETS)
def test_planted_scorer_recovered(target):
    agree, worst, converged = recovery(softmax_records, target).T
    assert converged.all() and agree.min() >= 0.9 and worst.min() > 0.9


def test_planted_scorer_recovered_from_ucb_rollouts():
    agree, worst, converged = recovery(ucb_records).T
    assert converged.all() and agree.min() >= 0.9 and worst.min() > 0.9


def learn_defaults() -> tuple[dict, dict]:
    """What a default `abyss-mc learn` fits, and how its search decides: the fit's target and
    penalty (`LearnSetup`), the search's rollouts (`learn --rollouts`), exploration and
    confidence (`SearchPlayer`'s: learn sets no other)."""
    from cli.commands.learn import learn
    from strategies.search import SearchPlayer

    setup = {f.name: f.default for f in dataclasses.fields(LearnSetup)}
    player = {f.name: f.default for f in dataclasses.fields(SearchPlayer)}
    rollouts = inspect.signature(learn).parameters["rollouts"].default
    return ({"target": setup["target"], "penalty": setup["penalty"]},
            {"budget": rollouts, "exploration": player["exploration"],
             "confidence": player["confidence"], "kinds": player["determinizations"]})  # fmt: skip


@cache
def searched(seed: int, spread: float, size: int = 1000):
    """Records as a default `learn` makes them, with a planted scorer w and a base heuristic:
    the base scores the options by other weights (w plus as much again at random, so it picks
    the planted scorer's option in about 64% of decisions); an option's rollouts win with a
    chance rising with the planted score (as `ucb_records`; `spread` 0: the rollouts say
    nothing). The search's own decision (`search_table.decide`, the base's option its
    default), its visits and totals with the confirmation's pairs, the option it played as its
    choice. The held-out decisions, the planted weights, the base's and the training records."""
    _, search = learn_defaults()
    rng = np.random.default_rng([seed, round(spread * 1000)])
    w = planted_weights(rng)
    base = w + planted_weights(rng)
    code, n, x, value = decisions(rng, w, size)
    live = np.arange(x.shape[1]) < n[:, None]
    centred = value - np.where(live, value, 0.0).sum(axis=1, keepdims=True) / n[:, None]
    chance = 0.3 + spread * np.tanh(centred / 2)
    default = np.where(live, np.einsum("rkf,rf->rk", x, base[code]), -np.inf).argmax(axis=1)
    visits, total = np.zeros(value.shape), np.zeros(value.shape)
    chosen = np.zeros(size, dtype=int)
    for r in range(size):
        rows = rng.random((n[r], search["budget"])) < chance[r, : n[r], None]
        chosen[r], visits[r, : n[r]], total[r, : n[r]] = decide(rows, default=default[r],
                                                                seed=r, **search)  # fmt: skip
    records = Records(code, n, x, visits, total, chosen, np.arange(size) % 4,
                      np.arange(size) // 8)  # fmt: skip
    train, held = lf.split_by_game(records, 0.3, seed)
    return train, held, w, base


def gains_over_base(spread: float, target: str | None = None) -> np.ndarray:
    """Per seed: the held-out share of decisions on which the fitted player picks the planted
    scorer's option, minus the base's share (a default `learn`'s fit; `target` another)."""
    fit_args, _ = learn_defaults()
    out = []
    for seed in SEEDS:
        train, held, w, base = searched(seed, spread)
        fit = lf.fit(train, **{**fit_args, **({"target": target} if target else {})})
        truth = lf.picks(w, held)
        out.append(np.mean(lf.picks(fit.weights, held) == truth)
                   - np.mean(lf.picks(base, held) == truth))  # fmt: skip
    return np.array(out)


def gained(gains: np.ndarray) -> bool:
    """Does the player agree with the planted scorer more often than its base (or another
    player, given the paired differences)? A t-test over the 20 seeds (independent),
    one-sided at 0.001: False is "cannot tell"."""
    return bool(ttest_1samp(gains, 0.0, alternative="greater").pvalue < 0.001)


def test_a_default_learn_learns_what_the_search_found_beyond_its_base():
    """A default `learn`'s fit (its target, the search's visit shares with the confirmation's
    rollouts, and penalty) on the records its search makes: where the rollouts favour the
    planted scorer's options (win chances 0.3 +- 0.1), the fitted player picks the planted
    scorer's option more often than its base on the held-out decisions, over 20 seeds (0.79
    against 0.61), and gains more than a fit of the one-hot of the option the search played
    (+0.19 against +0.01: at close chances its confidence rule almost always keeps the base;
    docs/learned.md, fit targets), by a paired t-test over the seeds."""
    gains = gains_over_base(0.1)
    assert gained(gains)
    assert gained(gains - gains_over_base(0.1, "chosen"))


def test_a_default_learn_gains_nothing_where_the_rollouts_say_nothing():
    """Every option's rollouts win 30%: the search's records hold nothing beyond its base, and
    the same test cannot tell the fitted player from its base."""
    assert not gained(gains_over_base(0.0))


def test_null_case_is_chance():
    """Visits that ignore the features: a default `learn`'s fit agrees with the search's
    choice at chance, 1/n (exactly, in expectation: its pick is uniform and independent of the
    choice), and its standardised weights stay near 0."""
    fit_args, _ = learn_defaults()
    agreed, expected, variance, largest = 0, 0.0, 0.0, 0.0
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        code, n, x, _ = decisions(rng, planted_weights(rng), 2000)
        live = np.arange(x.shape[1]) < n[:, None]
        shares = np.where(live, rng.gamma(1.0, size=live.shape), 0.0)
        visits = np.array([rng.multinomial(64, q / q.sum()) for q in shares])
        records = records_of(code, n, x, visits.astype(float), rng.binomial(visits, 0.3) * 1.0)
        train, held = lf.split_by_game(records, 0.3, seed)
        fit = lf.fit(train, **fit_args)
        agreed += np.sum(lf.picks(fit.weights, held) == held.chosen)
        expected += np.sum(1 / held.n)
        variance += np.sum(1 / held.n * (1 - 1 / held.n))
        largest = max(largest, np.abs(fit.weights * SCALE).max())
    assert abs(agreed - expected) < 4 * math.sqrt(variance)
    assert largest < 0.15  # planted standardised weights are N(0, 1)


def test_penalty_is_per_record_weight():
    """Every record twice: the same weights. A large penalty p: p x the standardised weights
    tend to minus the loss's gradient at 0, sum_r a_r sum_i (t_ri - 1/n_r) x_ri."""
    rng = np.random.default_rng(0)
    r = softmax_records(rng, planted_weights(rng, 1), 300)
    twice = r.take(np.r_[np.arange(len(r)), np.arange(len(r))])
    assert np.allclose(lf.fit(twice).weights, lf.fit(r).weights, rtol=1e-6, atol=1e-9)
    penalty, live = 1e5, r.live
    rows = r.features[live]
    mean, scale = rows.mean(axis=0), rows.std(axis=0)
    x = np.where(live[:, :, None], (r.features - mean) / scale, 0)
    a = r.visits.sum(axis=1) / r.visits.sum()
    t = lf.targets(r) - np.where(live, 1 / r.n[:, None], 0)
    expected = np.einsum("r,rk,rkf->f", a, t, x)
    got = penalty * lf.fit(r, penalty=penalty).weights[0] * scale
    assert np.allclose(got, expected, rtol=1e-3, atol=1e-6)


@pytest.mark.parametrize("target", lf.TARGETS)
def test_fit_is_the_optimum(target):
    """At the returned weights the penalised loss is stationary, from the raw features:
    sum_r a_r sum_i (p_ri - t_ri) x_ri + penalty x scale^2 x w = 0 (centring drops out, as
    sum_i (p_ri - t_ri) = 0), with a_r in proportion to the rollouts (a third of the decisions
    with three times as many)."""
    rng = np.random.default_rng(8)
    r = softmax_records(rng, planted_weights(rng, 1), 600)
    more = np.where(np.arange(len(r)) % 3 == 0, 3.0, 1.0)[:, None]
    r = Records(r.code, r.n, r.features, r.visits * more, r.total * more, r.chosen, r.seat, r.game)
    fit = lf.fit(r, target=target)
    s = lf.scores(fit.weights, r)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    a = r.visits.sum(axis=1) / r.visits.sum()
    x = np.where(r.live[:, :, None], r.features, 0)
    scale = r.features[r.live].std(axis=0)
    gradient = np.einsum("r,rk,rkf->f", a, p - lf.targets(r, target), x)
    gradient += fit.penalty * scale**2 * fit.weights[0]
    assert np.abs(gradient / scale).max() < 1e-6  # in standardised units


def test_weights_in_original_units():
    """A feature in other units (x 7 - 3): its weight / 7, the others unchanged, the same picks."""
    rng = np.random.default_rng(1)
    r = softmax_records(rng, planted_weights(rng), 1000)
    features = r.features.copy()
    features[:, :, 2] = features[:, :, 2] * 7 - 3
    other = Records(r.code, r.n, features, r.visits, r.total, r.chosen, r.seat, r.game)
    w, w7 = lf.fit(r).weights, lf.fit(other).weights
    assert np.allclose(w7[:, 2] * 7, w[:, 2], rtol=1e-5)
    assert np.allclose(np.delete(w7, 2, axis=1), np.delete(w, 2, axis=1), rtol=1e-5)
    assert np.array_equal(lf.picks(w, r), lf.picks(w7, other))


@pytest.mark.parametrize("target", lf.TARGETS)
def test_raw_features_give_the_fitted_loss(target):
    """Without a penalty, the loss L-BFGS reached on standardised features is the log-loss of
    the returned weights on the raw features: the scaling and centring are folded in."""
    rng = np.random.default_rng(2)
    r = softmax_records(rng, planted_weights(rng), 800)
    fit = lf.fit(r, target=target, penalty=0.0)
    table = lf.evaluate(fit, r).set_index("code")
    assert np.allclose(table.loc[[0, 1], "log_loss"], fit.loss, rtol=1e-9)


def test_fixed_point_same_argmax():
    """Fixed-point weights play the float weights' option, except at near ties no wider than
    the rounding can move: half a unit of 2**-12 per weight."""
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        r = softmax_records(rng, planted_weights(rng), 1000)
        w = lf.fit(r).weights
        fixed = lf.to_fixed(w, bits=12)
        assert fixed.dtype == np.int32
        exact, rounded = lf.picks(w, r), lf.picks(fixed, r)
        assert np.mean(exact == rounded) >= 0.99
        rows = np.flatnonzero(exact != rounded)
        s = lf.scores(w, r)
        gap = s[rows, exact[rows]] - s[rows, rounded[rows]]
        x = r.features[rows, exact[rows]] - r.features[rows, rounded[rows]]
        assert np.all(gap <= np.abs(x) @ np.full(x.shape[1], 2.0**-13))


def test_to_fixed_known_answers():
    assert lf.to_fixed(np.array([[0.5, -1.25, 0.4, -0.4]]), bits=2).tolist() == [[2, -5, 2, -2]]
    assert lf.to_fixed(np.array([2.0**18]), bits=12)[0] == 2**30
    for bad in ([2.0**18 + 1], [np.nan]):
        with pytest.raises(ValueError):
            lf.to_fixed(np.array(bad), bits=12)


def test_deterministic_byte_for_byte():
    fits = [lf.fit(softmax_records(np.random.default_rng(3), planted_weights(
        np.random.default_rng(4)), 1500)) for _ in range(2)]  # fmt: skip
    assert fits[0].weights.tobytes() == fits[1].weights.tobytes()
    assert fits[0].loss.tobytes() == fits[1].loss.tobytes()


def test_split_by_game():
    r = softmax_records(np.random.default_rng(5), planted_weights(np.random.default_rng(5)), 800)
    train, held = lf.split_by_game(r, 0.25, seed=7)
    assert len(train) + len(held) == len(r)
    assert not set(train.game) & set(held.game)
    assert len(set(held.game)) == round(0.25 * len(set(r.game)))
    shuffled = r.take(np.random.default_rng(0).permutation(len(r)))
    assert set(lf.split_by_game(shuffled, 0.25, seed=7)[1].game) == set(held.game)
    assert set(lf.split_by_game(r, 0.25, seed=8)[1].game) != set(held.game)


def test_padding_never_wins():
    """Padding options hold anything (huge, nan): the fit is the same to the byte, and a scorer
    that would love the padding still plays an option that exists."""
    r = softmax_records(np.random.default_rng(6), planted_weights(np.random.default_rng(6)), 800)
    pad = ~r.live
    assert pad.any()
    features, visits, total = r.features.copy(), r.visits.copy(), r.total.copy()
    features[pad], visits[pad], total[pad] = 1e9, np.nan, -5.0
    junk = Records(r.code, r.n, features, visits, total, r.chosen, r.seat, r.game)
    assert lf.fit(junk).weights.tobytes() == lf.fit(r).weights.tobytes()
    assert np.all(lf.picks(np.ones((2, len(SCALE))), junk) < junk.n)
    assert np.isfinite(lf.evaluate(lf.fit(junk), junk)["log_loss"]).all()


def test_code_without_records_gets_zero_weights():
    r = softmax_records(np.random.default_rng(7), planted_weights(np.random.default_rng(7)), 400)
    r = Records(r.code * 2, r.n, r.features, r.visits, r.total, r.chosen, r.seat, r.game)
    fit = lf.fit(r, n_codes=4)
    assert fit.codes_fitted == (0, 2) and fit.n_records.tolist()[1::2] == [0, 0]
    assert not fit.weights[[1, 3]].any() and fit.weights[[0, 2]].all()
    assert np.isnan(fit.loss[[1, 3]]).all()


def test_evaluate_known_answers():
    """Scores w x f with w = 1 (code 0) and -1 (code 1): picks 1, 0 (a tie: the first), 1, 0
    against the search's 1, 1, 2, 0; the third decision's pick has no rollout (no gap)."""
    r = small_records()
    fit = lf.Fit(np.array([[1.0], [-1.0]]), (0, 1), np.array([2, 2]), np.zeros(2),
                 np.ones(2, bool), "visits", 0.1, 0.0)  # fmt: skip

    def cross(s, t):
        s = np.asarray(s, dtype=float)
        return -np.dot(t, s - np.log(np.exp(s).sum()))

    ce = [cross([0.5, 2, 1], [0.25, 0.75, 0]), cross([3, 3], [0.5, 0.5]),
          cross([-1, 0, -2], [0.5, 0, 0.5]), cross([0, -1], [0.5, 0.5])]  # fmt: skip
    assert lf.picks(fit.weights, r).tolist() == [1, 0, 1, 0]
    table = lf.evaluate(fit, r).set_index("code")
    assert table["records"].tolist() == [2, 2, 4]
    assert np.allclose(table["agreement"], [0.5, 0.5, 0.5])
    assert np.allclose(table["reward_gap"], [0.25, 0.0, 0.5 / 3])
    assert table["gap_records"].tolist() == [2, 1, 3]
    log_loss = [(40 * ce[0] + 8 * ce[1]) / 48, (10 * ce[2] + 4 * ce[3]) / 14,
                np.dot([40, 8, 10, 4], ce) / 62]  # fmt: skip
    assert np.allclose(table["log_loss"], log_loss)


BAD = {
    "features of 2 dimensions": dict(features=np.zeros((4, 3))),
    "visits of another K": dict(visits=np.zeros((4, 4))),
    "a short chosen": dict(chosen=np.array([1, 1, 2])),
    "one option": dict(n=np.array([1, 2, 3, 2])),
    "more options than K": dict(n=np.array([4, 2, 3, 2])),
    "negative visits": dict(visits=np.array([[1, -1, 0], [4, 4, 0], [5, 0, 5], [2, 2, 0.0]])),
    "chosen past n": dict(chosen=np.array([1, 2, 2, 0])),
    "codes as floats": dict(code=np.array([0.0, 0, 1, 1])),
    "a negative code": dict(code=np.array([0, -1, 1, 1])),
    "a nan feature": dict(
        features=np.where(np.arange(3) == 1, np.nan, 1.0)[None, :, None].repeat(4, axis=0)
    ),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_records_refused_in_one_line(case):
    fields = {name: getattr(small_records(), name) for name in lf._FIELDS} | BAD[case]
    with pytest.raises(ValueError, match="^records: ") as caught:
        Records(**fields)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("call", [
    lambda r: lf.fit(r, target="best"), lambda r: lf.fit(r, target="means", temperature=0.0),
    lambda r: lf.fit(r, penalty=-1.0), lambda r: lf.fit(r, n_codes=1),
    lambda r: lf.split_by_game(r, 1.5, 0), lambda r: lf.picks(np.zeros((2, 2)), r),
])  # fmt: skip
def test_bad_arguments_refused_in_one_line(call):
    with pytest.raises(ValueError) as caught:
        call(small_records())
    assert "\n" not in str(caught.value)
