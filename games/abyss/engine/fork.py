"""Forked rollouts of the fight-or-explore decision on the fast path.

A *decision point* is a Monster revealed while exploring with a fightable Leviathan on the Border
(Leviathan: "if the revealed card is a Monster, you still have the choice to continue your
Exploration or fight"). A point is named by the game that meets it and its rank among that game's
points: (seed, game index, seating, k). Games are pure functions of their seed, so replaying the
game reaches the very same point; the kernel (`kernel.leviathan_monster`) then

1. re-keys every random stream from the replicate's keys and reshuffles the face-down decks
   (each replicate samples what the deciding player cannot see);
2. records the situation (`INFO_COLUMNS`);
3. plays the forced choice, and the game to its end with the same strategies.

Both choices of a replicate get the same keys (common random numbers), so their difference is
paired; `paired=False` gives the continue branch keys of its own, for comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.abyss.engine import state as S
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.kernel.scoring import score
from games.abyss.engine.policies import M_CONTINUE, M_FIGHT
from sim.core.driver import tables_for
from sim.core.jit import njit
from sim.core.results import win_shares
from sim.core.rng import N_STREAMS, stream_keys_in
from sim.core.workspace import seat_lineup

#: Columns of the situation recorded at a decision point (W.FORK_INFO, `kernel.record_fork`).
INFO_COLUMNS = (
    "seat",
    "turn",
    "round",
    "pearls",
    "n_border",  # Leviathans on the Border
    "best_ally_value",  # the strongest Ally in hand that may attack a Leviathan there
    "resistance",  # Resistance of the target's current Life space
    "chance_36",  # 36 x the best chance of damage (the strategy's Pearl rule included)
    "own_choice",  # what the seat's strategy chose (0 continue, 1 fight, 2 ignore)
    "arrival_risk",  # thousandths of P(the next Leviathan lands on an occupied zone)
    "ip",  # the seat's running score
    "hand",  # Allies in hand
    "keys",
    "target",  # Leviathan card index of the target (the best chance of damage)
    "life_index",  # the target's Life space
    "lives_left",
)
assert len(INFO_COLUMNS) == W.N_FORK_INFO

FIGHT, CONTINUE = M_FIGHT, M_CONTINUE
#: Replicate salts stay below this; the point's game index is shifted above it.
SALT_BITS = 20
MAX_REPLICATES = (1 << SALT_BITS) // 2


def fork_tables(
    template,
    seed,
    games,
    seatings,
    lineup_kinds,
    lineup_params,
    fork_at,
    fork_choice,
    fork_seed,
    fork_game,
    fork_set,
    out_seats,
    out_info,
    out_count,
):
    """Play game games[i] of `seed` (seatings as `kernel.play_tables`), forking at its
    fork_at[i]-th decision point (0: none) with choice fork_choice[i] (-1: the strategy's own) on
    streams keyed by (fork_seed, fork_game[i]) (fork_game[i] < 0: no re-keying).

    Writes the final scores (out_seats[i]), the situation at the point (out_info[i]; -1 when it
    was not reached) and the number of decision points the game met (out_count[i]).

    fork_set[i] holds (slot, value) pairs (slot -1: unused): when any is used, task i is a rule
    rollout: at the point, the deciding seat's strategy parameters change so, and the changed
    strategy makes this and every later decision (fork_choice is then ignored).
    """
    _fork_tables(template, out_seats.shape[0], (seed, games, seatings, lineup_kinds,
                 lineup_params, fork_at, fork_choice, fork_seed, fork_game, fork_set),
                 (out_seats, out_info, out_count))  # fmt: skip


@njit(cache=True)
def fork_task(s, i, ins, outs):
    """Task i of `fork_tables`."""
    seed, games, seatings, lineup_kinds, lineup_params = ins[:5]
    fork_at, fork_choice, fork_seed, fork_game, fork_set = ins[5:]
    out_seats, out_info, out_count = outs
    seat_lineup(s, W.POLICY_KIND, W.POLICY_PARAMS, W.N_PARAMS, seatings[i], lineup_kinds,
                lineup_params)  # fmt: skip
    s[W.TRAJ_ON] = 0
    s[W.FORK_AT] = fork_at[i]
    s[W.FORK_CHOICE] = fork_choice[i] + 1
    s[W.FORK_REKEY] = 1 if fork_game[i] >= 0 else 0
    n_set = 0
    for k in range(W.MAX_FORK_SET):
        if fork_set[i, 2 * k] >= 0:
            s[W.FORK_SET + 2 * n_set] = fork_set[i, 2 * k]
            s[W.FORK_SET + 2 * n_set + 1] = fork_set[i, 2 * k + 1]
            n_set += 1
    s[W.FORK_N_SET] = n_set
    if fork_game[i] >= 0:
        stream_keys_in(s, W.FORK_KEYS, fork_seed, fork_game[i], N_STREAMS)
    s[W.FORK_INFO : W.FORK_INFO + W.N_FORK_INFO] = -1
    KN.play_whole_game(s, seed, games[i], seatings.shape[1])
    score(s, out_seats[i])
    for k in range(W.N_FORK_INFO):
        out_info[i, k] = s[W.FORK_INFO + k]
    out_count[i] = s[W.FORK_COUNT]


_fork_tables = tables_for(fork_task)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on a uint64 array (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def pick_points(seed: int, games: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """One decision point per game, uniformly among the game's `counts` points (1-based; 0 for
    a game without any): a function of (seed, game) only, so chunking cannot change it."""
    with np.errstate(over="ignore"):
        h = _mix(np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) ^ _mix(games.astype(np.uint64)))
    counts = counts.astype(np.uint64)
    k = np.where(counts > 0, h % np.maximum(counts, np.uint64(1)) + np.uint64(1), np.uint64(0))
    return k.astype(np.int64)


def fork_seed_of(seed: int) -> int:
    """The key seed of a run's replicates: distinct from any game seed's streams."""
    with np.errstate(over="ignore"):
        mixed = _mix(np.array([seed ^ 0x5F0F0F0F0F0F0F0F], dtype=np.uint64))[0]
    return int(mixed >> np.uint64(1))


class Forker:
    """Plays forks of one line-up's games: `count` finds the decision points, `play` forks them.

    `tables` must have the Leviathan expansion on; `kinds`/`params` are the line-up's compiled
    strategies (`games.abyss.engine.fast.lineup_arrays`), n_players or more (`seatings_of`).
    """

    def __init__(self, tables, seed: int, kinds, params, n_players: int) -> None:
        from games.abyss.engine.policy_params import SEARCH
        from sim.core.errors import UserError

        if SEARCH in np.asarray(kinds).tolist():
            raise UserError("the fight-or-explore rollouts do not take the search player; "
                            "`abyss-mc ev search` checks a fight rule against it")  # fmt: skip
        self.template = W.cached_template(tables)
        self.seed = int(seed)
        self.kinds = kinds
        self.params = params
        self.n_players = n_players
        self.fork_seed = fork_seed_of(seed)

    def seatings(self, games: np.ndarray) -> np.ndarray:
        return seatings_of(games, self.n_players, len(self.kinds))

    def _run(self, games, fork_at, fork_choice, fork_game, fork_set=None):
        n = len(games)
        if fork_set is None:
            fork_set = np.full((n, 2 * W.MAX_FORK_SET), -1, dtype=np.int32)
        out_seats = np.zeros((n, self.n_players, S.N_SEAT_FIELDS), dtype=np.int32)
        out_info = np.zeros((n, W.N_FORK_INFO), dtype=np.int32)
        out_count = np.zeros(n, dtype=np.int32)
        fork_tables(
            self.template,
            np.int64(self.seed),
            np.ascontiguousarray(games, dtype=np.int64),
            self.seatings(games),
            self.kinds,
            self.params,
            np.ascontiguousarray(fork_at, dtype=np.int32),
            np.ascontiguousarray(fork_choice, dtype=np.int32),
            np.int64(self.fork_seed),
            np.ascontiguousarray(fork_game, dtype=np.int64),
            np.ascontiguousarray(fork_set, dtype=np.int32),
            out_seats,
            out_info,
            out_count,
        )
        return out_seats, out_info, out_count

    def count(self, games: np.ndarray) -> np.ndarray:
        """The number of decision points each game meets when played normally."""
        zeros = np.zeros(len(games), dtype=np.int64)
        _, _, counts = self._run(games, zeros, zeros - 1, zeros - 1)
        return counts

    def branches(self, games, ks, replicates: int, branches: list[Branch]):
        """Play every branch from decision point ks[j] of game games[j], `replicates` times.

        Returns `info` (points x INFO_COLUMNS) and, per branch, the deciding seat's final IP
        and share of the win, as arrays [branch, point, replicate]. Replicate r of a branch
        runs on the keys of salt `branch.salt + r`: equal salts, common random numbers.
        """
        if not 1 <= replicates <= MAX_REPLICATES:
            raise ValueError(f"replicates must be 1..{MAX_REPLICATES}")
        m, r, b = len(games), replicates, len(branches)
        point = np.repeat(np.arange(m), b * r)
        per_point = np.repeat(np.arange(b), r)  # branch of each task within a point
        choice = np.tile(np.array([x.choice for x in branches])[per_point], m)
        salt = np.tile(
            np.array([x.salt for x in branches])[per_point] + np.tile(np.arange(r), b), m
        )
        fork_set = np.tile(np.stack([x.set_row() for x in branches])[per_point], (m, 1))
        fork_game = (np.asarray(games, dtype=np.int64)[point] << SALT_BITS) + salt
        out_seats, out_info, _ = self._run(
            np.asarray(games)[point], np.asarray(ks)[point], choice, fork_game, fork_set
        )
        if (out_info[:, 0] < 0).any():
            raise RuntimeError("a fork point was not reached: the replay diverged")
        info = out_info.reshape(m, b * r, -1)
        if (info != info[:, :1]).any():
            raise RuntimeError("the situation at a fork point differs between replicates")
        seat = out_info[:, 0]
        rows = np.arange(len(seat))
        ip = out_seats[rows, seat, S.R_SCORE].reshape(m, b, r).transpose(1, 0, 2)
        win = win_shares(out_seats[:, :, S.R_RANK])[rows, seat].reshape(m, b, r)
        return info[:, 0].astype(np.int64), ip.astype(np.float64), win.transpose(1, 0, 2)

    def play(
        self, games: np.ndarray, ks: np.ndarray, replicates: int, *, paired: bool = True
    ) -> dict[str, np.ndarray]:
        """Fork decision point ks[j] of game games[j] `replicates` times each way.

        Returns arrays: `info` (points x INFO_COLUMNS), and for each of `fight` and `continue`
        the deciding seat's final `*_ip` and share of the win `*_win` (points x replicates).
        Unpaired, the continue branch runs on keys of its own.
        """
        branches = [Branch(FIGHT), Branch(CONTINUE, salt=0 if paired else replicates)]
        info, ip, win = self.branches(games, ks, replicates, branches)
        return {
            "info": info,
            "fight_ip": ip[0],
            "continue_ip": ip[1],
            "fight_win": win[0],
            "continue_win": win[1],
        }

    def play_continue_unpaired(self, games, ks, replicates: int) -> dict[str, np.ndarray]:
        """The continue branch alone on keys no fight branch of `play` uses."""
        info, ip, win = self.branches(games, ks, replicates, [Branch(CONTINUE, replicates)])
        return {"info": info, "continue_ip": ip[0], "continue_win": win[0]}

    def play_rules(self, games, ks, replicates: int, rules: list[dict[int, int]]):
        """Rule rollouts: from each point, the deciding seat keeps its strategy (rules[v] empty)
        or switches parameters `{slot: value}` for the rest of the game; common random numbers
        across rules. Returns (info, ip, win), ip and win as [rule, point, replicate]."""
        return self.branches(games, ks, replicates, [Branch(-1, 0, rule) for rule in rules])


@dataclass(frozen=True)
class Branch:
    """One way to play on from a fork point: a forced choice (-1: the strategy decides), the
    first replicate salt, and parameter changes of a rule rollout ({slot: value})."""

    choice: int
    salt: int = 0
    rule: dict[int, int] | None = None

    def set_row(self) -> np.ndarray:
        row = np.full(2 * W.MAX_FORK_SET, -1, dtype=np.int32)
        items = sorted((self.rule or {}).items())
        if len(items) > W.MAX_FORK_SET:
            raise ValueError(f"a rule rollout changes at most {W.MAX_FORK_SET} parameters")
        for i, (slot, value) in enumerate(items):
            row[2 * i], row[2 * i + 1] = slot, value
        return row


def seatings_of(games: np.ndarray, n_players: int, n_strategies: int) -> np.ndarray:
    """Seat s of game g plays line-up entry (s + g) mod n_strategies: the seat rotation of
    `games.abyss.engine.fast` when the line-up has one strategy per seat, and every strategy in
    every seat when it has more."""
    seats = np.arange(n_players, dtype=np.int64)
    return (seats[None, :] + np.asarray(games, dtype=np.int64)[:, None]) % n_strategies


def fork_keys(fork_seed: int, fork_game: int) -> np.ndarray:
    """The stream keys of one replicate (what `fork_tables` computes in the kernel)."""
    from sim.core.rng import stream_keys

    keys = np.zeros(N_STREAMS, dtype=np.uint64)
    stream_keys(np.int64(fork_seed), np.int64(fork_game), keys)
    return keys


def reference_fork(
    tables, strategies, n_players, seed, game, at, choice, replicate=None, rule=None
):
    """The same fork on the reference engine (for parity tests and replays): game `game` of
    `seed` seated as on the fast path (`seatings_of`), decision point `at` forced to `choice`
    (-1: own), on replicate `replicate`'s keys (None: no re-keying), or a rule rollout switching
    to `rule` ({slot: value}); `strategies`: the line-up's policies. Returns the finished
    Game."""
    from games.abyss.engine.rules.game import Game
    from games.abyss.engine.rules.leviathan import Fork

    keys = None
    if replicate is not None:
        keys = fork_keys(fork_seed_of(seed), (int(game) << SALT_BITS) + int(replicate))
    seating = seatings_of(np.array([game]), n_players, len(strategies))[0]
    g = Game(tables, [strategies[j] for j in seating], seed, int(game), record=True)
    g.fork = Fork(at=int(at), choice=int(choice), keys=keys, rule=rule)
    return g.play()
