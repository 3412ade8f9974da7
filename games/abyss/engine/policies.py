"""Compiled policies: the one implementation of every built-in strategy, run by both engines.

A policy is `choose(s, seat, decision, n) -> option`: it reads the workspace `s`
(`games.abyss.engine.kernel.workspace`: the state, the card tables, the n legal options at
`s[OPT:]`, and
each
seat's strategy kind and int32 parameter vector) and returns one of the options. Probabilities are
parameters in thousandths. Randomness comes only from the game's POLICY stream, so a game stays a
pure function of its seed.

The fast path calls `choose` directly; the reference engine encodes its state and calls the same
compiled function (`games.abyss.strategies.baseline.CompiledPolicy`), so both engines play every
strategy identically by construction.
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine import state as S
from games.abyss.engine.cards.constants import Stream
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.policy_params import (  # noqa: F401  (the search's slots: the kernel reads P.*)
    G_BUY_MIN,
    G_COUNCIL_MIN,
    G_FIGHT_P,
    G_FIGHT_RISK,
    G_FIGHT_THREAT,
    G_FORBID_FIGHT,
    G_FORBID_LOCATION,
    G_FORBID_LORD,
    G_PEARL_SHORTFALL,
    G_TAKE_MIN,
    G_TAKE_SLOT,
    GREEDY,
    H_EXPLORE_RISK,
    H_GUILD,
    H_GUILD_BONUS,
    H_KEY_WEIGHT,
    H_LOCATION_MIN,
    H_PLOT_PEARLS,
    H_RECRUIT_MIN,
    HEURISTIC,
    L_WEIGHTS,
    LEARNED,
    LEARNED_SCALE,
    N_CATEGORIES,
    N_FEATURES,
    N_LEARNED,
    N_OFFER,
    N_SLOTS,
    N_STATE,
    ROLLOUT_KIND,
    ROLLOUT_PARAMS,
    S_CONFIDENCE,
    S_DETERMINIZATIONS,
    S_EXPLORATION,
    S_OPPONENTS,
    S_ROLLOUTS,
    SEARCH,
)
from games.abyss.engine.policy_params import (
    LEARNED_DECISIONS as LEARNED_CODES,
)
from sim.core.jit import njit, njit_ints
from sim.core.linear import scorer_for
from sim.core.rng import rand_below_in
from sim.core.workspace import best_or_draw

# decisions (games.abyss.engine.rules.base.Decision and
# games.abyss.engine.rules.leviathan.LevDecision) and options, as plain ints for numba: each tied to
# the rules' enum or constant by tests/abyss/test_policy_codes.py
D_PLOT, D_POWER, D_ACTION, D_BUY, D_TAKE_ALLY, D_FIGHT_MONSTER, D_THREAT_REWARD = range(7)
D_COUNCIL_STACK, D_RECRUIT_LORD, D_PAY_ALLY, D_AFFILIATE, D_KEY_SOURCE = 7, 8, 9, 10, 11
D_LOCATION_SOURCE, D_LOCATION_KEEP, D_DISCARD_ALLY, D_TARGET_OPPONENT = 12, 13, 14, 15
D_ASSASSIN_TARGET, D_OWN_LORD, D_COURT_LORD, D_COUNCIL_DISCARD = 16, 17, 18, 19
D_ILLUSIONIST_GIVE, D_ILLUSIONIST_TAKE, D_BLACK_SMOKERS = 20, 21, 22
D_POWER_BEFORE_PLOT, D_COURT_DISCARD = 23, 24
D_MONSTER_CHOICE, D_LEVIATHAN_TARGET, D_ATTACK_ALLY, D_ADD_PEARLS = 30, 31, 32, 33
D_ATTACK_AGAIN, D_TOKEN_DECK, D_REVEAL_TOKEN, D_MARTIAL_LAW = 34, 35, 36, 37
D_LOSE_LORD, D_BORDER_ZONE, D_USE_POWER, D_FIGHT_ANOTHER = 38, 39, 40, 41

A_EXPLORE, A_REQUEST_SUPPORT, A_RECRUIT = 0, 1, 2
M_CONTINUE, M_FIGHT, M_IGNORE = 0, 1, 2
DECLINE = -1  # also FINISH and KEY_TOKEN
LOCATION_DRAW = 1000
POLICY_STREAM = int(Stream.POLICY)
ADD_PEARLS = 1


@njit(cache=True)
def choose(s, seat, decision, n):
    """The option the strategy of `seat` picks among the n options at s[OPT:]."""
    kind = s[W.POLICY_KIND + seat]
    if kind == GREEDY:
        return greedy(s, seat, decision, restricted(s, seat, decision, n))
    if kind == HEURISTIC:
        return heuristic(s, seat, decision, restricted(s, seat, decision, n))
    if kind == LEARNED:
        return learned(s, seat, decision, restricted(s, seat, decision, n))
    return s[W.OPT + rand_below_in(s, W.RNG_KEYS, W.RNG_COUNTERS, np.int64(POLICY_STREAM), n)]


# The reference engine's call for a seat of each kind (`strategies.compiled`, `ENTRIES`): that
# kind's policy alone, as `choose` plays it, so that a first decision compiles only the policies
# the line-up plays (a cold `simulate` of greedy and random compiled every one: issue 54).
@njit(cache=True)
def choose_greedy(s, seat, decision, n):
    return greedy(s, seat, decision, restricted(s, seat, decision, n))


@njit(cache=True)
def choose_heuristic(s, seat, decision, n):
    return heuristic(s, seat, decision, restricted(s, seat, decision, n))


@njit(cache=True)
def choose_learned(s, seat, decision, n):
    return learned(s, seat, decision, restricted(s, seat, decision, n))


# ------------------------------------------------------------------ restricted play
#: `forbid_lord` of a probing seat (`probe`): it forbids nothing, and records at each of its
#: decisions which single forbid would have changed the options (`reports.restrict`: a
#: restricted game whose seat no forbid changed is the unrestricted one, and is not played)
PROBE = -2
#: what a forbid does to a decision's options (`cut`): nothing, remove one option, or keep only
#: the first (DECLINE)
KEEP, REMOVE, FIRST = 0, 1, 2


@njit(cache=True)
def restricted(s, seat, decision, n):
    """Restricted play (Jaffe & Popovic 2012; `abyss-mc restrict`): the options at s[OPT:]
    without those by which the seat gains its forbidden Lord or Location, or fights Leviathans
    (`cut` says which); returns their number. A probing seat (`PROBE`) keeps them all."""
    lord, location = param(s, seat, G_FORBID_LORD), param(s, seat, G_FORBID_LOCATION)
    no_fight = param(s, seat, G_FORBID_FIGHT)
    if lord < 0 and location < 0 and no_fight == 0:
        if lord == PROBE:
            probe(s, seat, decision, n)
        return n
    what, option = cut(s, seat, decision, n, lord, location, no_fight)
    if what == REMOVE:
        return without(s, n, option)
    return 1 if what == FIRST else n


@njit(cache=True)
def cut(s, seat, decision, n, lord, location, no_fight):
    """What forbidding `lord`, `location` (-1: none) and Leviathan fights (`no_fight` 1) does to
    the n options at s[OPT:]: (KEEP, 0), (REMOVE, the option `without` removes) or (FIRST, 0):
    the first option (DECLINE) alone. The one statement of the rules, for `restricted` and
    `probe`. Every route to a card (docs/restricted-play.md):
    - a Lord: recruited (recruiting is dropped from the actions when it is the only affordable
      Lord), taken from the Court by the Corruptor or the Traitor (whose replacement is declined
      when it is the only Lord in the Court); the Schemer's top of the deck is not seen;
    - a Location: face up, kept among those drawn (Ambassadors too), taken by the Illusionist
      (declined when it is the only one available), swapped for Black Smokers (which is swapped
      away when it is the forbidden one).
    When every option gains the card (a single one: the rules force it), nothing changes."""
    if no_fight != 0:  # never fight a Leviathan: past a Monster, nor again, nor by a power
        if decision == D_MONSTER_CHOICE:
            return REMOVE, M_FIGHT
        if decision == D_ATTACK_AGAIN or decision == D_USE_POWER or decision == D_FIGHT_ANOTHER:
            return REMOVE, 1
    if lord >= 0:
        if decision == D_ACTION:
            k = K.affordable_lords(s, seat, W.POLICY_ROW)
            if k == 1 and s[W.POLICY_ROW] == lord:
                return REMOVE, A_RECRUIT
        if decision == D_RECRUIT_LORD or decision == D_COURT_LORD:
            return REMOVE, lord  # recruited, or taken by the Corruptor or Traitor
        if decision == D_OWN_LORD and traitor_must_take(s, seat, lord):
            return FIRST, 0  # DECLINE: replacing would take it
    if location >= 0:
        if decision == D_LOCATION_SOURCE or decision == D_LOCATION_KEEP:
            return REMOVE, location
        if decision == D_ILLUSIONIST_TAKE or decision == D_BLACK_SMOKERS:
            return REMOVE, location  # (Black Smokers itself is the option to keep it)
        if decision == D_ILLUSIONIST_GIVE and s[S.LOC_AVAILABLE] == 1:
            if s[S.LOC_AVAILABLE + 1] == location:
                return FIRST, 0  # DECLINE: the exchange could only take it
    return KEEP, 0


@njit(cache=True, inline="always")
def changes(s, n, what, option):
    """Whether `cut`'s (what, option) changes the n options: exactly when `restricted`'s
    `without` removes one (there are two or more, and it is among them) or FIRST drops some."""
    if what == REMOVE:
        return n >= 2 and has(s, n, option)
    return what == FIRST and n > 1


@njit(cache=True)
def probe(s, seat, decision, n):
    """Mark in W.PROBE_MARKS each single forbid (each Lord, each Location, no fights) whose
    `cut` would change this decision's options: the restricted seat then sees other options
    here, and its game may differ; where no forbid marks, its game is this one."""
    for lord in range(s[T.N_LORDS]):
        what, option = cut(s, seat, decision, n, lord, -1, 0)
        if changes(s, n, what, option):
            s[W.PROBE_MARKS + lord] = 1
    for location in range(s[T.N_LOCATIONS]):
        what, option = cut(s, seat, decision, n, -1, location, 0)
        if changes(s, n, what, option):
            s[W.PROBE_MARKS + S.MAX_LORDS + location] = 1
    what, option = cut(s, seat, decision, n, -1, -1, 1)
    if changes(s, n, what, option):
        s[W.PROBE_MARKS + S.MAX_LORDS + S.MAX_LOCATIONS] = 1


@njit(cache=True)
def traitor_must_take(s, seat, lord):
    """At OWN_LORD: the Lord whose power asks is the Traitor (the Lord just gained, the last of
    the seat's; the Schemer's replacement comes unseen from the deck) and `lord` is the only
    Lord in the Court, so replacing would gain it."""
    lords = K.pbase(seat) + S.P_LORDS
    power = K.lord_power(s, s[lords + s[lords]])
    return power == K.PW_TRAITOR and s[S.COURT] == 1 and s[S.COURT + 1] == lord


@njit(cache=True)
def without(s, n, option):
    """Remove `option` from the n options at s[OPT:] (keeping their order) unless it is the only
    one; returns the new number."""
    if n < 2:
        return n
    m = 0
    for i in range(n):
        o = s[W.OPT + i]
        if o != option:
            s[W.OPT + m] = o
            m += 1
    return m


@njit(cache=True, inline="always")
def param(s, seat, k):
    """Parameter k of the strategy of `seat`."""
    return s[W.POLICY_PARAMS + seat * W.N_PARAMS + k]


@njit(cache=True, inline="always")
def has(s, n, option):
    for i in range(n):
        if s[W.OPT + i] == option:
            return True
    return False


@njit(cache=True, inline="always")
def last_track_card(s):
    return s[S.TRACK + s[S.TRACK]]


@njit(cache=True, inline="always")
def council_size(s, r):
    return s[S.COUNCIL + r * S.COUNCIL_STRIDE]


# ---------------------------------------------------------------------------- greedy
@njit(cache=True)
def argmax(s, seat, decision, n):
    best, best_key = s[W.OPT], greedy_key(s, seat, decision, s[W.OPT])
    for i in range(1, n):
        k = greedy_key(s, seat, decision, s[W.OPT + i])
        if k > best_key:
            best, best_key = s[W.OPT + i], k
    return best


@njit(cache=True)
def greedy(s, seat, decision, n):
    """Recruit whenever possible, buy and take strong Allies, fight for good rewards.

    Leviathan: fight (or attack again) when the best eligible Ally removes a Life Point with at
    least probability `fight_p`; take IP-bearing Monster tokens; lose the least.
    """
    b = K.pbase(seat)
    if decision == D_ACTION:
        if has(s, n, A_RECRUIT):
            return A_RECRUIT
        biggest = 0
        for r in range(5):
            biggest = max(biggest, council_size(s, r))
        if has(s, n, A_REQUEST_SUPPORT) and biggest >= param(s, seat, G_COUNCIL_MIN):
            return A_REQUEST_SUPPORT
        return A_EXPLORE if has(s, n, A_EXPLORE) else s[W.OPT]
    if decision == D_BUY:
        return 1 if K.value(s, last_track_card(s)) >= param(s, seat, G_BUY_MIN) else 0
    if decision == D_TAKE_ALLY:
        good = K.value(s, last_track_card(s)) >= param(s, seat, G_TAKE_MIN)
        return 1 if good or s[S.TRACK] >= param(s, seat, G_TAKE_SLOT) else 0
    if decision == D_FIGHT_MONSTER:
        return 1 if s[S.THREAT] >= param(s, seat, G_FIGHT_THREAT) else 0
    if decision == D_PAY_ALLY:
        return pay(s, seat, n)
    if decision == D_KEY_SOURCE and has(s, n, DECLINE):
        return DECLINE  # a Key token first
    if decision == D_LOCATION_SOURCE:
        return location_source(s, seat, n, np.int64(8))
    if decision == D_POWER or decision == D_POWER_BEFORE_PLOT:
        big_hand = s[b + S.P_HAND] >= 8
        use = has(s, n, K.PW_SLAVER) and (big_hand or slaver_recruits(s, seat, 0))
        return K.PW_SLAVER if use else 0  # never the Oracle or the Opportunist
    if decision >= D_MONSTER_CHOICE:
        return greedy_leviathan(s, seat, decision, n)
    if decision == D_PLOT or decision == D_OWN_LORD or decision == D_ILLUSIONIST_GIVE:
        return DECLINE if has(s, n, DECLINE) else s[W.OPT]
    return argmax(s, seat, decision, n)


@njit(cache=True)
def pay(s, seat, n):
    """Cover the races with the strongest Allies; let Pearls pay a small rest."""
    used_value = 0
    for i in range(s[S.PENDING_USED]):
        used_value += K.value(s, s[S.PENDING_USED + 1 + i])
    n_allies = 0
    best, best_value = -1, -1
    for i in range(n):
        o = s[W.OPT + i]
        if o != DECLINE:
            n_allies += 1
            if K.value(s, o) > best_value:
                best, best_value = o, K.value(s, o)
    if has(s, n, DECLINE):
        if n_allies == 0 or s[S.PENDING_COST] - used_value <= param(s, seat, G_PEARL_SHORTFALL):
            return DECLINE
    return best


@njit(cache=True)
def location_source(s, seat, n, worth):
    """The best face-up Location if it is worth `worth` IP or more (or nothing can be drawn);
    else draw as many as allowed."""
    for i in range(n):
        if s[W.OPT + i] < LOCATION_DRAW:
            s[W.POLICY_ROW + i] = K.location_formula(s, seat, s[W.OPT + i])
    return best_or_draw(s, W.OPT, n, W.POLICY_ROW, LOCATION_DRAW, worth)


# --------------------------------------------------------------------------- Leviathan
@njit_ints
def ally_chance(s, seat, zone, ally):
    """36 x P(attacking the Leviathan in `zone` with `ally` removes a Life Point)."""
    effect = s[T.ALLY_EFFECT + ally]
    pearls = s[K.pbase(seat) + S.P_PEARLS] if effect == ADD_PEARLS else 0
    lev, life = s[S.BORDER + zone], s[S.LIFE + zone]
    return K.damage_chance_36(s, lev, life, K.value(s, ally), effect, pearls)


@njit_ints
def zone_chance(s, seat, zone):
    """36 x the best chance of damage against the Leviathan in `zone` (0: no eligible Ally)."""
    lev = s[S.BORDER + zone]
    if lev < 0:
        return 0
    best = 0
    off = K.pbase(seat) + S.P_HAND
    metamorph = K.working(s, seat, K.C_METAMORPH) > 0
    seen = 0  # (value, effect) pairs already weighed: their chance is the same
    for i in range(s[off]):
        a = s[off + 1 + i]
        if K.attacks(s, a, lev, metamorph):
            bit = 1 << (K.value(s, a) * 3 + s[T.ALLY_EFFECT + a])
            if not seen & bit:
                seen |= bit
                best = max(best, ally_chance(s, seat, zone, a))
    return best


@njit_ints
def best_chance(s, seat):
    """36 x the best chance of damage against any Leviathan the player may attack now."""
    fz = s[S.FIGHT_ZONE]
    if fz >= 0 and s[S.BORDER + fz] >= 0:
        return zone_chance(s, seat, fz)  # attacking again: the same Leviathan
    best = 0
    for z in range(s[T.N_ZONES]):
        best = max(best, zone_chance(s, seat, z))
    return best


@njit(cache=True)
def zone_weight(s, zone):
    """How many of the 36 2d6 outcomes select `zone`."""
    w = 0
    for total in range(2, 13):
        if s[T.ZONE_OF_SUM + total] == zone:
            w += 6 - abs(total - 7)
    return w


# greedy's scores weigh the Leviathan chances above (compiled when the module is imported,
# `greedy_key` follows what it calls)
@njit_ints
def greedy_key(s, seat, decision, o):
    """The score greedy maximises for option `o` of `decision` (first best option wins)."""
    if decision == D_THREAT_REWARD:
        base = T.THREAT_OPTIONS + (s[S.PENDING_REWARD_SPACE] * T.MAX_THREAT_OPTIONS + o) * 3
        return 2.0 * s[base] + 5.0 * s[base + 1] + 6.0 * s[base + 2]
    if decision == D_COUNCIL_STACK or decision == D_COUNCIL_DISCARD:
        return float(council_size(s, o))
    if decision == D_RECRUIT_LORD or decision == D_COURT_LORD:
        return -1.0 if o == DECLINE else float(s[T.LORD_IP + o])
    if decision == D_AFFILIATE or decision == D_PAY_ALLY:
        return float(s[T.ALLY_VALUE + o])
    if decision == D_DISCARD_ALLY:
        return -float(s[T.ALLY_VALUE + o])
    if decision == D_KEY_SOURCE or decision == D_LOSE_LORD:
        return -float(s[T.LORD_IP + o])
    if decision == D_LOCATION_KEEP or decision == D_ILLUSIONIST_TAKE or decision == D_BLACK_SMOKERS:
        return float(K.location_formula(s, seat, o))  # (Black Smokers itself: 0)
    if decision == D_TARGET_OPPONENT:
        return float(s[K.pbase(o) + S.P_TOKENS])
    if decision == D_ASSASSIN_TARGET:
        return float(s[T.LORD_KEYS + o])
    if decision == D_LEVIATHAN_TARGET:
        lev, life = s[S.BORDER + o], s[S.LIFE + o]
        reward = s[T.LEV_REWARD + lev * T.MAX_SPACES + life]
        return float(zone_chance(s, seat, o) * (1 + reward))
    if decision == D_BORDER_ZONE:
        return -float(zone_weight(s, o))
    return 0.0


@njit(cache=True)
def greedy_leviathan(s, seat, decision, n):
    threshold = param(s, seat, G_FIGHT_P) * 36  # fight_p in thousandths, chances in 36ths
    if decision == D_MONSTER_CHOICE:
        if has(s, n, M_IGNORE):
            return M_IGNORE
        if not has(s, n, M_FIGHT):
            return M_CONTINUE
        risk_min = param(s, seat, G_FIGHT_RISK)
        if risk_min > 0:  # the rule learnt from rollouts (docs/fight-or-explore.md)
            risky = arrival_risk(s) >= risk_min
            return M_FIGHT if risky and best_chance(s, seat) > 0 else M_CONTINUE
        return M_FIGHT if best_chance(s, seat) * 1000 >= threshold else M_CONTINUE
    if decision == D_ATTACK_ALLY:
        # The weakest Ally that reaches the threshold, else the most likely to hit.
        zone = s[S.FIGHT_ZONE]
        pick, pick_value = -1, 1 << 30
        best, best_chance_ = s[W.OPT], -1
        for i in range(n):
            a = s[W.OPT + i]
            c = ally_chance(s, seat, zone, a)
            if c * 1000 >= threshold and K.value(s, a) < pick_value:
                pick, pick_value = a, K.value(s, a)
            if c > best_chance_:
                best, best_chance_ = a, c
        return pick if pick >= 0 else best
    if decision == D_ADD_PEARLS:
        zone = s[S.PENDING_ZONE]
        lev, life = s[S.BORDER + zone], s[S.LIFE + zone]
        return K.pearls_to_spend(s, lev, life, s[S.PENDING_POWER], s[W.OPT + n - 1])
    if decision == D_ATTACK_AGAIN or decision == D_USE_POWER or decision == D_FIGHT_ANOTHER:
        return 1 if has(s, n, 1) and best_chance(s, seat) * 1000 >= threshold else 0
    if decision == D_TOKEN_DECK:
        return 0 if has(s, n, 0) else s[W.OPT]  # base tokens are worth IP
    if decision == D_REVEAL_TOKEN:
        return s[W.OPT + n - 1]  # reveal at once
    if decision == D_MARTIAL_LAW:
        return 0  # discard the weakest extra Ally rather than pay
    return argmax(s, seat, decision, n)


# ------------------------------------------------------------------------- heuristic
# The parametrised heuristic behind the named presets (`policy_params`: H_*).


@njit_ints
def lord_score(s, seat, lord):
    """What a Lord is worth to this heuristic, in IP: its IP, its Keys at `key_weight` IP each,
    and `guild_bonus` if it belongs to the favoured guild."""
    score = s[T.LORD_IP + lord] + param(s, seat, H_KEY_WEIGHT) * s[T.LORD_KEYS + lord]
    if s[T.LORD_GUILD + lord] == param(s, seat, H_GUILD):
        score += param(s, seat, H_GUILD_BONUS)
    return score


@njit(cache=True)
def best_affordable_score(s, seat, without, more_pearls):
    """The best `lord_score` among the Court's Lords the seat can pay for (-1: none), if its
    hand lacked the Ally `without` (-1: none) and it had `more_pearls` Pearls more."""
    best = -1
    for i in range(K.affordable_lords_if(s, seat, W.POLICY_ROW, without, more_pearls)):
        best = max(best, lord_score(s, seat, s[W.POLICY_ROW + i]))
    return best


@njit(cache=True)
def weakest_ally(s, seat):
    """The Ally greedy and the heuristic discard: the lowest value, then the lowest id (-1: an
    empty hand)."""
    hand = K.pbase(seat) + S.P_HAND
    best, best_value = -1, 1 << 30
    for i in range(s[hand]):
        a = s[hand + 1 + i]
        if K.value(s, a) < best_value or (K.value(s, a) == best_value and a < best):
            best, best_value = a, K.value(s, a)
    return best


@njit(cache=True)
def slaver_recruits(s, seat, worth):
    """The Slaver's trade ("discard 1 Ally from your hand to gain 2 Pearls"), its weakest Ally
    for 2 Pearls, pays for a Lord worth `worth` (`lord_score`) that the seat cannot pay for
    now."""
    if best_affordable_score(s, seat, -1, 0) >= worth:
        return False
    return best_affordable_score(s, seat, weakest_ally(s, seat), 2) >= worth


@njit(cache=True)
def arrival_risk(s):
    """Thousandths of P(a new Leviathan lands on an occupied Border zone): the chance that
    continuing an Exploration past a Monster brings an attack (0 without the expansion)."""
    if s[S.LEVIATHAN] == 0:
        return 0
    w = 0
    for z in range(s[T.N_ZONES]):
        if s[S.BORDER + z] >= 0:
            w += zone_weight(s, z)
    return w * 1000 // 36


@njit(cache=True)
def heuristic(s, seat, decision, n):
    """The parametrised heuristic; decisions it has no opinion on are greedy's."""
    if decision == D_ACTION:
        return heuristic_action(s, seat, n)
    if decision == D_RECRUIT_LORD or decision == D_COURT_LORD:
        best, best_score = s[W.OPT], -(1 << 30)
        for i in range(n):
            o = s[W.OPT + i]
            score = -(1 << 29) if o == DECLINE else lord_score(s, seat, o)
            if score > best_score:
                best, best_score = o, score
        return best
    if decision == D_PLOT:
        return 1 if s[K.pbase(seat) + S.P_PEARLS] >= param(s, seat, H_PLOT_PEARLS) else 0
    if decision == D_POWER or decision == D_POWER_BEFORE_PLOT:
        return heuristic_power(s, seat, decision, n)
    if decision == D_LOCATION_SOURCE:
        return location_source(s, seat, n, np.int64(param(s, seat, H_LOCATION_MIN)))
    if decision == D_MONSTER_CHOICE and has(s, n, M_FIGHT) and not has(s, n, M_IGNORE):
        risky = arrival_risk(s) > param(s, seat, H_EXPLORE_RISK)
        if risky and best_chance(s, seat) > 0:
            return M_FIGHT  # any chance beats suffering an arrival's attack
    return greedy(s, seat, decision, n)


