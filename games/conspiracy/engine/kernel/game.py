"""Conspiracy's fast path: the rules of `games.conspiracy.engine.rules.game` on the int32 workspace
(`games.conspiracy.engine.state`), compiled with numba, many games at a time on all cores.

Every function mirrors the reference engine's method of the same name, in the same order of
draws and list operations, so both engines play the very same games
(tests/conspiracy/test_conspiracy_parity.py).
"""

from __future__ import annotations

from games.conspiracy.engine import policies as P
from games.conspiracy.engine import state as S
from games.conspiracy.engine.cards.loader import LocationPower, LordPower
from games.conspiracy.engine.kernel.core import (
    KEY_NONE,
    keys_complete,
    largest_group,
    locations_ip,
    pb,
    pile_of,
    swap_spots,
    takes_master,
)
from sim.core import search as C
from sim.core.driver import play_for, tables_for
from sim.core.jit import njit, njit_closure
from sim.core.rng import N_STREAMS
from sim.core.search import canonical_shuffle_in
from sim.core.stack import clear, index_of, pop, pop_at, push
from sim.core.workspace import reset_game, seat_lineup, shuffle_in

ST_LORDS, ST_LOCATIONS = 0, 1  # games.conspiracy.engine.rules.game.Stream
PW_SWAP, PW_REVEAL = int(LordPower.SWAP), int(LordPower.REVEAL)
LP_TOP_ONE, LP_TOP_TWO = int(LocationPower.TOP_ONE_ONLY), int(LocationPower.TOP_TWO_KEEP_ONE)
LP_RESHUFFLE_LORDS = int(LocationPower.RESHUFFLE_LORDS)
LP_RESHUFFLE_LOCATIONS = int(LocationPower.RESHUFFLE_LOCATIONS)
LP_ANY_TWO, LP_WHOLE_DECK = int(LocationPower.ANY_TWO_KEYS), int(LocationPower.WHOLE_DECK)
PILE, NO_SWAP, LOCATION_DRAW = 10, -1, 1000

#: Result fields: out_seats[seat, R_*] and out_game[RG_*].
R_SCORE, R_LORDS, R_LOCATIONS, R_COALITION, R_PEARL_MASTER = range(5)
R_PEARLS, R_N_LOCATIONS, R_COALITION_SIZE, R_N_LORDS, R_RANK = range(5, 10)
R_DRAWS, R_PILE_TAKES, R_PILE_LORDS, R_LOCATION_SET = range(10, 14)
N_SEAT_FIELDS = 14
RG_TURNS, RG_END, RG_TRIGGER = range(3)
N_GAME_FIELDS = 3


# ----------------------------------------------------------------------------- helpers
@njit(cache=True)
def sorted_options(s, off, n):
    """The n items at s[off:] sorted into the option row; returns n."""
    for i in range(n):
        v = s[off + i]
        j = i
        while j > 0 and s[S.OPT + j - 1] > v:
            s[S.OPT + j] = s[S.OPT + j - 1]
            j -= 1
        s[S.OPT + j] = v
    return n


@njit(cache=True)
def shuffle_stack(s, off, stream):
    shuffle_in(s, off, S.RNG_KEYS, S.RNG_COUNTERS, stream)


@njit(cache=True)
def discard(s, lord):
    push(s, pile_of(s[S.T_LORD_COLOUR + lord]), lord)


# ----------------------------------------------------------------------------- setup and play
@njit(cache=True)
def new_game(s, seed, game, n_players):
    reset_game(s, S.STATE_SIZE, S.RNG_KEYS, S.RNG_COUNTERS, S.TRACE, seed, game)
    s[S.N_PLAYERS] = n_players
    s[S.PEARL_MASTER] = -1
    s[S.RESTRICTION_OWNER] = -1
    s[S.END_TRIGGER] = -1
    s[S.SEARCH_MODE] = s[S.SCRIPT] = 0
    for i in range(s[S.T_N_LORDS]):
        push(s, S.LORD_DECK, i)
    shuffle_stack(s, S.LORD_DECK, ST_LORDS)
    for c in range(s[S.T_N_LOCATIONS]):
        if s[S.T_LOC_IN_DECK + c] == 1:
            push(s, S.LOC_DECK, c)
    shuffle_stack(s, S.LOC_DECK, ST_LOCATIONS)


