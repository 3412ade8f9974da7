"""The small steps every phase of the fast path takes: asking a seat's policy (`choose`), drawing
from a random stream, Pearls and Keys from and to the supply, discarding, the Council's stacks
(the codes they compare are `kernel.core`'s).

Each function mirrors the reference engine's helper of the same name
(`games.abyss.engine.rules.game.Game`); the phase modules (`kernel_*.py`) reach them as `B.*`.
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import workspace as W
from sim.core import search as C
from sim.core.apart import called_apart
from sim.core.jit import njit, njit_ints
from sim.core.rng import N_STREAMS, rand_below_in
from sim.core.workspace import shuffle_in


@njit(cache=True, inline="always")
def draw(s, stream, n):
    """A uniform integer in [0, n) from one of the game's random streams."""
    return rand_below_in(s, W.RNG_KEYS, W.RNG_COUNTERS, np.int64(stream), np.int64(n))


@njit(cache=True, inline="always")
def die(s):
    return 1 + draw(s, K.ST_DICE, 6)


@njit(cache=True, inline="always")
def choose_01(s, seat, decision):
    s[W.OPT] = 0
    s[W.OPT + 1] = 1
    return choose(s, seat, decision, 2)


@njit(cache=True)
def options_from_stack(s, off):
    """The options = the items of a stack; returns their number."""
    n = s[off]
    for i in range(n):
        s[W.OPT + i] = s[off + 1 + i]
    return n


@njit_ints
def shuffle_stack(s, off, stream):
    """Fisher-Yates shuffle of a stack, from one of the game's random streams."""
    shuffle_in(s, off, W.RNG_KEYS, W.RNG_COUNTERS, stream)


@njit(cache=True, inline="always")
def gain_pearls(s, seat, n):
    if n > 0:
        s[K.pbase(seat) + S.P_PEARLS] += n
        s[S.PEARLS_FROM] += n


@njit(cache=True, inline="always")
def pay_treasury(s, seat, n):
    b = K.pbase(seat)
    n = min(n, s[b + S.P_PEARLS])
    if n > 0:
        s[b + S.P_PEARLS] -= n
        s[S.PEARLS_TO] += n


@njit(cache=True)
def gain_keys(s, seat, n):
    n = min(n, s[S.KEY_PILE])
    if n > 0:
        s[S.KEY_PILE] -= n
        s[K.pbase(seat) + S.P_KEYS] += n


# ------------------------------------------------------------------ the search player
# (`games.abyss.engine.kernel.game` drives it: these are its steps inside a turn). They are small
# and use no array slices: `choose`, which every decision calls, compiles them into every caller.


@njit(cache=True)
def determinize(s, seat):
    """What `seat` cannot see, sampled afresh: every stream re-keyed from W.FORK_KEYS, each
    face-down deck put in a canonical order (sorted) and shuffled, and the opponents' face-down
    tokens (Monster tokens; Leviathan's, held before they are revealed) redealt from those not
    seen (their deck's and theirs). The canonical order makes the sample independent of the
    true hidden order: the search never peeks. (With perfect recall the Allies in hand and in the
    Council are known: every one was seen face up.)"""
    for i in range(2 * N_STREAMS):
        s[W.RNG_KEYS + i] = s[W.FORK_KEYS + i]
        s[W.RNG_COUNTERS + i] = 0
    gather_tokens(s, seat, S.MONSTER_TOKENS, S.P_TOKENS)
    gather_tokens(s, seat, S.LEV_TOKENS, S.P_HELD)
    canonical_shuffle(s, S.EXP_DECK, K.ST_EXPLORATION)
    canonical_shuffle(s, S.LORD_DECK, K.ST_LORDS)
    canonical_shuffle(s, S.LOC_DECK, K.ST_LOCATIONS)
    canonical_shuffle(s, S.MONSTER_TOKENS, K.ST_MONSTERS)
    canonical_shuffle(s, S.LEV_DECK, K.ST_LEV_DECK)
    canonical_shuffle(s, S.LEV_TOKENS, K.ST_LEV_TOKENS)
    deal_tokens(s, seat, S.MONSTER_TOKENS, S.P_TOKENS)
    deal_tokens(s, seat, S.LEV_TOKENS, S.P_HELD)


@njit(cache=True)
def gather_tokens(s, seat, deck, field):
    """The opponents' face-down tokens (their stack at `field`) onto their `deck` (they keep
    their counts, for `deal_tokens`)."""
    for q in range(s[S.N_PLAYERS]):
        if q != seat:
            b = K.pbase(q) + field
            for i in range(s[b]):
                K.push(s, deck, s[b + 1 + i])


