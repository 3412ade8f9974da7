"""The fast path: Abyss (and the Leviathan expansion) as @njit functions over the state vector.

Each function mirrors the method of the reference engine with the same name
(`games.abyss.engine.rules.game.Game` and its mixins) and performs the same steps in the same
order: the
same
cards move between the same stacks, the same random streams are drawn, and the same decisions are
asked with the same options in the same order. The parity tests hold it to that.
The rule texts are quoted in the reference engine; comments here only explain the mechanics.

Every function takes the game's workspace `s` (`games.abyss.engine.kernel.workspace`), one int32
array
holding the
state (`games.abyss.engine.state`), the card tables (`games.abyss.engine.kernel.tables`), scratch
rows
(W.OPT holds the
options of the decision being asked; W.ROW1-4 lists that live across a decision), each seat's
strategy, the random streams and, for parity tests, a trace of the decisions asked.

This module has the set-up, the turn (plotting at Court, the once-per-turn powers, the choice of
action) and the entry points; the phases are `kernel.explore`, `kernel.recruit`, `kernel.lords`,
`kernel.locations`, `kernel.scoring` and `kernel.leviathan` (with `kernel.fork`), like the
reference engine's `rules_*` modules, on the helpers of `kernel.base`.
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import base as B
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.kernel.explore import explore, request_support
from games.abyss.engine.kernel.locations import control_locations
from games.abyss.engine.kernel.lords import enforce_commander
from games.abyss.engine.kernel.recruit import recruit
from games.abyss.engine.kernel.scoring import final_affiliation, record_results, record_round, score
from games.abyss.engine.state import N_SEAT_FIELDS, R_RANK, R_SCORE
from sim.core.apart import called_apart
from sim.core.driver import DriverLayout, drivers_for, play_for, tables_for
from sim.core.jit import njit, njit_closure
from sim.core.workspace import reset_game, seat_lineup, with_trace


@njit(cache=True)
def setup(s):
    """`Game._setup` for a zeroed state with N_PLAYERS and LEVIATHAN set."""
    n_players = s[S.N_PLAYERS]
    lev = s[S.LEVIATHAN] == 1
    for i in range(s[T.N_LOCATIONS]):
        K.push(s, S.LOC_DECK, i)
    B.shuffle_stack(s, S.LOC_DECK, K.ST_LOCATIONS)
    K.push(s, S.LOC_AVAILABLE, K.pop(s, S.LOC_DECK))
    n_crabs = B.leviathan(s, B.LV_CRABS, 0, 0) if lev else 0  # into the hands, one each
    for a in range(s[T.N_ALLIES]):
        dealt = False
        for seat in range(n_crabs):
            if s[K.pbase(seat) + S.P_HAND + 1] == a:  # (the only card in the hand)
                dealt = True
        if not dealt:
            K.push(s, S.EXP_DECK, a)
    B.shuffle_stack(s, S.EXP_DECK, K.ST_EXPLORATION)
    for i in range(s[T.N_LORDS]):
        K.push(s, S.LORD_DECK, i)
    B.shuffle_stack(s, S.LORD_DECK, K.ST_LORDS)
    for _ in range(s[T.COURT_SIZE]):
        K.push(s, S.COURT, K.pop(s, S.LORD_DECK))
    for i in range(s[T.N_MONSTER_TOKENS]):
        K.push(s, S.MONSTER_TOKENS, i)
    B.shuffle_stack(s, S.MONSTER_TOKENS, K.ST_MONSTERS)
    s[S.KEY_PILE] = s[T.N_KEYS]
    s[S.THREAT] = 0
    s[S.SCOURGE] = -1
    s[S.FIGHT_ZONE] = -1
    for z in range(S.MAX_ZONES):
        s[S.BORDER + z] = -1
    for seat in range(n_players):
        # extra Pearls by seat: a balance experiment (rules.toml), 0 in the rules as printed
        s[K.pbase(seat) + S.P_PEARLS] = s[T.STARTING_PEARLS] + s[T.EXTRA_PEARLS + seat]
    if lev:
        B.leviathan(s, B.LV_SETUP, 0, 0)


@njit(cache=True)
def turn_limit(s):
    if s[S.TURN] >= s[T.TURN_LIMIT]:
        s[S.END_REASON] = S.END_TURN_LIMIT
        return True
    return False


@njit(cache=True)
def end_of_turn(s, seat):
    """After `seat`'s turn: the next seat (an extra turn, the last round); True when the game
    is over."""
    if s[W.TRAJ_ON] == 1:
        record_round(s, seat)
    if s[S.EXTRA_TURN] == 1:
        s[S.EXTRA_TURN] = 0
        if s[S.END_REASON] == S.END_NONE or s[T.LAST_ROUND_EXTRA_TURN] == 1:
            return False
    if s[S.END_REASON] != S.END_NONE:
        if s[S.FINAL_ROUND] == 0:
            s[S.FINAL_ROUND] = 1
            K.clear(s, S.FINAL_TURNS)
            for i in range(1, s[S.N_PLAYERS]):
                K.push(s, S.FINAL_TURNS, K.opponent(s, seat, i))
        if s[S.FINAL_TURNS] == 0:
            return True
        s[S.NEXT_SEAT] = K.pop_at(s, S.FINAL_TURNS, 0)
    else:
        s[S.NEXT_SEAT] = (seat + 1) % s[S.N_PLAYERS]
    return False


@njit(cache=True)
def finish(s):
    s[S.OVER] = 1
    final_affiliation(s)


@njit(cache=True)
def take_turn(s, seat):
    b = K.pbase(seat)
    s[S.TURN] += 1
    s[S.ACTIVE] = seat
    s[b + S.P_USED_POWERS] = 0
    for q in range(s[S.N_PLAYERS]):
        s[K.pbase(q) + S.P_BOUGHT] = 0
    for _ in range(K.working(s, seat, K.C_LANDLORD)):
        B.gain_pearls(s, seat, 1)
    lev = s[S.LEVIATHAN] == 1
    if lev:
        B.leviathan(s, B.LV_REVEAL_HELD, seat, 0)
    if plot_possible(s):
        use_once_per_turn_powers(s, seat, P.D_POWER_BEFORE_PLOT)
    plot_at_court(s, seat)
    use_once_per_turn_powers(s, seat, P.D_POWER)
    kills = s[S.N_KILLS]
    take_action(s, seat)
    control_locations(s, seat)
    if s[S.N_KILLS] == kills or s[T.POWERS_AFTER_KILL] == 1:
        use_once_per_turn_powers(s, seat, P.D_POWER)
    enforce_commander(s, seat)
    if lev:
        B.leviathan(s, B.LV_END_OF_TURN, seat, 0)
    if s[T.COURT_END_BGA] == 1 and s[S.END_REASON] == S.END_NONE:
        if s[S.LORD_DECK] == 0 and s[S.COURT] < s[T.COURT_SIZE]:
            B.trigger_end(s, S.END_COURT)


@njit(cache=True, inline="always")
def plot_possible(s):
    return s[S.COURT] < s[T.COURT_SIZE] and s[S.LORD_DECK] > 0


@njit(cache=True)
def can_plot(s, seat):
    return s[K.pbase(seat) + S.P_PEARLS] >= 1 and plot_possible(s)


@njit(cache=True)
def plot_at_court(s, seat):
    while can_plot(s, seat) and B.choose_01(s, seat, P.D_PLOT) == 1:
        B.pay_treasury(s, seat, 1)
        K.push(s, S.COURT, K.pop(s, S.LORD_DECK))


@njit(cache=True)
def once_per_turn_options(s, seat):
    """W.OPT = [0, usable once-per-turn powers...]; returns the count (1 = none)."""
    used = s[K.pbase(seat) + S.P_USED_POWERS]
    s[W.OPT + 0] = 0
    n = 1
    held = once_per_turn_held(s, seat)
    for k in range(3):
        power = K.PW_SLAVER if k == 0 else (K.PW_ORACLE if k == 1 else K.PW_OPPORTUNIST)
        if (used >> k) & 1 or not (held >> k) & 1:
            continue
        if power == K.PW_SLAVER and s[K.pbase(seat) + S.P_HAND] == 0:
            continue
        if power == K.PW_ORACLE and not K.council_any(s):
            continue
        if power == K.PW_OPPORTUNIST and not (s[S.COURT] > 0 and s[S.LORD_DECK] > 0):
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
def use_once_per_turn_powers(s, seat, decision):
    """`decision`: P.D_POWER_BEFORE_PLOT before plotting, else P.D_POWER."""
    b = K.pbase(seat)
    while True:
        n = once_per_turn_options(s, seat)
        if n == 1:
            return
        power = B.choose(s, seat, decision, n)
        if power == 0:
            return
        k = 0 if power == K.PW_SLAVER else (1 if power == K.PW_ORACLE else 2)
        s[b + S.P_USED_POWERS] |= 1 << k
        if power == K.PW_SLAVER:
            B.choose_discard(s, seat)
            B.gain_pearls(s, seat, 2)
        elif power == K.PW_ORACLE:
            n = B.council_options(s)
            race = B.choose(s, seat, P.D_COUNCIL_DISCARD, n)
            K.extend(s, S.EXP_DISCARD, B.council_stack(race))
            K.clear(s, B.council_stack(race))
        else:
            n = B.options_from_stack(s, S.COURT)
            lord = B.choose(s, seat, P.D_COURT_DISCARD, n)
            i = K.index_of(s, S.COURT, lord)
            s[S.COURT + 1 + i] = K.pop(s, S.LORD_DECK)
            K.push(s, S.LORD_DISCARD, lord)


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
    action = B.choose(s, seat, P.D_ACTION, n)
    if action == P.A_EXPLORE:
        explore(s, seat)
    elif action == P.A_REQUEST_SUPPORT:
        request_support(s, seat)
    else:
        recruit(s, seat, n_affordable)


#: the search player's driver (`sim.core.driver`): `play_game` plays `play`, or with a
#: search seat (policies.SEARCH) `play_searched`; `rollout` is also the extra, independent
#: rollouts of `games.abyss.engine.kernel.record`
DRIVER_LAYOUT = DriverLayout(W.SEARCH_BLOCKS, B.SEARCH_SLOTS, W.FORK_KEYS, W.TRAJ_ON, S.NEXT_SEAT,
                             S.MAX_PLAYERS, N_SEAT_FIELDS, R_RANK, R_SCORE)
#: the play loop (`sim.core.driver.play_for`): turns until the end (resumes from NEXT_SEAT /
#: FINAL_TURNS), then the final tally
play = play_for(take_turn, end_of_turn, turn_limit, finish, S.NEXT_SEAT)
play_game, play_searched, rollout, search_decision, search_choice, searched_loop = (
    drivers_for(take_turn, end_of_turn, turn_limit, play, finish, score, DRIVER_LAYOUT)
)


@njit(cache=True)
def new_game(s, seed, game, n_players):
    """Set up game `game` of seed `seed` in workspace s (state, streams and trace reset)."""
    reset_game(s, S.STATE_SIZE, W.RNG_KEYS, W.RNG_COUNTERS, W.TRACE, seed, game)
    s[W.FORK_COUNT] = 0
    s[W.SEARCH_MODE] = s[W.SEARCH_COUNT] = s[W.SEARCH_FOUND] = s[W.SCRIPT] = 0
    s[W.KIND_STAMP] = 0
    s[W.KIND_SEEN : W.KIND_SEEN + W.N_ALLY_KINDS] = 0
    s[W.TRAJ : W.TRAJ + W.MAX_ROUNDS * S.MAX_PLAYERS * 3] = W.NOT_PLAYED
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
    s = with_trace(base, W.WORKSPACE_BASE, trace_cap)
    set_strategies(s, lineup_kinds, lineup_params)
    return s


def set_strategies(s, kinds, params) -> None:
    n = len(kinds)
    s[W.POLICY_KIND : W.POLICY_KIND + n] = kinds
    s[W.POLICY_PARAMS : W.POLICY_PARAMS + n * W.N_PARAMS] = np.asarray(params).reshape(-1)


def load_state(s, state, counters, seed, game) -> None:
    """Put an encoded state (`games.abyss.engine.state.encode`) of game `game` of `seed` into
    workspace s, to play on from there with `play`."""
    from sim.core.rng import N_STREAMS, stream_keys

    keys = np.zeros(N_STREAMS, dtype=np.uint64)
    stream_keys(np.int64(seed), np.int64(game), keys)
    s[: S.STATE_SIZE] = state
    W.put_rng(s, keys, counters)
    s[W.TRACE] = 0
    s[W.FORK_COUNT] = 0
    K.refresh_all_powers(s)


def play_tables(template, seed, games, seatings, lineup_kinds, lineup_params, out_seats,
                out_games, traj_slot, out_traj):  # fmt: skip
    """Play game games[i] of `seed` with seat s taken by line-up entry seatings[i, s], for every
    i, on all threads (`games.abyss.engine.fast`: consecutive games in rotation;
    `reports.runs.tournament`: every table of a block on the same game, for common random
    numbers); a game depends only on (seed, game index, seating), never on its lane.

    A game with traj_slot[i] >= 0 also records each seat's IP, Pearls and Keys round by round
    into out_traj[traj_slot[i], round, seat, :] (W.NOT_PLAYED where the seat had no turn).

    A line-up with the search player plays `play_tables_searched`: the same games, its driver
    compiled only when it is used."""
    _plain_tables(template, out_games.shape[0], (seed, games, seatings, lineup_kinds,
                  lineup_params, traj_slot), (out_seats, out_games, out_traj))  # fmt: skip


def play_tables_searched(template, seed, games, seatings, lineup_kinds, lineup_params, out_seats,
                         out_games, traj_slot, out_traj):  # fmt: skip
    """`play_tables` for a line-up with the search player (`play_game`)."""
    _searched_tables(template, out_games.shape[0], (seed, games, seatings, lineup_kinds,
                     lineup_params, traj_slot), (out_seats, out_games, out_traj))  # fmt: skip


def play_tables_probed(template, seed, games, seatings, lineup_kinds, lineup_params, out_seats,
                       out_games, traj_slot, out_traj, out_marks):  # fmt: skip
    """`play_tables` for a line-up with a probing seat (`policies.PROBE`, restricted play): the
    same games, and out_marks[i] the probing seat's marks of game i (W.PROBE_MARKS)."""
    _probed_tables(template, out_games.shape[0], (seed, games, seatings, lineup_kinds,
                   lineup_params, traj_slot),
                   (out_seats, out_games, out_traj, out_marks))  # fmt: skip


