"""Parity: the fast path (`games.abyss.engine.kernel.game`) plays exactly the reference engine's
games.

For the same seed, game index, card data and strategies, both engines must ask the same decisions
with the same options in the same order, receive the same answers, and reach the same final state
(compared through `games.abyss.engine.state.encode`, so every card's place, every counter and the
random streams' positions are checked) and the same scores.

CI runs a few seeds per configuration; the `slow` tier runs 5,000 seeds for each configuration
(base game 2-4 players, Leviathan 2-5 players) and line-up (random, greedy, greedy against
random, and two line-ups of the named presets, so every built-in strategy is covered).
"""

from __future__ import annotations

import numpy as np
import pytest
from abyss_parity import compare, decoded, policies_of

from games.abyss.engine import state as S
from games.abyss.engine.aggregate import N_ROUNDS, TRAJECTORY_EVERY
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.fast import lineup_arrays, run_fast
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.kernel.workspace import template
from games.abyss.engine.rules.game import Game
from games.abyss.engine.runner import run_games, run_simulation, trajectory_array
from games.abyss.engine.schema import games_frame, seats_frame
from games.abyss.strategies import REGISTRY

PRESETS_A = ["lord_rusher", "key_hunter", "council_hoarder", "auction_buyer", "farmer"]
PRESETS_B = ["pearl_economist", "leviathan_hunter", "cautious_explorer", "farmer", "greedy"]
LINEUPS = (["random"], ["greedy"], ["greedy", "random"], PRESETS_A, PRESETS_B)
LINEUP_IDS = ["random", "greedy", "greedy-random", "presets-a", "presets-b"]
CONFIGS = [((), n) for n in (2, 3, 4)] + [(("leviathan",), n) for n in (2, 3, 4, 5)]
CONFIG_IDS = [f"{'leviathan' if exp else 'base'}-{n}p" for exp, n in CONFIGS]


@pytest.fixture(scope="module")
def all_tables():
    return {exp: load_cards(expansions=exp) for exp in ((), ("leviathan",))}


def cycled(lineup: list[str], n: int) -> list[str]:
    return [lineup[i % len(lineup)] for i in range(n)]


