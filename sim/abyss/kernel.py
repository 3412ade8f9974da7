"""The fast path: Abyss (and the Leviathan expansion) as @njit functions over the state vector.

Each function mirrors the method of the reference engine with the same name
(`sim.abyss.rules.Game`, `sim.abyss.leviathan.LeviathanMixin`) and performs the same steps in the
same order: the same cards move between the same stacks, the same random streams are drawn, and the
same decisions are asked with the same options in the same order. The parity tests hold it to that.
The rule texts are quoted in the reference engine; comments here only explain the mechanics.

Every function takes `G`, a tuple of arrays for one game:

    G = (s, tab, kinds, params, keys, counters, buf, trace)

- `s`: the state vector (`sim.abyss.state`); `tab`: the packed card tables (`sim.abyss.ktables`);
- `kinds[seat]`, `params[seat]`: the strategy of each seat (`strategies.abyss.policies`);
- `keys`, `counters`: the game's random streams (`sim.core.rng`);
- `buf`: scratch rows: row 0 holds the options of the decision being asked; rows 1-2 hold lists
  that live across a decision (Locations drawn, Lords spending their Keys);
- `trace`: `trace[0]` counts decisions asked; decision k is at `trace[1 + 4k : 5 + 4k]` as
  (seat, decision, option, number of options) while it fits (parity tests).
"""

from __future__ import annotations

import numpy as np

from sim.abyss import kcore as K
from sim.abyss import ktables as T
from sim.abyss import state as S
from sim.abyss.cards import LeviathanToken, Penalty
from sim.abyss.constants import MONSTER, AllyEffect, LocationRule, Power, Race, Stream
from sim.abyss.state import (  # noqa: F401  (result fields, re-exported)
    N_GAME_FIELDS,
    N_SEAT_FIELDS,
    R_ALLIES,
    R_KEYS,
    R_KILLED,
    R_LOCATIONS,
    R_LORDS,
    R_MONSTERS,
    R_N_AFFILIATED,
    R_N_LOCATIONS,
    R_N_LORDS,
    R_N_TOKENS,
    R_PEARLS,
    R_RANK,
    R_SCORE,
    R_SCOURGE,
    R_WOUNDS,
    R_WOUNDS_IP,
    RG_CONTINUES,
    RG_END,
    RG_FIGHTS,
    RG_KILLS,
    RG_LEV_ATTACKS,
    RG_TURNS,
)
from sim.core.jit import njit, prange
from sim.core.rng import N_STREAMS, rand_below, shuffle, stream_keys
from strategies.abyss import policies as P

# random streams
ST_EXPLORATION = int(Stream.EXPLORATION_DECK)
ST_LORDS = int(Stream.LORD_DECK)
ST_LOCATIONS = int(Stream.LOCATION_DECK)
ST_MONSTERS = int(Stream.MONSTER_TOKENS)
ST_DICE = int(Stream.DICE)
ST_LEV_DECK = int(Stream.LEVIATHAN_DECK)
ST_LEV_TOKENS = int(Stream.LEVIATHAN_TOKENS)
ST_HUNTER = int(Stream.HUNTER)

# powers
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

LR_CITY_OF_MIRRORS = int(LocationRule.CITY_OF_MIRRORS)
LR_BLACK_SMOKERS = int(LocationRule.BLACK_SMOKERS)
PEN_WOUNDS, PEN_PEARLS, PEN_ALLIES = int(Penalty.WOUNDS), int(Penalty.PEARLS), int(Penalty.ALLIES)
TOK_PEARLS, TOK_KEY = int(LeviathanToken.PEARLS), int(LeviathanToken.KEY)
FX_NONE, FX_ADD_PEARLS, FX_TWO_DICE = (
    int(AllyEffect.NONE),
    int(AllyEffect.ADD_PEARLS),
    int(AllyEffect.TWO_DICE),
)
RACE_CRAB = int(Race.CRAB)
DECLINE = -1
LOCATION_DRAW = 1000
MAX_LOCATION_DRAW = 4
BUF_ROWS, BUF_WIDTH = 5, 512
MAX_TRACE = 4096
LANES = 64  # independent game slots per chunk (a multiple of any thread count we meet)
OP_GAIN, OP_REFILL, OP_CHECK_SEVENTH = 0, 1, 2  # steps of gain_lord's explicit stack


# ----------------------------------------------------------------------------- helpers
@njit(cache=True)
def choose(G, seat, decision, n):
    """Ask the seat's policy among buf[0, :n]; a single option is taken without asking."""
    s, tab, kinds, params, keys, counters, buf, trace = G
    opts = buf[0]
    if n == 1:
        return opts[0]
    option = P.choose(kinds[seat], params[seat], s, tab, seat, decision, opts, n, keys, counters)
    k = trace[0]
    if 1 + 4 * k + 4 <= trace.shape[0]:
        trace[1 + 4 * k] = seat
        trace[2 + 4 * k] = decision
        trace[3 + 4 * k] = option
        trace[4 + 4 * k] = n
    trace[0] = k + 1
    return option


@njit(cache=True)
def choose_01(G, seat, decision):
    G[6][0, 0] = 0
    G[6][0, 1] = 1
    return choose(G, seat, decision, 2)


@njit(cache=True)
def options_from_stack(G, off):
    """buf[0] = the items of a stack; returns their number."""
    s, buf = G[0], G[6]
    n = s[off]
    for i in range(n):
        buf[0, i] = s[off + 1 + i]
    return n


@njit(cache=True)
def die(G):
    return 1 + rand_below(G[4], G[5], ST_DICE, 6)


@njit(cache=True)
def shuffle_stack(G, off, stream):
    s = G[0]
    n = s[off]
    shuffle(s[off + 1 : off + 1 + n], n, G[4], G[5], stream)


@njit(cache=True)
def gain_pearls(G, seat, n):
    s = G[0]
    if n > 0:
        s[K.pbase(seat) + S.P_PEARLS] += n
        s[S.PEARLS_FROM] += n


@njit(cache=True)
def pay_treasury(G, seat, n):
    s = G[0]
    b = K.pbase(seat)
    n = min(n, s[b + S.P_PEARLS])
    if n > 0:
        s[b + S.P_PEARLS] -= n
        s[S.PEARLS_TO] += n


@njit(cache=True)
def gain_keys(G, seat, n):
    s = G[0]
    n = min(n, s[S.KEY_PILE])
    if n > 0:
        s[S.KEY_PILE] -= n
        s[K.pbase(seat) + S.P_KEYS] += n


@njit(cache=True)
def discard_ally_from_hand(G, seat, ally):
    s = G[0]
    K.remove(s, K.pbase(seat) + S.P_HAND, ally)
    K.push(s, S.EXP_DISCARD, ally)


@njit(cache=True)
def choose_discard(G, seat):
    s, tab, buf = G[0], G[1], G[6]
    n = K.distinct_allies(s, tab, K.pbase(seat) + S.P_HAND, buf[0], 0)
    discard_ally_from_hand(G, seat, choose(G, seat, P.D_DISCARD_ALLY, n))


@njit(cache=True)
def trigger_end(G, reason):
    s = G[0]
    if s[S.END_REASON] == S.END_NONE:
        s[S.END_REASON] = reason


@njit(cache=True)
def council_stack(r):
    return S.COUNCIL + r * S.COUNCIL_STRIDE


@njit(cache=True)
def council_options(G):
    """buf[0] = the races whose Council stack is not empty."""
    s, buf = G[0], G[6]
    n = 0
    for r in range(5):
        if s[council_stack(r)] > 0:
            buf[0, n] = r
            n += 1
    return n


