"""Compiled Conspiracy policies: the one implementation of every built-in strategy, run by both
engines (the reference engine encodes its state and calls the same function).

A policy is `choose(s, seat, decision, n) -> option` over the workspace `s`
(`games.conspiracy.engine.state`): the state, the card tables, the n legal options at s[OPT:], each
seat's strategy kind and int32 parameters. Randomness comes only from the game's POLICY stream.

The heuristic values a Lord by what it adds to the seat's score and plans, with weights that the
presets (`games/conspiracy/strategies/presets.toml`) change: IP over the seat's best Lord of that
colour, growth of a same-colour coalition, Keys, Pearls (and the Pearl Master).
"""

from __future__ import annotations

import numpy as np

from games.conspiracy.engine import state as S
from games.conspiracy.engine.kernel.core import (
    KEY_GOLD,
    KEY_SILVER,
    keys_complete,
    largest_group,
    locations_ip,
    pb,
    swap_spots,
    takes_master,
)
from sim.core.jit import njit
from sim.core.linear import scorer_for
from sim.core.policy import (  # noqa: F401  (the search player's slots, for its callers)
    S_CONFIDENCE,
    S_DETERMINIZATIONS,
    S_EXPLORATION,
    S_OPPONENTS,
    S_ROLLOUTS,
)
from sim.core.rng import rand_below_in
from sim.core.workspace import best_or_draw

RANDOM = 0
HEURISTIC = 1
SEARCH = 2  # the search player (engine.kernel_search): its driver decides, not `choose`
LEARNED = 3  # the learned player (`learned`): a linear option scorer over its base heuristic
POLICY_STREAM = 2  # games.conspiracy.engine.rules.game.Stream.POLICY (tested)

# decisions (games.conspiracy.engine.rules.game.Decision) and options, as plain ints for numba:
# tied to the rules' by tests/conspiracy/test_conspiracy_policy_codes.py
D_SOURCE, D_KEEP, D_PLACE, D_SWAP, D_LOCATION_SOURCE, D_LOCATION_KEEP = range(6)
PILE, NO_SWAP, LOCATION_DRAW = 10, -1, 1000

# heuristic parameters (slots; games.conspiracy.strategies.HeuristicPolicy)
H_IP, H_COALITION, H_KEY, H_PEARL, H_PILE_MIN, H_DRAW, H_LOCATION_MIN, H_MASTER = range(8)
# restricted play (`abyss-mc restrict`): the forbidden Lords (colour and IP) and Location, -1: none
H_FORBID_COLOUR, H_FORBID_IP, H_FORBID_LOCATION = 8, 9, 10
# the search player's slots (`sim.core.policy.S_*`), then its rollout policy's kind and
# parameters (state.N_PARAMS)
ROLLOUT_KIND, ROLLOUT_PARAMS = S.N_SLOTS, S.N_SLOTS + 1


@njit(cache=True)
def choose(s, seat, decision, n):
    kind = s[S.POLICY_KIND + seat]
    if kind == HEURISTIC:
        return heuristic(s, seat, decision, restricted(s, seat, decision, n))
    if kind == LEARNED:
        return learned(s, seat, decision, n)
    return s[S.OPT + rand_below_in(s, S.RNG_KEYS, S.RNG_COUNTERS, np.int64(POLICY_STREAM), n)]


@njit(cache=True, inline="always")
def param(s, seat, k):
    return s[S.POLICY_PARAMS + seat * S.N_PARAMS + k]


