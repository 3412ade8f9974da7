"""Which of a learned player's weight rows helps or hurts against a field (docs/learned.md): the
player with only row d learned (the base elsewhere), and with every row but d, for each decision
d, against three copies of each field given (4 players, Abyss with Leviathan, seats rotated, the
same deals for every variant).

usage: python scripts/learned_ablation.py WEIGHTS GAMES FIELD[,FIELD...]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from games.abyss.engine import policy_params as P
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.play import run_games
from games.abyss.strategies import REGISTRY
from reports.runs.learn import win_share
from strategies.learned import save_weights

EXP = ("leviathan",)


def main() -> None:
    source, games, fields = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
    with np.load(source, allow_pickle=False) as data:
        learned, meta = data["weights"].copy(), json.loads(str(data["meta"]))
    meta.pop("format", None)
    tables = load_cards(expansions=EXP)
    base = np.zeros_like(learned)
    base[:, 0] = P.LEARNED_SCALE  # "the base picks it" only: the base, game for game
    tmp = Path(tempfile.mkdtemp())

    def share(weights, field: str) -> float:
        path = tmp / "variant.npz"
        save_weights(path, weights, P.LEARNED_DECISIONS, P.FEATURE_NAMES, meta)
        policies = REGISTRY.make_policies([f"learned:weights={path}", field, field, field], 4)
        played = run_games(tables, engine="fast", n_players=4, n_games=games, seed=77,
                           policies=policies, expansions=EXP)  # fmt: skip
        return win_share(played.seats, policies[0].name)[0]

    print("| field | row (decision) | only this row | every row but this |")
    print("|---|---|---|---|")
    for field in fields:
        print(f"| {field} | all rows: {share(learned, field):.1%} | "
              f"no row (the base): {share(base, field):.1%} | |", flush=True)  # fmt: skip
        for d in range(len(learned)):
            only, but = base.copy(), learned.copy()
            only[d], but[d] = learned[d], base[d]
            print(f"| {field} | {d} ({P.LEARNED_DECISIONS[d]}) | {share(only, field):.1%} | "
                  f"{share(but, field):.1%} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
