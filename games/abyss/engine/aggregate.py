"""Additive aggregates of many Abyss games: counts and integer sums that merge by addition.

Every run writes them (`aggregates.npz`), however many games it plays: they are what the summary
and the reports read when the per-game tables are switched off. Sums are int64, so aggregates are
exactly equal for any chunking, thread count or merge order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from games.abyss.engine import state as KN
from games.abyss.engine.state import END_REASONS as STATE_END_REASONS
from sim.core.samples import NOT_PLAYED

#: Per (strategy, seat) statistics: a count, wins, and sum / sum of squares of each value.
VALUES = tuple(
    (column, KN.SEAT_FIELDS[column])
    for column in ("score", "score_lords", "score_locations", "score_allies", "score_monsters",
                   "score_wounds", "score_scourge", "pearls", "leviathans_killed", "wounds")
)  # fmt: skip
#: ... and per game: sum / sum of squares of each count.
GAME_VALUES = tuple(KN.GAME_FIELDS.items())
MAX_TURNS = 10_001
#: Card indices the held/won counts cover (the state's capacities).
N_LORD_SLOTS, N_LOCATION_SLOTS = 64, 32
#: Rounds of the per-round trajectories (games.abyss.engine.kernel.workspace.MAX_ROUNDS).
N_ROUNDS = 40
#: End reasons in the aggregates' order (the state's codes; "none" never ends a game).
END_REASONS = STATE_END_REASONS
#: Games whose index is a multiple of this record per-round trajectories, on either engine (a
#: sample that does not depend on chunking; with common random numbers, whole blocks).
TRAJECTORY_EVERY = 16
#: Per strategy, sums over games for intervals whose unit is the game (a strategy's seats in one
#: game share its winner and its length, so they are not independent draws): the games it sat in,
#: then the sums of M*M, M*W, W*W, M*Y and Y*Y, where M, W and Y are its seats, wins and IP in
#: one game (`games.abyss.report.summary_text.cluster_spread`).
CLUSTER_SUMS = ("games", "seats2", "seats_wins", "wins2", "seats_score", "score2")


@dataclass
class Aggregates:
    """Sums over games of one run, by strategy name and seat."""

    strategies: list[str]
    n_players: int
    n_games: int = 0
    seats: np.ndarray = field(default=None)  # [strategy, seat] -> count of seats played
    wins: np.ndarray = field(default=None)  # [strategy, seat]
    sums: np.ndarray = field(default=None)  # [strategy, seat, value]
    squares: np.ndarray = field(default=None)  # [strategy, seat, value]
    game_sums: np.ndarray = field(default=None)  # [game value]
    game_squares: np.ndarray = field(default=None)
    turns_histogram: np.ndarray = field(default=None)  # [turns]
    end_reasons: np.ndarray = field(default=None)  # [END_REASONS index]
    lords_held: np.ndarray = field(default=None)  # [strategy, lord] seat-games recruiting it
    lords_won: np.ndarray = field(default=None)  # [strategy, lord] ... and ranked first
    locations_held: np.ndarray = field(default=None)  # [strategy, location] held at the end
    locations_won: np.ndarray = field(default=None)  # [strategy, location]
    trajectory_sums: np.ndarray = field(default=None)  # [strategy, round, (IP, Pearls, Keys)]
    trajectory_counts: np.ndarray = field(default=None)  # [strategy, round] seat-games recorded
    clusters: np.ndarray = field(default=None)  # [strategy, CLUSTER_SUMS]
    #: the sampled games themselves (every TRAJECTORY_EVERY-th, for the tension metrics of
    #: `reports.metrics.tension`): game index, running IP [game, round, seat] (NOT_PLAYED after the
    #: end), final IP and rank [game, seat], strategy index [game, seat]
    sample_game: np.ndarray = field(default=None)
    sample_ip: np.ndarray = field(default=None)
    sample_final: np.ndarray = field(default=None)
    sample_rank: np.ndarray = field(default=None)
    sample_strategy: np.ndarray = field(default=None)

    def __post_init__(self) -> None:
        k, n, v = len(self.strategies), self.n_players, len(VALUES)
        zeros = {
            "seats": (k, n),
            "wins": (k, n),
            "sums": (k, n, v),
            "squares": (k, n, v),
            "game_sums": (len(GAME_VALUES),),
            "game_squares": (len(GAME_VALUES),),
            "turns_histogram": (MAX_TURNS,),
            "end_reasons": (len(END_REASONS),),
            "lords_held": (k, N_LORD_SLOTS),
            "lords_won": (k, N_LORD_SLOTS),
            "locations_held": (k, N_LOCATION_SLOTS),
            "locations_won": (k, N_LOCATION_SLOTS),
            "trajectory_sums": (k, N_ROUNDS, 3),
            "trajectory_counts": (k, N_ROUNDS),
            "clusters": (k, len(CLUSTER_SUMS)),
        }
        for name, shape in zeros.items():
            if getattr(self, name) is None:
                setattr(self, name, np.zeros(shape, dtype=np.int64))
        for name, (shape, dtype) in _sample_shapes(n).items():
            if getattr(self, name) is None:
                setattr(self, name, np.zeros((0, *shape), dtype=dtype))

    # ---------------------------------------------------------------- accumulate
    def add(self, out_seats: np.ndarray, out_games: np.ndarray, strategy_of: np.ndarray) -> None:
        """Fold one chunk: out_seats[game, seat, R_*], out_games[game, RG_*] and the strategy
        index (into `strategies`) of every seat, strategy_of[game, seat]."""
        n = self.n_players
        seat_index = np.broadcast_to(np.arange(n), strategy_of.shape)
        flat_s, flat_seat = strategy_of.ravel(), seat_index.ravel()
        np.add.at(self.seats, (flat_s, flat_seat), 1)
        wins = (out_seats[:, :, KN.R_RANK] == 1).ravel().astype(np.int64)
        np.add.at(self.wins, (flat_s, flat_seat), wins)
        values = out_seats[:, :n, [c for _, c in VALUES]].reshape(-1, len(VALUES)).astype(np.int64)
        np.add.at(self.sums, (flat_s, flat_seat), values)
        np.add.at(self.squares, (flat_s, flat_seat), values * values)
        g = out_games[:, [c for _, c in GAME_VALUES]].astype(np.int64)
        self.game_sums += g.sum(axis=0)
        self.game_squares += (g * g).sum(axis=0)
        turns = np.minimum(out_games[:, KN.RG_TURNS], MAX_TURNS - 1)
        self.turns_histogram += np.bincount(turns, minlength=MAX_TURNS)
        self.end_reasons += np.bincount(out_games[:, KN.RG_END], minlength=len(END_REASONS))
        won = out_seats[:, :n, KN.R_RANK].ravel() == 1
        self._add_clusters(out_seats[:, :n, KN.R_SCORE], won.reshape(-1, n), strategy_of)
        for held, wins, words in (
            (self.lords_held, self.lords_won, (KN.R_LORDS_LO, KN.R_LORDS_HI)),
            (self.locations_held, self.locations_won, (KN.R_LOCATION_SET,)),
        ):
            bits = _unpack(out_seats[:, :n, list(words)].reshape(-1, len(words)))
            for k in np.unique(flat_s):  # a few strategies: row sums beat np.add.at
                mine = flat_s == k
                held[k] += bits[mine].sum(axis=0, dtype=np.int64)
                wins[k] += bits[mine & won].sum(axis=0, dtype=np.int64)
        self.n_games += len(out_games)

    def _add_clusters(self, score: np.ndarray, won: np.ndarray, strategy_of: np.ndarray) -> None:
        """CLUSTER_SUMS of each strategy's seats, wins and IP, game by game ([game, seat])."""
        score = score.astype(np.int64)
        for k in np.unique(strategy_of):
            mine = strategy_of == k
            m = mine.sum(axis=1, dtype=np.int64)
            w = (won & mine).sum(axis=1, dtype=np.int64)
            y = np.where(mine, score, 0).sum(axis=1)
            self.clusters[k] += [np.count_nonzero(m), m @ m, m @ w, w @ w, m @ y, y @ y]

    def add_samples(self, games, traj: np.ndarray, final, rank, strategy_of) -> None:
        """Keep the sampled games whole: their indices, running IP traj[game, round, seat, 0],
        final IP and ranks [game, seat] and strategies [game, seat] (with their sums:
        `add_trajectories`)."""
        self.add_trajectories(traj, strategy_of)
        if not len(traj):
            return
        n = self.n_players
        new = {"sample_game": games, "sample_ip": traj[:, :, :n, 0], "sample_final": final,
               "sample_rank": rank, "sample_strategy": strategy_of}  # fmt: skip
        for name, (_, dtype) in _sample_shapes(n).items():
            joined = np.concatenate([getattr(self, name), np.asarray(new[name], dtype=dtype)])
            setattr(self, name, joined)
        self._order_samples()

    def _order_samples(self) -> None:
        """The samples in a canonical order, by game and then line-up: the same whatever the
        order in which tasks ran or chunks were merged (games of one index and line-up are the
        same game)."""
        keys = [*self.sample_strategy.T[::-1], self.sample_game]
        order = np.lexsort(keys) if len(self.sample_game) else np.arange(0)
        for name in SAMPLES:
            setattr(self, name, getattr(self, name)[order])

    def add_trajectories(self, traj: np.ndarray, strategy_of: np.ndarray) -> None:
        """Fold recorded trajectories, traj[game, round, seat, (IP, Pearls, Keys)]. A seat that
        had no turn in a round (its game had ended) counts in it with its last values, so every
        round averages over the same seat-games."""
        if not len(traj):
            return
        n = self.n_players
        filled = traj.astype(np.int64)
        # a round the seat did not play (the game had ended) repeats its last values
        filled[:, 0][filled[:, 0] == NOT_PLAYED] = 0
        for r in range(1, filled.shape[1]):
            gap = filled[:, r] == NOT_PLAYED
            filled[:, r][gap] = filled[:, r - 1][gap]
        flat = strategy_of.reshape(len(traj), n)
        for k in np.unique(flat):
            games_, seats_ = np.nonzero(flat == k)
            self.trajectory_sums[k] += filled[games_, :, seats_, :].sum(axis=0)
            self.trajectory_counts[k] += len(games_)

    def merge(self, other: Aggregates) -> Aggregates:
        """The sum of two aggregates of the same line-up (e.g. two halves of a run)."""
        if other.strategies != self.strategies or other.n_players != self.n_players:
            raise ValueError("aggregates of different line-ups cannot be merged")
        out = Aggregates(self.strategies, self.n_players, self.n_games + other.n_games)
        for name in ARRAYS:
            setattr(out, name, getattr(self, name) + getattr(other, name))
        for name in SAMPLES:
            setattr(out, name, np.concatenate([getattr(self, name), getattr(other, name)]))
        out._order_samples()
        return out

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Aggregates)
            and self.strategies == other.strategies
            and self.n_players == other.n_players
            and self.n_games == other.n_games
            and all(np.array_equal(getattr(self, a), getattr(other, a))
                    for a in (*ARRAYS, *SAMPLES))  # fmt: skip
        )

    # -------------------------------------------------------------------- files
    def save(self, path: Path) -> None:
        np.savez_compressed(
            path,
            strategies=np.array(self.strategies),
            n_players=self.n_players,
            n_games=self.n_games,
            **{name: getattr(self, name) for name in (*ARRAYS, *SAMPLES)},
        )

    @classmethod
    def load(cls, path: Path) -> Aggregates:
        with np.load(path) as f:
            return cls(
                [str(x) for x in f["strategies"]],
                int(f["n_players"]),
                int(f["n_games"]),
                **{name: f[name] for name in (*ARRAYS, *SAMPLES) if name in f},
            )

    # ------------------------------------------------------------ from tables
    @classmethod
    def from_frames(cls, seats_df, games_df, strategies: list[str] | None = None) -> Aggregates:
        """Aggregates of per-game tables (`seats.parquet`, `games.parquet`)."""
        names = strategies or sorted(str(x) for x in seats_df["strategy"].unique())
        n_players = int(games_df["n_players"].max())
        agg = cls(list(dict.fromkeys(names)), n_players)
        if not len(games_df):
            return agg
        seats_df = seats_df.sort_values(["game", "seat"])
        games_df = games_df.sort_values("game")
        n_games = len(games_df)
        out_seats = np.zeros((n_games, n_players, KN.N_SEAT_FIELDS), dtype=np.int64)
        for column, index in VALUES:
            out_seats[:, :, index] = seats_df[column].to_numpy().reshape(n_games, n_players)
        out_seats[:, :, KN.R_RANK] = seats_df["rank"].to_numpy().reshape(n_games, n_players)
        if "lord_set" in seats_df and "location_set" in seats_df:
            lords = seats_df["lord_set"].to_numpy(dtype=np.int64).reshape(n_games, n_players)
            out_seats[:, :, KN.R_LORDS_LO] = lords & 0xFFFFFFFF
            out_seats[:, :, KN.R_LORDS_HI] = (lords >> 32) & 0xFFFFFFFF
            locations = seats_df["location_set"].to_numpy(dtype=np.int64)
            out_seats[:, :, KN.R_LOCATION_SET] = locations.reshape(n_games, n_players)
        lookup = {name: i for i, name in enumerate(agg.strategies)}
        strategy_of = np.array(
            [lookup[str(x)] for x in seats_df["strategy"]], dtype=np.int64
        ).reshape(n_games, n_players)
        out_games = np.zeros((n_games, KN.N_GAME_FIELDS), dtype=np.int64)
        for column, index in GAME_VALUES:
            out_games[:, index] = games_df[column].to_numpy()
        out_games[:, KN.RG_END] = [END_REASONS.index(str(r)) for r in games_df["end_reason"]]
        agg.add(out_seats, out_games, strategy_of)
        return agg


ARRAYS = (
    "seats",
    "wins",
    "sums",
    "squares",
    "game_sums",
    "game_squares",
    "turns_histogram",
    "end_reasons",
    "lords_held",
    "lords_won",
    "locations_held",
    "locations_won",
    "trajectory_sums",
    "trajectory_counts",
    "clusters",
)


def _unpack(words: np.ndarray) -> np.ndarray:
    """Rows of 32-bit words (int32 or int64 holding 32 bits) -> rows of 0/1 (uint8) per bit, low
    first."""
    as_bytes = np.ascontiguousarray(words.astype("<u4")).view(np.uint8).reshape(len(words), -1)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")


#: the sampled games' arrays (`Aggregates.add_samples`), merged by joining
SAMPLES = ("sample_game", "sample_ip", "sample_final", "sample_rank", "sample_strategy")


def _sample_shapes(n_players: int) -> dict:
    """Each sample array's shape past the game axis, and its dtype."""
    return {"sample_game": ((), np.int64), "sample_ip": ((N_ROUNDS, n_players), np.int32),
            "sample_final": ((n_players,), np.int32), "sample_rank": ((n_players,), np.int8),
            "sample_strategy": ((n_players,), np.int16)}  # fmt: skip
