"""Rulebook, End of Game and Scoring, on the fast path: the final affiliation, the scores by
source, the ranks and the results of a finished game (the reference:
`games.abyss.engine.rules.scoring`); also the running score of the per-round record, the
score as it would stand if the game ended then."""

from __future__ import annotations

import numpy as np

from games.abyss.engine import state as S
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.state import (
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
)
from sim.core.jit import njit


@njit(cache=True)
def final_affiliation(s):
    """The lowest Ally of each race left in hand is affiliated; the rest are discarded."""
    for seat in range(s[S.N_PLAYERS]):
        b = K.pbase(seat)
        hand, aff = b + S.P_HAND, b + S.P_AFFILIATED
        affiliate_hand(s, seat)
        for i in range(s[hand]):
            a = s[hand + 1 + i]
            if not K.contains(s, aff, a):
                K.push(s, S.EXP_DISCARD, a)
        K.clear(s, hand)


@njit(cache=True)
def affiliate_hand(s, seat):
    """Rulebook, End of Game: "Players affiliate the lowest-value Ally of each Race remaining in
    their hand" (the lowest index among equal values), onto the seat's affiliated Allies; the
    hand is left as it is."""
    hand, aff = K.pbase(seat) + S.P_HAND, K.pbase(seat) + S.P_AFFILIATED
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


@njit(cache=True)
def location_score(s, seat, loc):
    if s[T.LOC_RULE + loc] == K.LR_CITY_OF_MIRRORS:
        best = 0
        for i in range(1, s[S.N_PLAYERS]):
            off = K.pbase(K.opponent(s, seat, i)) + S.P_LOCATIONS
            for k in range(s[off]):
                other = s[off + 1 + k]
                if s[T.LOC_RULE + other] != K.LR_CITY_OF_MIRRORS:
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


@njit(cache=True)
def record_results(s, out_seats, out_game):
    """Scores and counts of a finished game into out_seats[seat, R_*] and out_game[RG_*]."""
    score(s, out_seats)
    for col in range(len(GAME_FIELDS)):
        out_game[col] = s[GAME_FIELDS[col]]
    out_game[S.RG_TRIGGER] = trigger_seat(s[S.END_REASON], s[S.ACTIVE], s[S.N_PLAYERS])


@njit(cache=True)
def trigger_seat(reason, last_active, n_players):
    """The seat whose turn triggered the end: every other seat then took one last turn in turn
    order, so the last turn was the trigger's right-hand neighbour's ("The active player
    finishes their turn, and every other player takes one last turn"); -1 for a game stopped
    by the turn limit."""
    if reason == S.END_NONE or reason == S.END_TURN_LIMIT:
        return -1
    return (last_active + 1) % n_players


#: where each column of a game's row (RG_TURNS, RG_END, RG_FIGHTS, RG_CONTINUES,
#: RG_LEV_ATTACKS, RG_KILLS, in order) is read in the state
GAME_FIELDS = (S.TURN, S.END_REASON, S.N_FIGHTS, S.N_CONTINUES, S.N_LEV_ATTACKS, S.N_KILLS)


@njit(cache=True)
def record_round(s, seat):
    """The seat's running IP, Pearls and Keys after its turn, in its round's slot of W.TRAJ (a
    round: one turn per player, counted from the turn number). The IP is the score as it would
    stand if the game ended then, the final affiliation of the Allies in hand included: the
    same `affiliate_hand` and `seat_score` as the end, undone afterwards (the Allies stay in
    hand)."""
    r = (s[S.TURN] - 1) // s[S.N_PLAYERS]
    if r >= W.MAX_ROUNDS:
        return
    row = s[W.SCORE_ROW : W.SCORE_ROW + N_SEAT_FIELDS]
    aff = K.pbase(seat) + S.P_AFFILIATED
    affiliated = s[aff]
    affiliate_hand(s, seat)
    seat_score(s, seat, row)
    s[aff] = affiliated
    at = W.TRAJ + (r * S.MAX_PLAYERS + seat) * 3
    s[at] = row[R_SCORE]
    s[at + 1] = s[K.pbase(seat) + S.P_PEARLS]
    s[at + 2] = K.n_keys(s, seat)