# ------------------------------------------------------------------ restricted play
@njit(cache=True)
def restricted(s, seat, decision, n):
    """Restricted play (Jaffe & Popovic 2012; `abyss-mc restrict`): the options at s[OPT:]
    without those by which the seat gains its forbidden Lords (those of colour `forbid_colour`
    with `forbid_ip` IP, any IP when it is -1) or its forbidden Location; returns their number.
    Every route to a card (docs/restricted-play.md): a Lord kept from a draw; a discard pile
    that would place one (one that holds more Lords than the Chamber has spaces left may be
    taken while the forbidden ones can be left out); a Lord placed from such a pile; a Location
    face up or kept among those drawn (or from the whole deck). When every option gains the
    card (the rules force one), nothing changes."""
    colour, location = param(s, seat, H_FORBID_COLOUR), param(s, seat, H_FORBID_LOCATION)
    if colour >= 0 and (decision == D_SOURCE or decision == D_KEEP):
        return keep_allowed(s, seat, decision, n)
    if colour >= 0 and decision == D_PLACE and n > free_spots(s, seat):
        return keep_allowed(s, seat, decision, n)  # some of these Lords go back to the pile
    if location >= 0 and (decision == D_LOCATION_SOURCE or decision == D_LOCATION_KEEP):
        return keep_allowed(s, seat, decision, n)
    return n


@njit(cache=True)
def forbidden(s, seat, decision, option):
    """The option gains the seat a forbidden card."""
    if decision == D_LOCATION_SOURCE or decision == D_LOCATION_KEEP:
        return option == param(s, seat, H_FORBID_LOCATION)
    if decision == D_KEEP or decision == D_PLACE:
        return forbidden_lord(s, seat, option)
    if option < PILE:  # a draw from the deck: unseen
        return False
    # a pile: its Lords are placed until the Chamber is full; the forbidden ones can be left
    # out when the others fill the spaces left
    off = S.PILES + (option - PILE) * S.PILE_STRIDE
    allowed = 0
    for i in range(s[off]):
        if not forbidden_lord(s, seat, s[off + 1 + i]):
            allowed += 1
    return allowed < min(s[off], free_spots(s, seat))


@njit(cache=True, inline="always")
def free_spots(s, seat):
    """The spaces left in the seat's Senate Chamber."""
    return s[S.T_N_SPOTS] - s[pb(seat) + S.P_CHAMBER]


@njit(cache=True, inline="always")
def forbidden_lord(s, seat, lord):
    ip = param(s, seat, H_FORBID_IP)
    return s[S.T_LORD_COLOUR + lord] == param(s, seat, H_FORBID_COLOUR) and (
        ip < 0 or s[S.T_LORD_IP + lord] == ip
    )


@njit(cache=True)
def keep_allowed(s, seat, decision, n):
    """Compact the options at s[OPT:] to the allowed ones (in order) unless none is allowed."""
    allowed = 0
    for i in range(n):
        if not forbidden(s, seat, decision, s[S.OPT + i]):
            allowed += 1
    if allowed == 0 or allowed == n:
        return n
    m = 0
    for i in range(n):
        o = s[S.OPT + i]
        if not forbidden(s, seat, decision, o):
            s[S.OPT + m] = o
            m += 1
    return m


@njit(cache=True)
def colour_top(s, seat, colour):
    chamber = pb(seat) + S.P_CHAMBER
    best = 0
    for i in range(s[chamber]):
        lord = s[chamber + 1 + i]
        if s[S.T_LORD_COLOUR + lord] == colour:
            best = max(best, s[S.T_LORD_IP + lord])
    return best


@njit(cache=True)
def adjacent_same(s, seat, spot, colour):
    """Placed neighbours of `spot` with this colour (what a Lord there adds to a coalition)."""
    chamber = pb(seat) + S.P_CHAMBER
    n = 0
    for k in range(S.MAX_ADJ):
        other = s[S.T_ADJ + spot * S.MAX_ADJ + k]
        if 0 <= other < s[chamber] and s[S.T_LORD_COLOUR + s[chamber + 1 + other]] == colour:
            n += 1
    return n


