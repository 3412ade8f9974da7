"""What every game's search player shares (`sim.core.search`): the option it plays departs from its
rollout policy's own only when the rollouts say so clearly (docs/search.md, "How it decides").

The rule is a test, so it is held to what a test must do, on rewards simulated as the search's
rollouts are: the v-th rollout of every option plays the same sample of the hidden cards (common
random numbers), so a rollout's reward is a win (1) or a loss (0), plus a thousandth of a score
margin, decided by the sample's luck (shared by the options), the option's worth and the
rollout's own noise. In the null case the options are of equal worth (each wins about 26% of its
rollouts, as at a 4-player table): over 1,000 seeds per case the search departs from the default
as often as its rule's level says (`null_rate`, at most 5%), within a binomial band about 4
standard errors each side, whatever the number of options and the budget. With one option
clearly better it must depart in at least 95% of 200 seeds. The decision tested is the games' own
(`search_decision_for`), its rollouts read from a table of simulated rewards.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom
from search_table import decide

from sim.core.search import (
    EXACT_PAIRS,
    FLIPS,
    confident,
    confirmation_pairs,
    most_visited,
    sign_flip_p,
)

SEEDS = range(200)
#: the null cases' seeds: enough that a band several standard errors wide excludes a rule at
#: twice its level (5% against 10%: 50 +- 27 departures against 100)
NULL_SEEDS = range(1000)
CONFIDENCE = 0.95  # the parameter's default (strategies/search.py)
DEFAULT = 0  # the rollout policy's own option, in every case
#: the better option's latent worth, by rollouts per option: it wins 84% of its rollouts
#: (against 26%) at 16 per option, 64% at 64
MARGIN = {16: 2.0, 64: 1.25}


def _rewards(rng, worth, m, luck=1.0, noise=0.7, threshold=0.8):
    """rewards[i, v]: option i's rollout on sample v: a win when the sample's luck (shared by
    every option: common random numbers) + the option's worth + the rollout's noise passes the
    threshold; plus a thousandth of the score margin (clipped to +-100 points, as
    `share_reward`)."""
    worth = np.asarray(worth, dtype=float)
    z = luck * rng.standard_normal(m)[None, :] + worth[:, None]
    z = z + noise * rng.standard_normal((len(worth), m))
    return (z > threshold) + 0.001 * np.clip(20 * (z - threshold), -100, 100) / 100


def _searched(k, per, better, seed, confidence=CONFIDENCE):
    """k options (option k - 1 `better`, the rest of equal worth), a budget of `per` rollouts
    per option: the option played."""
    rng = np.random.default_rng([k, per, seed])
    rewards = _rewards(rng, [0.0] * (k - 1) + [better], k * per)
    return decide(rewards, k * per, confidence, seed=seed)[0]


def sign_flip_level(m, confidence=CONFIDENCE):
    """The chance that the sign-flip test on m paired differences of equal worth (symmetric,
    continuous) says "better" at `confidence`: its p-value is uniform on the multiples of
    1 / 2^m (every pattern enumerated) or of 1 / (FLIPS + 1) (sampled), so the chance is the
    largest such multiple within the level."""
    grid = 2**m if m <= EXACT_PAIRS else FLIPS + 1
    return np.floor((1 - confidence) * grid + 1e-9) / grid


def null_rate(k, per, confidence=CONFIDENCE):
    """The chance that the search departs from the default among k options of equal worth:
    UCB1's choice is another option with chance (k - 1) / k (the options are exchangeable) and
    is then confirmed on fresh pairs, independent of the choice, at the test's level."""
    pairs = confirmation_pairs(k * per, k, confidence, 0)
    return (k - 1) / k * sign_flip_level(pairs, confidence)


def band(n, p):
    """The counts a binomial(n, p) falls outside with chance 1 in 10,000 (about 3.9 standard
    errors each side): a bound a correct rule does not meet by bad luck."""
    lo, hi = binom.interval(0.9999, n, p)
    return int(lo), int(hi)


CASES = [(k, per) for k in (2, 5, 20) for per in (4, 16, 64)]


@pytest.mark.parametrize(("k", "per"), CASES, ids=[f"{k}-options-{p}-each" for k, p in CASES])
def test_options_of_equal_worth_replace_the_policys_at_the_rules_level(k, per):
    """The most visited of k equal options is the luckiest: it is played instead of the
    default as often as the confirmation's level says over 1,000 seeds (at most 5%; none with 2
    pairs, below the level; the old rule, one unpaired standard error on UCB1's own rollouts:
    7% to 53%). Too few departures fail too: a rule that never departs is not this rule."""
    expected = null_rate(k, per)
    departed = sum(_searched(k, per, 0.0, seed) != DEFAULT for seed in NULL_SEEDS)
    lo, hi = band(len(NULL_SEEDS), expected)
    assert lo <= departed <= hi, (departed, expected * len(NULL_SEEDS), (lo, hi))


POWER = [(k, per) for k in (2, 5, 20) for per in (16, 64)]


@pytest.mark.parametrize(("k", "per"), POWER, ids=[f"{k}-options-{p}-each" for k, p in POWER])
def test_a_clearly_better_option_replaces_the_policys(k, per):
    """One option clearly better (MARGIN: it wins 84% of its rollouts at 16 per option, 64% at
    64, the others 26%): it is played in at least 95% of 200 seeds."""
    played = sum(_searched(k, per, MARGIN[per], seed) == k - 1 for seed in SEEDS)
    assert played >= 0.95 * len(SEEDS), played


