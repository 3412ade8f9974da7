"""One random-play checker for every game (issue 29: "as pgx does: it loops over the registry and
checks the invariants that hold for any game (a legal option always exists before the end, the
game ends, scores are consistent, both engines agree) on random and heuristic play").

Written against the game contract only (`sim.core.contract.PlayModule`), so a new game is checked
by registering it. Per game with games of a line-up, each player count, random and heuristic
line-ups (the game's own defaults and every hand-written preset):
- every game ends, with an end reason where the game records one (an engine that finds no legal
  option raises, which fails the test);
- each seat's score is the sum of its `score_*` sources, where the game records them;
- ranks follow the scores (1 for the best; ties break as the game says, so only the order is
  checked) and exactly the rank-1 seats share the win;
- the fast path and the reference engine play the very same games (every column equal), over
  the first `N_REFERENCE` games of each line-up (the reference engine is ~50 times slower than the
  fast path; game-by-game parity of the Abyss engines: tests/abyss/test_parity.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from tiny_game import SPEC as TINY

from sim import games

N_GAMES = 40
#: games of each line-up also played on the reference engine (games are keyed by seed and index:
#: the first games of a longer run are the same games)
N_REFERENCE = 20


def _specs():
    out = [games.get(name) for name in games.GAMES if games.get(name).play_module is not None]
    return [*out, TINY]


def _lineups(spec, n: int) -> list[list[str]]:
    """Random play, the game's default line-up, and each hand-written preset against random."""
    registry = spec.strategies()
    presets = list(registry.hand_written_presets()) if hasattr(
        registry, "hand_written_presets") else []  # fmt: skip
    default = [p.strip() for p in spec.default_strategies.split(",")]
    lineups = [["random"] * n, [default[i % len(default)] for i in range(n)]]
    lineups += [[p] + ["random"] * (n - 1) for p in presets]
    return lineups


def _cases():
    for spec in _specs():
        tables = spec.load_cards(None, [], spec.tournament_expansions)
        for n in spec.play().player_counts(tables, spec.tournament_expansions):
            yield pytest.param(spec, n, id=f"{spec.name}-{n}p")


def _play(spec, n: int, lineup: list[str], engine: str, seed: int, n_games: int = N_GAMES):
    tables = spec.load_cards(None, [], spec.tournament_expansions)
    policies = spec.strategies().make_policies(lineup, n)
    return spec.play().run_games(
        tables, engine=engine, n_players=n, n_games=n_games, seed=seed, policies=policies,
        expansions=spec.tournament_expansions, threads=1, per_game=True, progress=False,
        store=None, chunk_size=None, client=None,
    )  # fmt: skip


def check_invariants(seats: pd.DataFrame, games_df: pd.DataFrame, n: int) -> list[str]:
    """What a finished set of games breaks, as sentences (empty: nothing)."""
    problems = []
    if len(seats) != len(games_df) * n:
        problems.append(f"{len(seats)} seat rows for {len(games_df)} games of {n}")
    sources = [c for c in seats.columns if c.startswith("score_")]
    if sources:
        total = seats[sources].sum(axis=1).to_numpy()
        bad = np.flatnonzero(total != seats["score"].to_numpy())
        if len(bad):
            problems.append(f"score is not the sum of {sources} in {len(bad)} rows")
    for game, rows in seats.groupby("game"):
        order = rows.sort_values("rank")["score"].to_numpy()
        if np.any(np.diff(order) > 0):
            problems.append(f"game {game}: a better rank has a lower score")
        if (rows["rank"] == 1).sum() < 1:
            problems.append(f"game {game}: nobody ranks first")
        if "win" in rows and not np.isclose(rows.loc[rows["rank"] == 1, "win"].sum(), 1.0):
            problems.append(f"game {game}: the winners' shares do not add up to 1")
    if "end_reason" in games_df:
        unended = games_df["end_reason"].astype(str).isin(["none", ""]).sum()
        if unended:
            problems.append(f"{unended} games without an end reason")
    return problems


@pytest.mark.parametrize(("spec", "n"), list(_cases()))
def test_random_and_heuristic_play_keep_every_invariant(spec, n: int) -> None:
    both = len(spec.engines) > 1
    for k, lineup in enumerate(_lineups(spec, n)):
        fast = _play(spec, n, lineup, spec.engines[0], seed=100 + k)
        assert check_invariants(fast.seats, fast.games, n) == [], lineup
        if both:
            ref = _play(spec, n, lineup, "reference", seed=100 + k, n_games=N_REFERENCE)
            seats, played = (df[df["game"] < N_REFERENCE] for df in (fast.seats, fast.games))
            assert len(played) == N_REFERENCE
            pd.testing.assert_frame_equal(seats, ref.seats, obj=f"{lineup} seats")
            pd.testing.assert_frame_equal(played, ref.games, obj=f"{lineup} games")


def test_the_checker_sees_a_broken_game() -> None:
    """Each invariant can fail: a score that is not its sources' sum, ranks against the scores,
    no winner, shares that do not add up."""
    seats = pd.DataFrame({
        "game": [0, 0, 1, 1], "seat": [0, 1, 0, 1], "score": [10, 5, 3, 3],
        "score_lords": [10, 4, 3, 3], "rank": [2, 1, 2, 2], "win": [0.0, 1.0, 0.5, 0.5],
    })  # fmt: skip
    games_df = pd.DataFrame({"game": [0, 1], "end_reason": ["court_empty", "none"]})
    found = check_invariants(seats, games_df, 2)
    assert found == [
        "score is not the sum of ['score_lords'] in 1 rows",
        "game 0: a better rank has a lower score",
        "game 1: nobody ranks first",
        "game 1: the winners' shares do not add up to 1",
        "1 games without an end reason",
    ]