@njit(cache=True)
def free_lords_options(G, seat, exclude):
    """buf[0] = the seat's free Lords (not under a Location) other than `exclude`, in order."""
    s, buf = G[0], G[6]
    off = K.pbase(seat) + S.P_LORDS
    n = 0
    for i in range(s[off]):
        lord = s[off + 1 + i]
        if s[S.LORD_UNDER + lord] == 0 and lord != exclude:
            buf[0, n] = lord
            n += 1
    return n


# ------------------------------------------------------------------------------ set-up
@njit(cache=True)
def setup(G):
    """`Game._setup` for a zeroed state with N_PLAYERS and LEVIATHAN set."""
    s, tab = G[0], G[1]
    n_players = s[S.N_PLAYERS]
    lev = s[S.LEVIATHAN] == 1
    for i in range(tab[T.N_LOCATIONS]):
        K.push(s, S.LOC_DECK, i)
    shuffle_stack(G, S.LOC_DECK, ST_LOCATIONS)
    K.push(s, S.LOC_AVAILABLE, K.pop(s, S.LOC_DECK))
    crabs = np.empty(S.MAX_PLAYERS, dtype=np.int32)
    n_crabs = starting_crabs(G, crabs) if lev else 0
    for a in range(tab[T.N_ALLIES]):
        dealt = False
        for k in range(n_crabs):
            if crabs[k] == a:
                dealt = True
        if not dealt:
            K.push(s, S.EXP_DECK, a)
    shuffle_stack(G, S.EXP_DECK, ST_EXPLORATION)
    for i in range(tab[T.N_LORDS]):
        K.push(s, S.LORD_DECK, i)
    shuffle_stack(G, S.LORD_DECK, ST_LORDS)
    for _ in range(tab[T.COURT_SIZE]):
        K.push(s, S.COURT, K.pop(s, S.LORD_DECK))
    for i in range(tab[T.N_MONSTER_TOKENS]):
        K.push(s, S.MONSTER_TOKENS, i)
    shuffle_stack(G, S.MONSTER_TOKENS, ST_MONSTERS)
    s[S.KEY_PILE] = tab[T.N_KEYS]
    s[S.THREAT] = 0
    s[S.SCOURGE] = -1
    s[S.FIGHT_ZONE] = -1
    for z in range(S.MAX_ZONES):
        s[S.BORDER + z] = -1
    for seat in range(n_players):
        s[K.pbase(seat) + S.P_PEARLS] = tab[T.STARTING_PEARLS]
    if lev:
        for seat in range(n_players):
            K.push(s, K.pbase(seat) + S.P_HAND, crabs[seat])
        setup_leviathan(G)


@njit(cache=True)
def starting_crabs(G, crabs):
    """The plain Crab 1s by (expansion, id): one per player."""
    s, tab = G[0], G[1]
    n = 0
    for expansion in range(2):
        for a in range(tab[T.N_ALLIES]):
            if (
                tab[T.ALLY_RACE + a] == RACE_CRAB
                and tab[T.ALLY_VALUE + a] == 1
                and tab[T.ALLY_EFFECT + a] == FX_NONE
                and tab[T.ALLY_EXPANSION + a] == expansion
                and n < s[S.N_PLAYERS]
            ):
                crabs[n] = a
                n += 1
    return n


@njit(cache=True)
def setup_leviathan(G):
    s, tab = G[0], G[1]
    for i in range(tab[T.N_LEVIATHANS]):
        K.push(s, S.LEV_DECK, i)
    shuffle_stack(G, S.LEV_DECK, ST_LEV_DECK)
    for i in range(tab[T.N_LEV_TOKENS]):
        K.push(s, S.LEV_TOKENS, i)
    shuffle_stack(G, S.LEV_TOKENS, ST_LEV_TOKENS)
    s[S.SCOURGE] = -1
    add_leviathan(G, -1)


# ------------------------------------------------------------------------------ game flow
@njit(cache=True)
def play(G):
    """Play turns until the end (resumes from NEXT_SEAT / FINAL_TURNS), then the final tally."""
    s, tab = G[0], G[1]
    n_players = s[S.N_PLAYERS]
    while True:
        seat = s[S.NEXT_SEAT]
        if s[S.TURN] >= tab[T.TURN_LIMIT]:
            s[S.END_REASON] = S.END_TURN_LIMIT
            break
        take_turn(G, seat)
        if s[S.EXTRA_TURN] == 1:
            s[S.EXTRA_TURN] = 0
            continue
        if s[S.END_REASON] != S.END_NONE:
            if s[S.FINAL_ROUND] == 0:
                s[S.FINAL_ROUND] = 1
                K.clear(s, S.FINAL_TURNS)
                for i in range(1, n_players):
                    K.push(s, S.FINAL_TURNS, K.opponent(s, seat, i))
            if s[S.FINAL_TURNS] == 0:
                break
            s[S.NEXT_SEAT] = K.pop_at(s, S.FINAL_TURNS, 0)
        else:
            s[S.NEXT_SEAT] = (seat + 1) % n_players
    s[S.OVER] = 1
    final_affiliation(G)


@njit(cache=True)
def take_turn(G, seat):
    s, tab = G[0], G[1]
    b = K.pbase(seat)
    s[S.TURN] += 1
    s[S.ACTIVE] = seat
    s[b + S.P_USED_POWERS] = 0
    for q in range(s[S.N_PLAYERS]):
        s[K.pbase(q) + S.P_BOUGHT] = 0
    off = b + S.P_LORDS
    for i in range(s[off]):
        lord = s[off + 1 + i]
        if s[S.LORD_UNDER + lord] == 0 and K.lord_power(tab, lord) == PW_LANDLORD:
            if s[S.LORD_DISABLED + lord] == 0:
                gain_pearls(G, seat, 1)
    lev = s[S.LEVIATHAN] == 1
    if lev:
        reveal_held_tokens(G, seat)
    plot_at_court(G, seat)
    use_once_per_turn_powers(G, seat)
    take_action(G, seat)
    control_locations(G, seat)
    use_once_per_turn_powers(G, seat)
    enforce_commander(G, seat)
    if lev:
        martial_law(G, seat)
        leviathan_end_check(G)
    if tab[T.COURT_END_BGA] == 1 and s[S.END_REASON] == S.END_NONE:
        if s[S.LORD_DECK] == 0 and s[S.COURT] < tab[T.COURT_SIZE]:
            trigger_end(G, S.END_COURT)


@njit(cache=True)
def can_plot(G, seat):
    s, tab = G[0], G[1]
    return (
        s[K.pbase(seat) + S.P_PEARLS] >= 1 and s[S.COURT] < tab[T.COURT_SIZE] and s[S.LORD_DECK] > 0
    )


@njit(cache=True)
def plot_at_court(G, seat):
    s = G[0]
    while can_plot(G, seat) and choose_01(G, seat, P.D_PLOT) == 1:
        pay_treasury(G, seat, 1)
        K.push(s, S.COURT, K.pop(s, S.LORD_DECK))


@njit(cache=True)
def once_per_turn_options(G, seat):
    """buf[0] = [0, usable once-per-turn powers...]; returns the count (1 = none)."""
    s, tab, buf = G[0], G[1], G[6]
    used = s[K.pbase(seat) + S.P_USED_POWERS]
    buf[0, 0] = 0
    n = 1
    for k in range(3):
        power = PW_SLAVER if k == 0 else (PW_ORACLE if k == 1 else PW_OPPORTUNIST)
        if (used >> k) & 1 or not K.has_power(s, tab, seat, power):
            continue
        if power == PW_SLAVER and s[K.pbase(seat) + S.P_HAND] == 0:
            continue
        if power == PW_ORACLE and not K.council_any(s):
            continue
        if power == PW_OPPORTUNIST and not (s[S.COURT] > 0 and s[S.LORD_DECK] > 0):
            continue
        buf[0, n] = power
        n += 1
    return n


