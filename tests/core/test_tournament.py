"""`reports.play.tournament`: the design (line-ups, seat rotation), common random numbers, win
shares,
determinism over threads, and sequential stopping; `games.abyss.engine.fast.run_tables`
underneath."""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
import pandas as pd
import pytest

from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.fast import run_tables
from games.abyss.strategies import REGISTRY
from reports.play.tournament import (
    block_games,
    block_seatings,
    make_design,
    run_tournament,
    tournament_frame,
    tournament_text,
)
from sim.core.batch import set_threads
from sim.core.errors import UserError
from sim.core.jit import numba
from sim.core.results import win_shares

NAMES = [f"s{i}" for i in range(10)]  # the design only looks at the names
TWINS = ["greedy", "greedy:fight_p=0.5"]  # two names, the very same parameters


def policies(specs: list[str]) -> list:
    """The engines take policies (`sim.core.policy`)."""
    return REGISTRY.make_policies(specs, len(specs))


@cache
def tables():
    return load_cards(expansions=("leviathan",))


@pytest.fixture
def restore_threads():
    yield
    set_threads(None)


def seat_counts(design) -> np.ndarray:
    """[strategy, seat] -> number of tables where the strategy sits in that seat."""
    counts = np.zeros((len(design.strategies), design.n_players), dtype=int)
    for row in design.seating:
        for seat, strategy in enumerate(row):
            counts[strategy, seat] += 1
    return counts


def by_task(columns: dict, n_players: int) -> dict:
    """Seat columns reshaped to [task, seat]."""
    return {k: np.asarray(v).reshape(-1, n_players) for k, v in columns.items()}


# ------------------------------------------------------------------------------ design
@pytest.mark.parametrize(("k", "n"), [(2, 2), (2, 3), (2, 4), (3, 3), (3, 4), (4, 4), (2, 5)])
def test_few_strategies_sit_in_every_seat_equally_often(k: int, n: int) -> None:
    design = make_design(NAMES[:k], n)
    assert design.n_players == n and design.strategies == NAMES[:k]
    assert design.lineups == [tuple(i % k for i in range(n))]
    rows = [tuple(r) for r in design.seating]
    assert len(set(rows)) == len(rows), "a seating is played twice per block"
    lineup = sorted(design.lineups[0])
    assert all(sorted(r) == lineup for r in rows)  # every table is a rotation of the line-up
    counts = seat_counts(design)
    assert (counts > 0).all()
    assert (counts == counts[:, :1]).all(), f"unequal seats:\n{counts}"


@pytest.mark.parametrize(("k", "n"), [(3, 2), (5, 3), (5, 4), (6, 5), (10, 4), (7, 2)])
def test_balanced_design(k: int, n: int) -> None:
    design = make_design(NAMES[:k], n, "balanced")
    assert len(design.lineups) == k
    for strategy in range(k):
        holding = [lineup for lineup in design.lineups if strategy in lineup]
        assert len(holding) == n, "each strategy plays in n line-ups"
        positions = sorted(lineup.index(strategy) for lineup in holding)
        assert positions == list(range(n)), "once in each position"
    assert all(len(set(lineup)) == n for lineup in design.lineups)
    assert design.n_tables == k * n
    assert (seat_counts(design) == n).all()


@pytest.mark.parametrize(("k", "n"), [(3, 2), (5, 3), (6, 4), (5, 4)])
def test_all_design(k: int, n: int) -> None:
    design = make_design(NAMES[:k], n, "all")
    assert design.lineups == list(itertools.combinations(range(k), n))
    assert design.n_tables == len(design.lineups) * n
    counts = seat_counts(design)
    assert (counts == counts[0, 0]).all()


def test_all_design_with_few_strategies_is_the_single_lineup() -> None:
    assert make_design(NAMES[:2], 4, "all").lineups == make_design(NAMES[:2], 4).lineups


def test_which_pairs_share_a_table() -> None:
    """The balanced design with k > 2n - 1 leaves some pairs apart (they are compared on the same
    blocks all the same); every combination lets every pair meet."""

    def met(design):
        pairs = (itertools.combinations(lineup, 2) for lineup in design.lineups)
        return {frozenset(p) for group in pairs for p in group}

    assert len(met(make_design(NAMES[:10], 4, "balanced"))) == 30
    assert len(met(make_design(NAMES[:7], 4, "balanced"))) == 21  # k = 2n - 1: all pairs
    assert len(met(make_design(NAMES[:10], 4, "all"))) == 45


