"""The behavioural signature of each hand-written preset, its tuned and its open version at one
player count (`reports.sections.signature`): what it recruits, how often it fights, what it plots
with, its
Keys and Locations, each against the field its tune was made against, on the same games.

    python scripts/signature.py --game abyss --players 4 --games 200
    python scripts/signature.py --game conspiracy --players 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reports.sections.signature import archetype_table, tuned_games  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="abyss", choices=sorted(tuned_games()))
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    args = ap.parse_args()
    exp = tuned_games()[args.game]
    print(archetype_table(args.game, args.players, n_games=args.games, seed=args.seed,
                          expansions=exp, workers=args.workers))  # fmt: skip


if __name__ == "__main__":
    main()