@njit(cache=True)
def heuristic_power(s, seat, decision, n):
    """The Slaver (never the Oracle or the Opportunist): with 8 Allies or more in hand; when its
    2 Pearls pay for a Lord worth `recruit_min` it cannot pay for now; before plotting, when
    they bring its Pearls up to `plot_pearls`, so that it plots."""
    if not has(s, n, K.PW_SLAVER):
        return 0
    b = K.pbase(seat)
    pearls, plot = s[b + S.P_PEARLS], param(s, seat, H_PLOT_PEARLS)
    use = s[b + S.P_HAND] >= 8 or slaver_recruits(s, seat, param(s, seat, H_RECRUIT_MIN))
    if decision == D_POWER_BEFORE_PLOT and pearls < plot <= pearls + 2:
        use = True
    return K.PW_SLAVER if use else 0


@njit(cache=True)
def heuristic_action(s, seat, n):
    """Recruit a Lord worth `recruit_min`; else request support from a Council stack of
    `council_min` cards, or when exploring is too risky; else explore."""
    if has(s, n, A_RECRUIT):
        if best_affordable_score(s, seat, -1, 0) >= param(s, seat, H_RECRUIT_MIN):
            return A_RECRUIT
    if has(s, n, A_REQUEST_SUPPORT):
        biggest = 0
        for r in range(5):
            biggest = max(biggest, council_size(s, r))
        if biggest >= param(s, seat, G_COUNCIL_MIN):
            return A_REQUEST_SUPPORT
        if arrival_risk(s) > param(s, seat, H_EXPLORE_RISK):
            return A_REQUEST_SUPPORT
    if has(s, n, A_EXPLORE):
        return A_EXPLORE
    return s[W.OPT]


