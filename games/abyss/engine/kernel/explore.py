"""Rulebook, Explore the Depths and Request Support from the Council, on the fast path (the
reference: `games.abyss.engine.rules.explore`)."""

from __future__ import annotations

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.cards.constants import MONSTER
from games.abyss.engine.kernel import base as B
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from sim.core.jit import njit, njit_ints


@njit(cache=True)
def reveal(s):
    """The top Exploration card (-1 if none); an empty deck is the reshuffled discard pile."""
    if s[S.EXP_DECK] == 0:
        if s[S.EXP_DISCARD] == 0:
            return -1
        K.extend(s, S.EXP_DECK, S.EXP_DISCARD)
        K.clear(s, S.EXP_DISCARD)
        B.shuffle_stack(s, S.EXP_DECK, K.ST_EXPLORATION)
    return K.pop(s, S.EXP_DECK)


@njit(cache=True)
def explore(s, seat):
    purchases = 0
    taken = -1
    lev = s[S.LEVIATHAN] == 1
    reshuffled = False
    while True:
        if s[S.EXP_DECK] == 0 and reshuffled:
            break  # every card left was revealed in this exploration
        reshuffled = reshuffled or s[S.EXP_DECK] == 0
        card = reveal(s)
        if card < 0:
            break
        K.push(s, S.TRACK, card)
        last = s[S.TRACK] >= s[T.TRACK_LENGTH]
        if K.race(s, card) == MONSTER and lev:
            if B.leviathan(s, B.LV_MONSTER, seat, card) == 1:
                break
            continue
        if K.race(s, card) == MONSTER:
            if last:
                fight_monster(s, seat, True)
                break
            if B.choose_01(s, seat, P.D_FIGHT_MONSTER) == 1:
                fight_monster(s, seat, False)
                break
            s[S.THREAT] = min(s[S.THREAT] + 1, s[T.N_THREAT_SPACES] - 1)
            continue
        if offer_to_opponents(s, seat, card, purchases + 1) >= 0:
            purchases += 1
            continue
        if last:
            taken = take_from_track(s, seat)
            B.gain_pearls(s, seat, 1)
            break
        if B.choose_01(s, seat, P.D_TAKE_ALLY) == 1:
            taken = take_from_track(s, seat)
            break
    end_exploration(s, seat, taken)


@njit(cache=True)
def offer_to_opponents(s, seat, card, cost):
    for i in range(1, s[S.N_PLAYERS]):
        q = K.opponent(s, seat, i)
        bq = K.pbase(q)
        if s[bq + S.P_BOUGHT] == 1 or s[bq + S.P_PEARLS] < cost:
            continue
        if B.choose_01(s, q, P.D_BUY) == 1:
            s[bq + S.P_PEARLS] -= cost
            s[K.pbase(seat) + S.P_PEARLS] += cost
            s[bq + S.P_BOUGHT] = 1
            K.pop(s, S.TRACK)
            K.push(s, bq + S.P_HAND, card)
            return q
    return -1


@njit(cache=True)
def take_from_track(s, seat):
    card = K.pop(s, S.TRACK)
    K.push(s, K.pbase(seat) + S.P_HAND, card)
    return card


@njit_ints
def fight_monster(s, seat, bonus_pearl):
    space = s[S.THREAT]
    tamed = False
    for i in range(1, s[S.N_PLAYERS]):
        if K.has_power(s, K.opponent(s, seat, i), K.PW_TAMER):
            tamed = True
    if tamed and not K.protected(s, seat):
        space = max(0, space - 1)
    n_opts = s[T.THREAT_N_OPTIONS + space]
    n = 0
    for k in range(n_opts):
        monsters = s[T.THREAT_OPTIONS + (space * T.MAX_THREAT_OPTIONS + k) * 3 + 1]
        if monsters <= s[S.MONSTER_TOKENS]:
            s[W.OPT + n] = k
            n += 1
    if n == 0:
        for k in range(n_opts):
            s[W.OPT + k] = k
        n = n_opts
    s[S.PENDING_REWARD_SPACE] = space
    k = B.choose(s, seat, P.D_THREAT_REWARD, n)
    base = T.THREAT_OPTIONS + (space * T.MAX_THREAT_OPTIONS + k) * 3
    B.gain_pearls(s, seat, s[base])
    for _ in range(s[base + 1]):
        B.draw_monster_token(s, seat)
    B.gain_keys(s, seat, s[base + 2])
    if bonus_pearl:
        B.gain_pearls(s, seat, 1)
    s[S.THREAT] = 0


@njit(cache=True)
def end_exploration(s, seat, taken):
    races = 0
    for i in range(s[S.TRACK]):
        r = K.race(s, s[S.TRACK + 1 + i])
        if r != MONSTER:
            races |= 1 << r
    if races and K.has_power(s, seat, K.PW_SHIP_MASTER):
        B.gain_pearls(s, seat, K.popcount(races))
    for i in range(s[S.TRACK]):
        card = s[S.TRACK + 1 + i]
        r = K.race(s, card)
        if r == MONSTER:
            K.push(s, S.EXP_DISCARD, card)
        else:
            K.push(s, B.council_stack(r), card)
    K.clear(s, S.TRACK)


@njit(cache=True)
def request_support(s, seat):
    n_stacks = 2 if K.has_power(s, seat, K.PW_ALCHEMIST) else 1
    for _ in range(n_stacks):
        n = B.council_options(s)
        if n == 0:
            break
        B.take_council_stack(s, seat, B.choose(s, seat, P.D_COUNCIL_STACK, n))
