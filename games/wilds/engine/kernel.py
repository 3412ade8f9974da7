"""The warped-crystal simulator's fast path: `games.wilds.engine.rules` in numba, many episodes at
a time.

Every function mirrors the reference engine's method of the same name, with the same random
draws and the same tie-breaking (the path search pops (distance, push order) like `heapq`), so
both engines play the very same episodes (tests/wilds/test_wilds_parity.py).

Tables (`pack`) and the per-episode results are plain arrays; a lane's workspace holds the state:
crystals (row, col, hp, warped, broken, strikes, warps, broken turn), the warp deck and discard
pile (stacks), the climber's space (a 2-array while striking: a climber diagram moves it), the
turn and the random streams.
"""

from __future__ import annotations

import numpy as np

from games.wilds.engine.cards import MAX_HP, OPEN, WARP_CLIMBER
from games.wilds.engine.rules import DIRECTIONS, TURN_LIMIT
from sim.core.jit import njit, prange
from sim.core.rng import N_STREAMS, rand_below, stream_keys

ST_WARP, ST_STRIKES = 0, 1
DIRS = np.array(DIRECTIONS, dtype=np.int64)
# crystal fields
C_ROW, C_COL, C_HP, C_WARPED, C_BROKEN, C_STRIKES, C_WARPS, C_TURN = range(8)
N_CFIELDS = 8
# per-table scalars (`pack`)
T_AP, T_STRIKE_COST, T_CLIMB, T_DIAGONAL, T_TIE, T_START_R, T_START_C = range(7)
N_SCALARS = 7


def pack(t):
    """The tables as arrays for the kernel: (terrain, crystals, warp moves, warp regains, warp
    targets, strike values, strike weights, scalars)."""
    crystals = np.zeros((t.n_crystals, N_CFIELDS), dtype=np.int64)
    crystals[:, C_ROW] = t.crystal_row
    crystals[:, C_COL] = t.crystal_col
    crystals[:, C_HP] = t.crystal_hp
    crystals[:, C_WARPED] = t.crystal_warped
    scalars = np.array(
        [t.ap_per_turn, t.strike_cost, t.climb_cost, t.diagonal_cost, t.snap_tie, *t.start],
        dtype=np.int64,
    )
    return (
        np.ascontiguousarray(t.terrain, dtype=np.int64),
        crystals,
        np.ascontiguousarray(t.warp_move, dtype=np.int64),
        np.ascontiguousarray(t.warp_regain, dtype=np.int64),
        np.ascontiguousarray(t.warp_target, dtype=np.int64),
        np.ascontiguousarray(t.strike_values, dtype=np.int64),
        np.ascontiguousarray(t.strike_weights, dtype=np.int64),
        scalars,
    )


@njit(cache=True)
def on_map(terrain, r, c):
    return 0 <= r < terrain.shape[0] and 0 <= c < terrain.shape[1]


@njit(cache=True)
def shuffle(arr, n, keys, counters, stream):
    for i in range(n - 1, 0, -1):
        j = rand_below(keys, counters, stream, i + 1)
        arr[i], arr[j] = arr[j], arr[i]


@njit(cache=True)
def slide(terrain, r, c, dr, dc):
    steps = max(abs(dr), abs(dc))
    ur = (dr > 0) - (dr < 0)
    uc = (dc > 0) - (dc < 0)
    for k in range(steps, 0, -1):
        if abs(dr) == abs(dc) or dr == 0 or dc == 0:
            nr, nc = r + ur * k, c + uc * k
        else:
            nr, nc = r + dr * k // steps, c + dc * k // steps
        if on_map(terrain, nr, nc):
            return nr, nc
    return r, c


@njit(cache=True)
def snap(terrain, tie, r, c, dr, dc):
    if terrain[r, c] != OPEN:
        return r, c
    rows, cols = terrain.shape
    for ring in range(1, max(rows, cols)):
        found = False
        b0 = b1 = b2 = 0
        br = bc = 0
        for rr in range(r - ring, r + ring + 1):
            for cc in range(c - ring, c + ring + 1):
                if max(abs(rr - r), abs(cc - c)) != ring or not on_map(terrain, rr, cc):
                    continue
                if terrain[rr, cc] == OPEN:
                    continue
                k0 = -((rr - r) * dr + (cc - c) * dc) if tie == 1 else 0
                if not found or (k0, rr, cc) < (b0, b1, b2):
                    found = True
                    b0, b1, b2 = k0, rr, cc
                    br, bc = rr, cc
        if found:
            return br, bc
    return r, c


