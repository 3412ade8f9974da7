"""The built-in Conspiracy strategies: each beats random, and each plays as its description says."""

from __future__ import annotations

import pandas as pd
import pytest

from games.conspiracy.engine.cards.loader import load_cards
from games.conspiracy.engine.play import run_games
from games.conspiracy.strategies import REGISTRY
from reports.stats.intervals import wilson_interval

PRESETS = ["coalition_builder", "key_hunter", "pearl_master", "high_ip", "pile_raider"]


@pytest.fixture(scope="module")
def tables():
    return load_cards()


def test_five_distinct_presets_are_built_in() -> None:
    assert set(PRESETS) <= set(REGISTRY.presets())
    assert REGISTRY.strategy_names()[:2] == ["random", "heuristic"]


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_beats_random(tables, name) -> None:
    lineup = REGISTRY.make_policies([name, "random"], 2)
    df = run_games(tables, engine="fast", n_players=2, n_games=400, seed=5, policies=lineup).seats
    mine = df[df["strategy"] == name]
    lo, _ = wilson_interval(float(mine["win"].sum()), len(mine))
    assert lo > 0.5, f"{name} wins {mine['win'].mean():.1%} against random"


@pytest.fixture(scope="module")
def mixed(tables):
    first, last = REGISTRY.make_policies(PRESETS[:4], 4), REGISTRY.make_policies(PRESETS[1:], 4)
    a = run_games(tables, engine="fast", n_players=4, n_games=3000, seed=6, policies=first).seats
    b = run_games(tables, engine="fast", n_players=4, n_games=3000, seed=7, policies=last).seats
    return pd.concat([a, b]).groupby("strategy").mean(numeric_only=True)


def test_presets_play_as_described(mixed) -> None:
    """coalition_builder builds the largest coalitions; key_hunter takes the most Locations;
    pearl_master holds the Pearl Master most; pile_raider takes the most discard piles; high_ip
    scores the most from its strongest Lord of each colour."""
    assert mixed["score_lords"].idxmax() == "high_ip"
    assert mixed["coalition_size"].idxmax() == "coalition_builder"
    assert mixed["n_locations"].idxmax() == "key_hunter"
    assert mixed["score_pearl_master"].idxmax() == "pearl_master"
    assert mixed["pile_takes"].idxmax() == "pile_raider"