@pytest.mark.parametrize("pairs", [4, 16, 64])
def test_the_rule_on_fresh_pairs(pairs):
    """The rule alone (`confident`) on `pairs` pairs of fresh rollouts. The two options of equal
    worth: it says "better" as often as its level says (an exact test: `sign_flip_level`, within
    the binomial band over 1,000 seeds; with 4 pairs never, below). The first clearly better (it
    wins 97% of its rollouts, the other 26%): "better" in at least 95% of 200 seeds from 16
    pairs on. Four pairs never convince at 0.95: all four better has a chance of 1 in 16."""

    def said(better, seed):
        rewards = _rewards(np.random.default_rng([pairs, seed]), [better, 0.0], pairs)
        return confident(rewards.T.reshape(-1), CONFIDENCE, seed)

    lo, hi = band(len(NULL_SEEDS), sign_flip_level(pairs))
    assert lo <= sum(said(0.0, seed) for seed in NULL_SEEDS) <= hi
    convinced = sum(said(3.0, seed) for seed in SEEDS)
    assert convinced >= 0.95 * len(SEEDS) if pairs > 4 else convinced == 0


def test_edge_cases():
    """One option: it, without a rollout more than the budget; the rule off (confidence 0):
    UCB1's choice, the whole budget UCB1's; the default not among the options: UCB1's choice,
    unconfirmed; UCB1's choice the default itself: no confirmation; identical rollouts
    (differences all 0): the default; a choice better by the same amount on every sample (no
    spread, a deterministic gain): played; confidence 1: never departs; too few pairs (a budget
    of 8 among 4 options: 2 pairs): the default."""
    better = np.tile([[0.0], [0.0], [0.5]], 64)  # option 2 better on every sample
    assert decide(better[:1], 16)[0] == 0
    option, visits, _ = decide(better, 64, confidence=0.0)
    assert option == 2 and visits.sum() == 64 and confirmation_pairs(64, 3, 0.0, 0) == 0
    option, visits, _ = decide(better, 64, default=-1)
    assert option == 2 and visits.sum() == 64 - 2 * confirmation_pairs(64, 3, CONFIDENCE, 0)
    option, visits, _ = decide(better, 64, default=2)
    assert option == 2 and visits.sum() == 64 - 32
    option, visits, _ = decide(better, 64)
    assert option == 2 and visits.sum() == 64 and visits[0] >= 16
    same = np.zeros((3, 64))
    same[2] = 1e-9  # UCB1's choice, but on a fresh sample a tie
    same[2, 32:] = 0.0  # the confirmation plays samples 32 to 47
    assert decide(same, 64)[0] == DEFAULT
    assert decide(better, 64, confidence=1.0)[0] == DEFAULT
    assert decide(np.tile([[0.0], [0.0], [0.0], [1.0]], 8), 8)[0] == DEFAULT
    assert confirmation_pairs(8, 4, CONFIDENCE, 0) == 2


@pytest.mark.parametrize("k", [2, 4, 7, 8, 12])
def test_a_budget_too_small_to_confirm_plays_the_default(k):
    """At 8 rollouts no choice is ever confirmed (at most 2 pairs: p >= 1/4), so the search is
    its rollout policy whatever the number of options k, also where the budget keeps no pair at
    all (7 or more options: UCB1 takes every rollout). An option better on every sample is
    UCB1's choice, and the default is played; the rule off (confidence 0): UCB1's choice."""
    better = np.zeros((k, 64))
    better[k - 1] = 1.0
    assert decide(better, 8)[0] == DEFAULT
    assert decide(better, 8, confidence=0.0)[0] == k - 1


def test_repeated_determinizations_are_no_new_samples():
    """With `determinizations` = 4 every rollout plays one of 4 samples: however often they
    are played, they are 4 pairs, which never convince at 0.95 (with 32 samples they do)."""
    better = np.tile([[0.0], [1.0]], 64)
    assert confirmation_pairs(64, 2, CONFIDENCE, 4) == 4
    assert decide(better, 64, kinds=4)[0] == DEFAULT
    assert decide(better, 64, kinds=32)[0] == 1


@pytest.mark.parametrize("m", [5, 12, 30])
def test_the_sign_flip_p_value(m):
    """Exact (m <= 12): all m differences positive has p = 2^-m, one negative among them
    (m + 1) / 2^m; alternating +1, -1 above 1/2. Sampled (m > 12): at least 1 / (FLIPS + 1); on
    symmetric noise p <= 0.05 as often as the level says (`sign_flip_level`: 1/32 at m = 5,
    all five positive), within the binomial band (a known answer and a null case)."""
    ones = np.ones(m)
    assert sign_flip_p(ones, m, 0) == (2.0**-m if m <= 12 else 1 / 4096)
    if m <= 12:
        ones[0] = -1.0
        assert sign_flip_p(ones, m, 0) == pytest.approx((m + 1) / 2**m)
    half = np.array([1.0, -1.0] * (m // 2) + [1.0] * (m % 2))
    assert sign_flip_p(half, len(half), 0) >= 0.5
    rng = np.random.default_rng(m)
    rejected = [sign_flip_p(rng.standard_normal(m), m, seed) <= 0.05 for seed in NULL_SEEDS]
    lo, hi = band(len(NULL_SEEDS), sign_flip_level(m))
    assert lo <= sum(rejected) <= hi


def test_most_visited_breaks_ties_by_reward():
    assert most_visited(np.array([3, 5, 5]), np.array([9.0, 1.0, 2.0])) == 2