@pytest.mark.parametrize(("k", "n"), [(10, 2), (10, 3), (10, 4), (10, 5), (6, 4)])
def test_balanced_design_gives_every_strategy_the_same_opponents(k: int, n: int) -> None:
    """The default design: in every block each strategy sits in every seat equally often, and
    over blocks every pair of strategies shares a table equally often (in expectation; within
    15% of the mean over 3,000 blocks), so raw win rates face the same mix of opponents. The
    cyclic design (one fixed order) lets some pairs never meet."""
    design = make_design(NAMES[:k], n, seed=4)
    blocks, tables_, _, seatings = block_games(design, 0, 3000, crn=False)
    for b in (0, 1, 2999):
        rows = seatings[blocks == b]
        for strategy in range(k):
            per_seat = (rows == strategy).sum(axis=0)
            assert (per_seat == per_seat[0]).all() and per_seat[0] > 0
    meets = np.zeros((k, k), dtype=int)
    for row in seatings:
        for a, b in itertools.combinations(sorted(set(row.tolist())), 2):
            meets[a, b] += 1
    upper = meets[np.triu_indices(k, 1)]
    assert upper.min() > 0.85 * upper.mean() and upper.max() < 1.15 * upper.mean()
    cyclic = make_design(NAMES[:k], n, "cyclic")
    _, _, _, fixed = block_games(cyclic, 0, 60, crn=False)
    met = {frozenset(p) for row in fixed for p in itertools.combinations(set(row.tolist()), 2)}
    assert len(met) < k * (k - 1) // 2 or 2 * n - 1 >= k


def test_balanced_design_order_is_a_function_of_seed_and_block() -> None:
    a = make_design(NAMES[:10], 4, seed=1)
    blocks = np.array([5, 5, 9])
    tables_ = np.array([0, 3, 0])
    assert (block_seatings(a, blocks, tables_) == block_seatings(a, blocks, tables_)).all()
    chunked = np.concatenate([block_seatings(a, blocks[:1], tables_[:1]),
                              block_seatings(a, blocks[1:], tables_[1:])])  # fmt: skip
    assert (chunked == block_seatings(a, blocks, tables_)).all()
    other = make_design(NAMES[:10], 4, seed=2)
    far = np.arange(200)
    assert (block_seatings(a, far, far * 0) != block_seatings(other, far, far * 0)).any()


@pytest.mark.parametrize(
    ("strategies", "n", "design", "message"),
    [
        (["greedy", "greedy"], 2, "balanced", "only once"),
        (["greedy", "random", "greedy"], 4, "balanced", "only once"),
        (["greedy"], 4, "balanced", "at least two"),
        ([], 4, "balanced", "at least two"),
        (["greedy", "random"], 4, "round_robin", "unknown design 'round_robin'"),
        (["a", "b", "c"], 2, "ALL", "unknown design"),
    ],
)
def test_design_errors(strategies, n, design, message) -> None:
    with pytest.raises(UserError, match=message):
        make_design(strategies, n, design)


# ------------------------------------------------------------------------------ blocks and CRN
def test_block_games_with_crn() -> None:
    design = make_design(NAMES[:5], 3)
    blocks, tables_, games, seatings = block_games(design, 7, 4, crn=True)
    t = design.n_tables
    assert blocks.tolist() == [b for b in range(7, 11) for _ in range(t)]
    assert tables_.tolist() == list(range(t)) * 4
    assert (games == blocks).all(), "every table of a block plays the block's deal"
    assert (seatings == block_seatings(design, blocks, tables_)).all()


