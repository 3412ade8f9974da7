"""The Leviathan expansion's phases are called apart (`games.abyss.engine.kernel.base.leviathan`,
`sim.core.apart`): a game of the base game alone never compiles or imports them (issue 33), and a
game with Leviathan plays them."""

from __future__ import annotations

import os
import subprocess
import sys

PLAY = """
import sys
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.play import run_games
from games.abyss.strategies import REGISTRY

expansions = tuple(sys.argv[1:])
tables = load_cards(expansions=expansions)
played = run_games(tables, engine="fast", n_players=4, n_games=8, seed=3,
                   policies=REGISTRY.make_policies(["greedy", "farmer"], 4),
                   expansions=expansions)
print(len(played.games), "games.abyss.engine.kernel.leviathan" in sys.modules)
"""


def _play(*expansions: str) -> list[str]:
    env = {**os.environ, "ABYSS_MC_COLD_START": "compile", "PYTHONPATH": os.getcwd()}
    done = subprocess.run([sys.executable, "-c", PLAY, *expansions], env=env, check=True,
                          capture_output=True, text=True)  # fmt: skip
    return done.stdout.split()


def test_a_base_game_never_compiles_the_leviathan_phases():
    assert _play() == ["8", "False"]
    assert _play("leviathan") == ["8", "True"]