# ------------------------------------------------------------------ the learned player
#: the decisions the learned player scores, in the order of its weight rows (policy_params); at
#: any other it plays its base heuristic (the vector's slots below L_WEIGHTS, restricted play
#: included)
LEARNED_DECISIONS = (
    D_ACTION, D_PLOT, D_POWER, D_BUY, D_TAKE_ALLY, D_FIGHT_MONSTER, D_THREAT_REWARD,
    D_COUNCIL_STACK, D_RECRUIT_LORD, D_COURT_LORD, D_PAY_ALLY, D_LOCATION_SOURCE,
    D_LOCATION_KEEP, D_MONSTER_CHOICE, D_LEVIATHAN_TARGET, D_ATTACK_AGAIN,
)  # fmt: skip
assert LEARNED_DECISIONS == LEARNED_CODES
#: decisions whose options are kinds of play (an action, yes or no, fight or continue): an
#: option's category is its value; at the others the options are cards, and only declining (or
#: drawing) is a category of its own
CATEGORICAL = (D_ACTION, D_PLOT, D_POWER, D_BUY, D_TAKE_ALLY, D_FIGHT_MONSTER, D_MONSTER_CHOICE,
               D_ATTACK_AGAIN)  # fmt: skip
#: options scored at most (a longer list, e.g. Pearls added to an attack: the base heuristic)
MAX_LEARNED_OPTIONS = W.MAX_REC_OPTIONS
_ROW = np.full(64, -1, dtype=np.int64)
for _i, _d in enumerate(LEARNED_DECISIONS):
    _ROW[_d] = _i
