"""Strategies for Abyss: a registry of named, parametrised policies.

A strategy spec is `name` or `name:param=value:param=value`, e.g. `greedy:buy_min=3` or
`leviathan_hunter:fight_p=0.6`. A name is a policy (`random`, `greedy`, `heuristic`) or a preset:
a policy with some parameters changed, from `presets.toml` next to this file (written by hand),
`tuned.toml` (each hand-written preset tuned within its archetype by `abyss-mc tune`),
`open.toml` (tuned with every parameter free: the strongest players; docs/tuning.md) or a user's
preset file (`use_presets`, the CLI's `--presets FILE`).
"""

from __future__ import annotations

from pathlib import Path

from games.abyss.strategies.baseline import GreedyPolicy, HeuristicPolicy, RandomPolicy
from games.abyss.strategies.learned import LearnedPolicy
from games.abyss.strategies.search import SearchPolicy
from strategies.registry import Preset, Registry, StrategyError, _fields  # noqa: F401

BUILTIN_PRESETS = Path(__file__).with_name("presets.toml")
TUNED_PRESETS = Path(__file__).with_name("tuned.toml")
OPEN_PRESETS = Path(__file__).with_name("open.toml")


POLICIES: dict[str, type] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "heuristic": HeuristicPolicy,
    "search": SearchPolicy,
    "learned": LearnedPolicy,
}
REGISTRY = Registry(POLICIES, (BUILTIN_PRESETS, TUNED_PRESETS, OPEN_PRESETS))