@njit(cache=True)
def use_once_per_turn_powers(G, seat):
    s = G[0]
    b = K.pbase(seat)
    while True:
        n = once_per_turn_options(G, seat)
        if n == 1:
            return
        power = choose(G, seat, P.D_POWER, n)
        if power == 0:
            return
        k = 0 if power == PW_SLAVER else (1 if power == PW_ORACLE else 2)
        s[b + S.P_USED_POWERS] |= 1 << k
        if power == PW_SLAVER:
            choose_discard(G, seat)
            gain_pearls(G, seat, 2)
        elif power == PW_ORACLE:
            n = council_options(G)
            race = choose(G, seat, P.D_COUNCIL_DISCARD, n)
            K.extend(s, S.EXP_DISCARD, council_stack(race))
            K.clear(s, council_stack(race))
        else:
            n = options_from_stack(G, S.COURT)
            lord = choose(G, seat, P.D_COURT_LORD, n)
            i = K.index_of(s, S.COURT, lord)
            s[S.COURT + 1 + i] = K.pop(s, S.LORD_DECK)
            K.push(s, S.LORD_DISCARD, lord)


# ------------------------------------------------------------------------------- actions
@njit(cache=True)
def affordable_lords(G, seat, row):
    """buf[row] = the Court's Lords the seat can pay for, in Court order."""
    s, tab, buf = G[0], G[1], G[6]
    n = 0
    for i in range(s[S.COURT]):
        lord = s[S.COURT + 1 + i]
        if K.can_afford(s, tab, seat, lord):
            buf[row][n] = lord
            n += 1
    return n


@njit(cache=True)
def take_action(G, seat):
    s, buf = G[0], G[6]
    n = 0
    if s[S.EXP_DECK] > 0 or s[S.EXP_DISCARD] > 0:
        buf[0, n] = P.A_EXPLORE
        n += 1
    if K.council_any(s):
        buf[0, n] = P.A_REQUEST_SUPPORT
        n += 1
    if affordable_lords(G, seat, 1) > 0:
        buf[0, n] = P.A_RECRUIT
        n += 1
    if n == 0:
        return
    action = choose(G, seat, P.D_ACTION, n)
    if action == P.A_EXPLORE:
        explore(G, seat)
    elif action == P.A_REQUEST_SUPPORT:
        request_support(G, seat)
    else:
        recruit(G, seat)


@njit(cache=True)
def reveal(G):
    """The top Exploration card (-1 if none); an empty deck is the reshuffled discard pile."""
    s = G[0]
    if s[S.EXP_DECK] == 0:
        if s[S.EXP_DISCARD] == 0:
            return -1
        K.extend(s, S.EXP_DECK, S.EXP_DISCARD)
        K.clear(s, S.EXP_DISCARD)
        shuffle_stack(G, S.EXP_DECK, ST_EXPLORATION)
    return K.pop(s, S.EXP_DECK)


@njit(cache=True)
def explore(G, seat):
    s, tab = G[0], G[1]
    purchases = 0
    taken = -1
    lev = s[S.LEVIATHAN] == 1
    while True:
        card = reveal(G)
        if card < 0:
            break
        K.push(s, S.TRACK, card)
        last = s[S.TRACK] >= tab[T.TRACK_LENGTH]
        if K.race(tab, card) == MONSTER and lev:
            if leviathan_monster(G, seat, card):
                break
            continue
        if K.race(tab, card) == MONSTER:
            if last:
                fight_monster(G, seat, True)
                break
            if choose_01(G, seat, P.D_FIGHT_MONSTER) == 1:
                fight_monster(G, seat, False)
                break
            s[S.THREAT] = min(s[S.THREAT] + 1, tab[T.N_THREAT_SPACES] - 1)
            continue
        if offer_to_opponents(G, seat, card, purchases + 1) >= 0:
            purchases += 1
            continue
        if last:
            taken = take_from_track(G, seat)
            gain_pearls(G, seat, 1)
            break
        if choose_01(G, seat, P.D_TAKE_ALLY) == 1:
            taken = take_from_track(G, seat)
            break
    end_exploration(G, seat, taken)


@njit(cache=True)
def offer_to_opponents(G, seat, card, cost):
    s = G[0]
    for i in range(1, s[S.N_PLAYERS]):
        q = K.opponent(s, seat, i)
        bq = K.pbase(q)
        if s[bq + S.P_BOUGHT] == 1 or s[bq + S.P_PEARLS] < cost:
            continue
        if choose_01(G, q, P.D_BUY) == 1:
            s[bq + S.P_PEARLS] -= cost
            s[K.pbase(seat) + S.P_PEARLS] += cost
            s[bq + S.P_BOUGHT] = 1
            K.pop(s, S.TRACK)
            K.push(s, bq + S.P_HAND, card)
            return q
    return -1


@njit(cache=True)
def take_from_track(G, seat):
    s = G[0]
    card = K.pop(s, S.TRACK)
    K.push(s, K.pbase(seat) + S.P_HAND, card)
    return card


@njit(cache=True)
def fight_monster(G, seat, bonus_pearl):
    s, tab, buf = G[0], G[1], G[6]
    space = s[S.THREAT]
    tamed = False
    for i in range(1, s[S.N_PLAYERS]):
        if K.has_power(s, tab, K.opponent(s, seat, i), PW_TAMER):
            tamed = True
    if tamed and not K.protected(s, tab, seat):
        space = max(0, space - 1)
    n_opts = tab[T.THREAT_N_OPTIONS + space]
    n = 0
    for k in range(n_opts):
        monsters = tab[T.THREAT_OPTIONS + (space * T.MAX_THREAT_OPTIONS + k) * 3 + 1]
        if monsters <= s[S.MONSTER_TOKENS]:
            buf[0, n] = k
            n += 1
    if n == 0:
        for k in range(n_opts):
            buf[0, k] = k
        n = n_opts
    s[S.PENDING_REWARD_SPACE] = space
    k = choose(G, seat, P.D_THREAT_REWARD, n)
    base = T.THREAT_OPTIONS + (space * T.MAX_THREAT_OPTIONS + k) * 3
    gain_pearls(G, seat, tab[base])
    for _ in range(tab[base + 1]):
        draw_monster_token(G, seat)
    gain_keys(G, seat, tab[base + 2])
    if bonus_pearl:
        gain_pearls(G, seat, 1)
    s[S.THREAT] = 0


@njit(cache=True)
def draw_monster_token(G, seat):
    s = G[0]
    if s[S.MONSTER_TOKENS] > 0:
        K.push(s, K.pbase(seat) + S.P_TOKENS, K.pop(s, S.MONSTER_TOKENS))


@njit(cache=True)
def end_exploration(G, seat, taken):
    s, tab = G[0], G[1]
    races = 0
    for i in range(s[S.TRACK]):
        r = K.race(tab, s[S.TRACK + 1 + i])
        if r != MONSTER:
            races |= 1 << r
    if races and K.has_power(s, tab, seat, PW_SHIP_MASTER):
        gain_pearls(G, seat, K.popcount(races))
    for i in range(s[S.TRACK]):
        card = s[S.TRACK + 1 + i]
        r = K.race(tab, card)
        if r == MONSTER:
            K.push(s, S.EXP_DISCARD, card)
        else:
            K.push(s, council_stack(r), card)
    K.clear(s, S.TRACK)