_CATEGORICAL = np.zeros(64, dtype=np.int64)
for _d in CATEGORICAL:
    _CATEGORICAL[_d] = 1


@njit(cache=True)
def learned_row(decision, n):
    """The weight row of `decision` (-1: the base heuristic decides)."""
    return _ROW[decision] if n <= MAX_LEARNED_OPTIONS else -1


@njit(cache=True)
def state_features(s, seat, g):
    """What the seat sees of its position and the race, into g[N_STATE] (`STATE_NAMES`):
    nothing hidden (no card face down, no opponent's tokens). The opponents' most Lords says
    how near the end is (a seventh Lord ends the game), their most Pearls who can outbid."""
    b = K.pbase(seat)
    g[0] = 1
    g[1] = (s[S.TURN] - 1) // s[S.N_PLAYERS] + 1
    g[2] = s[b + S.P_PEARLS]
    g[3] = s[b + S.P_HAND]
    g[4] = s[b + S.P_LORDS]
    g[5] = s[S.THREAT]
    g[6] = arrival_risk(s) // 10
    g[7] = 0
    g[8] = 0
    for q in range(s[S.N_PLAYERS]):
        if q != seat:
            g[7] = max(g[7], s[K.pbase(q) + S.P_LORDS])
            g[8] = max(g[8], s[K.pbase(q) + S.P_PEARLS])


