"""Kernel primitives: stack segments of the workspace and read-only rule queries, in @njit.

Shared by the fast path (`games.abyss.engine.kernel.game`) and the compiled policies
(`games.abyss.engine.policies`). Each function mirrors a helper of the reference engine
(`games.abyss.engine.rules.game*`), named alike so the two read side by side.

Every function takes the workspace `s` (`games.abyss.engine.kernel.workspace`: state, then card
tables,
then
scratch rows); a *stack* at offset `off` stores its length at `off` and its items after it, in the
order of the reference engine's Python list. Lists of results are written at an offset `out`.
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine import state as S
from games.abyss.engine.cards.constants import (
    AllyEffect,
    Guild,
    LeviathanToken,
    LocationRule,
    Penalty,
    Power,
    Race,
    Stream,
)
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from sim.core.jit import lowest_bit, njit, njit_ints
from sim.core.stack import (  # noqa: F401  (the kernel reaches them as K.*)
    clear,
    contains,
    extend,
    index_of,
    item,
    pop,
    pop_at,
    push,
    remove,
    size,
)

# The integer codes the kernels compare (`games.abyss.engine.cards.constants` as plain ints, which
# numba
# compiles in): random streams, Lord powers, Location rules, Leviathan penalties and tokens.
ST_EXPLORATION = int(Stream.EXPLORATION_DECK)
ST_LORDS = int(Stream.LORD_DECK)
ST_LOCATIONS = int(Stream.LOCATION_DECK)
ST_MONSTERS = int(Stream.MONSTER_TOKENS)
ST_DICE = int(Stream.DICE)
ST_LEV_DECK = int(Stream.LEVIATHAN_DECK)
ST_LEV_TOKENS = int(Stream.LEVIATHAN_TOKENS)
ST_HUNTER = int(Stream.HUNTER)
PW_RECRUITER = int(Power.RECRUITER)
PW_JAILER = int(Power.JAILER)
PW_SEEKER = int(Power.SEEKER)
PW_ASSASSIN = int(Power.ASSASSIN)
PW_COMMANDER = int(Power.COMMANDER)
PW_TAMER = int(Power.TAMER)
PW_HUNTER = int(Power.HUNTER)
PW_SHIP_MASTER = int(Power.SHIP_MASTER)
PW_TRADER = int(Power.TRADER)
PW_PEDDLER = int(Power.PEDDLER)
PW_LANDLORD = int(Power.LANDLORD)
PW_SLAVER = int(Power.SLAVER)
PW_SHOPKEEPER = int(Power.SHOPKEEPER)
PW_INVOKER = int(Power.INVOKER)
PW_APPRENTICE = int(Power.APPRENTICE)
PW_ORACLE = int(Power.ORACLE)
PW_ALCHEMIST = int(Power.ALCHEMIST)
PW_ILLUSIONIST = int(Power.ILLUSIONIST)
PW_MASTER_OF_MAGIC = int(Power.MASTER_OF_MAGIC)
PW_OPPORTUNIST = int(Power.OPPORTUNIST)
PW_CORRUPTOR = int(Power.CORRUPTOR)
PW_TRAITOR = int(Power.TRAITOR)
PW_SCHEMER = int(Power.SCHEMER)
PW_SAGE = int(Power.SAGE)
PW_HERMIT = int(Power.HERMIT)
PW_ELDER = int(Power.ELDER)
PW_INTREPID = int(Power.INTREPID)
PW_BORDER_GUARD = int(Power.BORDER_GUARD)
PW_TAXIDERMIST = int(Power.TAXIDERMIST)
PW_ARMS_DEALER = int(Power.ARMS_DEALER)
PW_SORCERER = int(Power.SORCERER)
PW_ALTRUIST = int(Power.ALTRUIST)
PW_REBEL = int(Power.REBEL)
PW_COWARD = int(Power.COWARD)
PW_BREEDER = int(Power.BREEDER)
PW_SHAMAN = int(Power.SHAMAN)
PW_METAMORPH = int(Power.METAMORPH)
PW_TREASURER = int(Power.TREASURER)
PW_DIPLOMAT = int(Power.DIPLOMAT)
RACE_CRAB = int(Race.CRAB)
G_AMBASSADOR = int(Guild.AMBASSADOR)
PEN_WOUNDS, PEN_PEARLS, PEN_ALLIES = int(Penalty.WOUNDS), int(Penalty.PEARLS), int(Penalty.ALLIES)
TOK_PEARLS, TOK_KEY = int(LeviathanToken.PEARLS), int(LeviathanToken.KEY)
FX_NONE, FX_ADD_PEARLS, FX_TWO_DICE = (
    int(AllyEffect.NONE),
    int(AllyEffect.ADD_PEARLS),
    int(AllyEffect.TWO_DICE),
)
# Slots of the per-seat cache of working powers (W.SEAT_POWERS): how many free, enabled Lords of
# the seat have each of these powers, and the Keys they carry.
C_RECRUITER, C_SHAMAN, C_TREASURER, C_DIPLOMAT, C_SLAVER = 0, 1, 2, 3, 4
C_ORACLE, C_OPPORTUNIST, C_COMMANDER, C_METAMORPH, C_LANDLORD, C_KEYS = 5, 6, 7, 8, 9, 10
#: The power counted in each slot C_RECRUITER .. C_LANDLORD (C_KEYS counts Keys).
CACHED_POWERS = (
    PW_RECRUITER, PW_SHAMAN, PW_TREASURER, PW_DIPLOMAT, PW_SLAVER,
    PW_ORACLE, PW_OPPORTUNIST, PW_COMMANDER, PW_METAMORPH, PW_LANDLORD,
)  # fmt: skip
LR_GUILD_LORDS = int(LocationRule.GUILD_LORDS)
LR_AFFILIATED_RACE = int(LocationRule.AFFILIATED_RACE)
LR_DISTINCT_GUILDS = int(LocationRule.DISTINCT_GUILDS)
LR_CITY_OF_MIRRORS = int(LocationRule.CITY_OF_MIRRORS)
LR_BLACK_SMOKERS = int(LocationRule.BLACK_SMOKERS)
LR_WEAKEST_LORD = int(LocationRule.WEAKEST_LORD)
LR_STRONGEST_LORD = int(LocationRule.STRONGEST_LORD)
LR_MINUS_LORDS = int(LocationRule.MINUS_LORDS)
LR_LORDS_WITH_KEY = int(LocationRule.LORDS_WITH_KEY)
LR_LORDS_WITHOUT_KEY = int(LocationRule.LORDS_WITHOUT_KEY)
LR_WEAKEST_AFFILIATED_SUM = int(LocationRule.WEAKEST_AFFILIATED_SUM)
LR_MINUS_AFFILIATED = int(LocationRule.MINUS_AFFILIATED)


# ----------------------------------------------------------------------------- stacks
# The stack primitives are shared by every game (sim.core.stack); the kernel reaches them as K.*.


# ------------------------------------------------------------------------------ players
@njit(cache=True, inline="always")
def pbase(seat):
    return S.PLAYERS + seat * S.P_STRIDE


@njit(cache=True, inline="always")
def opponent(s, seat, i):
    """The i-th opponent clockwise (i = 1 .. n-1): `Game.opponents(seat)[i - 1]`."""
    return (seat + i) % s[S.N_PLAYERS]


@njit(cache=True, inline="always")
def race(s, ally):
    return s[T.ALLY_RACE + ally]


@njit(cache=True, inline="always")
def value(s, ally):
    return s[T.ALLY_VALUE + ally]


@njit(cache=True, inline="always")
def lord_power(s, lord):
    return s[T.LORD_POWER + lord]


@njit(cache=True, inline="always")
def has_power(s, seat, power):
    """A semi-permanent power works while its Lord is free and not disabled."""
    off = pbase(seat) + S.P_LORDS
    for i in range(s[off]):
        lord = s[off + 1 + i]
        if s[T.LORD_POWER + lord] == power and s[S.LORD_UNDER + lord] == 0:
            if s[S.LORD_DISABLED + lord] == 0:
                return True
    return False


@njit(cache=True, inline="always")
def protected(s, seat):
    return working(s, seat, C_SHAMAN) > 0


# ------------------------------------------------------------------- working powers cache
# The powers checked on every turn (costs, once-per-turn powers, the Commander, Keys, ...) are
# counted per seat once, when the seat's Lords change, instead of scanning its Lords at each
# check. `refresh_powers` must follow every change of a seat's Lords, of a Lord's "under a
# Location" or "disabled" mark, and the loading of a state.
@njit(cache=True, inline="always")
def working(s, seat, slot):
    """The cached count of slot `slot` (C_*) for `seat`."""
    return s[W.SEAT_POWERS + seat * W.N_CACHED + slot]


@njit(cache=True)
def refresh_powers(s, seat):
    base = W.SEAT_POWERS + seat * W.N_CACHED
    for k in range(W.N_CACHED):
        s[base + k] = 0
    off = pbase(seat) + S.P_LORDS
    for i in range(s[off]):
        lord = s[off + 1 + i]
        if s[S.LORD_UNDER + lord] != 0 or s[S.LORD_DISABLED + lord] != 0:
            continue
        s[base + C_KEYS] += s[T.LORD_KEYS + lord]
        power = s[T.LORD_POWER + lord]
        for slot in range(len(CACHED_POWERS)):
            if power == CACHED_POWERS[slot]:
                s[base + slot] += 1


@njit(cache=True)
def refresh_all_powers(s):
    for seat in range(s[S.N_PLAYERS]):
        refresh_powers(s, seat)


@njit(cache=True)
def n_keys(s, seat):
    """Key tokens plus the Keys of free, working Lords."""
    return s[pbase(seat) + S.P_KEYS] + working(s, seat, C_KEYS)


@njit(cache=True)
def council_any(s):
    for r in range(5):
        if s[S.COUNCIL + r * S.COUNCIL_STRIDE] > 0:
            return True
    return False


# --------------------------------------------------------------------- distinct Allies
@njit(cache=True, inline="always")
def with_id(lo, hi, a):
    """The two-word set of Ally ids (lo, hi) with Ally `a` added (ids < 128)."""
    bit = np.uint64(1) << np.uint64(a & 63)
    if a < 64:
        return lo | bit, hi
    return lo, hi | bit


@njit(cache=True)
def distinct_in_order(s, lo, hi, out, n_out):
    """Append to out[n_out:] the Allies of the id set (lo, hi), one per (race, value, effect):
    ascending ids, so the first met of a kind is its lowest id. Returns the new length.

    Kinds met are marked with a fresh stamp in per-kind slots of the workspace, which saves both
    the pairwise comparisons and a sort."""
    stamp = s[W.KIND_STAMP] + 1
    s[W.KIND_STAMP] = stamp
    for word in range(2):
        m = lo if word == 0 else hi
        while m != 0:
            a = word * 64 + lowest_bit(m)
            m &= m - np.uint64(1)
            kind = (s[T.ALLY_RACE + a] * 16 + s[T.ALLY_VALUE + a]) * 3 + s[T.ALLY_EFFECT + a]
            if s[W.KIND_SEEN + kind] != stamp:
                s[W.KIND_SEEN + kind] = stamp
                s[out + n_out] = a
                n_out += 1
    return n_out


@njit(cache=True)
def distinct_allies(s, off, out, n_out):
    """Append to out[n_out:] one Ally of the stack `off` per (race, value, effect), the lowest
    id, ascending (`rules.distinct_allies`). Returns the new length."""
    lo = hi = np.uint64(0)
    for i in range(s[off]):
        lo, hi = with_id(lo, hi, s[off + 1 + i])
    return distinct_in_order(s, lo, hi, out, n_out)


@njit(cache=True)
def sort_range(a, lo, hi):
    """Insertion sort of a[lo:hi] (short lists)."""
    for i in range(lo + 1, hi):
        x = a[i]
        j = i - 1
        while j >= lo and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


# -------------------------------------------------------------------------- payments
@njit(cache=True, inline="always")
def popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def hand_values(s, hand_off, extra):
    """Value held per race in a hand (Ally `extra` left out) and the mask of races held."""
    r0 = r1 = r2 = r3 = r4 = 0
    held = 0
    for i in range(s[hand_off]):
        a = s[hand_off + 1 + i]
        if a == extra:
            continue
        r = s[T.ALLY_RACE + a]
        v = s[T.ALLY_VALUE + a]
        held |= 1 << r
        # branch-free: the race of the next card is unpredictable
        r0 += v * (r == 0)
        r1 += v * (r == 1)
        r2 += v * (r == 2)
        r3 += v * (r == 3)
        r4 += v * (r == 4)
    return r0, r1, r2, r3, r4, held


@njit(cache=True)
def payment_reaches(chosen, paid, r0, r1, r2, r3, r4, held, cost, n_races, required):
    """`rules.payment_feasible` from a hand's `hand_values`: whether the best set of exactly
    n_races held races (containing the `chosen` ones and the required one) pays `cost`: the
    chosen races, the required one, then the races of the rest of the hand worth most. `paid`
    counts the Allies already chosen and the Pearls."""
    need = n_races - popcount(chosen)
    if need < 0:
        return False
    total = paid
    must = chosen
    if required >= 0 and not (chosen >> required) & 1:
        if not (held >> required) & 1 or need == 0:
            return False
        must |= 1 << required
        need -= 1
    for r in range(5):
        if (must >> r) & 1:
            total += race_value(r, r0, r1, r2, r3, r4)
    pool = held & ~must
    if popcount(pool) < need:
        return False
    for _ in range(need):
        best_r, best_v = -1, -1
        for r in range(5):
            if (pool >> r) & 1:
                v = race_value(r, r0, r1, r2, r3, r4)
                if v > best_v:
                    best_r, best_v = r, v
        total += best_v
        pool &= ~(1 << best_r)
    return total >= cost


@njit(cache=True, inline="always")
def race_value(r, r0, r1, r2, r3, r4):
    if r == 0:
        return r0
    if r == 1:
        return r1
    if r == 2:
        return r2
    if r == 3:
        return r3
    return r4


@njit(cache=True, inline="always")
def payment_done(chosen, paid, cost, n_races, required):
    """`rules.payment_complete` from the mask of races chosen and the value paid (Pearls too)."""
    if popcount(chosen) != n_races:
        return False
    if required >= 0 and not (chosen >> required) & 1:
        return False
    return paid >= cost


@njit(cache=True, inline="always")
def lord_cost(s, lord, extra):
    """`rules.Game.lord_cost`: the printed cost changed by `cost_terms`' extra, at least 0."""
    return max(0, s[T.LORD_COST + lord] + extra)


