"""The search with the learned rollout policy against the search with today's (docs/learned.md):
each in one seat against three `pearl_economist_open_4p` (Abyss with Leviathan, seats rotated),
on the same deals, with the default budget; the paired difference of their win shares. The
third models its own seat by the learned player and the opponents by their own strategy.

usage: python scripts/search_rollouts.py [GAMES] [WEIGHTS]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.play import run_games
from games.abyss.strategies import REGISTRY

EXP = ("leviathan",)
FIELD = "pearl_economist_open_4p"


def shares(seats, name: str) -> np.ndarray:
    """The searching seat's share of each game's win (ties shared), by game."""
    first = (seats["rank"] == 1).astype(float)
    share = first / first.groupby(seats["game"]).transform("sum")
    mine = seats["strategy"] == name
    return share[mine].groupby(seats.loc[mine, "game"]).sum().sort_index().to_numpy()


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    weights = f":rollout_weights={sys.argv[2]}" if len(sys.argv) > 2 else ""
    tables = load_cards(expansions=EXP)
    found = {}
    players = {
        f"today's rollouts ({FIELD})": f"search:rollout_policy={FIELD}",
        "learned rollouts": f"search:rollout_policy=learned{weights}",
        "learned rollouts, opponents as they play": (
            f"search:rollout_policy=learned{weights}:opponents=own"
        ),
    }
    for label, spec in players.items():
        policies = REGISTRY.make_policies([spec, FIELD, FIELD, FIELD], 4)
        t0, c0 = time.perf_counter(), time.process_time()
        played = run_games(tables, engine="fast", n_players=4, n_games=games, seed=404,
                           policies=policies, expansions=EXP)  # fmt: skip
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        found[label] = x = shares(played.seats, policies[0].name)
        half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
        print(
            f"{label}: {x.mean():.1%} ± {half:.1%} ({games} games, {wall:.0f} s wall, "
            f"{cpu:.0f} s CPU)",
            flush=True,
        )
    today, *others = found.items()
    for label, x in others:
        d = x - today[1]
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        print(f"{label} minus today's, paired by deal: {d.mean():+.1%} ± {half:.1%}")


if __name__ == "__main__":
    main()