@njit(cache=True)
def turn_limit(s):
    """A safety stop before a turn (never reached by the shipped data)."""
    if s[S.END_TRIGGER] < 0 and s[S.TURN] >= S.TURN_LIMIT:
        s[S.END_REASON] = S.END_TURN_LIMIT
        return True
    return False


@njit(cache=True)
def end_of_turn(s, seat):
    """After `seat`'s turn: the next seat (clockwise; once a Chamber is complete, each opponent
    of the player who completed it in turn); True when the game is over."""
    n = s[S.N_PLAYERS]
    if s[S.END_TRIGGER] < 0:
        s[S.NEXT_SEAT] = (seat + 1) % n
        return False
    if s[S.END_REASON] == S.END_NONE:  # this turn completed a Chamber
        s[S.END_REASON] = S.END_CHAMBER
        s[S.FINAL_TURNS] = n - 1
    else:
        s[S.FINAL_TURNS] -= 1
    if s[S.FINAL_TURNS] == 0:
        return True
    s[S.NEXT_SEAT] = (s[S.END_TRIGGER] + n - s[S.FINAL_TURNS]) % n
    return False


@njit(cache=True)
def take_turn(s, seat):
    s[S.TURN] += 1
    if s[S.RESTRICTION_OWNER] == seat:
        s[S.RESTRICTION] = 0
        s[S.RESTRICTION_OWNER] = -1
    pile = recruit(s, seat)
    extend(s, seat, pile)
    if s[pb(seat) + S.P_CHAMBER] == s[S.T_N_SPOTS] and s[S.END_TRIGGER] < 0:
        s[S.END_TRIGGER] = seat


# ----------------------------------------------------------------------------- step 1: recruit
@njit(cache=True)
def source_options(s, seat):
    deck = s[S.LORD_DECK]
    if s[S.RESTRICTION] != 0 and s[S.RESTRICTION_OWNER] != seat and deck > 0:
        forced = 1 if s[S.RESTRICTION] == LP_TOP_ONE else 2
        s[S.OPT] = min(forced, deck)
        return 1
    n = 0
    for k in range(1, min(s[S.T_DRAW_MAX], deck) + 1):
        s[S.OPT + n] = k
        n += 1
    for c in range(s[S.T_N_COLOURS]):
        if s[pile_of(c)] > 0:
            s[S.OPT + n] = PILE + c
            n += 1
    return n


@njit(cache=True)
def recruit(s, seat):
    """The recruited Lords into the stack ROW1; returns the pile's colour (-1: the deck)."""
    clear(s, S.ROW1)
    n = source_options(s, seat)
    if n == 0:
        return -1
    source = ask(s, seat, P.D_SOURCE, n)
    if source >= PILE:
        s[pb(seat) + S.P_PILE_TAKES] += 1
        colour = source - PILE
        off = pile_of(colour)
        for i in range(s[off]):
            push(s, S.ROW1, s[off + 1 + i])
        clear(s, off)
        return colour
    s[pb(seat) + S.P_DRAWS] += 1
    clear(s, S.ROW2)
    for _ in range(source):
        push(s, S.ROW2, pop(s, S.LORD_DECK))
    keep = ask(s, seat, P.D_KEEP, sorted_options(s, S.ROW2 + 1, source))
    for i in range(source):
        lord = s[S.ROW2 + 1 + i]
        if lord != keep:
            discard(s, lord)
    push(s, S.ROW1, keep)
    return -1


# ----------------------------------------------------------------------------- step 2: extend
@njit(cache=True)
def extend(s, seat, pile):
    chamber = pb(seat) + S.P_CHAMBER
    while s[S.ROW1] > 0 and s[chamber] < s[S.T_N_SPOTS]:
        lord = ask(s, seat, P.D_PLACE, sorted_options(s, S.ROW1 + 1, s[S.ROW1]))
        pop_at(s, S.ROW1, index_of(s, S.ROW1, lord))
        if pile >= 0:
            s[pb(seat) + S.P_PILE_LORDS] += 1
        place(s, seat, lord)
    for i in range(s[S.ROW1]):
        push(s, pile_of(pile), s[S.ROW1 + 1 + i])
    clear(s, S.ROW1)