def probed_task_for(set_up_and_play):
    """`table_task_for`'s task, which also copies the probing seat's marks, cleared before the
    game, into out_marks[i]."""

    @njit_closure
    def table_task(s, i, ins, outs):
        seed, games, seatings, lineup_kinds, lineup_params, traj_slot = ins
        out_seats, out_games, out_traj, out_marks = outs
        seat_task(s, i, seatings, lineup_kinds, lineup_params, traj_slot)
        for k in range(W.N_PROBE_MARKS):
            s[W.PROBE_MARKS + k] = 0
        set_up_and_play(s, seed, games[i], seatings.shape[1])
        end_task(s, i, out_seats, out_games, traj_slot, out_traj)
        for k in range(W.N_PROBE_MARKS):
            out_marks[i, k] = s[W.PROBE_MARKS + k]

    return table_task


def table_task_for(set_up_and_play):
    """Task i of `play_tables`: its line-up seated, its game set up and played by
    `set_up_and_play(s, seed, game, n_players)`, its results (and round-by-round record)
    written."""

    @njit_closure
    def table_task(s, i, ins, outs):
        seed, games, seatings, lineup_kinds, lineup_params, traj_slot = ins
        out_seats, out_games, out_traj = outs
        seat_task(s, i, seatings, lineup_kinds, lineup_params, traj_slot)
        set_up_and_play(s, seed, games[i], seatings.shape[1])
        end_task(s, i, out_seats, out_games, traj_slot, out_traj)

    return table_task