@njit(cache=True)
def draw_warp(deck, discard, sizes, keys, counters):
    """sizes[0]: cards in the deck, sizes[1]: in the discard pile."""
    if sizes[0] == 0:
        for i in range(sizes[1]):
            deck[i] = discard[i]
        sizes[0], sizes[1] = sizes[1], 0
        shuffle(deck, sizes[0], keys, counters, ST_WARP)
    sizes[0] -= 1
    card = deck[sizes[0]]
    discard[sizes[1]] = card
    sizes[1] += 1
    return card


@njit(cache=True)
def strike(terrain, tie, cr, moves, regains, targets, deck, discard, sizes, keys, counters, turn,
           value, climber):  # fmt: skip
    """`Game.strike`; climber: the climber's (row, col), moved by a climber diagram."""
    if cr[C_WARPED] == 1 and value > 2:
        value = 2
    cr[C_HP] -= value
    cr[C_STRIKES] += 1
    if cr[C_HP] <= 0:
        cr[C_HP] = 0
        cr[C_BROKEN] = 1
        cr[C_TURN] = turn
    elif cr[C_WARPED] == 1:
        card = draw_warp(deck, discard, sizes, keys, counters)
        cr[C_WARPS] += 1
        if regains[card] > 0:
            cr[C_HP] = min(MAX_HP, cr[C_HP] + regains[card])
            return
        dr, dc = moves[card, 0], moves[card, 1]
        if targets[card] == WARP_CLIMBER:
            climber[0], climber[1] = slide(terrain, climber[0], climber[1], dr, dc)
            return
        r, c = slide(terrain, cr[C_ROW], cr[C_COL], dr, dc)
        r, c = snap(terrain, tie, r, c, dr, dc)
        cr[C_ROW], cr[C_COL] = r, c


@njit(cache=True)
def draw_strike(values, weights, fixed, keys, counters):
    if fixed > 0:
        return fixed
    total = 0
    for w in weights:
        total += w
    x = rand_below(keys, counters, ST_STRIKES, total)
    for i in range(values.shape[0]):
        if x < weights[i]:
            return values[i]
        x -= weights[i]
    return values[values.shape[0] - 1]


@njit(cache=True)
def step_cost(sc, dr, dc):
    return sc[T_CLIMB] if dr == 0 or dc == 0 else sc[T_DIAGONAL]


@njit(cache=True)
def next_step(terrain, sc, pr, pc, tr, tc, dist, first, heap):
    """`Game.next_step`: returns (row, col) of the first step, or (-1, -1)."""
    rows, cols = terrain.shape
    big = 1 << 30
    dist[:, :] = big
    first[:, :, :] = -1
    dist[pr, pc] = 0
    n = 0  # heap entries: (distance, order, row, col), popped by smallest (distance, order)
    heap[0, 0], heap[0, 1], heap[0, 2], heap[0, 3] = 0, 0, pr, pc
    n = 1
    order = 0
    while n > 0:
        best = 0
        for i in range(1, n):
            if heap[i, 0] < heap[best, 0] or (
                heap[i, 0] == heap[best, 0] and heap[i, 1] < heap[best, 1]
            ):
                best = i
        d, r, c = heap[best, 0], heap[best, 2], heap[best, 3]
        n -= 1
        heap[best, :] = heap[n, :]
        if d > dist[r, c]:
            continue
        if max(abs(r - tr), abs(c - tc)) <= 1 and not (r == pr and c == pc):
            return first[r, c, 0], first[r, c, 1]
        for k in range(8):
            nr, nc = r + DIRS[k, 0], c + DIRS[k, 1]
            if not on_map(terrain, nr, nc) or terrain[nr, nc] == OPEN:
                continue
            nd = d + step_cost(sc, DIRS[k, 0], DIRS[k, 1])
            if nd < dist[nr, nc]:
                dist[nr, nc] = nd
                if r == pr and c == pc:
                    first[nr, nc, 0], first[nr, nc, 1] = nr, nc
                else:
                    first[nr, nc, 0], first[nr, nc, 1] = first[r, c, 0], first[r, c, 1]
                order += 1
                heap[n, 0], heap[n, 1], heap[n, 2], heap[n, 3] = nd, order, nr, nc
                n += 1
    return -1, -1