@pytest.mark.parametrize(("k", "n"), [(4, 4), (5, 4), (6, 3), (10, 4), (5, 5)])
def test_neighbours_are_balanced_over_blocks(k: int, n: int) -> None:
    """Seating order matters in Abyss (docs/tournament.md measures who-sits-after-whom effects
    of 10 points of win rate), so no strategy may always follow the same one: over (n-1)!
    consecutive blocks every line-up is seated in each of its cyclic orders once, still in every
    rotation (each strategy in every seat equally often). Checked on the design's places (the
    cyclic design; the balanced one relabels them per block)."""
    design = make_design(NAMES[:k], n, "cyclic")
    n_orders = len(design.orders)
    assert n_orders == math.factorial(n - 1)
    blocks, tables_, _, seatings = block_games(design, 3, n_orders, crn=True)
    follows = {}
    for row, t in zip(seatings, tables_, strict=True):
        lineup = design.lineups[design.lineup_of_table[t]]
        assert sorted(row) == sorted(lineup), "a table seats its line-up"
        for s in range(n):
            pair = (int(design.lineup_of_table[t]), int(row[s]), int(row[(s + 1) % n]))
            follows[pair] = follows.get(pair, 0) + 1
    # within a line-up, b sits right after a equally often for every ordered pair (a, b)
    for i, lineup in enumerate(design.lineups):
        counts = {follows.get((i, a, b), 0) for a in lineup for b in lineup if a != b}
        assert len(counts) == 1, counts
    counts = np.zeros((k, n), dtype=int)
    for row in seatings:
        for seat, strategy in enumerate(row):
            counts[strategy, seat] += 1
    assert (counts == counts[:, :1]).all(), "every strategy in every seat equally often"


def test_block_games_without_crn() -> None:
    design = make_design(NAMES[:3], 2, "cyclic")
    t = design.n_tables
    blocks, tables_, games, seatings = block_games(design, 2, 5, crn=False)
    assert len(set(games.tolist())) == len(games), "each table has a deal of its own"
    assert (games == blocks * t + tables_).all()
    # consecutive chunks of blocks never reuse a deal
    _, _, later, _ = block_games(design, 7, 5, crn=False)
    assert not set(games.tolist()) & set(later.tolist())
    assert (seatings == block_seatings(design, blocks, tables_)).all()
    assert (block_seatings(design, blocks * 0, tables_) == design.seating[tables_]).all()


def test_same_game_and_seating_gives_the_same_result() -> None:
    seatings = np.array([[0, 1, 2], [0, 1, 2], [2, 0, 1]])
    seats, games, _ = run_tables(
        tables(),
        seed=3,
        games=[5, 5, 5],
        seatings=seatings,
        strategies=policies(["greedy", "random", "farmer"]),
    )
    rows = by_task({k: v for k, v in seats.items() if k != "strategy"}, 3)
    for column, values in rows.items():
        assert (values[0] == values[1]).all(), column
    assert games["turns"][0] == games["turns"][1]


def test_same_seating_in_different_blocks_differs() -> None:
    strategies = ["greedy", "random"]
    seatings = np.tile([0, 1], (10, 1))
    seats, games, _ = run_tables(
        tables(), seed=3, games=np.arange(10), seatings=seatings, strategies=policies(strategies)
    )
    scores = {tuple(r) for r in seats["score"].reshape(10, 2)}
    assert len(scores) >= 8
    assert len(set(games["turns"].tolist())) > 1


def test_result_depends_only_on_game_and_seating() -> None:
    """The tasks of run_tables in any order (over the threads) give the same rows."""
    strategies = ["lord_rusher", "random", "key_hunter"]
    design = make_design(strategies, 3)
    _, _, games, seatings = block_games(design, 0, 40, crn=True)
    seats, game_cols, agg = run_tables(
        tables(), seed=9, games=games, seatings=seatings, strategies=policies(strategies)
    )
    order = np.random.default_rng(0).permutation(len(games))
    seats2, game_cols2, agg2 = run_tables(
        tables(),
        seed=9,
        games=games[order],
        seatings=seatings[order],
        strategies=policies(strategies),
    )
    rows, rows2 = by_task(seats, 3), by_task(seats2, 3)
    for column in rows:
        assert (rows[column][order] == rows2[column]).all(), column
    for column in game_cols:
        assert (np.asarray(game_cols[column])[order] == np.asarray(game_cols2[column])).all()
    assert agg == agg2


