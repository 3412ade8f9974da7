"""The fast path: Abyss (and the Leviathan expansion) as @njit functions over the state vector.

Each function mirrors the method of the reference engine with the same name
(`sim.abyss.rules.Game` and its mixins) and performs the same steps in the
same order: the same cards move between the same stacks, the same random streams are drawn, and the
same decisions are asked with the same options in the same order. The parity tests hold it to that.
The rule texts are quoted in the reference engine; comments here only explain the mechanics.

Every function takes the game's workspace `s` (`sim.abyss.workspace`), one int32 array holding the
state (`sim.abyss.state`), the card tables (`sim.abyss.ktables`), scratch rows (W.OPT holds the
options of the decision being asked; W.ROW1-4 lists that live across a decision), each seat's
strategy, the random streams and, for parity tests, a trace of the decisions asked.
"""

from __future__ import annotations

import numpy as np

from sim.abyss import kcore as K
from sim.abyss import ktables as T
from sim.abyss import policies as P
from sim.abyss import state as S
from sim.abyss import workspace as W
from sim.abyss.constants import (
    MONSTER,
    AllyEffect,
    LeviathanToken,
    LocationRule,
    Penalty,
    Power,
    Race,
    Stream,
)
from sim.abyss.state import (  # noqa: F401  (result fields, re-exported)
    N_GAME_FIELDS,
    N_SEAT_FIELDS,
    R_ALLIES,
    R_KEYS,
    R_KILLED,
    R_LOCATION_SET,
    R_LOCATIONS,
    R_LORDS,
    R_LORDS_HI,
    R_LORDS_LO,
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
from sim.core.jit import borrow, njit, prange
from sim.core.rng import N_STREAMS, rand_below_in, stream_keys_in

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
LANES = 64  # independent game slots per chunk (a multiple of any thread count we meet)
OP_GAIN, OP_REFILL, OP_CHECK_SEVENTH = 0, 1, 2  # steps of gain_lord's explicit stack


# ----------------------------------------------------------------------------- helpers
@njit(cache=True, inline="always")
def choose(s, seat, decision, n):
    """Ask the seat's policy among the n options at s[W.OPT:]; a single option is not asked.

    (Inlined; the arguments are cast so that `ask` compiles once, whatever integer types and
    literals the call sites use.)"""
    return ask(s, np.int64(seat), np.int64(decision), np.int64(n))


@njit(cache=True)
def ask(s, seat, decision, n):
    if n == 1:
        return s[W.OPT]
    option = P.choose(s, seat, decision, n)
    k = s[W.TRACE]
    at = W.TRACE + 1 + 4 * k
    if at + 4 <= s.shape[0]:
        s[at] = seat
        s[at + 1] = decision
        s[at + 2] = option
        s[at + 3] = n
    s[W.TRACE] = k + 1
    return option


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


@njit(cache=True, inline="always")
def draw(s, stream, n):
    """A uniform integer in [0, n) from one of the game's random streams."""
    return rand_below_in(s, W.RNG_KEYS, W.RNG_COUNTERS, np.int64(stream), np.int64(n))


@njit(cache=True, inline="always")
def die(s):
    return 1 + draw(s, ST_DICE, 6)


@njit(cache=True, inline="always")
def shuffle_stack(s, off, stream):
    # inlined: casts the arguments so that the body compiles once
    return _shuffle_stack(s, np.int64(off), np.int64(stream))


@njit(cache=True)
def _shuffle_stack(s, off, stream):
    """Fisher-Yates shuffle of a stack, as `sim.core.rng.shuffle` does to an array."""
    n = s[off]
    for i in range(n - 1, 0, -1):
        j = draw(s, stream, i + 1)
        t = s[off + 1 + i]
        s[off + 1 + i] = s[off + 1 + j]
        s[off + 1 + j] = t


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


@njit(cache=True, inline="always")
def discard_ally_from_hand(s, seat, ally):
    # inlined: casts the arguments so that the body compiles once
    return _discard_ally_from_hand(s, np.int64(seat), np.int64(ally))


@njit(cache=True)
def _discard_ally_from_hand(s, seat, ally):
    K.remove(s, K.pbase(seat) + S.P_HAND, ally)
    K.push(s, S.EXP_DISCARD, ally)


@njit(cache=True, inline="always")
def choose_discard(s, seat):
    # inlined: casts the arguments so that the body compiles once
    return _choose_discard(s, np.int64(seat))


@njit(cache=True)
def _choose_discard(s, seat):
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


@njit(cache=True, inline="always")
def free_lords_options(s, seat, exclude):
    # inlined: casts the arguments so that the body compiles once
    return _free_lords_options(s, np.int64(seat), np.int64(exclude))


@njit(cache=True)
def _free_lords_options(s, seat, exclude):
    """W.OPT = the seat's free Lords (not under a Location) other than `exclude`, in order."""
    off = K.pbase(seat) + S.P_LORDS
    n = 0
    for i in range(s[off]):
        lord = s[off + 1 + i]
        if s[S.LORD_UNDER + lord] == 0 and lord != exclude:
            s[W.OPT + n] = lord
            n += 1
    return n


# ------------------------------------------------------------------------------ set-up
@njit(cache=True)
def setup(s):
    """`Game._setup` for a zeroed state with N_PLAYERS and LEVIATHAN set."""
    n_players = s[S.N_PLAYERS]
    lev = s[S.LEVIATHAN] == 1
    for i in range(s[T.N_LOCATIONS]):
        K.push(s, S.LOC_DECK, i)
    shuffle_stack(s, S.LOC_DECK, ST_LOCATIONS)
    K.push(s, S.LOC_AVAILABLE, K.pop(s, S.LOC_DECK))
    crabs = np.empty(S.MAX_PLAYERS, dtype=np.int32)
    n_crabs = starting_crabs(s, crabs) if lev else 0
    for a in range(s[T.N_ALLIES]):
        dealt = False
        for k in range(n_crabs):
            if crabs[k] == a:
                dealt = True
        if not dealt:
            K.push(s, S.EXP_DECK, a)
    shuffle_stack(s, S.EXP_DECK, ST_EXPLORATION)
    for i in range(s[T.N_LORDS]):
        K.push(s, S.LORD_DECK, i)
    shuffle_stack(s, S.LORD_DECK, ST_LORDS)
    for _ in range(s[T.COURT_SIZE]):
        K.push(s, S.COURT, K.pop(s, S.LORD_DECK))
    for i in range(s[T.N_MONSTER_TOKENS]):
        K.push(s, S.MONSTER_TOKENS, i)
    shuffle_stack(s, S.MONSTER_TOKENS, ST_MONSTERS)
    s[S.KEY_PILE] = s[T.N_KEYS]
    s[S.THREAT] = 0
    s[S.SCOURGE] = -1
    s[S.FIGHT_ZONE] = -1
    for z in range(S.MAX_ZONES):
        s[S.BORDER + z] = -1
    for seat in range(n_players):
        s[K.pbase(seat) + S.P_PEARLS] = s[T.STARTING_PEARLS]
    if lev:
        for seat in range(n_players):
            K.push(s, K.pbase(seat) + S.P_HAND, crabs[seat])
        setup_leviathan(s)


@njit(cache=True)
def starting_crabs(s, crabs):
    """The plain Crab 1s by (expansion, id): one per player."""
    n = 0
    for expansion in range(2):
        for a in range(s[T.N_ALLIES]):
            if (
                s[T.ALLY_RACE + a] == RACE_CRAB
                and s[T.ALLY_VALUE + a] == 1
                and s[T.ALLY_EFFECT + a] == FX_NONE
                and s[T.ALLY_EXPANSION + a] == expansion
                and n < s[S.N_PLAYERS]
            ):
                crabs[n] = a
                n += 1
    return n


@njit(cache=True)
def setup_leviathan(s):
    for i in range(s[T.N_LEVIATHANS]):
        K.push(s, S.LEV_DECK, i)
    shuffle_stack(s, S.LEV_DECK, ST_LEV_DECK)
    for i in range(s[T.N_LEV_TOKENS]):
        K.push(s, S.LEV_TOKENS, i)
    shuffle_stack(s, S.LEV_TOKENS, ST_LEV_TOKENS)
    s[S.SCOURGE] = -1
    add_leviathan(s, -1)


# ------------------------------------------------------------------------------ game flow
@njit(cache=True)
def play(s):
    """Play turns until the end (resumes from NEXT_SEAT / FINAL_TURNS), then the final tally."""
    n_players = s[S.N_PLAYERS]
    while True:
        seat = s[S.NEXT_SEAT]
        if s[S.TURN] >= s[T.TURN_LIMIT]:
            s[S.END_REASON] = S.END_TURN_LIMIT
            break
        take_turn(s, seat)
        if s[W.TRAJ_ON] == 1:
            record_round(s, seat)
        if s[S.EXTRA_TURN] == 1:
            s[S.EXTRA_TURN] = 0
            if s[S.END_REASON] == S.END_NONE or s[T.LAST_ROUND_EXTRA_TURN] == 1:
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
    final_affiliation(s)


@njit(cache=True)
def record_round(s, seat):
    """The seat's running IP, Pearls and Keys after its turn, in its round's slot of W.TRAJ (a
    round: one turn per player, counted from the turn number)."""
    r = (s[S.TURN] - 1) // s[S.N_PLAYERS]
    if r >= W.MAX_ROUNDS:
        return
    row = s[W.SCORE_ROW : W.SCORE_ROW + N_SEAT_FIELDS]
    seat_score(s, seat, row)
    at = W.TRAJ + (r * S.MAX_PLAYERS + seat) * 3
    s[at] = row[R_SCORE]
    s[at + 1] = s[K.pbase(seat) + S.P_PEARLS]
    s[at + 2] = K.n_keys(s, seat)


@njit(cache=True)
def take_turn(s, seat):
    b = K.pbase(seat)
    s[S.TURN] += 1
    s[S.ACTIVE] = seat
    s[b + S.P_USED_POWERS] = 0
    for q in range(s[S.N_PLAYERS]):
        s[K.pbase(q) + S.P_BOUGHT] = 0
    for _ in range(K.working(s, seat, K.C_LANDLORD)):
        gain_pearls(s, seat, 1)
    lev = s[S.LEVIATHAN] == 1
    if lev:
        reveal_held_tokens(s, seat)
    plot_at_court(s, seat)
    use_once_per_turn_powers(s, seat)
    kills = s[S.N_KILLS]
    take_action(s, seat)
    control_locations(s, seat)
    if s[S.N_KILLS] == kills or s[T.POWERS_AFTER_KILL] == 1:
        use_once_per_turn_powers(s, seat)
    enforce_commander(s, seat)
    if lev:
        martial_law(s, seat)
        leviathan_end_check(s)
    if s[T.COURT_END_BGA] == 1 and s[S.END_REASON] == S.END_NONE:
        if s[S.LORD_DECK] == 0 and s[S.COURT] < s[T.COURT_SIZE]:
            trigger_end(s, S.END_COURT)


@njit(cache=True)
def can_plot(s, seat):
    return (
        s[K.pbase(seat) + S.P_PEARLS] >= 1 and s[S.COURT] < s[T.COURT_SIZE] and s[S.LORD_DECK] > 0
    )


@njit(cache=True)
def plot_at_court(s, seat):
    while can_plot(s, seat) and choose_01(s, seat, P.D_PLOT) == 1:
        pay_treasury(s, seat, 1)
        K.push(s, S.COURT, K.pop(s, S.LORD_DECK))


@njit(cache=True)
def once_per_turn_options(s, seat):
    """W.OPT = [0, usable once-per-turn powers...]; returns the count (1 = none)."""
    used = s[K.pbase(seat) + S.P_USED_POWERS]
    s[W.OPT + 0] = 0
    n = 1
    held = once_per_turn_held(s, seat)
    for k in range(3):
        power = PW_SLAVER if k == 0 else (PW_ORACLE if k == 1 else PW_OPPORTUNIST)
        if (used >> k) & 1 or not (held >> k) & 1:
            continue
        if power == PW_SLAVER and s[K.pbase(seat) + S.P_HAND] == 0:
            continue
        if power == PW_ORACLE and not K.council_any(s):
            continue
        if power == PW_OPPORTUNIST and not (s[S.COURT] > 0 and s[S.LORD_DECK] > 0):
            continue
        s[W.OPT + n] = power
        n += 1
    return n


@njit(cache=True, inline="always")
def once_per_turn_held(s, seat):
    """Bit k set: the seat has the working once-per-turn power k (Slaver, Oracle, Opportunist)."""
    held = 1 if K.working(s, seat, K.C_SLAVER) > 0 else 0
    if K.working(s, seat, K.C_ORACLE) > 0:
        held |= 2
    if K.working(s, seat, K.C_OPPORTUNIST) > 0:
        held |= 4
    return held


@njit(cache=True)
def use_once_per_turn_powers(s, seat):
    b = K.pbase(seat)
    while True:
        n = once_per_turn_options(s, seat)
        if n == 1:
            return
        power = choose(s, seat, P.D_POWER, n)
        if power == 0:
            return
        k = 0 if power == PW_SLAVER else (1 if power == PW_ORACLE else 2)
        s[b + S.P_USED_POWERS] |= 1 << k
        if power == PW_SLAVER:
            choose_discard(s, seat)
            gain_pearls(s, seat, 2)
        elif power == PW_ORACLE:
            n = council_options(s)
            race = choose(s, seat, P.D_COUNCIL_DISCARD, n)
            K.extend(s, S.EXP_DISCARD, council_stack(race))
            K.clear(s, council_stack(race))
        else:
            n = options_from_stack(s, S.COURT)
            lord = choose(s, seat, P.D_COURT_LORD, n)
            i = K.index_of(s, S.COURT, lord)
            s[S.COURT + 1 + i] = K.pop(s, S.LORD_DECK)
            K.push(s, S.LORD_DISCARD, lord)


# ------------------------------------------------------------------------------- actions
@njit(cache=True)
def take_action(s, seat):
    n = 0
    if s[S.EXP_DECK] > 0 or s[S.EXP_DISCARD] > 0:
        s[W.OPT + n] = P.A_EXPLORE
        n += 1
    if K.council_any(s):
        s[W.OPT + n] = P.A_REQUEST_SUPPORT
        n += 1
    n_affordable = K.affordable_lords(s, seat, W.ROW1)
    if n_affordable > 0:
        s[W.OPT + n] = P.A_RECRUIT
        n += 1
    if n == 0:
        return
    action = choose(s, seat, P.D_ACTION, n)
    if action == P.A_EXPLORE:
        explore(s, seat)
    elif action == P.A_REQUEST_SUPPORT:
        request_support(s, seat)
    else:
        recruit(s, seat, n_affordable)


@njit(cache=True)
def reveal(s):
    """The top Exploration card (-1 if none); an empty deck is the reshuffled discard pile."""
    if s[S.EXP_DECK] == 0:
        if s[S.EXP_DISCARD] == 0:
            return -1
        K.extend(s, S.EXP_DECK, S.EXP_DISCARD)
        K.clear(s, S.EXP_DISCARD)
        shuffle_stack(s, S.EXP_DECK, ST_EXPLORATION)
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
            if leviathan_monster(s, seat, card):
                break
            continue
        if K.race(s, card) == MONSTER:
            if last:
                fight_monster(s, seat, True)
                break
            if choose_01(s, seat, P.D_FIGHT_MONSTER) == 1:
                fight_monster(s, seat, False)
                break
            s[S.THREAT] = min(s[S.THREAT] + 1, s[T.N_THREAT_SPACES] - 1)
            continue
        if offer_to_opponents(s, seat, card, purchases + 1) >= 0:
            purchases += 1
            continue
        if last:
            taken = take_from_track(s, seat)
            gain_pearls(s, seat, 1)
            break
        if choose_01(s, seat, P.D_TAKE_ALLY) == 1:
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
        if choose_01(s, q, P.D_BUY) == 1:
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


@njit(cache=True, inline="always")
def fight_monster(s, seat, bonus_pearl):
    # inlined: casts the arguments so that the body compiles once
    return _fight_monster(s, np.int64(seat), np.int64(bonus_pearl))


@njit(cache=True)
def _fight_monster(s, seat, bonus_pearl):
    space = s[S.THREAT]
    tamed = False
    for i in range(1, s[S.N_PLAYERS]):
        if K.has_power(s, K.opponent(s, seat, i), PW_TAMER):
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
    k = choose(s, seat, P.D_THREAT_REWARD, n)
    base = T.THREAT_OPTIONS + (space * T.MAX_THREAT_OPTIONS + k) * 3
    gain_pearls(s, seat, s[base])
    for _ in range(s[base + 1]):
        draw_monster_token(s, seat)
    gain_keys(s, seat, s[base + 2])
    if bonus_pearl:
        gain_pearls(s, seat, 1)
    s[S.THREAT] = 0


@njit(cache=True)
def draw_monster_token(s, seat):
    if s[S.MONSTER_TOKENS] > 0:
        K.push(s, K.pbase(seat) + S.P_TOKENS, K.pop(s, S.MONSTER_TOKENS))


@njit(cache=True)
def end_exploration(s, seat, taken):
    races = 0
    for i in range(s[S.TRACK]):
        r = K.race(s, s[S.TRACK + 1 + i])
        if r != MONSTER:
            races |= 1 << r
    if races and K.has_power(s, seat, PW_SHIP_MASTER):
        gain_pearls(s, seat, K.popcount(races))
    for i in range(s[S.TRACK]):
        card = s[S.TRACK + 1 + i]
        r = K.race(s, card)
        if r == MONSTER:
            K.push(s, S.EXP_DISCARD, card)
        else:
            K.push(s, council_stack(r), card)
    K.clear(s, S.TRACK)


@njit(cache=True)
def request_support(s, seat):
    n_stacks = 2 if K.has_power(s, seat, PW_ALCHEMIST) else 1
    for _ in range(n_stacks):
        n = council_options(s)
        if n == 0:
            break
        take_council_stack(s, seat, choose(s, seat, P.D_COUNCIL_STACK, n))


@njit(cache=True)
def take_council_stack(s, seat, race):
    K.extend(s, K.pbase(seat) + S.P_HAND, council_stack(race))
    K.clear(s, council_stack(race))


# ------------------------------------------------------------------------------- recruit
@njit(cache=True)
def recruit(s, seat, n_affordable):
    """Recruit one of the n_affordable Lords listed in W.ROW1 by `take_action`."""
    b = K.pbase(seat)
    for i in range(n_affordable):
        s[W.OPT + i] = s[W.ROW1 + i]
    lord = choose(s, seat, P.D_RECRUIT_LORD, n_affordable)
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
            s[W.OPT + 0] = DECLINE  # FINISH
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
        ally = choose(s, seat, P.D_PAY_ALLY, n)
        if ally == DECLINE:
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
    pay_treasury(s, seat, max(0, cost - paid))
    affiliate(s, seat)
    K.remove(s, S.COURT, lord)
    gain_lord(s, seat, lord)
    refill_court(s, seat)


@njit(cache=True)
def affiliate(s, seat):
    used = S.PENDING_USED
    if s[used] == 0:
        return
    if K.has_power(s, seat, PW_MASTER_OF_MAGIC):
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
    keep = choose(s, seat, P.D_AFFILIATE, n)
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
                trigger_end(s, S.END_SEVENTH_LORD)
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
    gain_pearls(s, seat, 2)
    while s[S.COURT] < s[T.COURT_SIZE] and s[S.LORD_DECK] > 0:
        K.push(s, S.COURT, K.pop(s, S.LORD_DECK))
    if s[S.COURT] < s[T.COURT_SIZE] and s[T.COURT_END_BGA] == 0:
        trigger_end(s, S.END_COURT)


# ---------------------------------------------------------------------------- Lord powers
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


@njit(cache=True)
def apply_recruit_power(s, seat, lord):
    """Powers with an arrow, applied on recruitment. Returns -1, or the Lord that the power brings
    in next as 2 * lord + (1 if the Court is refilled after it) (see `gain_lord`)."""
    power = K.lord_power(s, lord)
    targets = W.ROW3
    if power == PW_JAILER:
        for k in range(military_targets(s, seat, targets)):
            q = s[targets + k]
            if s[K.pbase(q) + S.P_HAND] > 0:
                choose_discard(s, q)
    elif power == PW_SEEKER:
        for k in range(military_targets(s, seat, targets)):
            pay_treasury(s, s[targets + k], 2)
    elif power == PW_ASSASSIN:
        for k in range(military_targets(s, seat, targets)):
            q = s[targets + k]
            off = K.pbase(q) + S.P_LORDS
            n = 0
            for i in range(s[off]):
                lord2 = s[off + 1 + i]
                if s[S.LORD_UNDER + lord2] == 0 and s[S.LORD_DISABLED + lord2] == 0:
                    s[W.OPT + n] = lord2
                    n += 1
            if n > 0:
                s[S.LORD_DISABLED + choose(s, seat, P.D_ASSASSIN_TARGET, n)] = 1
                K.refresh_all_powers(s)
    elif power == PW_COMMANDER:
        for k in range(military_targets(s, seat, targets)):
            discard_to_limit(s, s[targets + k], 6)
    elif power == PW_HUNTER:
        m = military_targets(s, seat, targets)
        n = 0
        for k in range(m):
            if s[K.pbase(s[targets + k]) + S.P_TOKENS] > 0:
                s[W.OPT + n] = s[targets + k]
                n += 1
        if n > 0:
            q = choose(s, seat, P.D_TARGET_OPPONENT, n)
            off = K.pbase(q) + S.P_TOKENS
            token = K.pop_at(s, off, draw(s, ST_HUNTER, s[off]))
            K.push(s, K.pbase(seat) + S.P_TOKENS, token)
    elif power == PW_TRADER:
        gain_pearls(s, seat, 3)
    elif power == PW_PEDDLER:
        gain_pearls(s, seat, 2)
    elif power == PW_SHOPKEEPER:
        gain_pearls(s, seat, 1)
    elif power == PW_LANDLORD and s[T.LANDLORD_PEARL] == 1:
        gain_pearls(s, seat, 1)
    elif power == PW_INVOKER:
        s[S.EXTRA_TURN] = 1
    elif power == PW_APPRENTICE:
        n = council_options(s)
        if n > 0:
            take_council_stack(s, seat, choose(s, seat, P.D_COUNCIL_STACK, n))
    elif power == PW_ILLUSIONIST:
        illusionist(s, seat)
    elif power == PW_CORRUPTOR:
        return corruptor(s, seat)
    elif power == PW_TRAITOR:
        return traitor(s, seat, lord)
    elif power == PW_SCHEMER:
        return schemer(s, seat, lord)
    elif (power == PW_HERMIT or power == PW_SAGE or power == PW_ELDER) and s[
        T.AMBASSADOR_DRAW
    ] == 1:
        ambassador(s, seat, lord, 1 if power == PW_HERMIT else (2 if power == PW_SAGE else 3))
    elif s[S.LEVIATHAN] == 1:
        leviathan_lord_power(s, seat, power)
    return -1


@njit(cache=True)
def discard_to_limit(s, seat, limit):
    while s[K.pbase(seat) + S.P_HAND] > limit:
        choose_discard(s, seat)


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
    s[W.OPT + 0] = DECLINE
    for i in range(s[locs]):
        s[W.OPT + 1 + i] = s[locs + 1 + i]
    give = choose(s, seat, P.D_ILLUSIONIST_GIVE, 1 + s[locs])
    if give == DECLINE:
        return
    take = choose(s, seat, P.D_ILLUSIONIST_TAKE, options_from_stack(s, S.LOC_AVAILABLE))
    K.remove(s, S.LOC_AVAILABLE, take)
    K.push(s, S.LOC_AVAILABLE, give)
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
    s[W.OPT + 0] = DECLINE
    for i in range(s[S.COURT]):
        s[W.OPT + 1 + i] = s[S.COURT + 1 + i]
    lord = choose(s, seat, P.D_COURT_LORD, 1 + s[S.COURT])
    if lord == DECLINE:
        return -1
    pay_treasury(s, seat, 5)
    K.remove(s, S.COURT, lord)
    return 2 * lord + 1  # gain it, then refill the Court


@njit(cache=True)
def own_lord_choice(s, seat, exclude):
    """OWN_LORD: DECLINE or another free Lord; -2 when there is no other free Lord."""
    n = free_lords_options(s, seat, exclude)
    if n == 0:
        return -2
    for i in range(n, 0, -1):
        s[W.OPT + i] = s[W.OPT + i - 1]
    s[W.OPT + 0] = DECLINE
    return choose(s, seat, P.D_OWN_LORD, n + 1)


@njit(cache=True)
def traitor(s, seat, traitor_lord):
    if s[S.COURT] == 0:
        return -1
    old = own_lord_choice(s, seat, traitor_lord)
    if old < 0:  # declined, or no other free Lord
        return -1
    new = choose(s, seat, P.D_COURT_LORD, options_from_stack(s, S.COURT))
    discard_lord(s, seat, old)
    K.remove(s, S.COURT, new)
    return 2 * new + 1  # gain it, then refill the Court


@njit(cache=True)
def schemer(s, seat, schemer_lord):
    if s[S.LORD_DECK] == 0:
        return -1
    old = own_lord_choice(s, seat, schemer_lord)
    if old < 0:  # declined, or no other free Lord
        return -1
    discard_lord(s, seat, old)
    return 2 * K.pop(s, S.LORD_DECK)  # gain the top Lord of the deck


@njit(cache=True, inline="always")
def discard_lord(s, seat, lord):
    # inlined: casts the arguments so that the body compiles once
    return _discard_lord(s, np.int64(seat), np.int64(lord))


@njit(cache=True)
def _discard_lord(s, seat, lord):
    K.remove(s, K.pbase(seat) + S.P_LORDS, lord)
    s[S.LORD_DISABLED + lord] = 0
    K.push(s, S.LORD_DISCARD, lord)
    K.refresh_powers(s, seat)


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


@njit(cache=True)
def choose_drawn(s, seat, m):
    """LOCATION_KEEP among the m Locations in W.ROW1; the others become available."""
    for i in range(m):
        s[W.OPT + i] = s[W.ROW1 + i]
    keep = choose(s, seat, P.D_LOCATION_KEEP, m)
    removed = False
    for i in range(m):
        if s[W.ROW1 + i] == keep and not removed:
            removed = True
        else:
            K.push(s, S.LOC_AVAILABLE, s[W.ROW1 + i])
    return keep


# ------------------------------------------------------------------------- Locations
@njit(cache=True)
def control_locations(s, seat):
    while K.n_keys(s, seat) >= 3 and (s[S.LOC_DECK] > 0 or s[S.LOC_AVAILABLE] > 0):
        n_lords = spend_keys(s, seat)
        take_location(s, seat, n_lords)


@njit(cache=True)
def spend_keys(s, seat):
    """Choose three Keys; the Lords used go to W.ROW2 (their number is returned)."""
    b = K.pbase(seat)
    need, n_lords, tokens = 3, 0, 0
    off = b + S.P_LORDS
    while need > 0:
        n = 0
        if s[b + S.P_KEYS] - tokens > 0:
            s[W.OPT + 0] = DECLINE  # KEY_TOKEN
            n = 1
        # Lords whose Keys overshoot what is still needed are offered only when nothing fits.
        any_fit = False
        for i in range(s[off]):
            lord = s[off + 1 + i]
            if key_lord_unused(s, lord, n_lords) and s[T.LORD_KEYS + lord] <= need:
                any_fit = True
        add_all = not any_fit and n == 0
        for i in range(s[off]):
            lord = s[off + 1 + i]
            if key_lord_unused(s, lord, n_lords):
                if s[T.LORD_KEYS + lord] <= need or add_all:
                    s[W.OPT + n] = lord
                    n += 1
        source = choose(s, seat, P.D_KEY_SOURCE, n)
        if source == DECLINE:
            tokens += 1
            need -= 1
        else:
            s[W.ROW2 + n_lords] = source
            n_lords += 1
            need -= s[T.LORD_KEYS + source]
    s[b + S.P_KEYS] -= tokens
    s[S.KEY_PILE] += tokens
    return n_lords


@njit(cache=True, inline="always")
def key_lord_unused(s, lord, n_lords):
    # inlined: casts the arguments so that the body compiles once
    return _key_lord_unused(s, np.int64(lord), np.int64(n_lords))


@njit(cache=True)
def _key_lord_unused(s, lord, n_lords):
    """A free, working Lord with Keys, not yet among the s[W.ROW2 + :n_lords] spent."""
    if s[S.LORD_UNDER + lord] or s[S.LORD_DISABLED + lord] or s[T.LORD_KEYS + lord] <= 0:
        return False
    for k in range(n_lords):
        if s[W.ROW2 + k] == lord:
            return False
    return True


@njit(cache=True)
def take_location(s, seat, n_lords):
    n = options_from_stack(s, S.LOC_AVAILABLE)
    for k in range(1, min(MAX_LOCATION_DRAW, s[S.LOC_DECK]) + 1):
        s[W.OPT + n] = LOCATION_DRAW + k
        n += 1
    source = choose(s, seat, P.D_LOCATION_SOURCE, n)
    if source >= LOCATION_DRAW:
        m = source - LOCATION_DRAW
        for i in range(m):
            s[W.ROW1 + i] = K.pop(s, S.LOC_DECK)
        location = choose_drawn(s, seat, m)
    else:
        location = source
        K.remove(s, S.LOC_AVAILABLE, location)
    place_location(s, seat, location, n_lords)


@njit(cache=True, inline="always")
def place_location(s, seat, location, n_lords):
    # inlined: casts the arguments so that the body compiles once
    return _place_location(s, np.int64(seat), np.int64(location), np.int64(n_lords))


@njit(cache=True)
def _place_location(s, seat, location, n_lords):
    """Take `location` with the Lords s[W.ROW2 + :n_lords] slid under it."""
    if s[T.LOC_RULE + location] == LR_BLACK_SMOKERS and s[S.LOC_DECK] > 0:
        s[W.OPT + 0] = DECLINE
        n = 1
        for i in range(s[S.LOC_DECK]):
            s[W.OPT + n] = s[S.LOC_DECK + 1 + i]
            n += 1
        K.sort_range(s, W.OPT + 1, W.OPT + n)
        swap = choose(s, seat, P.D_BLACK_SMOKERS, n)
        if swap != DECLINE:
            K.remove(s, S.LOC_DECK, swap)
            K.push(s, S.LOC_DECK, location)
            shuffle_stack(s, S.LOC_DECK, ST_LOCATIONS)
            location = swap
    K.push(s, K.pbase(seat) + S.P_LOCATIONS, location)
    off = S.LOC_LORDS + location * S.LOC_LORDS_STRIDE
    K.clear(s, off)
    for i in range(n_lords):
        K.push(s, off, s[W.ROW2 + i])
        s[S.LORD_UNDER + s[W.ROW2 + i]] = 1
    K.refresh_powers(s, seat)


# ------------------------------------------------------------------------------- scoring
@njit(cache=True)
def final_affiliation(s):
    """The lowest Ally of each race left in hand is affiliated; the rest are discarded."""
    for seat in range(s[S.N_PLAYERS]):
        b = K.pbase(seat)
        hand, aff = b + S.P_HAND, b + S.P_AFFILIATED
        for r in range(5):
            low = -1
            for i in range(s[hand]):
                a = s[hand + 1 + i]
                if K.race(s, a) == r:
                    if low < 0 or K.value(s, a) < K.value(s, low):
                        low = a
                    elif K.value(s, a) == K.value(s, low) and a < low:
                        low = a
            if low >= 0:
                K.push(s, aff, low)
        for i in range(s[hand]):
            a = s[hand + 1 + i]
            if not K.contains(s, aff, a):
                K.push(s, S.EXP_DISCARD, a)
        K.clear(s, hand)


@njit(cache=True)
def location_score(s, seat, loc):
    if s[T.LOC_RULE + loc] == LR_CITY_OF_MIRRORS:
        best = 0
        for i in range(1, s[S.N_PLAYERS]):
            off = K.pbase(K.opponent(s, seat, i)) + S.P_LOCATIONS
            for k in range(s[off]):
                other = s[off + 1 + k]
                if s[T.LOC_RULE + other] != LR_CITY_OF_MIRRORS:
                    best = max(best, K.location_formula(s, seat, other))
        return best
    return K.location_formula(s, seat, loc)


@njit(cache=True)
def seat_score(s, seat, row):
    """Scores by source and counts of one seat into row[R_*] (its rank aside); returns the IP
    of its best Lord (the second tie-break). Also the running score during a game."""
    b = K.pbase(seat)
    lords = 0
    best_lord = 0
    off = b + S.P_LORDS
    for i in range(s[off]):
        ip = s[T.LORD_IP + s[off + 1 + i]]
        lords += ip
        best_lord = max(best_lord, ip)
    locations = 0
    off = b + S.P_LOCATIONS
    for i in range(s[off]):
        locations += location_score(s, seat, s[off + 1 + i])
    allies = 0
    off = b + S.P_AFFILIATED
    for r in range(5):
        strongest = 0
        for i in range(s[off]):
            a = s[off + 1 + i]
            if K.race(s, a) == r:
                strongest = max(strongest, K.value(s, a))
        allies += strongest
    monsters = 0
    off = b + S.P_TOKENS
    for i in range(s[off]):
        monsters += s[T.MONSTER_TOKEN_IP + s[off + 1 + i]]
    wounds = -s[b + S.P_WOUNDS]
    scourge = 5 if s[S.LEVIATHAN] == 1 and s[S.SCOURGE] == seat else 0
    row[R_SCORE] = lords + locations + allies + monsters + wounds + scourge
    row[R_LORDS], row[R_LOCATIONS], row[R_ALLIES] = lords, locations, allies
    row[R_MONSTERS], row[R_WOUNDS_IP], row[R_SCOURGE] = monsters, wounds, scourge
    row[R_PEARLS], row[R_KEYS] = s[b + S.P_PEARLS], s[b + S.P_KEYS]
    row[R_N_LORDS], row[R_N_LOCATIONS] = s[b + S.P_LORDS], s[b + S.P_LOCATIONS]
    row[R_N_AFFILIATED], row[R_N_TOKENS] = s[b + S.P_AFFILIATED], s[b + S.P_TOKENS]
    row[R_KILLED], row[R_WOUNDS] = s[b + S.P_KILLED], s[b + S.P_WOUNDS]
    lo = hi = 0
    off = b + S.P_RECRUITED
    for i in range(s[off]):
        lord = s[off + 1 + i]
        if lord < 32:
            lo |= 1 << lord
        else:
            hi |= 1 << (lord - 32)
    row[R_LORDS_LO], row[R_LORDS_HI] = as_int32(lo), as_int32(hi)
    held = 0
    off = b + S.P_LOCATIONS
    for i in range(s[off]):
        held |= 1 << s[off + 1 + i]
    row[R_LOCATION_SET] = as_int32(held)
    return best_lord


@njit(cache=True)
def score(s, out_seats):
    """Scores by source, ranks and counts of every seat into out_seats[seat, R_*]."""
    n_players = s[S.N_PLAYERS]
    best_lord = np.zeros(S.MAX_PLAYERS, dtype=np.int64)
    for seat in range(n_players):
        best_lord[seat] = seat_score(s, seat, out_seats[seat])
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


@njit(cache=True, inline="always")
def as_int32(bits):
    """32 bits (0 <= bits < 2**32) as the int32 with the same bit pattern."""
    return bits - (1 << 32) if bits >= (1 << 31) else bits


# ------------------------------------------------------------------------------ Leviathan
@njit(cache=True, inline="always")
def add_leviathan(s, seat):
    # inlined: casts the arguments so that the body compiles once
    return _add_leviathan(s, np.int64(seat))


@njit(cache=True)
def _add_leviathan(s, seat):
    """A new Leviathan lands on the zone of a 2d6 roll; a resident attacks `seat` (-1: nobody)."""
    if s[S.LEV_DECK] == 0:
        return
    new = K.pop(s, S.LEV_DECK)
    d1 = die(s)
    d2 = die(s)
    zone = s[T.ZONE_OF_SUM + d1 + d2]
    resident = s[S.BORDER + zone]
    if resident >= 0:
        if seat >= 0:
            leviathan_attack(s, seat, resident)
        K.push(s, S.LEV_DISCARD, resident)
    s[S.BORDER + zone] = new
    s[S.LIFE + zone] = 0


@njit(cache=True, inline="always")
def leviathan_attack(s, seat, leviathan):
    # inlined: casts the arguments so that the body compiles once
    return _leviathan_attack(s, np.int64(seat), np.int64(leviathan))


@njit(cache=True)
def _leviathan_attack(s, seat, leviathan):
    b = K.pbase(seat)
    kind = s[T.LEV_PENALTY + leviathan]
    n = s[T.LEV_PENALTY_N + leviathan]
    s[S.N_LEV_ATTACKS] += 1
    if kind == PEN_WOUNDS:
        s[b + S.P_WOUNDS] += n
    elif kind == PEN_PEARLS:
        pay_treasury(s, seat, n)
    elif kind == PEN_ALLIES:
        hand = b + S.P_HAND
        if s[hand] <= n:
            while s[hand] > 0:
                discard_ally_from_hand(s, seat, s[hand + 1])
        else:
            for _ in range(n):
                choose_discard(s, seat)
    else:
        for _ in range(n):
            m = free_lords_options(s, seat, -1)
            if m == 0:
                break
            discard_lord(s, seat, choose(s, seat, P.D_LOSE_LORD, m))


@njit(cache=True)
def leviathan_monster(s, seat, card):
    """A Monster revealed while exploring; True when the exploration ends (a fight)."""
    K.remove(s, S.TRACK, card)
    K.push(s, S.EXP_DISCARD, card)
    reason = s[S.END_REASON]
    if reason == S.END_LEVIATHAN_DECK or reason == S.END_TOKENS:
        return False
    s[W.OPT + 0] = P.M_CONTINUE
    n = 1
    if K.any_fightable(s, seat):
        s[W.OPT + n] = P.M_FIGHT
        n += 1
    if K.has_power(s, seat, PW_COWARD):
        s[W.OPT + n] = P.M_IGNORE
        n += 1
    choice = choose(s, seat, P.D_MONSTER_CHOICE, n)
    if n > 1 and s[W.OPT + 1] == P.M_FIGHT:  # a fight-or-explore decision point
        s[W.FORK_COUNT] += 1
        if s[W.FORK_COUNT] == s[W.FORK_AT]:  # a forked rollout (sim.abyss.fork)
            record_fork(s, seat, choice)
            if s[W.FORK_REKEY] == 1:
                fork_reseed(s)
            if s[W.FORK_N_SET] > 0:
                switch_rule(s, seat)
                choice = choose(s, seat, P.D_MONSTER_CHOICE, n)
            elif s[W.FORK_CHOICE] > 0:
                choice = s[W.FORK_CHOICE] - 1
    if choice == P.M_IGNORE:
        return False
    if choice == P.M_CONTINUE:
        s[S.N_CONTINUES] += 1
        add_leviathan(s, seat)
        return False
    s[S.N_FIGHTS] += 1
    fight(s, seat)
    return True


@njit(cache=True)
def fork_reseed(s):
    """Branch a forked rollout: every stream re-keyed from W.FORK_KEYS, and the face-down decks
    reshuffled, so that each replicate samples what the deciding player cannot see. Both choices
    of a replicate get the same keys: common random numbers."""
    s[W.RNG_KEYS : W.RNG_KEYS + 2 * N_STREAMS] = s[W.FORK_KEYS : W.FORK_KEYS + 2 * N_STREAMS]
    s[W.RNG_COUNTERS : W.RNG_COUNTERS + 2 * N_STREAMS] = 0
    shuffle_stack(s, S.EXP_DECK, ST_EXPLORATION)
    shuffle_stack(s, S.LORD_DECK, ST_LORDS)
    shuffle_stack(s, S.LOC_DECK, ST_LOCATIONS)
    shuffle_stack(s, S.MONSTER_TOKENS, ST_MONSTERS)
    shuffle_stack(s, S.LEV_DECK, ST_LEV_DECK)
    shuffle_stack(s, S.LEV_TOKENS, ST_LEV_TOKENS)


@njit(cache=True)
def switch_rule(s, seat):
    """A rule rollout: the seat's strategy parameters W.FORK_SET[slot] = value, from now on."""
    for i in range(s[W.FORK_N_SET]):
        slot = s[W.FORK_SET + 2 * i]
        s[W.POLICY_PARAMS + seat * W.N_PARAMS + slot] = s[W.FORK_SET + 2 * i + 1]


@njit(cache=True)
def record_fork(s, seat, own_choice):
    """The situation at a fork point, into W.FORK_INFO (columns: sim.abyss.fork.INFO_COLUMNS)."""
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


@njit(cache=True)
def fightable_options(s, seat):
    n = 0
    for z in range(s[T.N_ZONES]):
        if K.fightable(s, seat, z):
            s[W.OPT + n] = z
            n += 1
    return n


@njit(cache=True)
def fight(s, seat):
    max_kills = 2 if K.has_power(s, seat, PW_INTREPID) else 1
    kills = 0
    while True:
        n = fightable_options(s, seat)
        if n == 0:
            return
        zone = choose(s, seat, P.D_LEVIATHAN_TARGET, n)
        if not fight_one(s, seat, zone):
            return
        kills += 1
        if kills >= max_kills or not K.any_fightable(s, seat):
            return
        if choose_01(s, seat, P.D_FIGHT_ANOTHER) == 0:
            return


@njit(cache=True)
def fight_one(s, seat, zone):
    leviathan = s[S.BORDER + zone]
    s[S.FIGHT_ZONE] = zone
    killed = False
    while True:
        n = K.attack_allies(s, seat, leviathan, W.OPT, 0)
        ally = choose(s, seat, P.D_ATTACK_ALLY, n)
        if attack(s, seat, zone, ally):
            killed = True
            break
        if not K.has_attack_ally(s, seat, leviathan):
            break
        if choose_01(s, seat, P.D_ATTACK_AGAIN) == 0:
            break
    s[S.FIGHT_ZONE] = -1
    return killed


@njit(cache=True)
def attack(s, seat, zone, ally):
    b = K.pbase(seat)
    leviathan = s[S.BORDER + zone]
    K.remove(s, b + S.P_HAND, ally)
    K.push(s, S.EXP_DISCARD, ally)
    effect = s[T.ALLY_EFFECT + ally]
    roll = die(s)
    if effect == FX_TWO_DICE:
        roll = max(roll, die(s))
    power = roll + K.value(s, ally)
    if effect == FX_ADD_PEARLS and s[b + S.P_PEARLS] > 0:
        s[S.PENDING_ZONE] = zone
        s[S.PENDING_POWER] = power
        n = s[b + S.P_PEARLS] + 1
        for i in range(n):
            s[W.OPT + i] = i
        added = choose(s, seat, P.D_ADD_PEARLS, n)
        pay_treasury(s, seat, added)
        power += added
    removed = K.life_points_removed(s, leviathan, s[S.LIFE + zone], power)
    if removed == 0:
        gain_pearls(s, seat, 1)
        return False
    return remove_life(s, seat, zone, removed)


@njit(cache=True, inline="always")
def remove_life(s, seat, zone, n):
    # inlined: casts the arguments so that the body compiles once
    return _remove_life(s, np.int64(seat), np.int64(zone), np.int64(n))


@njit(cache=True)
def _remove_life(s, seat, zone, n):
    leviathan = s[S.BORDER + zone]
    for _ in range(n):
        space = s[S.LIFE + zone]
        n_tokens = s[T.LEV_REWARD + leviathan * T.MAX_SPACES + space]
        if K.has_power(s, seat, PW_ALTRUIST):
            n_tokens += 1
        if K.has_power(s, seat, PW_TAXIDERMIST):
            gain_pearls(s, seat, 2)
        for _ in range(n_tokens):
            take_reward_token(s, seat)
        s[S.LIFE + zone] = space + 1
        if s[S.LIFE + zone] >= s[T.LEV_N_SPACES + leviathan]:
            kill(s, seat, zone)
            return True
    return False


@njit(cache=True)
def kill(s, seat, zone):
    leviathan = s[S.BORDER + zone]
    s[S.BORDER + zone] = -1
    killed = K.pbase(seat) + S.P_KILLED
    K.push(s, killed, leviathan)
    s[S.N_KILLS] += 1
    holder = s[S.SCOURGE]
    if holder < 0 or (holder != seat and s[killed] >= s[K.pbase(holder) + S.P_KILLED]):
        s[S.SCOURGE] = seat
    if K.border_count(s) == 0:
        add_leviathan(s, -1)


@njit(cache=True)
def take_reward_token(s, seat):
    n = 0
    if s[S.MONSTER_TOKENS] > 0:
        s[W.OPT + n] = 0
        n += 1
    if s[S.LEV_TOKENS] > 0:
        s[W.OPT + n] = 1
        n += 1
    if n == 0:
        return
    if choose(s, seat, P.D_TOKEN_DECK, n) == 0:
        draw_monster_token(s, seat)
        return
    held = K.pbase(seat) + S.P_HELD
    K.push(s, held, K.pop(s, S.LEV_TOKENS))
    s[W.OPT + 0] = 0
    s[W.OPT + 1] = s[held]
    if choose(s, seat, P.D_REVEAL_TOKEN, 2) != 0:
        reveal_token(s, seat, s[held] - 1)


@njit(cache=True)
def reveal_held_tokens(s, seat):
    held = K.pbase(seat) + S.P_HELD
    while s[held] > 0:
        for i in range(s[held] + 1):
            s[W.OPT + i] = i
        k = choose(s, seat, P.D_REVEAL_TOKEN, s[held] + 1)
        if k == 0:
            return
        reveal_token(s, seat, k - 1)


@njit(cache=True)
def reveal_token(s, seat, index):
    token = K.pop_at(s, K.pbase(seat) + S.P_HELD, index)
    K.push(s, S.LEV_TOKEN_DISCARD, token)
    kind = s[T.LEV_TOKEN_KIND + token]
    amount = s[T.LEV_TOKEN_AMOUNT + token]
    if kind == TOK_PEARLS:
        gain_pearls(s, seat, amount)
    elif kind == TOK_KEY:
        gain_keys(s, seat, amount)
    else:
        for _ in range(amount):
            n = council_options(s)
            if n > 0:
                take_council_stack(s, seat, choose(s, seat, P.D_COUNCIL_STACK, n))


@njit(cache=True)
def martial_law(s, seat):
    b = K.pbase(seat)
    limit = s[T.HAND_LIMIT]
    paid = 0
    while s[b + S.P_HAND] > limit + paid:
        s[W.OPT + 0] = 0
        s[W.OPT + 1] = 1
        n = 2 if s[b + S.P_PEARLS] > 0 else 1
        if choose(s, seat, P.D_MARTIAL_LAW, n) == 1:
            pay_treasury(s, seat, 1)
            paid += 1
        else:
            choose_discard(s, seat)


@njit(cache=True)
def leviathan_end_check(s):
    if s[T.LEV_END_TRIGGER] == 0:
        return
    if s[S.LEV_DECK] == 0:
        trigger_end(s, S.END_LEVIATHAN_DECK)
    elif s[S.MONSTER_TOKENS] == 0 or s[S.LEV_TOKENS] == 0:
        trigger_end(s, S.END_TOKENS)


@njit(cache=True)
def leviathan_lord_power(s, seat, power):
    if power == PW_BORDER_GUARD:
        n = military_targets(s, seat, W.OPT)
        if n > 0:
            add_leviathan(s, choose(s, seat, P.D_TARGET_OPPONENT, n))
    elif power == PW_ARMS_DEALER:
        gain_pearls(s, seat, K.border_count(s))
    elif power == PW_SORCERER:
        if K.any_fightable(s, seat) and choose_01(s, seat, P.D_USE_POWER) == 1:
            s[S.N_FIGHTS] += 1
            fight(s, seat)
    elif power == PW_REBEL:
        n = 0
        for z in range(s[T.N_ZONES]):
            if s[S.BORDER + z] >= 0:
                s[W.OPT + n] = z
                n += 1
        if n > 0:
            remove_life(s, seat, choose(s, seat, P.D_LEVIATHAN_TARGET, n), 1)
    elif power == PW_BREEDER:
        n = 0
        for z in range(s[T.N_ZONES]):
            if s[S.BORDER + z] < 0:
                s[W.OPT + n] = z
                n += 1
        if n > 0 and s[S.LEV_DECK] > 0:
            zone = choose(s, seat, P.D_BORDER_ZONE, n)
            s[S.BORDER + zone] = K.pop(s, S.LEV_DECK)
            s[S.LIFE + zone] = 0


# ------------------------------------------------------------------------------ entry points
@njit(cache=True)
def new_game(s, seed, game, n_players):
    """Set up game `game` of seed `seed` in workspace s (state, streams and trace reset)."""
    s[: S.STATE_SIZE] = 0
    s[W.RNG_COUNTERS : W.RNG_COUNTERS + 2 * N_STREAMS] = 0
    s[W.TRACE] = 0
    s[W.FORK_COUNT] = 0
    s[W.KIND_STAMP] = 0
    s[W.KIND_SEEN : W.KIND_SEEN + W.N_ALLY_KINDS] = 0
    s[W.TRAJ : W.TRAJ + W.MAX_ROUNDS * S.MAX_PLAYERS * 3] = W.NOT_PLAYED
    stream_keys_in(s, W.RNG_KEYS, seed, game, N_STREAMS)
    s[S.N_PLAYERS] = n_players
    s[S.LEVIATHAN] = s[T.LEVIATHAN_ON]
    setup(s)
    K.refresh_all_powers(s)


def new_workspace(tables_or_template, lineup_kinds, lineup_params, trace_cap: int = 0):
    """A workspace for one game whose seats play the given strategy kinds and parameters."""
    base = (
        tables_or_template
        if isinstance(tables_or_template, np.ndarray)
        else W.template(tables_or_template)
    )
    s = W.with_trace(base, trace_cap)
    set_strategies(s, lineup_kinds, lineup_params)
    return s


def set_strategies(s, kinds, params) -> None:
    n = len(kinds)
    s[W.POLICY_KIND : W.POLICY_KIND + n] = kinds
    s[W.POLICY_PARAMS : W.POLICY_PARAMS + n * W.N_PARAMS] = np.asarray(params).reshape(-1)


def load_state(s, state, counters, seed, game) -> None:
    """Put an encoded state (`sim.abyss.state.encode`) of game `game` of `seed` into workspace
    s, to play on from there with `play`."""
    from sim.core.rng import stream_keys

    keys = np.zeros(N_STREAMS, dtype=np.uint64)
    stream_keys(np.int64(seed), np.int64(game), keys)
    s[: S.STATE_SIZE] = state
    W.put_rng(s, keys, counters)
    s[W.TRACE] = 0
    s[W.FORK_COUNT] = 0
    K.refresh_all_powers(s)


def trace_of(s) -> list[tuple[int, int, int, int]]:
    """The decisions recorded in workspace s: (seat, decision, option, number of options)."""
    n = int(s[W.TRACE])
    room = (len(s) - W.TRACE - 1) // 4
    if n > room:
        raise ValueError(f"{n} decisions, room for {room}")
    return [tuple(int(x) for x in s[W.TRACE + 1 + 4 * i : W.TRACE + 5 + 4 * i]) for i in range(n)]


@njit(cache=True)
def record_results(s, out_seats, out_game):
    """Scores and counts of a finished game into out_seats[seat, R_*] and out_game[RG_*]."""
    score(s, out_seats)
    out_game[RG_TURNS] = s[S.TURN]
    out_game[RG_END] = s[S.END_REASON]
    out_game[RG_FIGHTS] = s[S.N_FIGHTS]
    out_game[RG_CONTINUES] = s[S.N_CONTINUES]
    out_game[RG_LEV_ATTACKS] = s[S.N_LEV_ATTACKS]
    out_game[RG_KILLS] = s[S.N_KILLS]


@njit(cache=True)
def seat_strategies(s, seating, lineup_kinds, lineup_params):
    """Seat s plays line-up entry seating[s]: its strategy kind and parameters into s."""
    for seat in range(seating.shape[0]):
        j = seating[seat]
        s[W.POLICY_KIND + seat] = lineup_kinds[j]
        for k in range(W.N_PARAMS):
            s[W.POLICY_PARAMS + seat * W.N_PARAMS + k] = lineup_params[j, k]


@njit(cache=True, parallel=True)
def play_tables(
    template,
    seed,
    games,
    seatings,
    lineup_kinds,
    lineup_params,
    out_seats,
    out_games,
    traj_slot,
    out_traj,
):
    """Play game games[i] of `seed` with seat s taken by line-up entry seatings[i, s], for every
    i, on all threads (`sim.abyss.fast`: consecutive games in rotation; `reports.tournament`:
    every table of a block on the same game, for common random numbers).

    A game with traj_slot[i] >= 0 also records each seat's IP, Pearls and Keys round by round
    into out_traj[traj_slot[i], round, seat, :] (W.NOT_PLAYED where the seat had no turn).

    The games are dealt to LANES lanes, each with its own workspace (a copy of `template`, which
    holds the card tables) reused game after game; a game depends only on (seed, game index,
    seating), never on its lane.
    """
    n_tasks = out_games.shape[0]
    n_players = seatings.shape[1]
    n_lanes = min(LANES, n_tasks)
    for lane in prange(n_lanes):
        owned = template.copy()
        s = borrow(owned)  # `owned` lives as long as the lane
        for i in range(lane, n_tasks, n_lanes):
            seat_strategies(s, seatings[i], lineup_kinds, lineup_params)
            slot = traj_slot[i]
            s[W.TRAJ_ON] = 1 if slot >= 0 else 0
            new_game(s, seed, games[i], n_players)
            play(s)
            record_results(s, out_seats[i], out_games[i])
            if slot >= 0:
                for r in range(W.MAX_ROUNDS):
                    for seat in range(n_players):
                        at = W.TRAJ + (r * S.MAX_PLAYERS + seat) * 3
                        for k in range(3):
                            out_traj[slot, r, seat, k] = s[at + k]
        owned[0] = owned[0]  # keep the lane's workspace alive to here
