"""The learned player (docs/learned.md): a linear option scorer distilled from the search player,
over a base heuristic (`games.abyss.engine.policies.learned`).

Its weights are data: a file per player count (`learned_<n>p.npz` next to this module, made by
`abyss-mc learn`), or a user's (`learned:weights=FILE`). The vector the kernel reads is the base
strategy's (the file names it), then the weights, one row per decision it scores. Restricted
play works on it as on the heuristics: its forbid_* slots are its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from games.abyss.engine import policy_params as P
from games.abyss.strategies.baseline import CompiledPolicy, GreedyPolicy
from strategies.learned import LearnedPlayer
from strategies.registry import copied_param

#: the built-in weights, per player count
BUILT_IN = Path(__file__).parent / "learned"
DEFAULT_PLAYERS = 4


def builtin_weights(n_players: int = DEFAULT_PLAYERS) -> Path:
    return LearnedPolicy.builtin(n_players)


@dataclass
class LearnedPolicy(LearnedPlayer, CompiledPolicy):
    """Scores each option by weights learned from the search's decisions (docs/learned.md)."""

    name: str = "learned"
    forbid_lord: int = copied_param(GreedyPolicy, "forbid_lord")
    forbid_location: int = copied_param(GreedyPolicy, "forbid_location")
    forbid_fight: int = copied_param(GreedyPolicy, "forbid_fight")
    kind = P.LEARNED
    package = "abyss"
    slots = P
    builtin_dir = BUILT_IN
    default_players = DEFAULT_PLAYERS
    FORBID = (("forbid_lord", P.G_FORBID_LORD), ("forbid_location", P.G_FORBID_LOCATION),
              ("forbid_fight", P.G_FORBID_FIGHT))  # fmt: skip