@njit(cache=True)
def request_support(G, seat):
    s, tab = G[0], G[1]
    n_stacks = 2 if K.has_power(s, tab, seat, PW_ALCHEMIST) else 1
    for _ in range(n_stacks):
        n = council_options(G)
        if n == 0:
            break
        take_council_stack(G, seat, choose(G, seat, P.D_COUNCIL_STACK, n))


@njit(cache=True)
def take_council_stack(G, seat, race):
    s = G[0]
    K.extend(s, K.pbase(seat) + S.P_HAND, council_stack(race))
    K.clear(s, council_stack(race))


# ------------------------------------------------------------------------------- recruit
@njit(cache=True)
def recruit(G, seat):
    s, tab, buf = G[0], G[1], G[6]
    b = K.pbase(seat)
    n = affordable_lords(G, seat, 0)
    lord = choose(G, seat, P.D_RECRUIT_LORD, n)
    cost = K.lord_cost(s, tab, seat, lord)
    n_races = tab[T.LORD_RACES + lord]
    required = K.required_race(s, tab, seat, lord)
    K.clear(s, S.PENDING_USED)
    s[S.PENDING_COST] = cost
    hand = b + S.P_HAND
    while True:
        pearls = s[b + S.P_PEARLS]
        n = 0
        if K.payment_complete(s, tab, S.PENDING_USED, pearls, cost, n_races, required):
            buf[0, 0] = DECLINE  # FINISH
            n = 1
        m = K.distinct_allies(s, tab, hand, buf[1], 0)
        for i in range(m):
            a = buf[1, i]
            if K.payment_feasible(s, tab, hand, S.PENDING_USED, a, pearls, cost, n_races, required):
                buf[0, n] = a
                n += 1
        ally = choose(G, seat, P.D_PAY_ALLY, n)
        if ally == DECLINE:
            break
        K.push(s, S.PENDING_USED, ally)
        K.remove(s, hand, ally)
    paid = 0
    for i in range(s[S.PENDING_USED]):
        paid += K.value(tab, s[S.PENDING_USED + 1 + i])
    pay_treasury(G, seat, max(0, cost - paid))
    affiliate(G, seat)
    K.remove(s, S.COURT, lord)
    gain_lord(G, seat, lord)
    refill_court(G, seat)


@njit(cache=True)
def affiliate(G, seat):
    s, tab, buf = G[0], G[1], G[6]
    used = S.PENDING_USED
    if s[used] == 0:
        return
    if K.has_power(s, tab, seat, PW_MASTER_OF_MAGIC):
        n = K.distinct_allies(s, tab, used, buf[0], 0)
    else:
        low = 1 << 20
        for i in range(s[used]):
            low = min(low, K.value(tab, s[used + 1 + i]))
        n = 0
        for i in range(s[used]):
            a = s[used + 1 + i]
            if K.value(tab, a) == low:
                n = K.add_distinct(tab, buf[0], 0, n, a)
        K.sort_range(buf[0], 0, n)
    keep = choose(G, seat, P.D_AFFILIATE, n)
    K.push(s, K.pbase(seat) + S.P_AFFILIATED, keep)
    for i in range(s[used]):
        a = s[used + 1 + i]
        if a != keep:
            K.push(s, S.EXP_DISCARD, a)


@njit(cache=True)
def gain_lord(G, seat, lord):
    """Take a Lord: its arrow power applies now; a 7th Lord triggers the end.

    The Corruptor, Traitor and Schemer bring in a second Lord whose power applies at once, so in
    the reference engine `gain_lord` recurses. numba cannot cache recursive functions (numba issue
    #6061: a segfault on the second run), so the recursion runs here on an explicit stack of
    steps in buf[4], popped in the order the recursive calls would run them.
    """
    s, work = G[0], G[6][4]
    work[0], work[1], work[2] = OP_GAIN, seat, lord
    top = 3
    while top > 0:
        top -= 3
        op, who, what = work[top], work[top + 1], work[top + 2]
        if op == OP_REFILL:
            refill_court(G, who)
        elif op == OP_CHECK_SEVENTH:
            if s[K.pbase(who) + S.P_LORDS] >= 7:
                trigger_end(G, S.END_SEVENTH_LORD)
        else:
            K.push(s, K.pbase(who) + S.P_LORDS, what)
            follow = apply_recruit_power(G, who, what)
            work[top], work[top + 1], work[top + 2] = OP_CHECK_SEVENTH, who, 0
            top += 3
            if follow >= 0:
                if follow & 1:
                    work[top], work[top + 1], work[top + 2] = OP_REFILL, who, 0
                    top += 3
                work[top], work[top + 1], work[top + 2] = OP_GAIN, who, follow >> 1
                top += 3


@njit(cache=True)
def refill_court(G, seat):
    s, tab = G[0], G[1]
    if s[S.COURT] > 2:
        return
    gain_pearls(G, seat, 2)
    while s[S.COURT] < tab[T.COURT_SIZE] and s[S.LORD_DECK] > 0:
        K.push(s, S.COURT, K.pop(s, S.LORD_DECK))
    if s[S.COURT] < tab[T.COURT_SIZE] and tab[T.COURT_END_BGA] == 0:
        trigger_end(G, S.END_COURT)


# ---------------------------------------------------------------------------- Lord powers
@njit(cache=True)
def military_targets(G, seat, out):
    """out[:n] = the opponents a Military power reaches (no working Shaman), clockwise."""
    s, tab = G[0], G[1]
    n = 0
    for i in range(1, s[S.N_PLAYERS]):
        q = K.opponent(s, seat, i)
        if not K.protected(s, tab, q):
            out[n] = q
            n += 1
    return n


@njit(cache=True)
def apply_recruit_power(G, seat, lord):
    """Powers with an arrow, applied on recruitment. Returns -1, or the Lord that the power brings
    in next as 2 * lord + (1 if the Court is refilled after it) (see `gain_lord`)."""
    s, tab, buf = G[0], G[1], G[6]
    power = K.lord_power(tab, lord)
    targets = buf[3]
    if power == PW_JAILER:
        for k in range(military_targets(G, seat, targets)):
            q = targets[k]
            if s[K.pbase(q) + S.P_HAND] > 0:
                choose_discard(G, q)
    elif power == PW_SEEKER:
        for k in range(military_targets(G, seat, targets)):
            pay_treasury(G, targets[k], 2)
    elif power == PW_ASSASSIN:
        for k in range(military_targets(G, seat, targets)):
            q = targets[k]
            off = K.pbase(q) + S.P_LORDS
            n = 0
            for i in range(s[off]):
                lord2 = s[off + 1 + i]
                if s[S.LORD_UNDER + lord2] == 0 and s[S.LORD_DISABLED + lord2] == 0:
                    buf[0, n] = lord2
                    n += 1
            if n > 0:
                s[S.LORD_DISABLED + choose(G, seat, P.D_ASSASSIN_TARGET, n)] = 1
    elif power == PW_COMMANDER:
        for k in range(military_targets(G, seat, targets)):
            discard_to_limit(G, targets[k], 6)
    elif power == PW_HUNTER:
        m = military_targets(G, seat, targets)
        n = 0
        for k in range(m):
            if s[K.pbase(targets[k]) + S.P_TOKENS] > 0:
                buf[0, n] = targets[k]
                n += 1
        if n > 0:
            q = choose(G, seat, P.D_TARGET_OPPONENT, n)
            off = K.pbase(q) + S.P_TOKENS
            token = K.pop_at(s, off, rand_below(G[4], G[5], ST_HUNTER, s[off]))
            K.push(s, K.pbase(seat) + S.P_TOKENS, token)
    elif power == PW_TRADER:
        gain_pearls(G, seat, 3)
    elif power == PW_PEDDLER:
        gain_pearls(G, seat, 2)
    elif power == PW_SHOPKEEPER:
        gain_pearls(G, seat, 1)
    elif power == PW_LANDLORD and tab[T.LANDLORD_PEARL] == 1:
        gain_pearls(G, seat, 1)
    elif power == PW_INVOKER:
        s[S.EXTRA_TURN] = 1
    elif power == PW_APPRENTICE:
        n = council_options(G)
        if n > 0:
            take_council_stack(G, seat, choose(G, seat, P.D_COUNCIL_STACK, n))
    elif power == PW_ILLUSIONIST:
        illusionist(G, seat)
    elif power == PW_CORRUPTOR:
        return corruptor(G, seat)
    elif power == PW_TRAITOR:
        return traitor(G, seat, lord)
    elif power == PW_SCHEMER:
        return schemer(G, seat, lord)
    elif (power == PW_HERMIT or power == PW_SAGE or power == PW_ELDER) and tab[
        T.AMBASSADOR_DRAW
    ] == 1:
        ambassador(G, seat, lord, 1 if power == PW_HERMIT else (2 if power == PW_SAGE else 3))
    elif s[S.LEVIATHAN] == 1:
        leviathan_lord_power(G, seat, power)
    return -1