@njit(cache=True)
def place(s, seat, lord):
    b = pb(seat)
    spot = s[b + S.P_CHAMBER]
    push(s, b + S.P_CHAMBER, lord)
    power = s[S.T_LORD_POWER + lord]
    if power == PW_SWAP:
        swap(s, seat)
    elif power == PW_REVEAL:
        if s[S.LORD_DECK] > 0:
            discard(s, pop(s, S.LORD_DECK))
    if s[S.T_LORD_PEARLS + lord] > 0:
        gain_pearls(s, seat, s[S.T_LORD_PEARLS + lord])
    key = s[S.T_LORD_KEY + lord]
    if key != KEY_NONE:
        push(s, b + S.P_KEYS, key)
        if location_due(s, seat):
            take_location(s, seat, spot)


@njit(cache=True)
def swap(s, seat):
    chamber = pb(seat) + S.P_CHAMBER
    n_spots = s[chamber]
    s[S.OPT] = NO_SWAP
    keyless_only = s[S.T_ZERO_SWAP_KEYLESS] == 1
    n = 1
    for i in range(n_spots):
        if keyless_only and s[S.T_LORD_KEY + s[chamber + 1 + i]] != KEY_NONE:
            continue
        for j in range(i + 1, n_spots):
            if not keyless_only or s[S.T_LORD_KEY + s[chamber + 1 + j]] == KEY_NONE:
                s[S.OPT + n] = i * 16 + j
                n += 1
    if n == 1:
        return
    choice = ask(s, seat, P.D_SWAP, n)
    if choice == NO_SWAP:
        return
    swap_spots(s, seat, choice // 16, choice % 16)


@njit(cache=True)
def gain_pearls(s, seat, n):
    s[pb(seat) + S.P_PEARLS] += n
    if takes_master(s, seat, 0):
        s[S.PEARL_MASTER] = seat


# ----------------------------------------------------------------------------- Keys and Locations
@njit(cache=True)
def location_due(s, seat):
    return keys_complete(s, seat, 0, 0)


@njit(cache=True)
def take_location(s, seat, spot):
    b = pb(seat)
    location = choose_location(s, seat)
    clear(s, b + S.P_KEYS)
    if location < 0:
        return
    push(s, b + S.P_LOCATIONS, location)
    push(s, b + S.P_LOC_SPOTS, spot)
    location_power(s, seat, location)


@njit(cache=True)
def choose_location(s, seat):
    deck = S.LOC_DECK
    if s[pb(seat) + S.P_WHOLE_DECK] == 1:
        if s[deck] == 0:
            return -1
        n = sorted_options(s, deck + 1, s[deck])
        location = ask(s, seat, P.D_LOCATION_KEEP, n)
        pop_at(s, deck, index_of(s, deck, location))
        shuffle_stack(s, deck, ST_LOCATIONS)
        return location
    draws = min(s[S.T_LOC_DRAW_MAX], s[deck])
    n = sorted_options(s, S.LOC_AVAILABLE + 1, s[S.LOC_AVAILABLE])
    for k in range(1, draws + 1):
        s[S.OPT + n] = LOCATION_DRAW + k
        n += 1
    if n == 0:
        return -1
    choice = ask(s, seat, P.D_LOCATION_SOURCE, n)
    if choice < LOCATION_DRAW:
        pop_at(s, S.LOC_AVAILABLE, index_of(s, S.LOC_AVAILABLE, choice))
        return choice
    clear(s, S.ROW2)
    for _ in range(choice - LOCATION_DRAW):
        push(s, S.ROW2, pop(s, deck))
    k = s[S.ROW2]
    keep = ask(s, seat, P.D_LOCATION_KEEP, sorted_options(s, S.ROW2 + 1, k))
    for i in range(k):
        if s[S.ROW2 + 1 + i] != keep:
            push(s, S.LOC_AVAILABLE, s[S.ROW2 + 1 + i])
    return keep


@njit(cache=True)
def location_power(s, seat, location):
    b = pb(seat)
    if s[S.T_LOC_PEARLS + location] > 0:
        gain_pearls(s, seat, s[S.T_LOC_PEARLS + location])
    power = s[S.T_LOC_POWER + location]
    if power == LP_TOP_ONE or power == LP_TOP_TWO:
        s[S.RESTRICTION] = power
        s[S.RESTRICTION_OWNER] = seat
    elif power == LP_RESHUFFLE_LORDS:
        for c in range(s[S.T_N_COLOURS]):
            off = pile_of(c)
            for i in range(s[off]):
                push(s, S.LORD_DECK, s[off + 1 + i])
            clear(s, off)
        shuffle_stack(s, S.LORD_DECK, ST_LORDS)
    elif power == LP_RESHUFFLE_LOCATIONS:
        for i in range(s[S.LOC_AVAILABLE]):
            push(s, S.LOC_DECK, s[S.LOC_AVAILABLE + 1 + i])
        clear(s, S.LOC_AVAILABLE)
        shuffle_stack(s, S.LOC_DECK, ST_LOCATIONS)
    elif power == LP_ANY_TWO:
        s[b + S.P_ANY_TWO] = 1
    elif power == LP_WHOLE_DECK:
        s[b + S.P_WHOLE_DECK] = 1


# ----------------------------------------------------------------------------- scoring
@njit(cache=True)
def seat_score(s, seat, row):
    """The seat's score and counts into row[R_*] (not the rank)."""
    b = pb(seat)
    chamber = b + S.P_CHAMBER
    lords = 0
    for c in range(s[S.T_N_COLOURS]):
        best = 0
        for i in range(s[chamber]):
            lord = s[chamber + 1 + i]
            if s[S.T_LORD_COLOUR + lord] == c:
                best = max(best, s[S.T_LORD_IP + lord])
        lords += best
    locations = locations_ip(s, seat)
    size = largest_group(s, seat, 0)
    coalition = s[S.T_COALITION_IP] * size
    master = s[S.T_PEARL_MASTER_IP] if s[S.PEARL_MASTER] == seat else 0
    row[R_SCORE] = lords + locations + coalition + master
    row[R_LORDS] = lords
    row[R_LOCATIONS] = locations
    row[R_COALITION] = coalition
    row[R_PEARL_MASTER] = master
    row[R_PEARLS] = s[b + S.P_PEARLS]
    row[R_N_LOCATIONS] = s[b + S.P_LOCATIONS]
    row[R_COALITION_SIZE] = size
    row[R_N_LORDS] = s[chamber]
    row[R_DRAWS] = s[b + S.P_DRAWS]
    row[R_PILE_TAKES] = s[b + S.P_PILE_TAKES]
    row[R_PILE_LORDS] = s[b + S.P_PILE_LORDS]
    bits = 0
    for i in range(s[b + S.P_LOCATIONS]):
        bits |= 1 << s[b + S.P_LOCATIONS + 1 + i]
    row[R_LOCATION_SET] = bits  # Locations 0-31 as the bits of an int32 word


@njit(cache=True)
def score(s, out_seats):
    """Scores into out_seats[seat]; ranks by (IP, Pearls): "the tied player with the most Pearls
    wins. If there is still a tie, the victory is shared"."""
    n = s[S.N_PLAYERS]
    for seat in range(n):
        seat_score(s, seat, out_seats[seat])
    for seat in range(n):
        rank = 1
        for other in range(n):
            a, b = out_seats[other], out_seats[seat]
            if a[R_SCORE] > b[R_SCORE] or (a[R_SCORE] == b[R_SCORE] and a[R_PEARLS] > b[R_PEARLS]):
                rank += 1
        out_seats[seat, R_RANK] = rank


# ----------------------------------------------------------------------------- the search player
# (`games.conspiracy.engine.kernel.search` drives it: these are its steps inside a turn). Small and
# without array slices: `ask`, which every decision calls, compiles them into plain play too.


@njit(cache=True)
def determinize(s, seat):
    """What no player can see, sampled afresh: every stream re-keyed from FORK_KEYS, and the two
    face-down decks (Lords, Locations) put in a canonical order (sorted) and shuffled, so the
    sample does not depend on their true order: the search never peeks. Everything else is face
    up ("discarded faceup", "available faceup Locations", the Chambers, Pearls and Keys)."""
    for i in range(2 * N_STREAMS):
        s[S.RNG_KEYS + i] = s[S.FORK_KEYS + i]
        s[S.RNG_COUNTERS + i] = 0
    canonical_shuffle_in(s, S.LORD_DECK, S.RNG_KEYS, S.RNG_COUNTERS, ST_LORDS)
    canonical_shuffle_in(s, S.LOC_DECK, S.RNG_KEYS, S.RNG_COUNTERS, ST_LOCATIONS)


# ----------------------------------------------------------------------------- entry points


@njit(cache=True)
def finish(s):
    """Nothing: the last turn ends the game itself (`end_of_turn`)."""


#: the play loop (`sim.core.driver.play_for`): turns until the end (resumes from NEXT_SEAT /
#: FINAL_TURNS)
play = play_for(take_turn, end_of_turn, turn_limit, finish, S.NEXT_SEAT)


#: the search seat's decision in a replayed turn, every seat switched to its rollout policy, and
#: `ask`: the seat's policy asked among the n options at s[OPT:], traced
#: (`sim.core.search.hooks_for`; a Conspiracy seat sees nothing the others do not)
SEARCH_SLOTS = C.SearchSlots(
    S.OPT, S.POLICY_KIND, S.POLICY_PARAMS, S.N_PARAMS, S.N_PLAYERS, S.TURN, S.RNG_KEYS, S.REC_ON,
    P.SEARCH, P.ROLLOUT_KIND, P.ROLLOUT_PARAMS, S.N_SLOTS)
searched, rollout_policy, ask = C.hooks_for(determinize, P.choose, P.record_features,
                                            S.SEARCH_BLOCKS, SEARCH_SLOTS)  # fmt: skip


@njit(cache=True)
def play_one(s, seed, game, n_players, out_seats, out_game):
    new_game(s, seed, game, n_players)
    play(s)
    results(s, out_seats, out_game)


@njit(cache=True)
def results(s, out_seats, out_game):
    """The finished game's scores and ranks (out_seats) and its end (out_game)."""
    score(s, out_seats)
    for col in range(len(GAME_FIELDS)):
        out_game[col] = s[GAME_FIELDS[col]]


#: where each column of a game's row (RG_TURNS, RG_END, RG_TRIGGER, in order) is read in the state
GAME_FIELDS = (S.TURN, S.END_REASON, S.END_TRIGGER)


def play_tables(template, seed, games, seatings, lineup_kinds, lineup_params, out_seats, out_games):
    """Play game games[i] of `seed` with seat s taken by line-up entry seatings[i, s], for every
    i, on all threads; a game depends only on (seed, game index, seating), never on its lane."""
    _plain_tables(template, out_games.shape[0], (seed, games, seatings, lineup_kinds,
                  lineup_params), (out_seats, out_games))  # fmt: skip


def table_task_for(play_game):
    """Task i of `play_tables`: its line-up seated, its game played by `play_game`, its results
    written."""

    @njit_closure
    def table_task(s, i, ins, outs):
        seed, games, seatings, lineup_kinds, lineup_params = ins
        out_seats, out_games = outs
        start_task(s, seed, games[i], seatings[i], lineup_kinds, lineup_params)
        play_game(s)
        results(s, out_seats[i], out_games[i])

    return table_task


_plain_tables = tables_for(table_task_for(play))


@njit(cache=True)
def start_task(s, seed, game, seating, lineup_kinds, lineup_params):
    """Seat line-up entry seating[seat] at every seat and set up game `game` of `seed`."""
    seat_lineup(s, S.POLICY_KIND, S.POLICY_PARAMS, S.N_PARAMS, seating, lineup_kinds,
                lineup_params)  # fmt: skip
    new_game(s, seed, game, seating.shape[0])
