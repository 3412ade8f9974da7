"""A forked rollout's steps in the kernel (`games.abyss.engine.fork`): at the chosen
fight-or-explore
decision point, record the situation, re-key the streams and reshuffle the hidden decks, or switch
the deciding seat's strategy parameters."""

from __future__ import annotations

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import base as B
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.kernel.scoring import seat_score
from games.abyss.engine.state import N_SEAT_FIELDS, R_SCORE
from sim.core.jit import njit
from sim.core.rng import N_STREAMS


@njit(cache=True)
def fork_reseed(s):
    """Branch a forked rollout: every stream re-keyed from W.FORK_KEYS, and the face-down decks
    reshuffled, so that each replicate samples what the deciding player cannot see. Both choices
    of a replicate get the same keys: common random numbers."""
    s[W.RNG_KEYS : W.RNG_KEYS + 2 * N_STREAMS] = s[W.FORK_KEYS : W.FORK_KEYS + 2 * N_STREAMS]
    s[W.RNG_COUNTERS : W.RNG_COUNTERS + 2 * N_STREAMS] = 0
    B.shuffle_stack(s, S.EXP_DECK, K.ST_EXPLORATION)
    B.shuffle_stack(s, S.LORD_DECK, K.ST_LORDS)
    B.shuffle_stack(s, S.LOC_DECK, K.ST_LOCATIONS)
    B.shuffle_stack(s, S.MONSTER_TOKENS, K.ST_MONSTERS)
    B.shuffle_stack(s, S.LEV_DECK, K.ST_LEV_DECK)
    B.shuffle_stack(s, S.LEV_TOKENS, K.ST_LEV_TOKENS)


@njit(cache=True)
def switch_rule(s, seat):
    """A rule rollout: the seat's strategy parameters W.FORK_SET[slot] = value, from now on."""
    for i in range(s[W.FORK_N_SET]):
        slot = s[W.FORK_SET + 2 * i]
        s[W.POLICY_PARAMS + seat * W.N_PARAMS + slot] = s[W.FORK_SET + 2 * i + 1]


@njit(cache=True)
def record_fork(s, seat, own_choice):
    """The situation at a fork point, into W.FORK_INFO (columns:
    games.abyss.engine.fork.INFO_COLUMNS)."""
    b = K.pbase(seat)
    target, best_chance, best_value = -1, -1, 0
    metamorph = K.working(s, seat, K.C_METAMORPH) > 0
    for z in range(s[T.N_ZONES]):
        lev = s[S.BORDER + z]
        if lev < 0:
            continue
        chance = P.zone_chance(s, seat, z)
        if chance > best_chance:
            target, best_chance = z, chance
        for i in range(s[b + S.P_HAND]):
            a = s[b + S.P_HAND + 1 + i]
            if K.attacks(s, a, lev, metamorph):
                best_value = max(best_value, K.value(s, a))
    lev, life = s[S.BORDER + target], s[S.LIFE + target]
    row = s[W.SCORE_ROW : W.SCORE_ROW + N_SEAT_FIELDS]
    seat_score(s, seat, row)
    info = W.FORK_INFO
    s[info + 0] = seat
    s[info + 1] = s[S.TURN]
    s[info + 2] = (s[S.TURN] - 1) // s[S.N_PLAYERS] + 1
    s[info + 3] = s[b + S.P_PEARLS]
    s[info + 4] = K.border_count(s)
    s[info + 5] = best_value
    s[info + 6] = s[T.LEV_RESISTANCE + lev * T.MAX_SPACES + life]
    s[info + 7] = best_chance
    s[info + 8] = own_choice
    s[info + 9] = P.arrival_risk(s)
    s[info + 10] = row[R_SCORE]
    s[info + 11] = s[b + S.P_HAND]
    s[info + 12] = K.n_keys(s, seat)
    s[info + 13] = lev
    s[info + 14] = life
    s[info + 15] = s[T.LEV_N_SPACES + lev] - life