@njit(cache=True)
def discard_to_limit(G, seat, limit):
    s = G[0]
    while s[K.pbase(seat) + S.P_HAND] > limit:
        choose_discard(G, seat)


@njit(cache=True)
def enforce_commander(G, seat):
    s, tab = G[0], G[1]
    if K.protected(s, tab, seat):
        return
    for i in range(1, s[S.N_PLAYERS]):
        if K.has_power(s, tab, K.opponent(s, seat, i), PW_COMMANDER):
            discard_to_limit(G, seat, 6)
            return


@njit(cache=True)
def illusionist(G, seat):
    s, buf = G[0], G[6]
    locs = K.pbase(seat) + S.P_LOCATIONS
    if s[locs] == 0 or s[S.LOC_AVAILABLE] == 0:
        return
    buf[0, 0] = DECLINE
    for i in range(s[locs]):
        buf[0, 1 + i] = s[locs + 1 + i]
    give = choose(G, seat, P.D_ILLUSIONIST_GIVE, 1 + s[locs])
    if give == DECLINE:
        return
    take = choose(G, seat, P.D_ILLUSIONIST_TAKE, options_from_stack(G, S.LOC_AVAILABLE))
    K.remove(s, S.LOC_AVAILABLE, take)
    K.push(s, S.LOC_AVAILABLE, give)
    s[locs + 1 + K.index_of(s, locs, give)] = take
    src = S.LOC_LORDS + give * S.LOC_LORDS_STRIDE
    dst = S.LOC_LORDS + take * S.LOC_LORDS_STRIDE
    for k in range(S.LOC_LORDS_STRIDE):
        s[dst + k] = s[src + k]
        s[src + k] = 0


@njit(cache=True)
def corruptor(G, seat):
    s, buf = G[0], G[6]
    if s[K.pbase(seat) + S.P_PEARLS] < 5 or s[S.COURT] == 0:
        return -1
    buf[0, 0] = DECLINE
    for i in range(s[S.COURT]):
        buf[0, 1 + i] = s[S.COURT + 1 + i]
    lord = choose(G, seat, P.D_COURT_LORD, 1 + s[S.COURT])
    if lord == DECLINE:
        return -1
    pay_treasury(G, seat, 5)
    K.remove(s, S.COURT, lord)
    return 2 * lord + 1  # gain it, then refill the Court


@njit(cache=True)
def own_lord_choice(G, seat, exclude):
    """OWN_LORD: DECLINE or another free Lord; -2 when there is no other free Lord."""
    buf = G[6]
    n = free_lords_options(G, seat, exclude)
    if n == 0:
        return -2
    for i in range(n, 0, -1):
        buf[0, i] = buf[0, i - 1]
    buf[0, 0] = DECLINE
    return choose(G, seat, P.D_OWN_LORD, n + 1)


@njit(cache=True)
def traitor(G, seat, traitor_lord):
    s = G[0]
    if s[S.COURT] == 0:
        return -1
    old = own_lord_choice(G, seat, traitor_lord)
    if old < 0:  # declined, or no other free Lord
        return -1
    new = choose(G, seat, P.D_COURT_LORD, options_from_stack(G, S.COURT))
    discard_lord(G, seat, old)
    K.remove(s, S.COURT, new)
    return 2 * new + 1  # gain it, then refill the Court


@njit(cache=True)
def schemer(G, seat, schemer_lord):
    s = G[0]
    if s[S.LORD_DECK] == 0:
        return -1
    old = own_lord_choice(G, seat, schemer_lord)
    if old < 0:  # declined, or no other free Lord
        return -1
    discard_lord(G, seat, old)
    return 2 * K.pop(s, S.LORD_DECK)  # gain the top Lord of the deck


@njit(cache=True)
def discard_lord(G, seat, lord):
    s = G[0]
    K.remove(s, K.pbase(seat) + S.P_LORDS, lord)
    s[S.LORD_DISABLED + lord] = 0
    K.push(s, S.LORD_DISCARD, lord)


@njit(cache=True)
def ambassador(G, seat, lord, n):
    s, buf = G[0], G[6]
    drawn = buf[1]
    m = min(n, s[S.LOC_DECK])
    for i in range(m):
        drawn[i] = K.pop(s, S.LOC_DECK)
    if m == 0:
        return
    keep = choose_drawn(G, seat, m)
    buf[2, 0] = lord
    place_location(G, seat, keep, 1)


@njit(cache=True)
def choose_drawn(G, seat, m):
    """LOCATION_KEEP among the m Locations in buf[1]; the others become available."""
    s, buf = G[0], G[6]
    for i in range(m):
        buf[0, i] = buf[1, i]
    keep = choose(G, seat, P.D_LOCATION_KEEP, m)
    removed = False
    for i in range(m):
        if buf[1, i] == keep and not removed:
            removed = True
        else:
            K.push(s, S.LOC_AVAILABLE, buf[1, i])
    return keep


# ------------------------------------------------------------------------- Locations
@njit(cache=True)
def control_locations(G, seat):
    s, tab = G[0], G[1]
    while K.n_keys(s, tab, seat) >= 3 and (s[S.LOC_DECK] > 0 or s[S.LOC_AVAILABLE] > 0):
        n_lords = spend_keys(G, seat)
        take_location(G, seat, n_lords)


@njit(cache=True)
def spend_keys(G, seat):
    """Choose three Keys; the Lords used go to buf[2] (their number is returned)."""
    s, tab, buf = G[0], G[1], G[6]
    b = K.pbase(seat)
    need, n_lords, tokens = 3, 0, 0
    off = b + S.P_LORDS
    while need > 0:
        n = 0
        if s[b + S.P_KEYS] - tokens > 0:
            buf[0, 0] = DECLINE  # KEY_TOKEN
            n = 1
        # Lords whose Keys overshoot what is still needed are offered only when nothing fits.
        any_fit = False
        for i in range(s[off]):
            lord = s[off + 1 + i]
            if key_lord_unused(G, lord, n_lords) and tab[T.LORD_KEYS + lord] <= need:
                any_fit = True
        add_all = not any_fit and n == 0
        for i in range(s[off]):
            lord = s[off + 1 + i]
            if key_lord_unused(G, lord, n_lords):
                if tab[T.LORD_KEYS + lord] <= need or add_all:
                    buf[0, n] = lord
                    n += 1
        source = choose(G, seat, P.D_KEY_SOURCE, n)
        if source == DECLINE:
            tokens += 1
            need -= 1
        else:
            buf[2, n_lords] = source
            n_lords += 1
            need -= tab[T.LORD_KEYS + source]
    s[b + S.P_KEYS] -= tokens
    s[S.KEY_PILE] += tokens
    return n_lords