@njit(cache=True)
def lord_value(s, seat, lord, spot):
    """What the Lord is worth to the seat if placed on `spot` (x10, integer weights)."""
    colour = s[S.T_LORD_COLOUR + lord]
    gain_ip = max(0, s[S.T_LORD_IP + lord] - colour_top(s, seat, colour))
    value = param(s, seat, H_IP) * gain_ip
    if spot < s[S.T_N_SPOTS]:
        value += param(s, seat, H_COALITION) * adjacent_same(s, seat, spot, colour)
    if s[S.T_LORD_KEY + lord] != 0:
        value += param(s, seat, H_KEY) * s[S.T_LORD_KEY + lord]
    pearls = s[S.T_LORD_PEARLS + lord]
    if pearls > 0:
        value += param(s, seat, H_PEARL) * pearls
        if takes_master(s, seat, pearls):
            value += param(s, seat, H_MASTER)
    return value


@njit(cache=True)
def next_spot(s, seat):
    return s[pb(seat) + S.P_CHAMBER]


@njit(cache=True)
def pile_value(s, seat, colour):
    """The Lords of a pile, each valued on the spots it would take (no order search)."""
    off = S.PILES + colour * S.PILE_STRIDE
    spot = next_spot(s, seat)
    value = 0
    for i in range(s[off]):
        if spot + i >= s[S.T_N_SPOTS]:
            break
        value += lord_value(s, seat, s[off + 1 + i], spot + i)
    return value


@njit(cache=True)
def heuristic(s, seat, decision, n):
    if decision == D_SOURCE:
        return source(s, seat, n)
    if decision == D_KEEP or decision == D_PLACE:
        spot = next_spot(s, seat)
        best, best_value = s[S.OPT], -(1 << 30)
        for i in range(n):
            v = lord_value(s, seat, s[S.OPT + i], spot)
            if v > best_value:
                best, best_value = s[S.OPT + i], v
        return best
    if decision == D_SWAP:
        return best_swap(s, seat, n)
    if decision == D_LOCATION_SOURCE:
        return location_source(s, seat, n)
    return location_keep(s, seat, n)


@njit(cache=True)
def source(s, seat, n):
    """Take the best pile if it is worth `pile_min`, else draw `draw` cards (or the most
    allowed)."""
    best_pile, best_value = -1, -(1 << 30)
    most_draw = 0
    for i in range(n):
        o = s[S.OPT + i]
        if o >= PILE:
            v = pile_value(s, seat, o - PILE)
            if v > best_value:
                best_pile, best_value = o, v
        else:
            most_draw = max(most_draw, o)
    if best_pile >= 0 and (most_draw == 0 or best_value >= param(s, seat, H_PILE_MIN)):
        return best_pile
    return min(most_draw, max(1, param(s, seat, H_DRAW)))


@njit(cache=True)
def location_worth(s, seat, location):
    """A Location's printed IP plus its immediate Pearls (a rough worth: counting Locations
    are valued at their `per`)."""
    return (
        s[S.T_LOC_IP + location]
        + 2 * s[S.T_LOC_PER + location]
        + param(s, seat, H_PEARL) * s[S.T_LOC_PEARLS + location] // 10
    )


@njit(cache=True)
def location_source(s, seat, n):
    """The best face-up Location if worth `location_min`, else draw as many as allowed."""
    for i in range(n):
        if s[S.OPT + i] < LOCATION_DRAW:
            s[S.ROW3 + i] = location_worth(s, seat, s[S.OPT + i])
    return best_or_draw(s, S.OPT, n, S.ROW3, LOCATION_DRAW, param(s, seat, H_LOCATION_MIN))


@njit(cache=True)
def location_keep(s, seat, n):
    best, best_value = s[S.OPT], -(1 << 30)
    for i in range(n):
        v = location_worth(s, seat, s[S.OPT + i])
        if v > best_value:
            best, best_value = s[S.OPT + i], v
    return best