@njit(cache=True)
def category(decision, o):
    """The option's kind (0 to N_CATEGORIES - 1; -1: none): its value at a categorical
    decision, else 0 for declining or drawing."""
    if _CATEGORICAL[decision] == 1:
        return o if 0 <= o < N_CATEGORIES else -1
    return 0 if o == DECLINE or o >= LOCATION_DRAW else -1


@njit(cache=True)
def option_features(s, seat, decision, o, pick, g, f):
    """The features of option o (`FEATURE_NAMES`) into f[N_FEATURES]: whether the base heuristic
    picks it (`pick`), greedy's key of it (rounded), the state features g in its category's
    blocks, and for buying or taking the Ally on the track: its value, its price and the cards
    on the track."""
    f[:] = 0
    f[0] = 1 if o == pick else 0
    if 0 <= o < LOCATION_DRAW:  # (declining, finishing and drawing have no key)
        f[1] = round(greedy_key(s, seat, decision, o))
    c = category(decision, o)
    if c >= 0:
        for k in range(N_STATE):
            f[2 + c * N_STATE + k] = g[k]
    if (decision == D_BUY or decision == D_TAKE_ALLY) and o == 1:
        at = N_FEATURES - N_OFFER
        f[at] = K.value(s, last_track_card(s))
        if decision == D_BUY:  # "the first Ally costs 1 Pearl, the second 2 Pearls" and "each
            f[at + 1] = 1  # opponent can only purchase one Ally during your turn"
            for q in range(s[S.N_PLAYERS]):
                f[at + 1] += s[K.pbase(q) + S.P_BOUGHT]
        f[at + 2] = s[S.TRACK]