@njit(cache=True)
def key_lord_unused(G, lord, n_lords):
    """A free, working Lord with Keys, not yet among the buf[2, :n_lords] spent."""
    s, tab, buf = G[0], G[1], G[6]
    if s[S.LORD_UNDER + lord] or s[S.LORD_DISABLED + lord] or tab[T.LORD_KEYS + lord] <= 0:
        return False
    for k in range(n_lords):
        if buf[2, k] == lord:
            return False
    return True


@njit(cache=True)
def take_location(G, seat, n_lords):
    s, buf = G[0], G[6]
    n = options_from_stack(G, S.LOC_AVAILABLE)
    for k in range(1, min(MAX_LOCATION_DRAW, s[S.LOC_DECK]) + 1):
        buf[0, n] = LOCATION_DRAW + k
        n += 1
    source = choose(G, seat, P.D_LOCATION_SOURCE, n)
    if source >= LOCATION_DRAW:
        m = source - LOCATION_DRAW
        for i in range(m):
            buf[1, i] = K.pop(s, S.LOC_DECK)
        location = choose_drawn(G, seat, m)
    else:
        location = source
        K.remove(s, S.LOC_AVAILABLE, location)
    place_location(G, seat, location, n_lords)


@njit(cache=True)
def place_location(G, seat, location, n_lords):
    """Take `location` with the Lords buf[2, :n_lords] slid under it."""
    s, tab, buf = G[0], G[1], G[6]
    if tab[T.LOC_RULE + location] == LR_BLACK_SMOKERS and s[S.LOC_DECK] > 0:
        buf[0, 0] = DECLINE
        n = 1
        for i in range(s[S.LOC_DECK]):
            buf[0, n] = s[S.LOC_DECK + 1 + i]
            n += 1
        K.sort_range(buf[0], 1, n)
        swap = choose(G, seat, P.D_BLACK_SMOKERS, n)
        if swap != DECLINE:
            K.remove(s, S.LOC_DECK, swap)
            K.push(s, S.LOC_DECK, location)
            shuffle_stack(G, S.LOC_DECK, ST_LOCATIONS)
            location = swap
    K.push(s, K.pbase(seat) + S.P_LOCATIONS, location)
    off = S.LOC_LORDS + location * S.LOC_LORDS_STRIDE
    K.clear(s, off)
    for i in range(n_lords):
        K.push(s, off, buf[2, i])
        s[S.LORD_UNDER + buf[2, i]] = 1


# ------------------------------------------------------------------------------- scoring
@njit(cache=True)
def final_affiliation(G):
    """The lowest Ally of each race left in hand is affiliated; the rest are discarded."""
    s, tab = G[0], G[1]
    for seat in range(s[S.N_PLAYERS]):
        b = K.pbase(seat)
        hand, aff = b + S.P_HAND, b + S.P_AFFILIATED
        for r in range(5):
            low = -1
            for i in range(s[hand]):
                a = s[hand + 1 + i]
                if K.race(tab, a) == r:
                    if low < 0 or K.value(tab, a) < K.value(tab, low):
                        low = a
                    elif K.value(tab, a) == K.value(tab, low) and a < low:
                        low = a
            if low >= 0:
                K.push(s, aff, low)
        for i in range(s[hand]):
            a = s[hand + 1 + i]
            if not K.contains(s, aff, a):
                K.push(s, S.EXP_DISCARD, a)
        K.clear(s, hand)


@njit(cache=True)
def location_score(s, tab, seat, loc):
    if tab[T.LOC_RULE + loc] == LR_CITY_OF_MIRRORS:
        best = 0
        for i in range(1, s[S.N_PLAYERS]):
            off = K.pbase(K.opponent(s, seat, i)) + S.P_LOCATIONS
            for k in range(s[off]):
                other = s[off + 1 + k]
                if tab[T.LOC_RULE + other] != LR_CITY_OF_MIRRORS:
                    best = max(best, K.location_formula(s, tab, seat, other))
        return best
    return K.location_formula(s, tab, seat, loc)


@njit(cache=True)
def score(s, tab, out_seats):
    """Scores by source, ranks and counts of every seat into out_seats[seat, R_*]."""
    n_players = s[S.N_PLAYERS]
    best_lord = np.zeros(S.MAX_PLAYERS, dtype=np.int64)
    for seat in range(n_players):
        b = K.pbase(seat)
        lords = 0
        off = b + S.P_LORDS
        for i in range(s[off]):
            ip = tab[T.LORD_IP + s[off + 1 + i]]
            lords += ip
            best_lord[seat] = max(best_lord[seat], ip)
        locations = 0
        off = b + S.P_LOCATIONS
        for i in range(s[off]):
            locations += location_score(s, tab, seat, s[off + 1 + i])
        allies = 0
        off = b + S.P_AFFILIATED
        for r in range(5):
            best = 0
            for i in range(s[off]):
                a = s[off + 1 + i]
                if K.race(tab, a) == r:
                    best = max(best, K.value(tab, a))
            allies += best
        monsters = 0
        off = b + S.P_TOKENS
        for i in range(s[off]):
            monsters += tab[T.MONSTER_TOKEN_IP + s[off + 1 + i]]
        wounds = -s[b + S.P_WOUNDS]
        scourge = 5 if s[S.LEVIATHAN] == 1 and s[S.SCOURGE] == seat else 0
        row = out_seats[seat]
        row[R_SCORE] = lords + locations + allies + monsters + wounds + scourge
        row[R_LORDS], row[R_LOCATIONS], row[R_ALLIES] = lords, locations, allies
        row[R_MONSTERS], row[R_WOUNDS_IP], row[R_SCOURGE] = monsters, wounds, scourge
        row[R_PEARLS], row[R_KEYS] = s[b + S.P_PEARLS], s[b + S.P_KEYS]
        row[R_N_LORDS], row[R_N_LOCATIONS] = s[b + S.P_LORDS], s[b + S.P_LOCATIONS]
        row[R_N_AFFILIATED], row[R_N_TOKENS] = s[b + S.P_AFFILIATED], s[b + S.P_TOKENS]
        row[R_KILLED], row[R_WOUNDS] = s[b + S.P_KILLED], s[b + S.P_WOUNDS]
    # Ties are broken by the most Pearls, then by the highest value Lord; still tied: same rank.
    for seat in range(n_players):
        rank = 1
        for other in range(n_players):
            if out_seats[other, R_SCORE] != out_seats[seat, R_SCORE]:
                better = out_seats[other, R_SCORE] > out_seats[seat, R_SCORE]
            elif out_seats[other, R_PEARLS] != out_seats[seat, R_PEARLS]:
                better = out_seats[other, R_PEARLS] > out_seats[seat, R_PEARLS]
            else:
                better = best_lord[other] > best_lord[seat]
            if better:
                rank += 1
        out_seats[seat, R_RANK] = rank


def game_results(s: np.ndarray) -> list[int]:
    """Per-game fields (RG_*) of a finished state, in Python (for tests and small runs)."""
    return [
        int(s[S.TURN]),
        int(s[S.END_REASON]),
        int(s[S.N_FIGHTS]),
        int(s[S.N_CONTINUES]),
        int(s[S.N_LEV_ATTACKS]),
        int(s[S.N_KILLS]),
    ]