@njit(cache=True)
def best_swap(s, seat, n):
    """The swap that grows the largest coalition most; none if no swap grows it."""
    best, best_size = NO_SWAP, largest_group(s, seat, 0)
    for k in range(n):
        o = s[S.OPT + k]
        if o == NO_SWAP:
            continue
        swap_spots(s, seat, o // 16, o % 16)
        size = largest_group(s, seat, 0)
        swap_spots(s, seat, o // 16, o % 16)
        if size > best_size:
            best, best_size = o, size
    return best


# ------------------------------------------------------------------ the learned player
#: the decisions the learned player scores, in the order of its weight rows (state.L_WEIGHTS on)
LEARNED_DECISIONS = (D_SOURCE, D_KEEP, D_PLACE, D_SWAP, D_LOCATION_SOURCE, D_LOCATION_KEEP)
#: the seat's state features (what it sees: no face-down card), and an option's features: the
#: base heuristic picks it, the heuristic's own value of it, the cards it brings (drawn, or a
#: pile's), for a Lord what it brings (IP over the colour's best, Keys, Pearls, Lords of its
#: colour already in the Chamber, its power), the IP it would add to the best-placed opponent (a
#: card or pile left is theirs to take), what the rules' thresholds and scoring make of it (a
#: Location due, the Pearl Master, the coalition and the Locations' IP it adds), for a Location
#: on offer its IP to the seat, its `per` and its power, then the state features in its
#: category's block
#: (a draw or declining: 0; a pile, a swap, a face-up Location: 1; a card chosen among cards:
#: none, the same for every option)
STATE_NAMES = ("bias", "round", "pearls", "lords", "keys", "lord_deck", "opponents_lords",
               "opponents_pearls")  # fmt: skip
N_CATEGORIES = 2
OWN_NAMES = ("heuristic_pick", "value", "cards", "lord_ip_gain", "lord_keys", "lord_pearls",
             "lord_colour_held", "lord_swap", "lord_reveal", "opponents_value",
             "location_due", "pearl_master", "coalition_gain", "locations_gain",
             "location_ip", "location_per", "location_restricts", "location_reshuffles_lords",
             "location_reshuffles_locations", "location_any_two",
             "location_whole_deck")  # fmt: skip
FEATURE_NAMES = OWN_NAMES + tuple(
    f"{name}@{c}" for c in range(N_CATEGORIES) for name in STATE_NAMES
)
assert len(LEARNED_DECISIONS) == S.N_LEARNED and len(FEATURE_NAMES) == S.N_FEATURES
assert len(STATE_NAMES) == S.N_STATE and len(OWN_NAMES) == S.N_OWN


@njit(cache=True)
def state_features(s, seat, g):
    """What the seat sees of its position and the race, into g (`STATE_NAMES`)."""
    b = pb(seat)
    g[0] = 1
    g[1] = s[S.TURN] // s[S.N_PLAYERS]
    g[2] = s[b + S.P_PEARLS]
    g[3] = s[b + S.P_CHAMBER]
    g[4] = s[b + S.P_KEYS]
    g[5] = s[S.LORD_DECK] // 4
    g[6] = 0
    g[7] = 0
    for q in range(s[S.N_PLAYERS]):
        if q != seat:
            g[6] = max(g[6], s[pb(q) + S.P_CHAMBER])
            g[7] = max(g[7], s[pb(q) + S.P_PEARLS])


@njit(cache=True)
def option_value(s, seat, decision, o):
    """The heuristic's own value of option o (0 for a draw or declining)."""
    if decision == D_SOURCE:
        return pile_value(s, seat, o - PILE) if o >= PILE else 0
    if decision == D_KEEP or decision == D_PLACE:
        return lord_value(s, seat, o, next_spot(s, seat))
    if decision == D_SWAP:
        if o == NO_SWAP:
            return 0
        swap_spots(s, seat, o // 16, o % 16)
        size = largest_group(s, seat, 0)
        swap_spots(s, seat, o // 16, o % 16)
        return size - largest_group(s, seat, 0)
    if o >= LOCATION_DRAW:
        return 0
    return location_worth(s, seat, o)


@njit(cache=True)
def category(decision, o):
    if decision == D_SOURCE:
        return 1 if o >= PILE else 0
    if decision == D_SWAP:
        return 0 if o == NO_SWAP else 1
    if decision == D_LOCATION_SOURCE:
        return 0 if o >= LOCATION_DRAW else 1
    return -1


@njit(cache=True)
def option_features(s, seat, decision, o, pick, g, f):
    """The features of option o (`FEATURE_NAMES`) into f."""
    f[:] = 0
    f[0] = 1 if o == pick else 0
    f[1] = option_value(s, seat, decision, o)
    if decision == D_SOURCE:
        f[2] = o if o < PILE else s[S.PILES + (o - PILE) * S.PILE_STRIDE]
    elif decision == D_LOCATION_SOURCE and o >= LOCATION_DRAW:
        f[2] = o - LOCATION_DRAW + 1
    elif decision == D_KEEP or decision == D_PLACE:
        lord_features(s, seat, o, f)
    f[9] = opponents_value(s, seat, decision, o)
    if decision == D_KEEP or decision == D_PLACE or (decision == D_SOURCE and o >= PILE):
        silver = gold = pearls = 0
        if decision == D_SOURCE:
            off = S.PILES + (o - PILE) * S.PILE_STRIDE
            for i in range(s[off]):
                silver, gold, pearls = brought(s, s[off + 1 + i], silver, gold, pearls)
        else:
            silver, gold, pearls = brought(s, o, silver, gold, pearls)
        # what the rules' thresholds make of them: a Location due, the Pearl Master token
        due = keys_complete(s, seat, silver, gold) and not keys_complete(s, seat, 0, 0)
        f[10] = 1 if due else 0
        f[11] = 1 if pearls > 0 and takes_master(s, seat, pearls) else 0
        lords_gains(s, seat, decision, o, f)
    if (decision == D_LOCATION_SOURCE and o < LOCATION_DRAW) or decision == D_LOCATION_KEEP:
        location_features(s, seat, o, f)
    c = category(decision, o)
    if c >= 0:
        for k in range(S.N_STATE):
            f[S.N_OWN + c * S.N_STATE + k] = g[k]


@njit(cache=True)
def lords_gains(s, seat, decision, o, f):
    """What option o's Lords add, placed on the next spots (the Lord kept or placed, or a
    pile's Lords in the pile's order), to the seat's biggest coalition ("3 points are scored for
    each Lord within it") and to the IP of the Locations it controls (a Location scoring per
    key, per Lord of a colour...), into f[12] and f[13]. The spots are written and restored
    (the old ones kept in ROW3's upper half; its lower half is the group search's)."""
    chamber = pb(seat) + S.P_CHAMBER
    n = s[chamber]
    coalition, locations = largest_group(s, seat, 0), locations_ip(s, seat)
    saved = S.ROW3 + S.ROW_WIDTH // 2
    k = 0
    if decision == D_SOURCE:
        off = S.PILES + (o - PILE) * S.PILE_STRIDE
        k = min(s[off], s[S.T_N_SPOTS] - n)
        for i in range(k):
            s[saved + i] = s[chamber + 1 + n + i]
            s[chamber + 1 + n + i] = s[off + 1 + i]
    elif n < s[S.T_N_SPOTS]:
        k = 1
        s[saved] = s[chamber + 1 + n]
        s[chamber + 1 + n] = o
    s[chamber] = n + k
    f[12] = largest_group(s, seat, 0) - coalition
    f[13] = locations_ip(s, seat) - locations
    s[chamber] = n
    for i in range(k):
        s[chamber + 1 + n + i] = s[saved + i]


@njit(cache=True)
def location_features(s, seat, location, f):
    """A Location on offer: the IP the seat's Locations gain if it takes it (its own, at the
    seat's Chamber now, and a Location scoring per Location grows), its `per` (how much it may
    still grow), whether its Pearls take the Pearl Master token, its power (one of five kinds);
    into f[14], f[15], f[11], f[16:21]."""
    off = pb(seat) + S.P_LOCATIONS
    n = s[off]
    before = locations_ip(s, seat)
    if n < S.MAX_LOCATIONS:
        saved = s[off + 1 + n]
        s[off + 1 + n] = location
        s[off] = n + 1
        f[14] = locations_ip(s, seat) - before
        s[off] = n
        s[off + 1 + n] = saved
    f[15] = s[S.T_LOC_PER + location]
    power = s[S.T_LOC_POWER + location]  # (1 and 2 both restrict the opponents' next draw)
    if power > 0:
        f[16 + max(0, power - 2)] = 1
    pearls = s[S.T_LOC_PEARLS + location]
    f[11] = 1 if pearls > 0 and takes_master(s, seat, pearls) else 0


@njit(cache=True)
def brought(s, lord, silver, gold, pearls):
    """The silver and gold keys and the Pearls so far, with the Lord's added."""
    key = s[S.T_LORD_KEY + lord]
    pearls += s[S.T_LORD_PEARLS + lord]
    return silver + (key == KEY_SILVER), gold + (key == KEY_GOLD), pearls


@njit(cache=True)
def opponents_value(s, seat, decision, o):
    """The IP option o's Lords would add to the opponent they add most to (over that
    opponent's best Lord of each colour, all in plain view): a pile, or a Lord kept (those not
    kept are left face up for the taking); 0 for anything else. The opponents' strategies are
    not read: only their Chambers."""
    if not (decision == D_KEEP or (decision == D_SOURCE and o >= PILE)):
        return 0
    best = 0
    for q in range(s[S.N_PLAYERS]):
        if q == seat:
            continue
        if decision == D_KEEP:
            v = ip_gain(s, q, o)
        else:
            off = S.PILES + (o - PILE) * S.PILE_STRIDE
            v = 0
            for i in range(s[off]):
                v += ip_gain(s, q, s[off + 1 + i])
        best = max(best, v)
    return best


@njit(cache=True)
def ip_gain(s, seat, lord):
    """The IP the Lord adds over the seat's best Lord of its colour."""
    return max(0, s[S.T_LORD_IP + lord] - colour_top(s, seat, s[S.T_LORD_COLOUR + lord]))


@njit(cache=True)
def lord_features(s, seat, lord, f):
    """What the Lord brings the seat (`OWN_NAMES` 3 to 8), into f."""
    colour = s[S.T_LORD_COLOUR + lord]
    f[3] = ip_gain(s, seat, lord)
    f[4] = s[S.T_LORD_KEY + lord]
    f[5] = s[S.T_LORD_PEARLS + lord]
    chamber = pb(seat) + S.P_CHAMBER
    for i in range(s[chamber]):
        if s[S.T_LORD_COLOUR + s[chamber + 1 + i]] == colour:
            f[6] += 1
    f[7] = 1 if s[S.T_LORD_POWER + lord] == 1 else 0
    f[8] = 1 if s[S.T_LORD_POWER + lord] == 2 else 0


best_scored, write_features = scorer_for(state_features, option_features, S.N_STATE,
                                         S.N_FEATURES, S.SCORE_SCRATCH)  # fmt: skip


@njit(cache=True)
def learned(s, seat, decision, n):
    """The learned player: among the options its restricted play allows, the one whose features
    score highest under the seat's weights (the first among equals)."""
    n = restricted(s, seat, decision, n)
    pick = heuristic(s, seat, decision, n)
    if n > S.MAX_REC_OPTIONS:
        return pick
    at = S.POLICY_PARAMS + seat * S.N_PARAMS + S.L_WEIGHTS + decision * S.N_FEATURES
    return best_scored(s, seat, decision, S.OPT, n, pick, at)


@njit(cache=True)
def record_features(s, seat, decision, n):
    """At the search's probe: the features of each of the decision's options (S.SEARCH_OPTS)
    into S.REC_FEATURES, its weight row (the decision) into S.REC_ROW (-1: too many options),
    the base heuristic being the seat's policy now (the search's rollout policy)."""
    n_options = s[S.SEARCH_N]
    if n_options > S.MAX_REC_OPTIONS:
        s[S.REC_ROW] = -1
        return
    s[S.REC_ROW] = decision
    pick = heuristic(s, seat, decision, n)
    write_features(s, seat, decision, S.SEARCH_OPTS, n_options, pick, S.REC_FEATURES)
