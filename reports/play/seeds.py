"""The seeds of a run, one per purpose: deals that choose something (a candidate, an iteration, a
play strength's contenders, the strategy whose card values are measured) never report it
(docs/decisions.md, "One seed per purpose"; shared/design/claims.md: the winner's curse).

Every seed of a run is derived from the run's `--seed` by `derived_seed(seed, stream, index)`,
a stream per purpose; the streams of each command are listed here, and the manifest of every run
that chooses records the seeds it used (`purposes`).
"""

from __future__ import annotations

import numpy as np

#: `abyss-mc tune` (reports/tune.py): the search plays the run's seed.
TUNE_REEVAL, TUNE_HELDOUT, TUNE_SCREEN, TUNE_SAMPLER = 1, 2, 3, 4
#: `abyss-mc design` (reports/design.py).
DESIGN_REEVAL, DESIGN_ADAPT, DESIGN_LEARNED, DESIGN_RETUNE, DESIGN_SAMPLER = 11, 12, 13, 14, 15
#: The search plays the run's seed; each round r of finalists DESIGN_REEVAL (index r), which
#: chooses; the chosen candidate is confirmed on DESIGN_CONFIRM, which chooses nothing.
DESIGN_CONFIRM = 16
#: `abyss-mc tournament --report`: each play strength's tournament (index: the strength), and
#: each strength's card values (restricted play of the strategy its tournament chose).
TIER, CARDS = 21, 22
#: `abyss-mc learn` (reports/runs/learn.py): the search's records, which choose the weights, play
#: the run's seed (games `learn_run.DEALS` x iteration on); every iteration's strength, which
#: reports and chooses nothing (the last iteration is shipped), a stream of its own.
LEARN_STRENGTH = 31
#: `abyss-mc ev rollout --verify-blocks`: the tournament that checks the learnt rule, on deals
#: no rule rollout played (the rollouts, which choose the rule, play the run's seed).
EV_VERIFY = 41
#: The play strengths in the order of their streams' indices (the hand-written presets, or the
#: strategies as run, play the run's own seed).
TIERS = ("tuned", "learned", "search")


def derived_seed(seed: int, stream: int, index: int = 0) -> int:
    """A seed of its own for `stream` (and `index`) of the run's `seed`, below 2**63."""
    state = np.random.SeedSequence([seed, stream, index]).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1]))


def tier_seed(seed: int, tier: str) -> int:
    """The deals of a play strength's tournament: the run's seed for the strategies as run (the
    hand-written presets), a stream of its own for every other strength, so that each strength
    reports on deals of its own (the learned tier's seats, or the tuned tier's, choose the search
    tier's contenders)
    and the strengths' estimates are independent
    (`reports.sections.across_strengths`)."""
    return seed if tier not in TIERS else derived_seed(seed, TIER, 1 + TIERS.index(tier))


def card_seed(seed: int, tier: str) -> int:
    """The deals of a play strength's card values: not those of its tournament, which chose the
    strategy they measure."""
    index = 0 if tier not in TIERS else 1 + TIERS.index(tier)
    return derived_seed(seed, CARDS, index)


def purposes(seed: int, tiers) -> dict[str, int]:
    """The seeds a `tournament --report` used, by purpose (for its manifest)."""
    out = {}
    for tier in tiers:
        out[f"{tier} tournament"] = tier_seed(seed, tier)
        out[f"{tier} card values"] = card_seed(seed, tier)
    return out