# ------------------------------------------------------------------------------ Leviathan
@njit(cache=True)
def add_leviathan(G, seat):
    """A new Leviathan lands on the zone of a 2d6 roll; a resident attacks `seat` (-1: nobody)."""
    s, tab = G[0], G[1]
    if s[S.LEV_DECK] == 0:
        return
    new = K.pop(s, S.LEV_DECK)
    d1 = die(G)
    d2 = die(G)
    zone = tab[T.ZONE_OF_SUM + d1 + d2]
    resident = s[S.BORDER + zone]
    if resident >= 0:
        if seat >= 0:
            leviathan_attack(G, seat, resident)
        K.push(s, S.LEV_DISCARD, resident)
    s[S.BORDER + zone] = new
    s[S.LIFE + zone] = 0


@njit(cache=True)
def leviathan_attack(G, seat, leviathan):
    s, tab = G[0], G[1]
    b = K.pbase(seat)
    kind = tab[T.LEV_PENALTY + leviathan]
    n = tab[T.LEV_PENALTY_N + leviathan]
    s[S.N_LEV_ATTACKS] += 1
    if kind == PEN_WOUNDS:
        s[b + S.P_WOUNDS] += n
    elif kind == PEN_PEARLS:
        pay_treasury(G, seat, n)
    elif kind == PEN_ALLIES:
        hand = b + S.P_HAND
        if s[hand] <= n:
            while s[hand] > 0:
                discard_ally_from_hand(G, seat, s[hand + 1])
        else:
            for _ in range(n):
                choose_discard(G, seat)
    else:
        for _ in range(n):
            m = free_lords_options(G, seat, -1)
            if m == 0:
                break
            discard_lord(G, seat, choose(G, seat, P.D_LOSE_LORD, m))


@njit(cache=True)
def leviathan_monster(G, seat, card):
    """A Monster revealed while exploring; True when the exploration ends (a fight)."""
    s, tab, buf = G[0], G[1], G[6]
    K.remove(s, S.TRACK, card)
    K.push(s, S.EXP_DISCARD, card)
    reason = s[S.END_REASON]
    if reason == S.END_LEVIATHAN_DECK or reason == S.END_TOKENS:
        return False
    buf[0, 0] = P.M_CONTINUE
    n = 1
    if K.any_fightable(s, tab, seat):
        buf[0, n] = P.M_FIGHT
        n += 1
    if K.has_power(s, tab, seat, PW_COWARD):
        buf[0, n] = P.M_IGNORE
        n += 1
    choice = choose(G, seat, P.D_MONSTER_CHOICE, n)
    if choice == P.M_IGNORE:
        return False
    if choice == P.M_CONTINUE:
        s[S.N_CONTINUES] += 1
        add_leviathan(G, seat)
        return False
    s[S.N_FIGHTS] += 1
    fight(G, seat)
    return True


@njit(cache=True)
def fightable_options(G, seat):
    s, tab, buf = G[0], G[1], G[6]
    n = 0
    for z in range(tab[T.N_ZONES]):
        if K.fightable(s, tab, seat, z):
            buf[0, n] = z
            n += 1
    return n


@njit(cache=True)
def fight(G, seat):
    s, tab = G[0], G[1]
    max_kills = 2 if K.has_power(s, tab, seat, PW_INTREPID) else 1
    kills = 0
    while True:
        n = fightable_options(G, seat)
        if n == 0:
            return
        zone = choose(G, seat, P.D_LEVIATHAN_TARGET, n)
        if not fight_one(G, seat, zone):
            return
        kills += 1
        if kills >= max_kills or not K.any_fightable(s, tab, seat):
            return
        if choose_01(G, seat, P.D_FIGHT_ANOTHER) == 0:
            return


@njit(cache=True)
def fight_one(G, seat, zone):
    s, tab, buf = G[0], G[1], G[6]
    leviathan = s[S.BORDER + zone]
    s[S.FIGHT_ZONE] = zone
    killed = False
    while True:
        n = K.attack_allies(s, tab, seat, leviathan, buf[0], 0)
        ally = choose(G, seat, P.D_ATTACK_ALLY, n)
        if attack(G, seat, zone, ally):
            killed = True
            break
        if not K.has_attack_ally(s, tab, seat, leviathan):
            break
        if choose_01(G, seat, P.D_ATTACK_AGAIN) == 0:
            break
    s[S.FIGHT_ZONE] = -1
    return killed


@njit(cache=True)
def attack(G, seat, zone, ally):
    s, tab, buf = G[0], G[1], G[6]
    b = K.pbase(seat)
    leviathan = s[S.BORDER + zone]
    K.remove(s, b + S.P_HAND, ally)
    K.push(s, S.EXP_DISCARD, ally)
    effect = tab[T.ALLY_EFFECT + ally]
    roll = die(G)
    if effect == FX_TWO_DICE:
        roll = max(roll, die(G))
    power = roll + K.value(tab, ally)
    if effect == FX_ADD_PEARLS and s[b + S.P_PEARLS] > 0:
        s[S.PENDING_ZONE] = zone
        s[S.PENDING_POWER] = power
        n = s[b + S.P_PEARLS] + 1
        for i in range(n):
            buf[0, i] = i
        added = choose(G, seat, P.D_ADD_PEARLS, n)
        pay_treasury(G, seat, added)
        power += added
    removed = K.life_points_removed(tab, leviathan, s[S.LIFE + zone], power)
    if removed == 0:
        gain_pearls(G, seat, 1)
        return False
    return remove_life(G, seat, zone, removed)


@njit(cache=True)
def remove_life(G, seat, zone, n):
    s, tab = G[0], G[1]
    leviathan = s[S.BORDER + zone]
    for _ in range(n):
        space = s[S.LIFE + zone]
        n_tokens = tab[T.LEV_REWARD + leviathan * T.MAX_SPACES + space]
        if K.has_power(s, tab, seat, PW_ALTRUIST):
            n_tokens += 1
        if K.has_power(s, tab, seat, PW_TAXIDERMIST):
            gain_pearls(G, seat, 2)
        for _ in range(n_tokens):
            take_reward_token(G, seat)
        s[S.LIFE + zone] = space + 1
        if s[S.LIFE + zone] >= tab[T.LEV_N_SPACES + leviathan]:
            kill(G, seat, zone)
            return True
    return False


@njit(cache=True)
def kill(G, seat, zone):
    s, tab = G[0], G[1]
    leviathan = s[S.BORDER + zone]
    s[S.BORDER + zone] = -1
    killed = K.pbase(seat) + S.P_KILLED
    K.push(s, killed, leviathan)
    s[S.N_KILLS] += 1
    holder = s[S.SCOURGE]
    if holder < 0 or (holder != seat and s[killed] >= s[K.pbase(holder) + S.P_KILLED]):
        s[S.SCOURGE] = seat
    if K.border_count(s, tab) == 0:
        add_leviathan(G, -1)


@njit(cache=True)
def take_reward_token(G, seat):
    s, buf = G[0], G[6]
    n = 0
    if s[S.MONSTER_TOKENS] > 0:
        buf[0, n] = 0
        n += 1
    if s[S.LEV_TOKENS] > 0:
        buf[0, n] = 1
        n += 1
    if n == 0:
        return
    if choose(G, seat, P.D_TOKEN_DECK, n) == 0:
        draw_monster_token(G, seat)
        return
    held = K.pbase(seat) + S.P_HELD
    K.push(s, held, K.pop(s, S.LEV_TOKENS))
    buf[0, 0] = 0
    buf[0, 1] = s[held]
    if choose(G, seat, P.D_REVEAL_TOKEN, 2) != 0:
        reveal_token(G, seat, s[held] - 1)