@njit(cache=True, inline="always")
def required_race(s, lord, diplomat):
    """The required race of `rules.Game.payment_rule`: the Lord's guild's, none (-1) for an
    Ambassador or with the Diplomat."""
    guild = s[T.LORD_GUILD + lord]
    return -1 if guild == G_AMBASSADOR or diplomat else guild


@njit(cache=True)
def cost_terms(s, seat):
    """What changes the cost of every Lord for `seat`: the opponents' working Recruiters (unless
    the Shaman protects), the seat's Treasurer and Diplomat (see `lord_cost`, `required_race`)."""
    extra = 0
    if not protected(s, seat):
        for i in range(1, s[S.N_PLAYERS]):
            extra += 2 * working(s, opponent(s, seat, i), C_RECRUITER)
    if working(s, seat, C_TREASURER) > 0:
        extra -= 2
    return extra, working(s, seat, C_DIPLOMAT) > 0


@njit(cache=True)
def affordable_lords(s, seat, row):
    """s[row:] = the Court's Lords the seat can pay for, in Court order; returns their number."""
    return affordable_lords_if(s, seat, row, -1, 0)


@njit(cache=True)
def affordable_lords_if(s, seat, row, without, more_pearls):
    """`affordable_lords` if the seat's hand lacked the Ally `without` (-1: none) and it had
    `more_pearls` Pearls more (the Slaver's trade, weighed by the policies)."""
    n = 0
    if s[S.COURT] == 0:
        return 0
    extra, diplomat = cost_terms(s, seat)
    r0, r1, r2, r3, r4, held = hand_values(s, pbase(seat) + S.P_HAND, without)
    pearls = s[pbase(seat) + S.P_PEARLS] + more_pearls
    wealth = pearls + r0 + r1 + r2 + r3 + r4
    for i in range(s[S.COURT]):
        lord = s[S.COURT + 1 + i]
        required = required_race(s, lord, diplomat)
        cost = lord_cost(s, lord, extra)
        n_races = s[T.LORD_RACES + lord]
        if wealth < cost:
            continue  # the whole hand and every Pearl fall short
        if payment_reaches(0, pearls, r0, r1, r2, r3, r4, held, cost, n_races, required):
            s[row + n] = lord
            n += 1
    return n


