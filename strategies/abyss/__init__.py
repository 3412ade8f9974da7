"""Strategies for Abyss: a registry of named, parametrised policies.

A strategy spec is `name` or `name:param=value:param=value`, e.g. `greedy:buy_min=3`.
"""

from __future__ import annotations

import dataclasses
import difflib

from sim.core.errors import UserError
from strategies.abyss.baseline import GreedyPolicy, RandomPolicy


class StrategyError(UserError, ValueError):
    """An unknown strategy or parameter, or a malformed spec."""


REGISTRY: dict[str, type] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
}


def strategy_names() -> list[str]:
    return sorted(REGISTRY)


def _parse_value(spec: str, key: str, text: str, current):
    kind = type(current)
    try:
        if kind is bool:
            if text.lower() in ("true", "1", "yes"):
                return True
            if text.lower() in ("false", "0", "no"):
                return False
            raise ValueError(text)
        return kind(text)
    except ValueError:
        raise StrategyError(
            f"strategy {spec!r}: parameter {key!r} expects {kind.__name__}, got {text!r}"
        ) from None


def make_policy(spec: str):
    """Build a policy from a spec such as `greedy:buy_min=3`."""
    name, *params = spec.strip().split(":")
    if name not in REGISTRY:
        close = difflib.get_close_matches(name, REGISTRY, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise StrategyError(
            f"unknown strategy {name!r}{hint}; known: {', '.join(strategy_names())}"
        )
    cls = REGISTRY[name]
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "name"}
    defaults = cls()
    values = {}
    for item in params:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise StrategyError(f"strategy {spec!r}: expected param=value, got {item!r}")
        if key not in fields:
            known = ", ".join(fields) or "none"
            raise StrategyError(f"strategy {spec!r}: unknown parameter {key!r}; known: {known}")
        values[key] = _parse_value(spec, key, text, getattr(defaults, key))
    return cls(name=spec.strip(), **values)


def make_policies(specs: list[str], n_players: int) -> list:
    """One policy per seat; fewer specs than players are cycled, more are an error."""
    specs = [s for s in specs if s.strip()]
    if not specs:
        raise StrategyError("no strategy given")
    if len(specs) > n_players:
        raise StrategyError(f"{len(specs)} strategies given for {n_players} players")
    return [make_policy(specs[i % len(specs)]) for i in range(n_players)]
