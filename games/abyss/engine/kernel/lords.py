"""The Lords' powers on the fast path: those applied once upon recruitment and the Commander's
lasting limit (the reference: `games.abyss.engine.rules.lords`)."""

from __future__ import annotations

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import base as B
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.kernel.locations import black_smokers, choose_drawn, place_location
from sim.core.jit import njit


@njit(cache=True)
def apply_recruit_power(s, seat, lord):
    """Powers with an arrow, applied on recruitment. Returns -1, or the Lord that the power brings
    in next as 2 * lord + (1 if the Court is refilled after it) (see `gain_lord`)."""
    power = K.lord_power(s, lord)
    targets = W.ROW3
    if power == K.PW_JAILER:
        for k in range(B.military_targets(s, seat, targets)):
            q = s[targets + k]
            if s[K.pbase(q) + S.P_HAND] > 0:
                B.choose_discard(s, q)
    elif power == K.PW_SEEKER:
        for k in range(B.military_targets(s, seat, targets)):
            B.pay_treasury(s, s[targets + k], 2)
    elif power == K.PW_ASSASSIN:
        for k in range(B.military_targets(s, seat, targets)):
            q = s[targets + k]
            off = K.pbase(q) + S.P_LORDS
            n = 0
            for i in range(s[off]):
                lord2 = s[off + 1 + i]
                if s[S.LORD_UNDER + lord2] == 0 and s[S.LORD_DISABLED + lord2] == 0:
                    s[W.OPT + n] = lord2
                    n += 1
            if n > 0:
                s[S.LORD_DISABLED + B.choose(s, seat, P.D_ASSASSIN_TARGET, n)] = 1
                K.refresh_all_powers(s)
    elif power == K.PW_COMMANDER:
        for k in range(B.military_targets(s, seat, targets)):
            discard_to_limit(s, s[targets + k], 6)
    elif power == K.PW_HUNTER:
        hunter(s, seat)
    elif power == K.PW_TRADER:
        B.gain_pearls(s, seat, 3)
    elif power == K.PW_PEDDLER:
        B.gain_pearls(s, seat, 2)
    elif power == K.PW_SHOPKEEPER:
        B.gain_pearls(s, seat, 1)
    elif power == K.PW_LANDLORD and s[T.LANDLORD_PEARL] == 1:
        B.gain_pearls(s, seat, 1)
    elif power == K.PW_INVOKER:
        s[S.EXTRA_TURN] = 1
    elif power == K.PW_APPRENTICE:
        n = B.council_options(s)
        if n > 0:
            B.take_council_stack(s, seat, B.choose(s, seat, P.D_COUNCIL_STACK, n))
    elif power == K.PW_ILLUSIONIST:
        illusionist(s, seat)
    elif power == K.PW_CORRUPTOR:
        return corruptor(s, seat)
    elif power == K.PW_TRAITOR:
        return traitor(s, seat, lord)
    elif power == K.PW_SCHEMER:
        return schemer(s, seat, lord)
    elif (power == K.PW_HERMIT or power == K.PW_SAGE or power == K.PW_ELDER) and s[
        T.AMBASSADOR_DRAW
    ] == 1:
        ambassador(s, seat, lord, 1 if power == K.PW_HERMIT else (2 if power == K.PW_SAGE else 3))
    elif s[S.LEVIATHAN] == 1:
        B.leviathan(s, B.LV_LORD_POWER, seat, power)
    return -1


@njit(cache=True)
def hunter(s, seat):
    """A random token of the chosen victim: its base Monster tokens, then its held Leviathan
    ones."""
    targets = W.ROW3
    n = 0
    for k in range(B.military_targets(s, seat, targets)):
        q = s[targets + k]
        if s[K.pbase(q) + S.P_TOKENS] + s[K.pbase(q) + S.P_HELD] > 0:
            s[W.OPT + n] = q
            n += 1
    if n == 0:
        return
    q = B.choose(s, seat, P.D_TARGET_OPPONENT, n)
    tokens, held = K.pbase(q) + S.P_TOKENS, K.pbase(q) + S.P_HELD
    k = B.draw(s, K.ST_HUNTER, s[tokens] + s[held])
    if k < s[tokens]:
        K.push(s, K.pbase(seat) + S.P_TOKENS, K.pop_at(s, tokens, k))
    else:
        B.leviathan(s, B.LV_HOLD_TOKEN, seat, K.pop_at(s, held, k - s[tokens]))