@njit(cache=True)
def deal_tokens(s, seat, deck, field):
    """Each opponent's face-down tokens dealt again from the top of `deck`, as many as before."""
    for q in range(s[S.N_PLAYERS] - 1, -1, -1):
        if q != seat:
            b = K.pbase(q) + field
            for i in range(s[b] - 1, -1, -1):
                s[b + 1 + i] = K.pop(s, deck)


@njit(cache=True)
def canonical_shuffle(s, off, stream):
    """Sort the stack, then shuffle it: the result depends on its cards, not on their order."""
    C.canonical_shuffle_in(s, off, W.RNG_KEYS, W.RNG_COUNTERS, stream)


#: the search seat's decision in a replayed turn, every seat switched to its rollout policy, and
#: `choose`, the entry of every decision (`sim.core.search.hooks_for`; compiled eagerly, after
#: what it calls): the seat's policy asked among the n options at s[W.OPT:], traced
SEARCH_SLOTS = C.SearchSlots(
    W.OPT, W.POLICY_KIND, W.POLICY_PARAMS, W.N_PARAMS, S.N_PLAYERS, S.TURN, W.RNG_KEYS, W.REC_ON,
    P.SEARCH, P.ROLLOUT_KIND, P.ROLLOUT_PARAMS, P.N_SLOTS)
searched, rollout_policy, choose = C.hooks_for(determinize, P.choose, P.record_features,
                                               W.SEARCH_BLOCKS, SEARCH_SLOTS)  # fmt: skip


#: The Leviathan expansion's phases, called apart (`sim.core.apart`): a game without it never
#: compiles them, and a cold run compiles them beside the rules. `leviathan(s, phase, seat, x)`
#: plays `phase` (`kernel.leviathan.leviathan_phase`) for `seat`; x: its card, power or token.
LV_CRABS, LV_SETUP, LV_REVEAL_HELD, LV_END_OF_TURN = 0, 1, 2, 3
LV_MONSTER, LV_LORD_POWER, LV_HOLD_TOKEN = 4, 5, 6
leviathan = called_apart("games.abyss.engine.kernel.leviathan:leviathan_phase")


@njit_ints
def discard_ally_from_hand(s, seat, ally):
    K.remove(s, K.pbase(seat) + S.P_HAND, ally)
    K.push(s, S.EXP_DISCARD, ally)


@njit_ints
def choose_discard(s, seat):
    n = K.distinct_allies(s, K.pbase(seat) + S.P_HAND, W.OPT, 0)
    discard_ally_from_hand(s, seat, choose(s, seat, P.D_DISCARD_ALLY, n))


@njit(cache=True)
def trigger_end(s, reason):
    if s[S.END_REASON] == S.END_NONE:
        s[S.END_REASON] = reason


@njit(cache=True, inline="always")
def council_stack(r):
    return S.COUNCIL + r * S.COUNCIL_STRIDE


@njit(cache=True)
def council_options(s):
    """W.OPT = the races whose Council stack is not empty."""
    n = 0
    for r in range(5):
        if s[council_stack(r)] > 0:
            s[W.OPT + n] = r
            n += 1
    return n


@njit(cache=True)
def take_council_stack(s, seat, race):
    K.extend(s, K.pbase(seat) + S.P_HAND, council_stack(race))
    K.clear(s, council_stack(race))


@njit_ints
def free_lords_options(s, seat, exclude):
    """W.OPT = the seat's free Lords (not under a Location) other than `exclude`, in order."""
    off = K.pbase(seat) + S.P_LORDS
    n = 0
    for i in range(s[off]):
        lord = s[off + 1 + i]
        if s[S.LORD_UNDER + lord] == 0 and lord != exclude:
            s[W.OPT + n] = lord
            n += 1
    return n


@njit(cache=True)
def military_targets(s, seat, out):
    """s[out:out + n] = the opponents a Military power reaches (no working Shaman), clockwise."""
    n = 0
    for i in range(1, s[S.N_PLAYERS]):
        q = K.opponent(s, seat, i)
        if not K.protected(s, q):
            s[out + n] = q
            n += 1
    return n


@njit_ints
def discard_lord(s, seat, lord):
    K.remove(s, K.pbase(seat) + S.P_LORDS, lord)
    s[S.LORD_DISABLED + lord] = 0
    K.push(s, S.LORD_DISCARD, lord)
    K.refresh_powers(s, seat)


@njit(cache=True)
def draw_monster_token(s, seat):
    if s[S.MONSTER_TOKENS] > 0:
        K.push(s, K.pbase(seat) + S.P_TOKENS, K.pop(s, S.MONSTER_TOKENS))