@njit(cache=True)
def whole_game(s, seed, game, n_players):
    """Game `game` of `seed` at n_players, set up and played to the end: the kernel a
    tournament's and a forked rollout's tasks call apart (`sim.core.apart`), so that the rules'
    tree is compiled once and not again in each of them (docs/decisions.md)."""
    new_game(s, seed, game, n_players)
    play(s)
    return 0


_whole_game = called_apart(whole_game)


@njit(cache=True, inline="always")
def play_whole_game(s, seed, game, n_players):
    """`whole_game`, called apart."""
    _whole_game(s, seed, game, n_players)


@njit(cache=True)
def searched_game(s, seed, game, n_players):
    """`whole_game` with the search player's driver (compiled only when a line-up has it)."""
    new_game(s, seed, game, n_players)
    play_game(s)


_plain_tables = tables_for(table_task_for(play_whole_game))
_searched_tables = tables_for(table_task_for(searched_game))
_probed_tables = tables_for(probed_task_for(play_whole_game))


@njit(cache=True)
def seat_task(s, i, seatings, lineup_kinds, lineup_params, traj_slot):
    """Seat task i's line-up, and say whether its game keeps a round-by-round record."""
    seat_lineup(s, W.POLICY_KIND, W.POLICY_PARAMS, W.N_PARAMS, seatings[i], lineup_kinds,
                lineup_params)  # fmt: skip
    s[W.TRAJ_ON] = 1 if traj_slot[i] >= 0 else 0


@njit(cache=True)
def start_task(s, i, seed, games, seatings, lineup_kinds, lineup_params, traj_slot):
    """Seat task i's line-up and set up its game."""
    seat_task(s, i, seatings, lineup_kinds, lineup_params, traj_slot)
    new_game(s, seed, games[i], seatings.shape[1])


@njit(cache=True)
def end_task(s, i, out_seats, out_games, traj_slot, out_traj):
    """Task i's results, and its round-by-round record if it keeps one."""
    record_results(s, out_seats[i], out_games[i])
    slot = traj_slot[i]
    if slot >= 0:
        for r in range(W.MAX_ROUNDS):
            for seat in range(s[S.N_PLAYERS]):
                at = W.TRAJ + (r * S.MAX_PLAYERS + seat) * 3
                for k in range(3):
                    out_traj[slot, r, seat, k] = s[at + k]
