"""Strategies for Abyss: Conspiracy: compiled policies (`policies.py`) behind small dataclasses.

`RandomPolicy` and `HeuristicPolicy` (weights of what a Lord adds: IP over the colour's best,
coalition growth, Keys, Pearls, the Pearl Master; when to take a discard pile; how many cards to
draw; which Location to take). Both engines run the same compiled `policies.choose`: the reference
engine encodes its state for it (`CompiledPolicy.choose`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.conspiracy import policies as P
from sim.core.workspace import PerTables
from strategies.registry import Registry, UniformChoice


@dataclass
class CompiledPolicy:
    name: str = "random"
    kind = P.RANDOM

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, int) and not 0 <= value <= 999:
                raise ValueError(f"{f.name} must be between 0 and 999; got {value}")

    def params(self) -> np.ndarray:
        """The int32 parameter vector, in field order (`policies.H_*`)."""
        from sim.conspiracy.state import N_PARAMS

        vec = np.zeros(N_PARAMS, dtype=np.int32)
        fields = [f.name for f in dataclasses.fields(self) if f.name != "name"]
        for i, name in enumerate(fields):
            vec[i] = int(getattr(self, name))
        return vec

    def choose(self, game, seat: int, decision: int, options: list[int]) -> int:
        from sim.conspiracy import state as S
        from sim.core.rng import N_STREAMS

        w = _workspace(game.t)
        w[: S.STATE_SIZE] = S.encode(game)[0]
        n = len(options)
        w[S.OPT : S.OPT + n] = options
        w[S.POLICY_KIND + seat] = self.kind
        params = getattr(self, "_params", None)
        if params is None:
            params = self._params = self.params()
        w[S.POLICY_PARAMS + seat * S.N_PARAMS : S.POLICY_PARAMS + (seat + 1) * S.N_PARAMS] = params
        w[S.RNG_KEYS : S.RNG_KEYS + 2 * N_STREAMS] = game.rng.keys.view(np.int32)
        w[S.RNG_COUNTERS : S.RNG_COUNTERS + 2 * N_STREAMS] = game.rng.counters.view(np.int32)
        option = int(P.choose(w, np.int64(seat), np.int64(decision), np.int64(n)))
        game.rng.counters[:] = w[S.RNG_COUNTERS : S.RNG_COUNTERS + 2 * N_STREAMS].view(np.int64)
        return option


def _own_workspace(tables) -> np.ndarray:
    from sim.conspiracy.state import template

    return template(tables)


#: A workspace holding the card tables (one per tables object, reused by the policies).
_workspace = PerTables(_own_workspace)


@dataclass
class RandomPolicy(UniformChoice, CompiledPolicy):
    """Uniformly random among the legal options."""

    name: str = "random"
    kind = P.RANDOM


@dataclass
class HeuristicPolicy(CompiledPolicy):
    """Weights (x10) of what a Lord adds, and thresholds (`policies.H_*`, in this order)."""

    name: str = "heuristic"
    ip_weight: int = 10  # per IP over the seat's best Lord of that colour
    coalition_weight: int = 15  # per placed neighbour of the same colour
    key_weight: int = 12  # per Key (silver 1, gold 2)
    pearl_weight: int = 8  # per Pearl
    pile_min: int = 40  # take a discard pile worth at least this
    draw: int = 3  # cards drawn from the deck
    location_min: int = 6  # take a face-up Location worth at least this, else draw
    master_weight: int = 20  # when the Lord's Pearls would take the Pearl Master
    kind = P.HEURISTIC


POLICIES: dict[str, type] = {"random": RandomPolicy, "heuristic": HeuristicPolicy}
REGISTRY = Registry(POLICIES, Path(__file__).with_name("presets.toml"))
presets, use_presets, strategy_names, describe, make_policy, make_policies, strategies_text = (
    REGISTRY.api()
)
