"""The search with the learned rollout policy against the search with today's (docs/learned.md):
each in one seat against three `pearl_economist_open_4p` (Abyss with Leviathan, seats rotated),
on the same deals, with the default budget; the paired difference of their win shares. The
variant `every-seat` models every seat by the learned player; `own-seat` its own seat, and the
opponents by their own strategy.

usage: python scripts/search_rollouts.py [GAMES] [WEIGHTS] [--seed S] [--variants V,...]
Seed 404 (the default) chose `every-seat` over `own-seat` (docs/learned.md): a figure to report
comes from a seed that chose nothing, with the chosen variant alone.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.play import run_games
from games.abyss.strategies import REGISTRY

EXP = ("leviathan",)
FIELD = "pearl_economist_open_4p"
VARIANTS = ("every-seat", "own-seat")


def shares(seats, name: str) -> np.ndarray:
    """The searching seat's share of each game's win (ties shared), by game."""
    first = (seats["rank"] == 1).astype(float)
    share = first / first.groupby(seats["game"]).transform("sum")
    mine = seats["strategy"] == name
    return share[mine].groupby(seats.loc[mine, "game"]).sum().sort_index().to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=400)
    parser.add_argument("weights", nargs="?", default="")
    parser.add_argument("--seed", type=int, default=404)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    games, seed = args.games, args.seed
    weights = f":rollout_weights={args.weights}" if args.weights else ""
    variants = args.variants.split(",")
    if not set(variants) <= set(VARIANTS):
        parser.error(f"--variants: each one of {', '.join(VARIANTS)}")
    tables = load_cards(expansions=EXP)
    found = {}
    players = {f"today's rollouts ({FIELD})": f"search:rollout_policy={FIELD}"}
    if "every-seat" in variants:
        players["learned rollouts"] = f"search:rollout_policy=learned{weights}"
    if "own-seat" in variants:
        players["learned rollouts, opponents as they play"] = (
            f"search:rollout_policy=learned{weights}:opponents=own"
        )
    for label, spec in players.items():
        policies = REGISTRY.make_policies([spec, FIELD, FIELD, FIELD], 4)
        t0, c0 = time.perf_counter(), time.process_time()
        played = run_games(tables, engine="fast", n_players=4, n_games=games, seed=seed,
                           policies=policies, expansions=EXP)  # fmt: skip
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        found[label] = x = shares(played.seats, policies[0].name)
        half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
        print(
            f"{label}: {x.mean():.1%} ± {half:.1%} ({games} games, seed {seed}, {wall:.0f} s wall, "
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
