"""The apprentice against its expert (issue 52): two learned seats against two of the search
(64 rollouts, its defaults), four players with Leviathan, the seats alternated (learned, search,
learned, search, then search, learned, search, learned), every weights file on the same deals.
Prints each file's share per learned seat (parity 25%) and its paired difference from the first,
the deal (both seatings) as the unit.

usage: PYTHONPATH=. python scripts/trials/apprentice_match.py WEIGHTS[,WEIGHTS...] GAMES SEED
(WEIGHTS: a .npz of abyss-mc learn, or `builtin`; GAMES deals, each played in both seatings)
"""

from __future__ import annotations

import sys
import time

import numpy as np

from reports.runs.learn import game_shares
from sim import games

N = 4


def interval(x: np.ndarray, signed: bool = False) -> str:
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    return f"{x.mean():+.1%} ± {half:.1%}" if signed else f"{x.mean():.1%} ± {half:.1%}"


def main() -> None:
    files, n_games, seed = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
    spec = games.get("abyss")
    registry, play = spec.strategies(), spec.play()
    tables = spec.load_cards(None, [], ("leviathan",))
    shares = []
    for f in files:
        learned = "learned" if f == "builtin" else f"learned:weights={f}"
        t0 = time.perf_counter()
        both = []
        for lineup in ([learned, "search", learned, "search"],
                       ["search", learned, "search", learned]):
            policies = registry.make_policies(lineup, N)
            played = play.run_games(tables, engine="fast", n_players=N, n_games=n_games,
                                    seed=seed, policies=policies)  # fmt: skip
            # the learned seats' share of each game, halved: per seat
            both.append(game_shares(played.seats, policies[lineup.index(learned)].name) / 2)
        x = (both[0] + both[1]) / 2
        shares.append(x)
        line = f"{f}: {interval(x)} per learned seat"
        if len(shares) > 1:
            line += f"; minus {files[0]}, paired: {interval(x - shares[0], True)}"
        print(f"{line} ({time.perf_counter() - t0:.0f} s)", flush=True)
    print(f"{n_games} deals of seed {seed}, each in both seatings")


if __name__ == "__main__":
    main()
