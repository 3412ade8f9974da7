"""Strategies for Abyss: a registry of named, parametrised policies.

A strategy spec is `name` or `name:param=value:param=value`, e.g. `greedy:buy_min=3` or
`leviathan_hunter:fight_p=0.6`. A name is a policy (`random`, `greedy`, `heuristic`) or a preset:
a policy with some parameters changed, from `presets.toml` next to this file or from a user's
preset file (`use_presets`, the CLI's `--presets FILE`).
"""

from __future__ import annotations

import dataclasses
import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from sim.core.errors import UserError
from strategies.abyss.baseline import GreedyPolicy, HeuristicPolicy, RandomPolicy

BUILTIN_PRESETS = Path(__file__).with_name("presets.toml")


class StrategyError(UserError, ValueError):
    """An unknown strategy or parameter, a malformed spec or preset file."""


POLICIES: dict[str, type] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "heuristic": HeuristicPolicy,
}


@dataclass(frozen=True)
class Preset:
    name: str
    policy: str
    params: dict
    description: str = ""
    source: str = ""


def read_presets(path: Path | str) -> dict[str, Preset]:
    """The presets of a TOML file, validated: each table names a `policy` and sets only that
    policy's parameters, with values of the right type."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise StrategyError(f"preset file {path} not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise StrategyError(f"preset file {path}: not valid TOML ({exc})") from None
    presets = {}
    for name, table in data.items():
        where = f"preset file {path}, preset {name!r}"
        if not isinstance(table, dict):
            raise StrategyError(f"{where}: expected a [table] of parameters")
        if name in POLICIES or not name.replace("_", "").isalnum():
            raise StrategyError(f"{where}: a preset name must be a new word of letters, digits, _")
        table = dict(table)
        policy = table.pop("policy", None)
        description = table.pop("description", "")
        if policy not in POLICIES:
            known = ", ".join(POLICIES)
            raise StrategyError(f"{where}: 'policy' must be one of {known}; got {policy!r}")
        fields = _fields(POLICIES[policy])
        defaults = POLICIES[policy]()
        for key, value in table.items():
            if key not in fields:
                raise StrategyError(
                    f"{where}: unknown parameter {key!r}; known: {', '.join(fields) or 'none'}"
                )
            _check_type(where, key, value, getattr(defaults, key))
            if isinstance(getattr(defaults, key), float):
                table[key] = float(value)  # `fight_p = 1` means 1.0, not 1 thousandth
        try:
            POLICIES[policy](**table)  # ranges and names (e.g. the guild) checked now
        except ValueError as exc:
            raise StrategyError(f"{where}: {exc}") from None
        presets[name] = Preset(name, policy, table, str(description), str(path))
    return presets


_presets: dict[str, Preset] | None = None


def presets() -> dict[str, Preset]:
    """The presets in use: the built-in ones, then the user's (which win on a name clash)."""
    global _presets
    if _presets is None:
        _presets = read_presets(BUILTIN_PRESETS)
    return _presets


def use_presets(path: Path | str | None) -> None:
    """Add (or, with None, drop) a user's preset file."""
    global _presets
    _presets = read_presets(BUILTIN_PRESETS)
    if path is not None:
        _presets.update(read_presets(path))


def strategy_names() -> list[str]:
    return list(POLICIES) + sorted(presets())


def describe(name: str) -> tuple[str, dict]:
    """One line saying what a strategy does, and its full parameter values."""
    policy = make_policy(name)
    values = {f: getattr(policy, f) for f in _fields(type(policy))}
    preset = presets().get(name)
    if preset is not None and preset.description:
        return preset.description, values
    doc = (type(policy).__doc__ or "").strip().splitlines()
    return (doc[0] if doc else ""), values


def _fields(cls) -> list[str]:
    return [f.name for f in dataclasses.fields(cls) if f.name != "name"]


def _check_type(where: str, key: str, value, current) -> None:
    kind = type(current)
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if not ok:
        raise StrategyError(f"{where}: parameter {key!r} expects {kind.__name__}, got {value!r}")


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
    """Build a policy from a spec such as `greedy:buy_min=3` or `key_hunter:key_weight=4`."""
    name, *params = spec.strip().split(":")
    known = presets()
    if name in POLICIES:
        cls, values = POLICIES[name], {}
    elif name in known:
        cls, values = POLICIES[known[name].policy], dict(known[name].params)
    else:
        names = strategy_names()
        close = difflib.get_close_matches(name, names, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise StrategyError(f"unknown strategy {name!r}{hint}; known: {', '.join(names)}")
    fields = _fields(cls)
    defaults = cls()
    for item in params:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise StrategyError(f"strategy {spec!r}: expected param=value, got {item!r}")
        if key not in fields:
            known = ", ".join(fields) or "none"
            raise StrategyError(f"strategy {spec!r}: unknown parameter {key!r}; known: {known}")
        values[key] = _parse_value(spec, key, text, getattr(defaults, key))
    try:
        return cls(name=spec.strip(), **values)
    except ValueError as exc:
        raise StrategyError(f"strategy {spec!r}: {exc}") from None


def make_policies(specs: list[str], n_players: int) -> list:
    """One policy per seat; fewer specs than players are cycled, more are an error."""
    specs = [s for s in specs if s.strip()]
    if not specs:
        raise StrategyError("no strategy given")
    if len(specs) > n_players:
        raise StrategyError(f"{len(specs)} strategies given for {n_players} players")
    return [make_policy(specs[i % len(specs)]) for i in range(n_players)]