# ---------------------------------------------------------------------------- scoring
@njit(cache=True, inline="always")
def count_with(s, off, column, value):
    """How many cards of the stack `off` have `value` in the card table's `column`."""
    c = 0
    for i in range(s[off]):
        if s[column + s[off + 1 + i]] == value:
            c += 1
    return c


@njit_ints
def location_formula(s, seat, loc):
    """`rules.location_formula`: final IP of Location `loc` for `seat` (Lords: every owned)."""
    rule = s[T.LOC_RULE + loc]
    base, mult, arg = s[T.LOC_BASE + loc], s[T.LOC_MULT + loc], s[T.LOC_ARG + loc]
    b = pbase(seat)
    lo, af = b + S.P_LORDS, b + S.P_AFFILIATED
    n_lords, n_aff = s[lo], s[af]
    if rule == LR_GUILD_LORDS:
        return base + mult * count_with(s, lo, T.LORD_GUILD, arg)
    if rule == LR_AFFILIATED_RACE:
        return base + mult * count_with(s, af, T.ALLY_RACE, arg)
    if rule == LR_DISTINCT_GUILDS:
        guilds = 0
        for i in range(n_lords):
            guilds |= 1 << s[T.LORD_GUILD + s[lo + 1 + i]]
        return base + mult * popcount(guilds)
    if rule == LR_WEAKEST_LORD:
        if n_lords == 0:
            return base
        m = 1 << 20
        for i in range(n_lords):
            m = min(m, s[T.LORD_IP + s[lo + 1 + i]])
        return base + mult * m
    if rule == LR_STRONGEST_LORD:
        m = 0
        for i in range(n_lords):
            m = max(m, s[T.LORD_IP + s[lo + 1 + i]])
        return base + mult * m
    if rule == LR_MINUS_LORDS:
        return base - mult * n_lords
    if rule == LR_LORDS_WITH_KEY or rule == LR_LORDS_WITHOUT_KEY:
        c = 0
        for i in range(n_lords):
            with_key = s[T.LORD_KEYS + s[lo + 1 + i]] > 0
            if with_key == (rule == LR_LORDS_WITH_KEY):
                c += 1
        return base + mult * c
    if rule == LR_WEAKEST_AFFILIATED_SUM:
        total = base
        for r in range(5):
            m = 1 << 20
            for i in range(n_aff):
                a = s[af + 1 + i]
                if s[T.ALLY_RACE + a] == r:
                    m = min(m, s[T.ALLY_VALUE + a])
            if m < (1 << 20):
                total += m
        return total
    if rule == LR_MINUS_AFFILIATED:
        return base - mult * n_aff
    return 0  # Black Smokers; City of Mirrors is resolved by the caller


