"""Strategies for Abyss: Conspiracy: compiled policies (`policies.py`) behind small dataclasses.

`RandomPolicy`, `HeuristicPolicy` (`baseline.py`: weights of what a Lord adds: IP over the
colour's best, coalition growth, Keys, Pearls, the Pearl Master; when to take a discard pile; how
many cards to draw; which Location to take) and `SearchPolicy` (`search.py`: looks ahead by
rollouts). Both engines run the same compiled `policies.choose`: the reference engine encodes its
state for it (`CompiledPolicy.choose`, `strategies.compiled`).
"""

from __future__ import annotations

from pathlib import Path

from games.conspiracy.strategies.baseline import CompiledPolicy, HeuristicPolicy, RandomPolicy
from games.conspiracy.strategies.learned import LearnedPolicy
from games.conspiracy.strategies.search import SearchPolicy
from strategies.registry import Registry

__all__ = ["CompiledPolicy", "HeuristicPolicy", "LearnedPolicy", "RandomPolicy", "SearchPolicy"]

POLICIES: dict[str, type] = {
    "random": RandomPolicy,
    "heuristic": HeuristicPolicy,
    "search": SearchPolicy,
    "learned": LearnedPolicy,
}
#: The hand-written presets, then the tuned ones (within each archetype) and the open ones (every
#: parameter tuned): `abyss-mc tune`, docs/tuning.md.
PRESET_FILES = ("presets.toml", "tuned.toml", "open.toml")
REGISTRY = Registry(POLICIES, [Path(__file__).with_name(f) for f in PRESET_FILES])
