"""The search's own decision (`sim.core.search.search_decision_for`) with its rollouts read from
a table of simulated rewards: rows[option, j] is the reward of `option` on sample j. For tests of
the search's rule and of what a learned player fitted to the search's records learns."""

from __future__ import annotations

import numpy as np

from sim.core.jit import njit
from sim.core.search import CONFIDENCE_UNIT, SearchBlocks, SearchSlots, search_decision_for

# A workspace of the decision alone: seat, number of options, options, script, the default,
# turn, the search's keys, then the seat's parameters (rollouts, exploration, kinds, confidence).
MAX_OPTIONS = 32
SEAT, N, OPTS = 0, 1, 2
SCRIPT, DEFAULT_AT, TURN, KEYS = OPTS + MAX_OPTIONS, OPTS + MAX_OPTIONS + 1, OPTS + 34, OPTS + 35
PARAMS = KEYS + 2
# the fields the decision reads (the others unused: 0); the seat's vector holds the search's own
# four slots (sim.core.policy.S_ROLLOUTS ... S_CONFIDENCE)
BLOCKS = SearchBlocks(begin=0, mode=0, count=0, script=SCRIPT, force=0, found=0, default=DEFAULT_AT,
                      seat=SEAT, decision=0, n_options=N, options=OPTS, trace=0)
SLOTS = SearchSlots(opt=0, policy_kind=0, policy_params=PARAMS, n_params=4, n_players=0, turn=TURN,
                    rng_keys=KEYS, rec_on=0, search_kind=0, rollout_kind=0, rollout_params=0,
                    n_slots=0)


@njit(cache=True)
def _table_rollout(s, start, w, rows, active, seat, k, option, seed, j):
    """The reward of `option` on sample j: rows[option, j] (the simulated rollouts)."""
    return rows[option, j]


_decision = search_decision_for(_table_rollout, BLOCKS, SLOTS)


def decide(rewards, budget, confidence=0.95, kinds=0, default=0, seed=0, exploration=0.7):
    """The search's decision among the options of `rewards` with `budget` rollouts (the
    default: the rollout policy's own option, its index; -1: unknown): the option played, each
    option's rollouts and summed reward (the confirmation's included, as the search leaves
    them for its records)."""
    k = len(rewards)
    s = np.zeros(PARAMS + 4, np.int32)
    s[N], s[OPTS : OPTS + k], s[DEFAULT_AT], s[KEYS] = k, np.arange(k), default, seed
    s[PARAMS : PARAMS + 4] = (budget, round(exploration * 1000), kinds,
                              round(confidence * CONFIDENCE_UNIT))  # fmt: skip
    visits, total = np.zeros(k, np.int64), np.zeros(k)
    option = _decision(s, s, s, np.ascontiguousarray(rewards, dtype=float), 0, visits, total)
    return option, visits, total