def test_crn_tables_of_a_block_share_the_deal() -> None:
    """Two names for the same parameters: with CRN, the two seatings of a block are the same game
    (the deal depends only on the block), so every seat scores the same at both tables and the
    per-block win shares of the two names are equal; without CRN they are different games."""
    crn = run_tournament(tables(), TWINS, n_players=2, n_blocks=30, seed=4, threads=1)
    score = crn.seats.pivot_table(index=["block", "table"], columns="seat", values="score")
    table0, table1 = score.xs(0, level="table"), score.xs(1, level="table")
    assert (table0.to_numpy() == table1.to_numpy()).all()
    shares = crn.seats.groupby(["block", "strategy"])["win"].sum().unstack()
    assert (shares[TWINS[0]] == shares[TWINS[1]]).all()

    independent = run_tournament(
        tables(), TWINS, n_players=2, n_blocks=30, seed=4, crn=False, threads=1
    )
    assert independent.games["game"].nunique() == 60
    score = independent.seats.pivot_table(index=["block", "table"], columns="seat", values="score")
    same = (score.xs(0, level="table").to_numpy() == score.xs(1, level="table").to_numpy()).all(1)
    assert same.mean() < 0.2


# ------------------------------------------------------------------------------ win shares
def test_win_shares_of_ranks() -> None:
    ranks = np.array([[1, 2, 3], [1, 1, 3], [2, 1, 3], [1, 1, 1]])
    expected = [[1, 0, 0], [0.5, 0.5, 0], [0, 1, 0], [1 / 3, 1 / 3, 1 / 3]]
    assert np.allclose(win_shares(ranks), expected)


def test_win_shares_sum_to_one_and_ties_share() -> None:
    strategies = ["random", "greedy:fight_p=0.5"]
    design = make_design(strategies, 4)
    _, _, games, seatings = block_games(design, 0, 3000, crn=True)
    seats, _, _ = run_tables(
        tables(), seed=1, games=games, seatings=seatings, strategies=policies(strategies)
    )
    win, rank = seats["win"].reshape(-1, 4), seats["rank"].reshape(-1, 4)
    assert np.allclose(win.sum(axis=1), 1.0)
    assert np.array_equal(win, win_shares(rank))
    n_first = (rank == 1).sum(axis=1)
    assert (n_first > 1).any(), "no tie for first in 6,000 games: pick another seed"
    for game in np.nonzero(n_first > 1)[0]:
        first = rank[game] == 1
        assert np.allclose(win[game][first], 1 / n_first[game])
        assert (win[game][~first] == 0).all()


# ------------------------------------------------------------------------------ run_tournament
@pytest.fixture(scope="module")
def small():
    return run_tournament(
        tables(), ["greedy", "random", "farmer"], n_players=2, n_blocks=50, seed=2, threads=1
    )


def test_tournament_result(small) -> None:
    r = small
    assert r.design.n_tables == 6 and r.n_blocks == 50 and r.crn and not r.stopped_early
    assert r.sequential is None
    assert len(r.games) == 300 and len(r.seats) == 600
    assert {"block", "table", "win", "seat", "strategy", "score", "rank"} <= set(r.seats.columns)
    assert list(r.games.columns[:2]) == ["block", "table"]
    assert sorted(r.seats["block"].unique()) == list(range(50))
    assert (r.games["game"] == r.games["block"]).all()
    assert (r.seats["game"] == r.seats["block"]).all()
    assert np.allclose(r.seats.groupby(["block", "table"])["win"].sum(), 1.0)
    # each table plays its seating
    for (block, table), g in r.seats.groupby(["block", "table"]):
        seating = block_seatings(r.design, np.array([block]), np.array([table]))[0]
        names = [r.design.strategies[i] for i in seating]
        assert g.sort_values("seat")["strategy"].tolist() == names
    assert r.aggregates.n_games == 300
    assert r.aggregates.strategies == ["greedy", "random", "farmer"]
    assert int(r.aggregates.seats.sum()) == 600
    assert r.timings["threads"] == 1


def test_tournament_frame(small) -> None:
    df = tournament_frame(small)
    assert list(df.columns) == ["block", "table", "seat", "strategy", "win", "ip", "rank"]
    assert (df["ip"].to_numpy() == small.seats["score"].to_numpy()).all()
    assert df["strategy"].map(type).eq(str).all()
    # every strategy plays every seat equally often over the run
    counts = df.groupby(["strategy", "seat"]).size()
    assert counts.nunique() == 1


def test_tournament_text(small) -> None:
    text = tournament_text(small)
    assert text.startswith("50 blocks x 6 tables = 300 games, 2 players, common random numbers")
    assert "win rate" in text and "mean IP" in text
    for name in ("greedy", "random", "farmer"):
        assert f"\n  {name} " in text
    assert "pairwise win-rate differences are significant" in text
    assert all(line == line.rstrip() for line in text.splitlines())
    summary = tournament_frame(small).groupby("strategy")["win"].mean()
    assert f"{summary['greedy']:.1%}" in text


