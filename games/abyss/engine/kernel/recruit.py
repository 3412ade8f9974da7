"""Rulebook, Recruit a Lord, on the fast path: the payment, the affiliation, the Lord gained and
the Court refilled (the reference: `games.abyss.engine.rules.recruit`)."""

from __future__ import annotations

import numpy as np

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import base as B
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.kernel.lords import apply_recruit_power
from sim.core.jit import njit

OP_GAIN, OP_REFILL, OP_CHECK_SEVENTH = 0, 1, 2  # steps of gain_lord's explicit stack


@njit(cache=True)
def recruit(s, seat, n_affordable):
    """Recruit one of the n_affordable Lords listed in W.ROW1 by `take_action`."""
    b = K.pbase(seat)
    for i in range(n_affordable):
        s[W.OPT + i] = s[W.ROW1 + i]
    lord = B.choose(s, seat, P.D_RECRUIT_LORD, n_affordable)
    extra, diplomat = K.cost_terms(s, seat)
    cost = K.lord_cost(s, lord, extra)
    n_races = s[T.LORD_RACES + lord]
    required = K.required_race(s, lord, diplomat)
    K.clear(s, S.PENDING_USED)
    s[S.PENDING_COST] = cost
    hand = b + S.P_HAND
    pearls = s[b + S.P_PEARLS]
    # payment_feasible(hand, used + [a]) for each candidate a, from the hand's values per race,
    # kept up to date as Allies move from the hand to the payment.
    chosen, paid = 0, pearls
    r0, r1, r2, r3, r4, held = K.hand_values(s, hand, -1)
    while True:
        n = 0
        if K.payment_done(chosen, paid, cost, n_races, required):
            s[W.OPT + 0] = P.DECLINE  # FINISH
            n = 1
        m = K.distinct_allies(s, hand, W.ROW1, 0)
        # Moving an Ally from the hand to the payment keeps the total, so whether it keeps the
        # payment feasible depends only on its race: one `payment_reaches` per race.
        asked = reaches = 0
        for i in range(m):
            a = s[W.ROW1 + i]
            ra, va = K.race(s, a), K.value(s, a)
            if not (asked >> ra) & 1:
                asked |= 1 << ra
                if K.payment_reaches(
                    chosen | (1 << ra),
                    paid + va,
                    r0 - va if ra == 0 else r0,
                    r1 - va if ra == 1 else r1,
                    r2 - va if ra == 2 else r2,
                    r3 - va if ra == 3 else r3,
                    r4 - va if ra == 4 else r4,
                    held | chosen,
                    cost,
                    n_races,
                    required,
                ):
                    reaches |= 1 << ra
            if (reaches >> ra) & 1:
                s[W.OPT + n] = a
                n += 1
        ally = B.choose(s, seat, P.D_PAY_ALLY, n)
        if ally == P.DECLINE:
            break
        K.push(s, S.PENDING_USED, ally)
        K.remove(s, hand, ally)
        ra, va = K.race(s, ally), K.value(s, ally)
        chosen |= 1 << ra
        paid += va
        # The race's bit in `held` may go stale: payment_reaches only reads it with `chosen`'s.
        if ra == 0:
            r0 -= va
        elif ra == 1:
            r1 -= va
        elif ra == 2:
            r2 -= va
        elif ra == 3:
            r3 -= va
        else:
            r4 -= va
    paid = 0
    for i in range(s[S.PENDING_USED]):
        paid += K.value(s, s[S.PENDING_USED + 1 + i])
    B.pay_treasury(s, seat, max(0, cost - paid))
    affiliate(s, seat)
    K.remove(s, S.COURT, lord)
    gain_lord(s, seat, lord)
    refill_court(s, seat)


@njit(cache=True)
def affiliate(s, seat):
    used = S.PENDING_USED
    if s[used] == 0:
        return
    if K.has_power(s, seat, K.PW_MASTER_OF_MAGIC):
        n = K.distinct_allies(s, used, W.OPT, 0)
    else:
        low = 1 << 20
        for i in range(s[used]):
            low = min(low, K.value(s, s[used + 1 + i]))
        lo = hi = np.uint64(0)
        for i in range(s[used]):
            a = s[used + 1 + i]
            if K.value(s, a) == low:
                lo, hi = K.with_id(lo, hi, a)
        n = K.distinct_in_order(s, lo, hi, W.OPT, 0)
    keep = B.choose(s, seat, P.D_AFFILIATE, n)
    K.push(s, K.pbase(seat) + S.P_AFFILIATED, keep)
    for i in range(s[used]):
        a = s[used + 1 + i]
        if a != keep:
            K.push(s, S.EXP_DISCARD, a)


@njit(cache=True)
def gain_lord(s, seat, lord):
    """Take a Lord: its arrow power applies now; a 7th Lord triggers the end.

    The Corruptor, Traitor and Schemer bring in a second Lord whose power applies at once, so in
    the reference engine `gain_lord` recurses. numba cannot cache recursive functions (numba issue
    #6061: a segfault on the second run), so the recursion runs here on an explicit stack of
    steps in W.ROW4, popped in the order the recursive calls would run them.
    """
    work = W.ROW4
    s[work + 0], s[work + 1], s[work + 2] = OP_GAIN, seat, lord
    top = 3
    while top > 0:
        top -= 3
        op, who, what = s[work + top], s[work + top + 1], s[work + top + 2]
        if op == OP_REFILL:
            refill_court(s, who)
        elif op == OP_CHECK_SEVENTH:
            if s[K.pbase(who) + S.P_LORDS] >= 7:
                B.trigger_end(s, S.END_SEVENTH_LORD)
        else:
            K.push(s, K.pbase(who) + S.P_LORDS, what)
            if not K.contains(s, K.pbase(who) + S.P_RECRUITED, what):
                K.push(s, K.pbase(who) + S.P_RECRUITED, what)
            K.refresh_powers(s, who)
            follow = apply_recruit_power(s, who, what)
            s[work + top], s[work + top + 1], s[work + top + 2] = OP_CHECK_SEVENTH, who, 0
            top += 3
            if follow >= 0:
                if follow & 1:
                    s[work + top], s[work + top + 1], s[work + top + 2] = OP_REFILL, who, 0
                    top += 3
                s[work + top], s[work + top + 1], s[work + top + 2] = OP_GAIN, who, follow >> 1
                top += 3


@njit(cache=True)
def refill_court(s, seat):
    if s[S.COURT] > 2:
        return
    B.gain_pearls(s, seat, 2)
    while s[S.COURT] < s[T.COURT_SIZE] and s[S.LORD_DECK] > 0:
        K.push(s, S.COURT, K.pop(s, S.LORD_DECK))
    if s[S.COURT] < s[T.COURT_SIZE] and s[T.COURT_END_BGA] == 0:
        B.trigger_end(s, S.END_COURT)
