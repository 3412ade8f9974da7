"""The search tier's rollouts (docs/learned.md, "The search tier"): for each archetype, the search
whose rollouts model every player by its tuned version (`search:rollout_policy=X_tuned_Np`) against
the search whose rollouts play it at the learned strength (`search:rollout_policy=learned:
rollout_archetype=X`), each in one seat against N - 1 copies of a field (the game's tournament
expansions, seats rotated, the same deals for both), with the tier's budget; the paired difference.

usage: PYTHONPATH=. python scripts/search_tier_rollouts.py ARCHETYPE,... [--game G] [--players N]
    [--games G] [--seed S] [--field F] [--rollouts R]
Seed 404 chose the tier's rollouts (docs/learned.md); a figure to report comes from a seed that
chose nothing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from reports.runs.learn import game_shares
from reports.strengths import SEARCH_ROLLOUTS
from sim import games


def interval(x: np.ndarray) -> str:
    return f"{x.mean():+.1%} ± {1.96 * x.std(ddof=1) / np.sqrt(len(x)):.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archetypes")
    parser.add_argument("--game", default="abyss")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=404)
    parser.add_argument("--field", default="")
    parser.add_argument("--rollouts", type=int, default=SEARCH_ROLLOUTS)
    args = parser.parse_args()
    n = args.players
    field = args.field or f"pearl_economist_open_{n}p"
    spec = games.get(args.game)
    registry, play = spec.strategies(), spec.play()
    tables = spec.load_cards(None, [], spec.tournament_expansions)
    print("| archetype | tuned rollouts | learned rollouts | learned minus tuned, paired |")
    print("|---|---|---|---|")
    diffs = []
    for archetype in args.archetypes.split(","):
        found = []
        for model in (f"{archetype}_tuned_{n}p", f"learned:rollout_archetype={archetype}"):
            name = f"search:rollout_policy={model}:rollouts={args.rollouts}"
            policies = registry.make_policies([name, *[field] * (n - 1)], n)
            t0 = time.process_time()
            played = play.run_games(tables, engine="fast", n_players=n, n_games=args.games,
                                    seed=args.seed, policies=policies)  # fmt: skip
            found.append(game_shares(played.seats, policies[0].name))
            print(f"  ({name}: {time.process_time() - t0:.0f} s CPU)", flush=True)
        tuned, learned = found
        diffs.append(learned - tuned)
        print(f"| {archetype} | {interval(tuned)[1:]} | {interval(learned)[1:]} | "
              f"{interval(learned - tuned)} |", flush=True)  # fmt: skip
    mean = np.mean(diffs, axis=0)
    print(f"mean over the archetypes, paired by deal: {interval(mean)} ({args.games} deals of seed "
          f"{args.seed}, {n - 1} x {field}, {args.rollouts} rollouts)")


if __name__ == "__main__":
    main()
