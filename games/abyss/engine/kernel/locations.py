"""Rulebook, Control a Location, on the fast path: three Keys spent, a Location taken (the
reference: `games.abyss.engine.rules.locations`)."""

from __future__ import annotations

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import base as B
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from sim.core.jit import njit, njit_ints

MAX_LOCATION_DRAW = 4  # Locations drawn at most when taking one


@njit(cache=True)
def choose_drawn(s, seat, m):
    """LOCATION_KEEP among the m Locations in W.ROW1; the others become available."""
    for i in range(m):
        s[W.OPT + i] = s[W.ROW1 + i]
    keep = B.choose(s, seat, P.D_LOCATION_KEEP, m)
    removed = False
    for i in range(m):
        if s[W.ROW1 + i] == keep and not removed:
            removed = True
        else:
            K.push(s, S.LOC_AVAILABLE, s[W.ROW1 + i])
    return keep


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
            s[W.OPT + 0] = P.DECLINE  # KEY_TOKEN
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
        source = B.choose(s, seat, P.D_KEY_SOURCE, n)
        if source == P.DECLINE:
            tokens += 1
            need -= 1
        else:
            s[W.ROW2 + n_lords] = source
            n_lords += 1
            need -= s[T.LORD_KEYS + source]
    s[b + S.P_KEYS] -= tokens
    s[S.KEY_PILE] += tokens
    return n_lords


@njit_ints
def key_lord_unused(s, lord, n_lords):
    """A free, working Lord with Keys, not yet among the s[W.ROW2 + :n_lords] spent."""
    if s[S.LORD_UNDER + lord] or s[S.LORD_DISABLED + lord] or s[T.LORD_KEYS + lord] <= 0:
        return False
    for k in range(n_lords):
        if s[W.ROW2 + k] == lord:
            return False
    return True


@njit(cache=True)
def take_location(s, seat, n_lords):
    n = B.options_from_stack(s, S.LOC_AVAILABLE)
    for k in range(1, min(MAX_LOCATION_DRAW, s[S.LOC_DECK]) + 1):
        s[W.OPT + n] = P.LOCATION_DRAW + k
        n += 1
    source = B.choose(s, seat, P.D_LOCATION_SOURCE, n)
    if source >= P.LOCATION_DRAW:
        m = source - P.LOCATION_DRAW
        for i in range(m):
            s[W.ROW1 + i] = K.pop(s, S.LOC_DECK)
        location = choose_drawn(s, seat, m)
    else:
        location = source
        K.remove(s, S.LOC_AVAILABLE, location)
    place_location(s, seat, location, n_lords)


@njit_ints
def black_smokers(s, seat, location):
    """The Location acquired in the end: `location`, or what Black Smokers is swapped for."""
    if s[T.LOC_RULE + location] != K.LR_BLACK_SMOKERS or s[S.LOC_DECK] == 0:
        return location
    s[W.OPT + 0] = location
    n = 1
    for i in range(s[S.LOC_DECK]):
        s[W.OPT + n] = s[S.LOC_DECK + 1 + i]
        n += 1
    K.sort_range(s, W.OPT + 1, W.OPT + n)
    swap = B.choose(s, seat, P.D_BLACK_SMOKERS, n)
    if swap != location:
        K.remove(s, S.LOC_DECK, swap)
        K.push(s, S.LOC_DECK, location)
        B.shuffle_stack(s, S.LOC_DECK, K.ST_LOCATIONS)
    return swap


@njit_ints
def place_location(s, seat, location, n_lords):
    """Take `location` with the Lords s[W.ROW2 + :n_lords] slid under it."""
    location = black_smokers(s, seat, location)
    K.push(s, K.pbase(seat) + S.P_LOCATIONS, location)
    off = S.LOC_LORDS + location * S.LOC_LORDS_STRIDE
    K.clear(s, off)
    for i in range(n_lords):
        K.push(s, off, s[W.ROW2 + i])
        s[S.LORD_UNDER + s[W.ROW2 + i]] = 1
    K.refresh_powers(s, seat)
