"""The search tier's rollouts (docs/learned.md, "The search tier"): for each archetype, the search
whose rollouts model every player by its tuned version (`search:rollout_policy=X_tuned_Np`) against
the search whose rollouts play it at the learned strength (`search:rollout_policy=learned:
rollout_archetype=X`), each in one seat against N - 1 copies of a field (the game's tournament
expansions, seats rotated, the same deals for both), with the tier's budget; the paired difference.

usage: PYTHONPATH=. python scripts/search_tier_rollouts.py ARCHETYPE,... [--game G] [--players N]
    [--games G] [--seed S] [--field F] [--rollouts R]
Seed 404 chose the tier's rollouts (docs/learned.md); seeds 5050 (4 players) and 8181 (5 players,
Conspiracy at 2) report, each run after the choice.
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
    versions = registry.policies["learned"].archetype_versions(n)
    print("| archetype | tuned rollouts | learned rollouts | learned minus tuned, paired | "
          "the tier's rollouts | CPU, learned / tuned |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    diffs, tiers = [], []
    for archetype in args.archetypes.split(","):
        found, seconds = [], []
        # what the tier plays: the learned rollouts, or the tuned preset (the archetype's
        # version at this count, `archetype_versions`): there the tier is unchanged
        tier = "learned" if versions.get(archetype, "").startswith("learned:") else "tuned"
        for model in (f"{archetype}_tuned_{n}p", f"learned:rollout_archetype={archetype}"):
            name = f"search:rollout_policy={model}:rollouts={args.rollouts}"
            policies = registry.make_policies([name, *[field] * (n - 1)], n)
            play.run_games(tables, engine="fast", n_players=n, n_games=2, seed=args.seed + 1,
                           policies=policies)  # (warm: the times below compile nothing)
            t0 = time.process_time()
            played = play.run_games(tables, engine="fast", n_players=n, n_games=args.games,
                                    seed=args.seed, policies=policies)  # fmt: skip
            found.append(game_shares(played.seats, policies[0].name))
            seconds.append(time.process_time() - t0)
        tuned, learned = found
        diffs.append(learned - tuned)
        tiers.append(tier)
        print(f"| {archetype} | {interval(tuned)[1:]} | {interval(learned)[1:]} | "
              f"{interval(learned - tuned)} | {tier} | {seconds[1]:.0f} / {seconds[0]:.0f} s |",
              flush=True)  # fmt: skip
    mean = np.mean(diffs, axis=0)
    print(f"mean over the archetypes, paired by deal: {interval(mean)} ({args.games} deals of seed "
          f"{args.seed}, {n - 1} x {field}, {args.rollouts} rollouts)")
    played = [d for d, t in zip(diffs, tiers, strict=True) if t == "learned"]
    if played and len(played) < len(diffs):
        print(f"mean over those the tier plays with learned rollouts: "
              f"{interval(np.mean(played, axis=0))}")


if __name__ == "__main__":
    main()