# ---------------------------------------------------------------------------- Leviathan
@njit(cache=True, inline="always")
def life_points_removed(s, leviathan, life, power):
    removed = 0
    for space in range(life, s[T.LEV_N_SPACES + leviathan]):
        resistance = s[T.LEV_RESISTANCE + leviathan * T.MAX_SPACES + space]
        if power < resistance:
            break
        power -= resistance
        removed += 1
    return removed


@njit(cache=True, inline="always")
def attacks(s, ally, leviathan, metamorph):
    """`Game.can_attack_with` of the reference engine: a Crab always fights; the Leviathan's
    race; any race with the Metamorph (looked up once by the caller)."""
    r = s[T.ALLY_RACE + ally]
    if r < 0:
        return False
    return r == RACE_CRAB or r == s[T.LEV_RACE + leviathan] or metamorph


@njit(cache=True)
def attack_allies(s, seat, leviathan, out, n_out):
    """Append eligible Allies, one per distinct (race, value, effect), lowest id, ascending."""
    off = pbase(seat) + S.P_HAND
    metamorph = working(s, seat, C_METAMORPH) > 0
    lo = hi = np.uint64(0)
    for i in range(s[off]):
        a = s[off + 1 + i]
        if attacks(s, a, leviathan, metamorph):
            lo, hi = with_id(lo, hi, a)
    return distinct_in_order(s, lo, hi, out, n_out)


