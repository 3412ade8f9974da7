"""`abyss-mc tournament`: which strategy wins, by how much, with honest intervals.

Design. A *block* is one game index g of the run's seed: every *table* of block g (a line-up of
strategies in one seating) plays the very same decks, dice and policy draws (common random
numbers, CRN), so a difference between strategies within a block is not drowned by the luck of
the deal. Each line-up is played in every rotation of its seats, so every strategy sits in every
seat equally often (seat rotation).

- k strategies, n players, k <= n: one line-up, the strategies cycled over the seats
  (A, B, A, B for two strategies at four players), in its distinct rotations.
- k > n: a balanced subset of line-ups (`design="balanced"`, the default): in each block the
  strategies are put in a fresh random order (drawn from the run's seed and the block), and
  line-up i holds the strategies at places i, i+1, ..., i+n-1 (mod k) of that order; so each
  strategy plays in n line-ups of every block, once in each position, and every pair of
  strategies shares a table equally often in expectation: every strategy meets the same mix of
  opponents, and raw win rates are comparable (with one fixed order, `design="cyclic"`, a
  strategy met only its neighbours in the list, and its win rate depended on them; measured in
  docs/tournament.md). Or every combination of n strategies (`design="all"`).

`crn="auto"` (the default) is what was measured best (docs/tournament.md): `block` when the
design has a single line-up (a duplicate design), `none` otherwise. `crn="lineup"` shares a deal
only among the rotations of one line-up (each line-up of a block
gets its own deal); without CRN (`crn="none"` or False) each table gets a deal of its own. What
each buys is measured in docs/tournament.md: in a two-strategy tournament (one line-up, its
rotations: a duplicate design) block CRN narrows the intervals a little; with many strategies in
the balanced design it widens them, because a deal that suits one strategy shows up in all of
its seat-games of the block. The intervals are valid in every mode (the block is the unit).

The results are long-form, one row per (block, table, seat), ready for `reports.stats.blocks`.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import numpy as np

from reports.play import blocks as B
from sim.core.errors import UserError

DESIGNS = ("balanced", "cyclic", "all")
#: A sequential tournament checks whether to stop every this many blocks (chunks of this size).
SEQUENTIAL_CHECK = 50
#: Which tables of a block share a deal: all of them, the rotations of each line-up, or none.
CRN_MODES = ("block", "lineup", "none")
#: The default --crn: block for a duplicate design (one line-up), none for many line-ups.
AUTO = "auto"
#: Tags the random stream of the strategies' order in a block (any constant; see block_order).
ORDER_STREAM = 0x0DE5


def crn_mode(crn, design: Design | None = None) -> str:
    """`True`/`False` (block/none), one of CRN_MODES, or "auto": block for a design with one
    line-up, none for several (what docs/tournament.md measured best)."""
    if crn is True:
        return "block"
    if crn is False:
        return "none"
    if crn == AUTO:
        if design is None:
            return AUTO
        return "block" if len(design.lineups) == 1 else "none"
    if crn not in CRN_MODES:
        raise UserError(f"--crn must be one of auto, {', '.join(CRN_MODES)}; got {crn!r}")
    return crn


@dataclass
class Design:
    """The tables played in every block: `seating[t, seat]` = index into `strategies`."""

    strategies: list[str]
    n_players: int
    seating: np.ndarray  # block 0's seatings (the cyclic order of each line-up as listed)
    lineups: list[tuple[int, ...]] = field(default_factory=list)
    lineup_of_table: np.ndarray = field(default=None)  # index into lineups, per table
    rotation_of_table: np.ndarray = field(default=None)
    orders: np.ndarray = field(default=None)  # cyclic orders of the seats (`cyclic_orders`)
    shuffled: bool = False  # each block puts the strategies in a fresh random order
    seed: int = 0  # the run's seed (the stream of those orders)

    @property
    def n_tables(self) -> int:
        return len(self.seating)


def make_design(
    strategies: list[str], n_players: int, design: str = "balanced", seed: int = 0
) -> Design:
    """Line-ups and seatings of a tournament (see the module docstring)."""
    k = len(strategies)
    if k < 2:
        raise UserError("a tournament needs at least two strategies")
    if len(set(strategies)) != k:
        raise UserError("each strategy may appear only once in a tournament")
    if design not in DESIGNS:
        raise UserError(f"unknown design {design!r}; known: {', '.join(DESIGNS)}")
    if k <= n_players:
        lineups = [tuple(i % k for i in range(n_players))]
    elif design == "all":
        lineups = list(itertools.combinations(range(k), n_players))
    else:
        lineups = [tuple((i + j) % k for j in range(n_players)) for i in range(k)]
    rows: list[tuple[int, ...]] = []
    owner: list[int] = []
    rotation: list[int] = []
    for i, lineup in enumerate(lineups):
        seen = set()
        for r in range(n_players):
            seating = tuple(lineup[(seat + r) % n_players] for seat in range(n_players))
            if seating not in seen:
                seen.add(seating)
                rows.append(seating)
                owner.append(i)
                rotation.append(r)
    # Seating order matters in Abyss (who buys your Allies, who follows whom): with distinct
    # strategies, each block seats each line-up in another cyclic order (`block_games`).
    orders = cyclic_orders(n_players) if k >= n_players else np.arange(n_players)[None, :]
    return Design(
        list(strategies),
        n_players,
        np.array(rows, dtype=np.int64),
        lineups,
        np.array(owner, dtype=np.int64),
        np.array(rotation, dtype=np.int64),
        orders,
        shuffled=design == "balanced" and k > n_players,
        seed=seed,
    )


def cyclic_orders(n: int) -> np.ndarray:
    """Every way to seat n players round a table up to rotation: permutations of 0..n-1 that
    start with 0 ((n-1)! of them, the identity first)."""
    rest = itertools.permutations(range(1, n))
    return np.array([(0, *p) for p in rest], dtype=np.int64)


def block_seatings(design: Design, blocks: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """Seating of table t in block b: its line-up in cyclic order (b + line-up) mod (n-1)!,
    then the table's rotation. Over (n-1)! consecutive blocks every line-up meets every cyclic
    order once, so no strategy always sits next to the same one (neighbour effects in Abyss
    are large: docs/tournament.md)."""
    n = design.n_players
    lineup = design.lineup_of_table[tables]
    order = design.orders[(blocks + lineup) % len(design.orders)]
    members = np.array(design.lineups, dtype=np.int64)[lineup]
    arranged = np.take_along_axis(members, order, axis=1)
    seat_pos = (np.arange(n)[None, :] + design.rotation_of_table[tables][:, None]) % n
    seated = np.take_along_axis(arranged, seat_pos, axis=1)
    if design.shuffled:
        seated = block_order(design, blocks)[np.arange(len(blocks))[:, None], seated]
    return seated


def block_order(design: Design, blocks: np.ndarray) -> np.ndarray:
    """The strategies' random order of each block (row i: the strategy at each place of the
    design's order for blocks[i]), a pure function of the run's seed and the block."""
    k = len(design.strategies)
    unique, where = np.unique(blocks, return_inverse=True)
    orders = np.array(
        [np.random.default_rng([ORDER_STREAM, design.seed, int(b)]).permutation(k) for b in unique],
        dtype=np.int64,
    ).reshape(len(unique), k)
    return orders[where]


def block_games(design: Design, first_block: int, n_blocks: int, crn: bool = True):
    """Game index and seating of every table of blocks first_block .. first_block + n_blocks - 1,
    in block-major order: (blocks, tables, games, seatings)."""
    t = design.n_tables
    blocks, tables = block_tables(design, first_block, n_blocks)
    mode = crn_mode(crn, design)
    if mode == "block":
        games = blocks.copy()
    elif mode == "lineup":
        games = blocks * len(design.lineups) + design.lineup_of_table[tables]
    else:
        games = blocks * t + tables
    seatings = block_seatings(design, blocks, tables)
    return blocks, tables, games, seatings


def block_tables(design: Design, first_block: int, n_blocks: int):
    """The block and table of every table of blocks first_block .. first_block + n_blocks - 1,
    in block-major order."""
    t = design.n_tables
    blocks = np.repeat(np.arange(first_block, first_block + n_blocks, dtype=np.int64), t)
    return blocks, np.tile(np.arange(t, dtype=np.int64), n_blocks)


@dataclass
class TournamentResult:
    design: Design
    seats: object  # pandas DataFrame, one row per (block, table, seat)
    games: object  # pandas DataFrame, one row per (block, table)
    aggregates: object  # games.abyss.engine.aggregate.Aggregates over every table
    n_blocks: int
    crn: str
    stopped_early: bool = False
    sequential: object = None  # reports.stats.sequential.SequentialComparison, in sequential mode
    timings: dict = field(default_factory=dict)
    #: blocks 0 .. n_stored - 1 are in the store (more than n_blocks when a longer run of the
    #: same store was interrupted: `reports.budget.extend` plays on to them)
    n_stored: int = 0


def run_tournament(
    tables,
    strategies: list[str],
    *,
    n_players: int,
    n_blocks: int,
    seed: int,
    design: str = "balanced",
    crn: bool = True,
    threads: int | None = None,
    progress: bool = False,
    sequential_alpha: float | None = None,
    min_blocks: int = 100,
    game: str = "abyss",
    store=None,
    client=None,
) -> TournamentResult:
    """Play `n_blocks` blocks of the design on the fast path of `game` (its play module's
    `run_tables`; a game that keeps no aggregates gives `aggregates` None).

    With `sequential_alpha`, stop as soon as every pair of strategies is decided (its
    anytime-valid confidence sequence for the difference in win share excludes 0, with the
    family-wise error rate held at `sequential_alpha`;
    `reports.stats.sequential.SequentialComparison`),
    checking every `SEQUENTIAL_CHECK` blocks once `min_blocks` are played (fixed points, so the
    stopping block never depends on the machine's speed); `n_blocks` is then the budget.

    With a `store` (`sim.core.chunks.ChunkStore`; a chunk is a run of blocks), each finished
    chunk is stored and the stored ones are read back instead of played: an interrupted
    tournament resumes with the same results, sequential or not. Stored chunks from block
    `n_blocks` on (a longer run's) are kept and left out, so that a tournament played in looks
    (`reports.budget.extend`) reads each look's blocks only.

    With a Dask `client` (`sim.core.dask_backend`), chunks of `DASK_BLOCKS` blocks are played on
    the cluster and recorded in block order: the same results (a table's game is a pure function
    of the seed, the block and the design). Not with `sequential_alpha`.
    """
    import pandas as pd

    if client is not None and sequential_alpha is not None:
        raise UserError("--backend dask does not run --sequential tournaments; use local")
    plan = make_design(strategies, n_players, design, seed)
    crn = crn_mode(crn, plan)
    agg = None
    seq = None
    if sequential_alpha is not None:
        from reports.stats.sequential import SequentialComparison

        seq = SequentialComparison(list(strategies), alpha=sequential_alpha)
    state = {"blocks": 0, "stopped": False}
    parts: dict[int, tuple] = {}  # first block -> (seats, games): stored or played in any order
    todo = [(0, n_blocks)]
    if store is not None:
        for first, _ in store.completed():
            if first >= n_blocks:
                continue
            parts[first] = (pd.read_parquet(store.path(first, "seats.parquet")),
                            pd.read_parquet(store.path(first, "games.parquet")))  # fmt: skip
            if store.path(first, "aggregates.npz").is_file():  # a game that keeps aggregates
                from sim import games as registry

                play = registry.get(game).play()
                part = play.load_aggregates(store.path(first, "aggregates.npz"))
                agg = part if agg is None else agg.merge(part)
        state["blocks"] = min(store.end(), n_blocks)
        todo = store.missing(n_blocks)
        if seq is not None:  # a sequential run stores its chunks in order: no gaps
            for first in sorted(parts):
                seq.update(parts[first][0])
            # killed just after the deciding chunk was stored: the run had already stopped
            state["stopped"] = state["blocks"] >= min_blocks and seq.all_decided()
            if state["stopped"]:
                todo = []

    in_design = InDesign(game, plan, game_policies(game, plan.strategies, plan.n_players), seed,
                         crn)  # fmt: skip

    def record(first: int, n: int, part) -> bool:
        nonlocal agg
        seats_df, games_df, chunk_agg = part
        if store is not None:
            save_blocks(store, first, n, seats_df, games_df, chunk_agg)
        parts[first] = (seats_df, games_df)
        if chunk_agg is not None:
            agg = chunk_agg if agg is None else agg.merge(chunk_agg)
        state["blocks"] = max(state["blocks"], first + n)
        if seq is not None:
            seq.update(seats_df)
            if state["blocks"] >= min_blocks and seq.all_decided():
                state["stopped"] = True
                return True
        return False

    from sim.core.batch import set_threads

    threads = set_threads(threads)
    # chunks of DASK_BLOCKS on a cluster; here of about a second each, or SEQUENTIAL_CHECK
    size = DASK_BLOCKS if client is not None else SEQUENTIAL_CHECK if seq is not None else None
    t0 = time.perf_counter()
    B.in_chunks(B.play_chunk, n_blocks, size, tables, in_design, client=client, spans=todo,
                on_arrival=record, bar="blocks" if progress else None)  # fmt: skip
    elapsed = time.perf_counter() - t0
    if seq is None:
        state["blocks"] = n_blocks
    seat_parts = [parts[first][0] for first in sorted(parts)]
    game_parts = [parts[first][1] for first in sorted(parts)]
    seats_df = pd.concat(seat_parts, ignore_index=True)
    games_df = pd.concat(game_parts, ignore_index=True)
    n_games = len(games_df)
    return TournamentResult(
        plan,
        seats_df,
        games_df,
        agg,
        state["blocks"],
        crn_mode(crn),
        state["stopped"],
        seq,
        {
            "seconds": elapsed,
            "games_per_second": n_games / elapsed if elapsed else 0.0,
            "threads": threads,
        },
        max(store.end(), state["blocks"]) if store is not None else state["blocks"],
    )


def game_policies(game: str, specs: list[str], n_players: int) -> list:
    """The policies of the strategies `specs` of `game` at tables of `n_players` (resolved
    here, with any user presets, so that Dask workers need none)."""
    import strategies

    return strategies.for_game(game).table_policies(list(specs), n_players)


#: Blocks per Dask task.
DASK_BLOCKS = 500


@dataclass
class InDesign:
    """The blocks of a tournament (a `reports.play.blocks.Plan`): every table of the design on
    the deal of its CRN mode (`block_games`), `policies` the strategies' (`game_policies`).
    Part: (seats, games, aggregates or None), the seats and games frames with their block and
    table."""

    game: str
    design: Design
    strategies: list
    seed: int
    crn: str

    @property
    def tables_per_block(self) -> int:
        return self.design.n_tables

    def policies(self, spec) -> list:
        return self.strategies

    def deals(self, first: int, n: int):
        _, _, games, seatings = block_games(self.design, first, n, self.crn)
        return games, seatings

    def part(self, first: int, n: int, seatings, seats: dict, cols: dict, aggregates):
        import pandas as pd

        n_players = self.design.n_players
        blocks, tables = block_tables(self.design, first, n)
        seats_df = pd.DataFrame(seats)
        seats_df.insert(0, "block", np.repeat(blocks, n_players))
        seats_df.insert(1, "table", np.repeat(tables, n_players))
        seats_df.insert(2, "n_players", n_players)
        games_df = pd.DataFrame(cols)
        games_df.insert(0, "block", blocks)
        games_df.insert(1, "table", tables)
        return seats_df, games_df, aggregates


def play_blocks(
    first: int, n: int, tables, plan: Design, policies: list, seed: int, crn: str, game: str
):
    """Play blocks first .. first + n - 1 of the design, `policies` the strategies' policies
    (`game_policies`): (seats, games, aggregates or None), a pure function of its arguments."""
    return B.play_chunk(first, n, tables, InDesign(game, plan, policies, seed, crn))


def save_blocks(store, first: int, n: int, seats_df, games_df, agg) -> None:
    """Store one finished chunk of blocks (`run_tournament`'s `store`)."""
    from sim.core.results import atomic_save
    from sim.core.runs import write_parquet

    writers = {
        "seats.parquet": lambda path: write_parquet(seats_df, path),
        "games.parquet": lambda path: write_parquet(games_df, path),
    }
    if agg is not None:
        writers["aggregates.npz"] = lambda path: atomic_save(path, agg.save)
    store.save(first, n, writers)


def tournament_frame(result: TournamentResult):
    """The long-form frame `reports.stats.blocks` reads: block, table, seat, strategy, win, ip,
    rank."""
    df = result.seats[["block", "table", "seat", "strategy", "win", "score", "rank"]]
    df = df.rename(columns={"score": "ip"})
    df["strategy"] = df["strategy"].astype(str)
    return df


def tournament_text(result: TournamentResult) -> str:
    """The ranking printed at the end of `abyss-mc tournament`."""
    import io

    from rich import box
    from rich.console import Console
    from rich.table import Table

    from reports.stats import blocks as stats

    df = tournament_frame(result)
    summary = stats.strategy_summary(df)
    pairs = stats.pairwise(df, metric="win", correction="holm")
    out = io.StringIO()
    d = result.design
    # long strategy specs widen the page rather than truncate the columns (as summary.py)
    width = 120 + max(0, max(len(s) for s in d.strategies) - 8)
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    n_games = len(result.games)
    head = (
        f"{result.n_blocks:,} blocks x {d.n_tables} tables = {n_games:,} games, "
        f"{d.n_players} players, "
        + {
            "block": "common random numbers (every table of a block plays the same deal)",
            "lineup": "common random numbers within each line-up's rotations",
            "none": "independent deals",
        }[result.crn]
    )
    if result.sequential is not None:
        head += (
            "; stopped early: every pair decided"
            if result.stopped_early
            else ("; sequential: budget reached before every pair was decided")
        )
    console.print(head, highlight=False, soft_wrap=True)  # one line, whatever its length
    table = Table(box=box.SIMPLE_HEAD, title="strategies (95% intervals over blocks)")
    for column in ("strategy", "win rate", "mean IP"):
        table.add_column(column, justify="left" if column == "strategy" else "right")
    for name, row in summary.iterrows():
        table.add_row(
            str(name),
            f"{row.win_rate:.1%} [{row.win_lo:.1%}, {row.win_hi:.1%}]",
            f"{row.mean_ip:.1f} [{row.ip_lo:.1f}, {row.ip_hi:.1f}]",
        )
    console.print(table)
    significant = pairs[pairs["significant"]]
    console.print(
        f"{len(significant)} of {len(pairs)} pairwise win-rate differences are significant "
        "(paired over blocks, Holm-corrected, 5%).",
        highlight=False,
    )
    text = out.getvalue()
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
