"""Conspiracy primitives shared by the kernel and the compiled policies."""

from __future__ import annotations

from games.conspiracy.engine import state as S
from games.conspiracy.engine.cards.loader import KeyKind, LocationScore
from sim.core.jit import njit

KEY_NONE, KEY_SILVER, KEY_GOLD = int(KeyKind.NONE), int(KeyKind.SILVER), int(KeyKind.GOLD)
LS_FIXED, LS_SILVER, LS_GOLD = (
    int(LocationScore.FIXED),
    int(LocationScore.SILVER_KEYS),
    int(LocationScore.GOLD_KEYS),
)
LS_PEARL_PAIRS, LS_PER_LOCATION = int(LocationScore.PEARL_PAIRS), int(LocationScore.PER_LOCATION)
LS_COLOUR_TOP, LS_COLOUR_COUNT = int(LocationScore.COLOUR_TOP), int(LocationScore.COLOUR_COUNT)
LS_NO_KEY_NO_PEARL = int(LocationScore.NO_KEY_NO_PEARL)
LS_GROUP_1 = int(LocationScore.GROUP_1IP)  # ..GROUP_4IP follow: group IP = kind - LS_GROUP_1 + 1


@njit(cache=True, inline="always")
def pb(seat):
    return S.PLAYERS + seat * S.PLAYER_STRIDE


@njit(cache=True, inline="always")
def pile_of(colour):
    return S.PILES + colour * S.PILE_STRIDE


@njit(cache=True)
def group_label(s, lord, mode):
    """mode 0: the Lord's colour; mode k > 0: k if the Lord's IP is k, else -1 (not counted)."""
    if mode == 0:
        return s[S.T_LORD_COLOUR + lord]
    return mode if s[S.T_LORD_IP + lord] == mode else -1


@njit(cache=True)
def largest_group(s, seat, mode):
    """Size of the largest group of adjacent Lords with the same label (`group_label`):
    "the biggest group of adjacent Lords of the same color"."""
    chamber = pb(seat) + S.P_CHAMBER
    n = s[chamber]
    seen = 0
    best = 0
    stack = S.ROW3
    for start in range(n):
        mine = group_label(s, s[chamber + 1 + start], mode)
        if (seen >> start) & 1 or mine < 0:
            continue
        seen |= 1 << start
        s[stack] = start
        top, size = 1, 0
        while top > 0:
            top -= 1
            spot = s[stack + top]
            size += 1
            for k in range(S.MAX_ADJ):
                other = s[S.T_ADJ + spot * S.MAX_ADJ + k]
                if 0 <= other < n and not (seen >> other) & 1:
                    if group_label(s, s[chamber + 1 + other], mode) == mine:
                        seen |= 1 << other
                        s[stack + top] = other
                        top += 1
        best = max(best, size)
    return best


@njit(cache=True)
def swap_spots(s, seat, i, j):
    chamber = pb(seat) + S.P_CHAMBER
    t = s[chamber + 1 + i]
    s[chamber + 1 + i] = s[chamber + 1 + j]
    s[chamber + 1 + j] = t


@njit(cache=True)
def keys_complete(s, seat, silver, gold):
    """ "When you have either two identical keys, or three keys, you must take control of a
    Location": whether the seat's keys, with `silver` and `gold` more, call for one (a Location
    power may make any two keys do; a rules option, the BGA reading, asks two identical)."""
    keys = pb(seat) + S.P_KEYS
    n = s[keys] + silver + gold
    if n >= 2 and s[pb(seat) + S.P_ANY_TWO] == 1:
        return True
    for i in range(s[keys]):
        if s[keys + 1 + i] == KEY_SILVER:
            silver += 1
        else:
            gold += 1
    identical = silver >= 2 or gold >= 2
    if s[S.T_KEY_RULE_BGA] == 1:
        return identical
    return identical or n >= 3


@njit(cache=True)
def takes_master(s, seat, pearls):
    """ "If an opponent reaches the same number of Pearls as held by the Pearl Master, they steal
    the Pearl Master token": whether `pearls` more make the seat the Pearl Master (it is not)."""
    holder = s[S.PEARL_MASTER]
    if holder == seat:
        return False
    return holder < 0 or s[pb(seat) + S.P_PEARLS] + pearls >= s[pb(holder) + S.P_PEARLS]


@njit(cache=True)
def location_quantity(s, seat, location):
    b = pb(seat)
    chamber = b + S.P_CHAMBER
    kind = s[S.T_LOC_SCORE + location]
    colour = s[S.T_LOC_COLOUR + location]
    if kind == LS_FIXED:
        return 0
    if kind == LS_PEARL_PAIRS:
        return s[b + S.P_PEARLS] // 2
    if kind == LS_PER_LOCATION:
        return s[b + S.P_LOCATIONS]
    if kind >= LS_GROUP_1 and kind < LS_GROUP_1 + 4:
        return largest_group(s, seat, kind - LS_GROUP_1 + 1)
    q = 0
    for i in range(s[chamber]):
        lord = s[chamber + 1 + i]
        key = s[S.T_LORD_KEY + lord]
        if kind == LS_SILVER:
            q += key == KEY_SILVER
        elif kind == LS_GOLD:
            q += key == KEY_GOLD
        elif kind == LS_COLOUR_TOP:
            if s[S.T_LORD_COLOUR + lord] == colour:
                q = max(q, s[S.T_LORD_IP + lord])
        elif kind == LS_COLOUR_COUNT:
            q += s[S.T_LORD_COLOUR + lord] == colour
        elif kind == LS_NO_KEY_NO_PEARL:
            q += key == KEY_NONE and s[S.T_LORD_PEARLS + lord] == 0
    return q


@njit(cache=True)
def locations_ip(s, seat):
    """The IP of the seat's Locations: "the total of Influence Points from the Locations you
    control", each its printed IP and `per` times its quantity."""
    off = pb(seat) + S.P_LOCATIONS
    total = 0
    for i in range(s[off]):
        c = s[off + 1 + i]
        total += s[S.T_LOC_IP + c] + s[S.T_LOC_PER + c] * location_quantity(s, seat, c)
    return total
