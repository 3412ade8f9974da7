"""Strategies for Abyss: Conspiracy: compiled policies (`policies.py`) behind small dataclasses.

`RandomPolicy` and `HeuristicPolicy` (weights of what a Lord adds: IP over the colour's best,
coalition growth, Keys, Pearls, the Pearl Master; when to take a discard pile; how many cards to
draw; which Location to take). Both engines run the same compiled `policies.choose`: the reference
engine encodes its state for it (`CompiledPolicy.choose`, `strategies.compiled`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sim.conspiracy import policies as P
from sim.conspiracy import state as S
from strategies import compiled
from strategies.registry import Registry


class CompiledPolicy(compiled.CompiledPolicy):
    """Base of the Conspiracy strategies: `sim.conspiracy.policies` on a state workspace."""

    policies = P
    layout = S
    state = S
    workspaces = compiled.TablesCache(S.template)


@dataclass
class RandomPolicy(compiled.UniformChoice, CompiledPolicy):
    """Uniformly random among the legal options."""

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