def test_tournament_text_without_crn() -> None:
    r = run_tournament(tables(), ["greedy", "random"], n_players=2, n_blocks=5, seed=1, crn=False)
    assert "independent deals" in tournament_text(r)
    assert r.games["game"].nunique() == 10


def test_tournament_prefix_is_the_shorter_tournament(small) -> None:
    """A block's result does not depend on how many blocks are played (nor on the chunking)."""
    short = run_tournament(
        tables(), ["greedy", "random", "farmer"], n_players=2, n_blocks=20, seed=2, threads=1
    )
    prefix = small.seats[small.seats["block"] < 20].reset_index(drop=True)
    pd.testing.assert_frame_equal(short.seats, prefix)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two threads")
def test_threads_do_not_change_the_results(restore_threads) -> None:
    args = dict(n_players=4, n_blocks=300, seed=8, design="balanced")
    strategies = ["greedy", "random", "key_hunter", "council_hoarder", "farmer"]
    one = run_tournament(tables(), strategies, threads=1, **args)
    two = run_tournament(tables(), strategies, threads=2, **args)
    assert (one.timings["threads"], two.timings["threads"]) == (1, 2)
    pd.testing.assert_frame_equal(one.seats, two.seats)
    pd.testing.assert_frame_equal(one.games, two.games)
    assert one.aggregates == two.aggregates


def test_bad_threads_and_design_are_user_errors(restore_threads) -> None:
    with pytest.raises(UserError, match="--threads"):
        run_tournament(tables(), ["greedy", "random"], n_players=2, n_blocks=2, seed=1, threads=0)
    with pytest.raises(UserError, match="unknown design"):
        run_tournament(
            tables(), ["greedy", "random", "farmer"], n_players=2, n_blocks=2, seed=1, design="x"
        )


# ------------------------------------------------------------------------------ sequential
BUDGET = 2000


@pytest.fixture(scope="module")
def strong_vs_random():
    return run_tournament(
        tables(),
        ["greedy", "random"],
        n_players=2,
        n_blocks=BUDGET,
        seed=1,
        sequential_alpha=0.05,
        min_blocks=20,
    )


def test_sequential_decides_a_strong_strategy(strong_vs_random) -> None:
    r = strong_vs_random
    assert r.stopped_early
    assert r.sequential is not None and r.sequential.all_decided()
    assert "stopped early: every pair decided" in tournament_text(r)


def test_sequential_stops_before_the_budget(strong_vs_random) -> None:
    r = strong_vs_random
    assert r.n_blocks < BUDGET
    assert len(r.games) == r.n_blocks * r.design.n_tables
    assert r.seats["block"].max() == r.n_blocks - 1


def test_sequential_never_stops_between_identical_strategies() -> None:
    r = run_tournament(
        tables(), TWINS, n_players=2, n_blocks=600, seed=1, sequential_alpha=0.05, min_blocks=20
    )
    assert not r.stopped_early
    assert r.n_blocks == 600 and len(r.games) == 600 * r.design.n_tables
    assert not r.sequential.all_decided()
    assert "budget reached before every pair was decided" in tournament_text(r)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rating_and_win_rates_agree_where_the_difference_is_significant(seed: int) -> None:
    """With the balanced design every strategy meets the same mix of opponents, so the ranking by
    win rate and the Plackett-Luce rating (which adjusts for opponents) may not contradict each
    other wherever the win-rate difference is significant (Holm-corrected, paired over blocks).
    Two players and five strategies: with one fixed order each strategy met only its two
    neighbours."""
    from reports.stats import blocks as stats
    from reports.stats import rating

    names = ["greedy", "random", "farmer", "key_hunter", "lord_rusher"]
    r = run_tournament(tables(), names, n_players=2, n_blocks=300, seed=seed, threads=1,
                       crn="auto")  # fmt: skip
    assert r.crn == "none"
    rating = rating.plackett_luce(r.seats)["strength"]
    pairs = stats.pairwise(r.seats)
    decided = pairs[pairs["significant"]]
    assert len(decided) >= 4, "the test needs decided pairs"
    for _, row in decided.iterrows():
        assert (row["diff"] > 0) == (rating[row["a"]] > rating[row["b"]]), (row["a"], row["b"])
