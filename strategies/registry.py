"""A registry of named, parametrised strategies for one game (shared by every game).

A strategy spec is `name` or `name:param=value:param=value`, e.g. `greedy:buy_min=3`. A name is a
policy (a dataclass whose fields are its parameters) or a preset: a policy with some parameters
changed, from the game's built-in `presets.toml` or from a user's preset file (`use_presets`, the
CLI's `--presets FILE`).
"""

from __future__ import annotations

import dataclasses
import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from sim.core.errors import UserError


class StrategyError(UserError, ValueError):
    """An unknown strategy or parameter, a malformed spec or preset file."""


@dataclass(frozen=True)
class Preset:
    name: str
    policy: str
    params: dict
    description: str = ""
    source: str = ""


class UniformChoice:
    """A random policy's `choose`: the same draw from the game's POLICY stream as its compiled
    random policy, without encoding the state."""

    def choose(self, game, seat: int, decision: int, options: list[int]) -> int:
        return options[game.policy_below(len(options))]


class Registry:
    """The policies and presets of one game."""

    def __init__(self, policies: dict[str, type], builtin_presets: Path | None) -> None:
        self.policies = policies
        self.builtin = builtin_presets
        self._presets: dict[str, Preset] | None = None

    def api(self) -> tuple:
        """What a game's strategies package exposes (`strategies.for_game`), in this order:
        presets, use_presets, strategy_names, describe, make_policy, make_policies and
        strategies_text (= text)."""
        return (self.presets, self.use_presets, self.strategy_names, self.describe,
                self.make_policy, self.make_policies, self.text)  # fmt: skip

    def read_presets(self, path: Path | str) -> dict[str, Preset]:
        """The presets of a TOML file, validated: each table names a `policy` and sets only
        that policy's parameters, with values of the right type."""
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
            if name in self.policies or not name.replace("_", "").isalnum():
                raise StrategyError(
                    f"{where}: a preset name must be a new word of letters, digits, _"
                )
            presets[name] = self._preset(where, name, dict(table), path)
        return presets

    def _preset(self, where: str, name: str, table: dict, path: Path) -> Preset:
        policy = table.pop("policy", None)
        description = table.pop("description", "")
        if policy not in self.policies:
            known = ", ".join(self.policies)
            raise StrategyError(f"{where}: 'policy' must be one of {known}; got {policy!r}")
        fields = _fields(self.policies[policy])
        defaults = self.policies[policy]()
        for key, value in table.items():
            if key not in fields:
                raise StrategyError(
                    f"{where}: unknown parameter {key!r}; known: {', '.join(fields) or 'none'}"
                )
            _check_type(where, key, value, getattr(defaults, key))
            if isinstance(getattr(defaults, key), float):
                table[key] = float(value)  # `fight_p = 1` means 1.0, not 1 thousandth
        try:
            self.policies[policy](**table)  # ranges and names (e.g. the guild) checked now
        except ValueError as exc:
            raise StrategyError(f"{where}: {exc}") from None
        return Preset(name, policy, table, str(description), str(path))

    def presets(self) -> dict[str, Preset]:
        """The presets in use: the built-in ones, then the user's (which win on a name clash)."""
        if self._presets is None:
            self._presets = self.read_presets(self.builtin) if self.builtin else {}
        return self._presets

    def use_presets(self, path: Path | str | None) -> None:
        """Add (or, with None, drop) a user's preset file."""
        self._presets = self.read_presets(self.builtin) if self.builtin else {}
        if path is not None:
            self._presets.update(self.read_presets(path))

    def strategy_names(self) -> list[str]:
        return list(self.policies) + sorted(self.presets())

    def describe(self, name: str) -> tuple[str, dict]:
        """One line saying what a strategy does, and its full parameter values."""
        policy = self.make_policy(name)
        values = {f: getattr(policy, f) for f in _fields(type(policy))}
        preset = self.presets().get(name)
        if preset is not None and preset.description:
            return preset.description, values
        doc = (type(policy).__doc__ or "").strip().splitlines()
        return (doc[0] if doc else ""), values

    def text(self) -> str:
        """Every strategy, what it does and its parameter values (`abyss-mc strategies`)."""
        lines = []
        for name in self.strategy_names():
            doc, values = self.describe(name)
            lines.append(f"{name}: {doc}")
            if values:
                lines.append("    " + ", ".join(f"{k}={v}" for k, v in values.items()))
        return "\n".join(lines) + "\n"

    def make_policy(self, spec: str):
        """Build a policy from a spec such as `greedy:buy_min=3`."""
        name, *params = spec.strip().split(":")
        known = self.presets()
        if name in self.policies:
            cls, values = self.policies[name], {}
        elif name in known:
            cls, values = self.policies[known[name].policy], dict(known[name].params)
        else:
            names = self.strategy_names()
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
                known_fields = ", ".join(fields) or "none"
                raise StrategyError(
                    f"strategy {spec!r}: unknown parameter {key!r}; known: {known_fields}"
                )
            values[key] = _parse_value(spec, key, text, getattr(defaults, key))
        try:
            return cls(name=spec.strip(), **values)
        except ValueError as exc:
            raise StrategyError(f"strategy {spec!r}: {exc}") from None

    def make_policies(self, specs: list[str], n_players: int) -> list:
        """One policy per seat; fewer specs than players are cycled, more are an error."""
        specs = [s for s in specs if s.strip()]
        if not specs:
            raise StrategyError("no strategy given")
        if len(specs) > n_players:
            raise StrategyError(f"{len(specs)} strategies given for {n_players} players")
        return [self.make_policy(specs[i % len(specs)]) for i in range(n_players)]


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