best_scored, write_features = scorer_for(state_features, option_features, N_STATE, N_FEATURES,
                                         W.SCORE_SCRATCH)  # fmt: skip


@njit(cache=True)
def learned(s, seat, decision, n):
    """The learned player: the option whose features score highest under the seat's weights for
    this decision (the first among equals); its base heuristic where it has no weights."""
    row = learned_row(decision, n)
    pick = heuristic(s, seat, decision, n)
    if row < 0:
        return pick
    at = W.POLICY_PARAMS + seat * W.N_PARAMS + L_WEIGHTS + row * N_FEATURES
    return best_scored(s, seat, decision, W.OPT, n, pick, at)


@njit(cache=True)
def record_features(s, seat, decision, n):
    """At the search's probe: the features of each of the decision's options (W.SEARCH_OPTS, in
    that order) into W.REC_FEATURES, its weight row into W.REC_ROW (-1: none, nothing written),
    the base heuristic being the seat's policy now (the search's rollout policy)."""
    n_options = s[W.SEARCH_N]
    row = learned_row(decision, n_options)
    s[W.REC_ROW] = row
    if row < 0:
        return
    pick = heuristic(s, seat, decision, n)
    write_features(s, seat, decision, W.SEARCH_OPTS, n_options, pick, W.REC_FEATURES)


#: the reference engine's entry by policy kind (`choose_greedy` ...); `choose` for any other
ENTRIES = {GREEDY: choose_greedy, HEURISTIC: choose_heuristic, LEARNED: choose_learned}