@njit(cache=True)
def has_attack_ally(s, seat, leviathan):
    off = pbase(seat) + S.P_HAND
    metamorph = working(s, seat, C_METAMORPH) > 0
    for i in range(s[off]):
        if attacks(s, s[off + 1 + i], leviathan, metamorph):
            return True
    return False


@njit(cache=True)
def fightable(s, seat, zone):
    lev = s[S.BORDER + zone]
    return lev >= 0 and has_attack_ally(s, seat, lev)


@njit(cache=True)
def any_fightable(s, seat):
    for z in range(s[T.N_ZONES]):
        if fightable(s, seat, z):
            return True
    return False


@njit(cache=True)
def border_count(s):
    n = 0
    for z in range(s[T.N_ZONES]):
        if s[S.BORDER + z] >= 0:
            n += 1
    return n


@njit_ints
def pearls_to_spend(s, leviathan, life, power, pearls):
    """The fewest Pearls (0..pearls) that remove the most Life Points reachable."""
    best = life_points_removed(s, leviathan, life, power + pearls)
    for spend in range(pearls + 1):
        if life_points_removed(s, leviathan, life, power + spend) == best:
            return spend
    return pearls


@njit(cache=True)
def damage_chance_36(s, leviathan, life, value, effect, pearls):
    """36 x P(the attack removes at least one Life Point): exact, in integers."""
    n = 0
    for die in range(1, 7):
        weight = (2 * die - 1) if effect == 2 else 6  # two dice keep the higher
        power = value + die
        if effect == 1:
            power += pearls_to_spend(s, leviathan, life, power, pearls)
        if life_points_removed(s, leviathan, life, power) > 0:
            n += weight
    return n