@njit(cache=True)
def first_unbroken(cr):
    """`Game.target`: the first unbroken crystal in the data's order (-1: none left)."""
    for i in range(cr.shape[0]):
        if cr[i, C_BROKEN] == 0:
            return i
    return -1


@njit(cache=True)
def play_episode(terrain, crystals0, moves, regains, targets, values, weights, sc, seed, game,
                 fixed, out_crystals, out_game):  # fmt: skip
    """One episode (`Game.play`): out_crystals[i] the final crystal fields; out_game = (turns,
    climber row, climber column)."""
    keys = np.zeros(N_STREAMS, dtype=np.uint64)
    counters = np.zeros(N_STREAMS, dtype=np.int64)
    stream_keys(seed, game, keys)
    cr = out_crystals
    cr[:, :] = crystals0
    n_cards = regains.shape[0]
    deck = np.arange(n_cards, dtype=np.int64)
    discard = np.zeros(n_cards, dtype=np.int64)
    sizes = np.array([n_cards, 0], dtype=np.int64)
    shuffle(deck, n_cards, keys, counters, ST_WARP)
    rows, cols = terrain.shape
    dist = np.zeros((rows, cols), dtype=np.int64)
    first = np.zeros((rows, cols, 2), dtype=np.int64)
    heap = np.zeros((8 * rows * cols + 8, 4), dtype=np.int64)
    pr, pc = sc[T_START_R], sc[T_START_C]
    climber = np.zeros(2, dtype=np.int64)
    turn = 0
    while turn < TURN_LIMIT and first_unbroken(cr) >= 0:
        turn += 1
        ap = sc[T_AP]
        while ap > 0:
            target = first_unbroken(cr)
            if target < 0:
                break
            tr, tc = cr[target, C_ROW], cr[target, C_COL]
            if max(abs(pr - tr), abs(pc - tc)) <= 1:
                if ap < sc[T_STRIKE_COST]:
                    break
                ap -= sc[T_STRIKE_COST]
                value = draw_strike(values, weights, fixed, keys, counters)
                climber[0], climber[1] = pr, pc
                strike(terrain, sc[T_TIE], cr[target], moves, regains, targets, deck, discard,
                       sizes, keys, counters, turn, value, climber)  # fmt: skip
                pr, pc = climber[0], climber[1]
                continue
            sr, scol = next_step(terrain, sc, pr, pc, tr, tc, dist, first, heap)
            if sr < 0:
                break
            cost = step_cost(sc, sr - pr, scol - pc)
            if ap < cost:
                break
            ap -= cost
            pr, pc = sr, scol
    out_game[0], out_game[1], out_game[2] = turn, pr, pc


@njit(cache=True, parallel=True)
def play_episodes(terrain, crystals0, moves, regains, targets, values, weights, sc, seed, games,
                  fixed, out_crystals, out_games):  # fmt: skip
    for i in prange(games.shape[0]):
        play_episode(terrain, crystals0, moves, regains, targets, values, weights, sc, seed,
                     games[i], fixed, out_crystals[i], out_games[i])  # fmt: skip


def run_episodes(t, seed: int, games: np.ndarray, strike_value: int = 0):
    """Episodes games[i] of `seed` on all threads: (crystals [episode, crystal, field], games
    [episode, (turns, climber row, climber column)])."""
    terrain, crystals0, moves, regains, targets, values, weights, sc = pack(t)
    games = np.ascontiguousarray(games, dtype=np.int64)
    out_crystals = np.zeros((len(games), t.n_crystals, N_CFIELDS), dtype=np.int64)
    out_games = np.zeros((len(games), 3), dtype=np.int64)
    play_episodes(terrain, crystals0, moves, regains, targets, values, weights, sc, np.int64(seed),
                  games, np.int64(strike_value), out_crystals, out_games)  # fmt: skip
    return out_crystals, out_games