@njit(cache=True)
def discard_to_limit(s, seat, limit):
    while s[K.pbase(seat) + S.P_HAND] > limit:
        B.choose_discard(s, seat)


@njit(cache=True)
def enforce_commander(s, seat):
    if s[K.pbase(seat) + S.P_HAND] <= 6:
        return  # nothing to discard
    if K.protected(s, seat):
        return
    for i in range(1, s[S.N_PLAYERS]):
        if K.working(s, K.opponent(s, seat, i), K.C_COMMANDER) > 0:
            discard_to_limit(s, seat, 6)
            return


@njit(cache=True)
def illusionist(s, seat):
    locs = K.pbase(seat) + S.P_LOCATIONS
    if s[locs] == 0 or s[S.LOC_AVAILABLE] == 0:
        return
    s[W.OPT + 0] = P.DECLINE
    for i in range(s[locs]):
        s[W.OPT + 1 + i] = s[locs + 1 + i]
    give = B.choose(s, seat, P.D_ILLUSIONIST_GIVE, 1 + s[locs])
    if give == P.DECLINE:
        return
    take = B.choose(s, seat, P.D_ILLUSIONIST_TAKE, B.options_from_stack(s, S.LOC_AVAILABLE))
    K.remove(s, S.LOC_AVAILABLE, take)
    K.push(s, S.LOC_AVAILABLE, give)
    take = black_smokers(s, seat, take)
    s[locs + 1 + K.index_of(s, locs, give)] = take
    src = S.LOC_LORDS + give * S.LOC_LORDS_STRIDE
    dst = S.LOC_LORDS + take * S.LOC_LORDS_STRIDE
    for k in range(S.LOC_LORDS_STRIDE):
        s[dst + k] = s[src + k]
        s[src + k] = 0


@njit(cache=True)
def corruptor(s, seat):
    if s[K.pbase(seat) + S.P_PEARLS] < 5 or s[S.COURT] == 0:
        return -1
    s[W.OPT + 0] = P.DECLINE
    for i in range(s[S.COURT]):
        s[W.OPT + 1 + i] = s[S.COURT + 1 + i]
    lord = B.choose(s, seat, P.D_COURT_LORD, 1 + s[S.COURT])
    if lord == P.DECLINE:
        return -1
    B.pay_treasury(s, seat, 5)
    K.remove(s, S.COURT, lord)
    return 2 * lord + 1  # gain it, then refill the Court


@njit(cache=True)
def lord_to_replace(s, seat, exclude, replaceable):
    """Traitor, Schemer: OWN_LORD, DECLINE or another free Lord to replace when a replacement is
    at hand (`replaceable`); -2 when none is, or there is no other free Lord."""
    n = B.free_lords_options(s, seat, exclude) if replaceable else 0
    if n == 0:
        return -2
    for i in range(n, 0, -1):
        s[W.OPT + i] = s[W.OPT + i - 1]
    s[W.OPT + 0] = P.DECLINE
    return B.choose(s, seat, P.D_OWN_LORD, n + 1)


@njit(cache=True)
def traitor(s, seat, traitor_lord):
    old = lord_to_replace(s, seat, traitor_lord, s[S.COURT] > 0)
    if old < 0:  # nothing to replace it with, declined, or no other free Lord
        return -1
    new = B.choose(s, seat, P.D_COURT_LORD, B.options_from_stack(s, S.COURT))
    B.discard_lord(s, seat, old)
    K.remove(s, S.COURT, new)
    return 2 * new + 1  # gain it, then refill the Court


@njit(cache=True)
def schemer(s, seat, schemer_lord):
    old = lord_to_replace(s, seat, schemer_lord, s[S.LORD_DECK] > 0)
    if old < 0:  # nothing to replace it with, declined, or no other free Lord
        return -1
    B.discard_lord(s, seat, old)
    return 2 * K.pop(s, S.LORD_DECK)  # gain the top Lord of the deck


@njit(cache=True)
def ambassador(s, seat, lord, n):
    drawn = W.ROW1
    m = min(n, s[S.LOC_DECK])
    for i in range(m):
        s[drawn + i] = K.pop(s, S.LOC_DECK)
    if m == 0:
        return
    keep = choose_drawn(s, seat, m)
    s[W.ROW2 + 0] = lord
    place_location(s, seat, keep, 1)