@pytest.mark.parametrize(("expansions", "n_players"), CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("lineup", LINEUPS, ids=LINEUP_IDS)
def test_parity_ci(all_tables, expansions, n_players, lineup):
    t = all_tables[expansions]
    base = template(t)
    for game in range(12):
        compare(t, base, cycled(lineup, n_players), seed=20251129, game=game)


@pytest.mark.slow
@pytest.mark.parametrize(("expansions", "n_players"), CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("lineup", LINEUPS, ids=LINEUP_IDS)
def test_parity_5000_seeds(all_tables, expansions, n_players, lineup):
    t = all_tables[expansions]
    base = template(t)
    for seed in range(5000):
        compare(t, base, cycled(lineup, n_players), seed=seed, game=seed % 7)


def test_parity_with_options_and_edited_cards():
    """Rules options and edited card values reach the kernel as data (no recompilation)."""
    t = load_cards(
        overrides={
            "rules.court_end": "bga",
            "rules.landlord_immediate_pearl": False,
            "rules.ambassador_mode": "keys",
            "game.court_size": 5,
        },
        expansions=("leviathan",),
    )
    base = template(t)
    for game in range(10):
        compare(t, base, ["greedy", "random", "random"], seed=5, game=game)


@pytest.mark.parametrize("option", ["last_round_extra_turn", "powers_after_kill"])
def test_parity_of_the_seed_readings_and_their_options(all_tables, option):
    """Both engines play the seed-text default and the other reading of each rules option, and
    the option does change games (rules-notes.md, "Rules options")."""
    seed_t = all_tables[("leviathan",)]
    option_t = load_cards(overrides={f"rules.{option}": True}, expansions=("leviathan",))
    assert getattr(seed_t.rules, option) is False and getattr(option_t.rules, option) is True
    lineup = ["random", "greedy", "random", "greedy"]
    traces = []  # the reference games `compare` played, reused for the option's effect
    for t in (seed_t, option_t):
        base = template(t)
        traces.append([compare(t, base, lineup, seed=5, game=game).trace for game in range(60)])
    assert sum(a != b for a, b in zip(*traces, strict=True)) > 0


def test_batch_runner_matches_reference_runner(all_tables):
    """The chunked, threaded runner writes the reference runner's per-game tables exactly."""
    t = all_tables[("leviathan",)]
    lineup = ["greedy", "random", "greedy:fight_p=0.3", "random"]
    seats, games, _, _ = run_fast(
        t, n_players=4, n_games=40, seed=9, strategies=policies_of(lineup), chunk_size=7
    )
    ref_seats, ref_games, _ = run_simulation(
        t,
        n_players=4,
        n_games=40,
        seed=9,
        strategies=policies_of(lineup),
        expansions=("leviathan",),
    )
    assert seats_frame(seats).equals(seats_frame(ref_seats))
    assert games_frame(games).equals(games_frame(ref_games))


@pytest.mark.parametrize(("expansions", "lineup"), [((), ["greedy", "random"] * 2),
                                                    (("leviathan",), PRESETS_B)])  # fmt: skip
def test_reference_game_records_the_kernels_trajectory(all_tables, expansions, lineup):
    """Round by round, the reference engine records each seat's running IP, Pearls and Keys as
    the kernel's `record_round` does (extra turns and the final round included)."""
    t = all_tables[expansions]
    base = template(t)
    n = len(lineup)
    assert N_ROUNDS == W.MAX_ROUNDS
    for game in range(8):
        ref = Game(
            t, REGISTRY.make_policies(lineup, n), seed=12, game=game, record=False, trajectory=True
        )
        s = KN.new_workspace(base, *lineup_arrays(policies_of(lineup)))
        s[W.TRAJ_ON] = 1
        KN.new_game(s, np.int64(12), np.int64(game), np.int64(n))
        KN.play(s)
        kernel = s[W.TRAJ : W.TRAJ + W.MAX_ROUNDS * S.MAX_PLAYERS * 3]
        kernel = kernel.reshape(W.MAX_ROUNDS, S.MAX_PLAYERS, 3)[:, :n]
        assert np.array_equal(trajectory_array(ref.play()), kernel), (lineup, game)


def test_reference_and_fast_runs_give_the_same_aggregates(all_tables):
    """`simulate --engine reference` folds the same aggregates as the fast path, per-round
    trajectories of the sampled games and per-game sums by strategy included."""
    t = all_tables[("leviathan",)]
    lineup = ["greedy", "random", "greedy:fight_p=0.3"]
    run = dict(n_players=3, n_games=40, seed=3, strategies=policies_of(lineup),
               expansions=("leviathan",))  # fmt: skip
    _, _, fast, _ = run_games(t, engine="fast", threads=1, chunk_size=9, per_game=False, **run)
    _, _, ref, _ = run_games(t, engine="reference", per_game=False, **run)
    sampled = len(range(0, 40, TRAJECTORY_EVERY))
    assert ref.trajectory_counts[:, 0].sum() == sampled * 3
    assert ref.trajectory_sums.any() and ref.clusters.any()
    assert ref == fast


def test_same_results_for_any_thread_count_and_chunking(all_tables):
    """Determinism: the same seed gives identical results on 1 or 2 threads, in any chunks."""
    t = all_tables[("leviathan",)]
    lineup = ["greedy", "random", "random"]
    runs = [
        run_fast(
            t,
            n_players=3,
            n_games=300,
            seed=4,
            strategies=policies_of(lineup),
            threads=threads,
            chunk_size=chunk,
        )
        for threads, chunk in ((1, None), (2, 17), (1, 300), (2, 64))
    ]
    first_seats, first_games, first_agg, _ = runs[0]
    for seats, games, agg, _ in runs[1:]:
        assert agg == first_agg
        for key in first_seats:
            assert np.array_equal(seats[key], first_seats[key]), key
        for key in first_games:
            assert np.array_equal(games[key], first_games[key]), key


def test_kernel_plays_on_from_an_encoded_reference_state(all_tables):
    """Start from any state: the reference engine's state between two turns, encoded into the
    kernel's arrays, plays on to the very end the reference engine reaches."""
    t = all_tables[("leviathan",)]
    base = template(t)
    specs = ["greedy", "random", "greedy", "random"]

    class Recorder(Game):
        """Encodes the state before every turn."""

        def take_turn(self, seat: int) -> None:
            self.snapshots.append(S.encode(self))
            super().take_turn(seat)

    for game in range(4):
        policies = REGISTRY.make_policies(specs, 4)
        ref = Recorder.__new__(Recorder)
        ref.snapshots = []
        ref.__init__(t, policies, seed=31, game=game, record=False)
        ref.play()
        snapshots = ref.snapshots
        final, final_counters = S.encode(ref)
        for k in (1, len(snapshots) // 2, len(snapshots) - 1):
            state, counters = snapshots[k]
            s = KN.new_workspace(base, *lineup_arrays(policies_of(specs)))
            KN.load_state(s, state, counters, 31, game)
            KN.play(s)
            resumed, resumed_counters = S.encode(decoded(s, t, policies, 31, game))
            assert np.array_equal(resumed, final), (game, k)
            assert np.array_equal(resumed_counters, final_counters)