@njit(cache=True)
def reveal_held_tokens(G, seat):
    s, buf = G[0], G[6]
    held = K.pbase(seat) + S.P_HELD
    while s[held] > 0:
        for i in range(s[held] + 1):
            buf[0, i] = i
        k = choose(G, seat, P.D_REVEAL_TOKEN, s[held] + 1)
        if k == 0:
            return
        reveal_token(G, seat, k - 1)


@njit(cache=True)
def reveal_token(G, seat, index):
    s, tab = G[0], G[1]
    token = K.pop_at(s, K.pbase(seat) + S.P_HELD, index)
    K.push(s, S.LEV_TOKEN_DISCARD, token)
    kind = tab[T.LEV_TOKEN_KIND + token]
    amount = tab[T.LEV_TOKEN_AMOUNT + token]
    if kind == TOK_PEARLS:
        gain_pearls(G, seat, amount)
    elif kind == TOK_KEY:
        gain_keys(G, seat, amount)
    else:
        for _ in range(amount):
            n = council_options(G)
            if n > 0:
                take_council_stack(G, seat, choose(G, seat, P.D_COUNCIL_STACK, n))


@njit(cache=True)
def martial_law(G, seat):
    s, tab, buf = G[0], G[1], G[6]
    b = K.pbase(seat)
    limit = tab[T.HAND_LIMIT]
    paid = 0
    while s[b + S.P_HAND] > limit + paid:
        buf[0, 0] = 0
        buf[0, 1] = 1
        n = 2 if s[b + S.P_PEARLS] > 0 else 1
        if choose(G, seat, P.D_MARTIAL_LAW, n) == 1:
            pay_treasury(G, seat, 1)
            paid += 1
        else:
            choose_discard(G, seat)


@njit(cache=True)
def leviathan_end_check(G):
    s, tab = G[0], G[1]
    if tab[T.LEV_END_TRIGGER] == 0:
        return
    if s[S.LEV_DECK] == 0:
        trigger_end(G, S.END_LEVIATHAN_DECK)
    elif s[S.MONSTER_TOKENS] == 0 or s[S.LEV_TOKENS] == 0:
        trigger_end(G, S.END_TOKENS)


@njit(cache=True)
def leviathan_lord_power(G, seat, power):
    s, tab, buf = G[0], G[1], G[6]
    if power == PW_BORDER_GUARD:
        n = military_targets(G, seat, buf[0])
        if n > 0:
            add_leviathan(G, choose(G, seat, P.D_TARGET_OPPONENT, n))
    elif power == PW_ARMS_DEALER:
        gain_pearls(G, seat, K.border_count(s, tab))
    elif power == PW_SORCERER:
        if K.any_fightable(s, tab, seat) and choose_01(G, seat, P.D_USE_POWER) == 1:
            s[S.N_FIGHTS] += 1
            fight(G, seat)
    elif power == PW_REBEL:
        n = 0
        for z in range(tab[T.N_ZONES]):
            if s[S.BORDER + z] >= 0:
                buf[0, n] = z
                n += 1
        if n > 0:
            remove_life(G, seat, choose(G, seat, P.D_LEVIATHAN_TARGET, n), 1)
    elif power == PW_BREEDER:
        n = 0
        for z in range(tab[T.N_ZONES]):
            if s[S.BORDER + z] < 0:
                buf[0, n] = z
                n += 1
        if n > 0 and s[S.LEV_DECK] > 0:
            zone = choose(G, seat, P.D_BORDER_ZONE, n)
            s[S.BORDER + zone] = K.pop(s, S.LEV_DECK)
            s[S.LIFE + zone] = 0


# ------------------------------------------------------------------------------ entry points
@njit(cache=True)
def new_game(G, seed, game, n_players):
    """Set up game `game` of seed `seed` in the arrays of G (state, streams, trace reset)."""
    s, tab, keys, counters, trace = G[0], G[1], G[4], G[5], G[7]
    s[:] = 0
    counters[:] = 0
    trace[0] = 0
    stream_keys(seed, game, keys)
    s[S.N_PLAYERS] = n_players
    s[S.LEVIATHAN] = tab[T.LEVIATHAN_ON]
    setup(G)


@njit(cache=True)
def load_state(G, state, counters, seed, game):
    """Put an encoded state (`sim.abyss.state.encode`) of game `game` of `seed` into G, to play on
    from there with `play`."""
    G[0][:] = state
    G[5][:] = counters
    G[7][0] = 0
    stream_keys(seed, game, G[4])


def make_arrays(tab: np.ndarray, kinds: np.ndarray, params: np.ndarray, trace_cap: int = 0):
    """A fresh G tuple for one game (trace_cap decisions recorded for parity tests)."""
    return (
        np.zeros(S.STATE_SIZE, dtype=np.int32),
        tab,
        kinds,
        params,
        np.zeros(N_STREAMS, dtype=np.uint64),
        np.zeros(N_STREAMS, dtype=np.int64),
        np.zeros((BUF_ROWS, BUF_WIDTH), dtype=np.int32),
        np.zeros(1 + 4 * trace_cap, dtype=np.int32),
    )


@njit(cache=True)
def record_results(G, out_seats, out_game):
    """Scores and counts of a finished game into out_seats[seat, R_*] and out_game[RG_*]."""
    s = G[0]
    score(s, G[1], out_seats)
    out_game[RG_TURNS] = s[S.TURN]
    out_game[RG_END] = s[S.END_REASON]
    out_game[RG_FIGHTS] = s[S.N_FIGHTS]
    out_game[RG_CONTINUES] = s[S.N_CONTINUES]
    out_game[RG_LEV_ATTACKS] = s[S.N_LEV_ATTACKS]
    out_game[RG_KILLS] = s[S.N_KILLS]


@njit(cache=True, parallel=True)
def play_chunk(
    tab,
    seed,
    first_game,
    n_players,
    lineup_kinds,
    lineup_params,
    rotate,
    out_seats,
    out_games,
    out_lineup,
):
    """Play games first_game .. first_game + len(out_games) - 1 on all threads.

    Seat s of game g plays line-up entry (s + g) mod n when rotating (as the reference runner);
    out_lineup[i, s] records which. The games are dealt to LANES lanes, each with its own game
    arrays reused game after game; a game depends only on (seed, game), never on its lane.
    """
    n_games = out_games.shape[0]
    n_lanes = min(LANES, n_games)
    for lane in prange(n_lanes):
        G = (
            np.zeros(S.STATE_SIZE, dtype=np.int32),
            tab.copy(),  # a lane's own copy: threads sharing one array contend on its refcount
            np.zeros(n_players, dtype=np.int64),
            np.zeros((n_players, lineup_params.shape[1]), dtype=np.float64),
            np.zeros(N_STREAMS, dtype=np.uint64),
            np.zeros(N_STREAMS, dtype=np.int64),
            np.zeros((BUF_ROWS, BUF_WIDTH), dtype=np.int32),
            np.zeros(1, dtype=np.int32),
        )
        for i in range(lane, n_games, n_lanes):
            game = np.int64(first_game + i)
            for seat in range(n_players):
                j = (seat + game) % n_players if rotate else seat
                out_lineup[i, seat] = j
                G[2][seat] = lineup_kinds[j]
                G[3][seat, :] = lineup_params[j, :]
            new_game(G, seed, game, n_players)
            play(G)
            record_results(G, out_seats[i], out_games[i])
