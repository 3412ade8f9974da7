"""The learned player (docs/learned.md): a linear option scorer distilled from the search player,
over a base heuristic (`games.abyss.engine.policies.learned`).

Its weights are data: a file per player count (`learned_<n>p.npz` next to this module, made by
`abyss-mc learn`), or a user's (`learned:weights=FILE`). The vector the kernel reads is the base
strategy's (the file names it), then the weights, one row per decision it scores. Restricted
play works on it as on the heuristics: its forbid_* slots are its own.
"""

from __future__ import annotations

from pathlib import Path

from games.abyss.engine import policy_params as P
from games.abyss.strategies.baseline import CompiledPolicy, GreedyPolicy
from strategies.learned import learned_policy

DEFAULT_PLAYERS = 4


def builtin_weights(n_players: int = DEFAULT_PLAYERS) -> Path:
    return LearnedPolicy.builtin(n_players)


LearnedPolicy = learned_policy(
    __name__, CompiledPolicy, GreedyPolicy, ("forbid_lord", "forbid_location", "forbid_fight"),
    kind=P.LEARNED, slots=P, default_players=DEFAULT_PLAYERS)
