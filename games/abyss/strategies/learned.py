"""The learned player (docs/learned.md): a linear option scorer distilled from the search player,
over a base heuristic (`games.abyss.engine.policies.learned`).

Its weights are data: a file per player count (`learned_<n>p.npz` next to this module, made by
`abyss-mc learn`), or a user's (`learned:weights=FILE`). The vector the kernel reads is the base
strategy's (the file names it), then the weights, one row per decision it scores. Restricted
play works on it as on the heuristics: its forbid_* slots are its own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

import numpy as np

from games.abyss.engine import policy_params as P
from games.abyss.strategies.baseline import CompiledPolicy, GreedyPolicy
from strategies.learned import load_weights
from strategies.registry import param

#: the built-in weights, per player count
BUILT_IN = Path(__file__).parent / "learned"
DEFAULT_PLAYERS = 4


def builtin_weights(n_players: int = DEFAULT_PLAYERS) -> Path:
    return BUILT_IN / f"learned_{n_players}p.npz"


def _greedy_field(name: str):
    """Greedy's documented field `name`, for the learned player (restricted play)."""
    f = next(f for f in dataclasses.fields(GreedyPolicy) if f.name == name)
    return dataclasses.field(default=f.default, metadata=f.metadata)


@dataclass
class LearnedPolicy(CompiledPolicy):
    """Scores each option by weights learned from the search's decisions (docs/learned.md)."""

    name: str = "learned"
    weights: str = param(
        "",
        "The weights file (`abyss-mc learn` writes one): which decisions it scores and how; "
        "empty: the built-in weights for 4 players.",
        "plays another learned player.",
        unit="a .npz file of abyss-mc learn",
        tune=False,
        path=True,
    )
    forbid_lord: int = _greedy_field("forbid_lord")
    forbid_location: int = _greedy_field("forbid_location")
    forbid_fight: int = _greedy_field("forbid_fight")
    kind = P.LEARNED
    #: not screened into `tune`'s default field: its weights are for one player count and field
    SCREENED = False

    def __post_init__(self) -> None:
        super().__post_init__()
        path = Path(self.weights) if self.weights else builtin_weights()
        self.loaded = load_weights(path, "abyss", P.LEARNED_DECISIONS, P.FEATURE_NAMES)

    @property
    def digest(self) -> str:
        """The weights file's SHA-256 (the manifests name what was played)."""
        return self.loaded.digest

    def params(self) -> np.ndarray:
        """The base strategy's vector (its slots below L_WEIGHTS), this player's restricted
        play, then the weights."""
        registry = import_module("games.abyss.strategies").REGISTRY  # (the registry holds this)
        vec = registry.make_policy(self.loaded.meta["base"]).params().copy()
        vec[P.G_FORBID_LORD] = self.forbid_lord
        vec[P.G_FORBID_LOCATION] = self.forbid_location
        vec[P.G_FORBID_FIGHT] = self.forbid_fight
        vec[P.L_WEIGHTS : P.N_SLOTS] = self.loaded.weights.reshape(-1)
        return vec
