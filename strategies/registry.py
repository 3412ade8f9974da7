"""A registry of named, parametrised strategies for one game (shared by every game).

A strategy spec is `name` or `name:param=value:param=value`, e.g. `greedy:buy_min=3`. A name is a
policy (a dataclass whose fields are its parameters) or a preset: a policy with some parameters
changed, from the game's built-in `presets.toml` or from a user's preset file (`use_presets`, the
CLI's `--presets FILE`).

Each parameter is documented once, as data on its dataclass field (`param`, a `Param` in the
field's metadata): what it means, its allowed values and unit, and what raising it does; the
field's default is its default. The same `Param` checks a value (`Param.check`, called by the
policy's `__post_init__`), writes `abyss-mc strategies` (`Registry.text`) and gives a tuner its
search space (`Registry.parameter_space`).
"""

from __future__ import annotations

import dataclasses
import difflib
import numbers
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.core.errors import UserError

#: The key of a parameter's `Param` in its dataclass field's metadata.
PARAM = "param"
#: Width of `abyss-mc strategies`' text.
WIDTH = 100


class StrategyError(UserError, ValueError):
    """An unknown strategy or parameter, a malformed spec or preset file."""


@dataclass(frozen=True)
class Param:
    """One policy parameter, documented: the one place its meaning, range and effect are written.

    `meaning` says what the parameter does in the policy's decisions, `effect` what raising it
    changes (written to follow "Raising it: ", including what its extreme values do; for a choice,
    what the choice changes). The allowed values are either `choices` (names) or the closed range
    `low`..`high`, of ints or, when `low` is a float, of floats on a grid of `step`; `unit` names
    what the numbers count. The default is the field's default (see `param`). `search` narrows
    what a tuner searches (`abyss-mc tune`) where the allowed range is wider than the values
    that play differently (e.g. a stack size "above any stack's size: never"): (low, high)
    inside low..high; `tune=False` keeps a parameter out of the search (restricted play's).
    """

    meaning: str
    effect: str
    low: int | float | None = None
    high: int | float | None = None
    unit: str = ""
    choices: tuple[str, ...] = ()
    step: float | None = None
    search: tuple | None = None
    tune: bool = True
    #: a file's path (`learned:weights=FILE`): a text, never tuned
    path: bool = False

    def __post_init__(self) -> None:
        numeric = self.low is not None and self.high is not None and self.low <= self.high
        if self.path:
            if numeric or self.choices or self.tune:
                raise TypeError(f"a path Param has no range or choices and is not tuned: {self}")
        elif not self.meaning or not self.effect or numeric == bool(self.choices):
            raise TypeError(f"a Param needs meaning, effect, and low..high or choices: {self}")
        if self.search is not None and not (
            numeric and self.low <= self.search[0] < self.search[1] <= self.high
        ):
            raise TypeError(f"a Param's search range must lie inside low..high: {self}")

    @property
    def kind(self) -> str:
        """"int", "float", "choice" or "path"."""
        if self.path:
            return "path"
        if self.choices:
            return "choice"
        return "float" if isinstance(self.low, float) else "int"

    def check(self, name: str, value: Any) -> Any:
        """`value` if it is allowed (an int given for a float as that float), else a one-line
        ValueError naming the parameter and its allowed values."""
        kind = self.kind
        if kind == "path":
            if not isinstance(value, str):
                raise ValueError(f"{name} expects a file's path, got {value!r}")
            return value
        if kind == "choice":
            if value not in self.choices:
                raise ValueError(f"{name} must be one of {', '.join(self.choices)}; got {value!r}")
            return value
        number = numbers.Integral if kind == "int" else numbers.Real
        if not isinstance(value, number) or isinstance(value, bool):
            raise ValueError(f"{name} expects {kind}, got {value!r}")
        if not self.low <= value <= self.high:
            if self.unit == "probability":
                raise ValueError(
                    f"{name} is a probability, between {self.low:g} and {self.high:g}; got {value}"
                )
            unit = f" ({self.unit})" if self.unit else ""
            raise ValueError(
                f"{name} must be between {self.low} and {self.high}{unit}; got {value}"
            )
        if kind == "float":
            value = float(value)
            if self.step is not None:
                per = round(1 / self.step)
                if abs(value * per - round(value * per)) > 1e-6:
                    digits = len(str(per)) - 1
                    raise ValueError(
                        f"{name} is held in steps of {self.step:g}; got {value} "
                        f"(use e.g. {round(value, digits)})"
                    )
        return value

    def space(self) -> tuple:
        """The allowed values as a tuner reads them: ("int", low, high), ("float", low, high) or
        ("choice", choices)."""
        if self.kind == "choice":
            return ("choice", self.choices)
        if self.kind == "path":
            return ("path",)
        return (self.kind, self.low, self.high)

    def search_space(self) -> tuple:
        """What a tuner searches: `space()` narrowed to `search`, if set."""
        if self.search is None:
            return self.space()
        return (self.kind, *self.search)

    def range_text(self) -> str:
        """The allowed values in words, e.g. "int 0..10 (an Ally's value, 1-9)"."""
        if self.kind == "path":
            return f"a file's path ({self.unit}, not tuned)" if self.unit else "a file's path"
        if self.kind == "choice":
            if self.unit:  # a long list named by its unit (the search's rollout policies)
                return f"one of the {len(self.choices)} {self.unit}"
            return "one of " + ", ".join(self.choices)
        number = "{:g}" if self.kind == "float" else "{}"
        text = f"{self.kind} {number.format(self.low)}..{number.format(self.high)}"
        notes = [n for n in (self.unit, self.step and f"in steps of {self.step:g}") if n]
        if self.search is not None:
            notes.append("tune searches " + "..".join(number.format(v) for v in self.search))
        if not self.tune:
            notes.append("not tuned")
        return text + (f" ({', '.join(notes)})" if notes else "")


def param(
    default: Any,
    meaning: str,
    effect: str,
    *,
    low: int | float | None = None,
    high: int | float | None = None,
    unit: str = "",
    choices: tuple[str, ...] = (),
    step: float | None = None,
    search: tuple | None = None,
    tune: bool = True,
    path: bool = False,
) -> Any:
    """A policy dataclass field with its documentation, e.g.
    `buy_min: int = param(4, "Buy an Ally ...", "buys fewer ...", low=0, high=10, unit="...")`."""
    doc = Param(meaning, effect, low, high, unit, tuple(choices), step, search, tune, path)
    doc.check("default", default)
    return dataclasses.field(default=default, metadata={PARAM: doc})


def copied_param(cls, name: str):
    """Another policy class's documented parameter `name` (its default and documentation), for a
    policy that takes the same parameter (the learned player's forbid_* of restricted play)."""
    import dataclasses

    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    return dataclasses.field(default=f.default, metadata=f.metadata)


def parameters(cls) -> dict[str, Param]:
    """The documented parameters of a policy class, in field order (its `name` is none). A field
    without a `Param` is an error: every parameter must say what it does."""
    params = {}
    for f in dataclasses.fields(cls):
        if f.name == "name":
            continue
        if PARAM not in f.metadata:
            raise TypeError(
                f"{cls.__name__}.{f.name} has no documentation: declare it with "
                "strategies.registry.param(default, meaning, effect, low=..., high=...)"
            )
        params[f.name] = f.metadata[PARAM]
    return params


def check_parameters(policy) -> None:
    """Check every parameter of a policy object against its `Param` (and store an int given for
    a float as the float); a one-line ValueError for the first one out of range."""
    for name, doc in parameters(type(policy)).items():
        value = doc.check(name, getattr(policy, name))
        if value is not getattr(policy, name):
            object.__setattr__(policy, name, value)


def defaults(cls) -> dict[str, Any]:
    """The default value of each parameter of a policy class."""
    return {f.name: f.default for f in dataclasses.fields(cls) if f.name != "name"}


@dataclass(frozen=True)
class Preset:
    name: str
    policy: str
    params: dict
    description: str = ""
    source: str = ""


class Registry:
    """The policies and presets of one game."""

    def __init__(self, policies: dict[str, type], builtin_presets) -> None:
        """`builtin_presets`: the game's preset file, or several (the hand-written presets first,
        then those `abyss-mc tune` derived from them), or None."""
        self.policies = policies
        if builtin_presets is None:
            builtin_presets = ()
        elif isinstance(builtin_presets, str | Path):
            builtin_presets = (builtin_presets,)
        self.builtin = tuple(Path(p) for p in builtin_presets)
        self._presets: dict[str, Preset] | None = None

    def builtin_presets(self) -> dict[str, Preset]:
        """The presets shipped with the game (every built-in file, in order)."""
        out: dict[str, Preset] = {}
        for path in self.builtin:
            out.update(self.read_presets(path))
        return out

    def hand_written_presets(self) -> dict[str, Preset]:
        """The presets of the first built-in file, written by hand: the archetypes that the
        other built-in presets are tuned from."""
        return self.read_presets(self.builtin[0]) if self.builtin else {}

    def read_presets(self, path: Path | str) -> dict[str, Preset]:
        """The presets of a TOML file, validated: each table names a `policy` and sets only
        that policy's parameters, with values of the right type."""
        path = Path(path)
        if path.is_dir():
            raise StrategyError(f"preset file {path}: a folder, not a file")
        try:
            data = tomllib.loads(path.read_bytes().decode("utf-8-sig"))
        except FileNotFoundError:
            raise StrategyError(f"preset file {path} not found") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise StrategyError(f"preset file {path}: not valid TOML ({exc})") from None
        except OSError as exc:
            raise StrategyError(f"preset file {path}: cannot read ({exc.strerror})") from None
        if not data:
            raise StrategyError(f"preset file {path}: no presets in it (a preset is a [name] "
                                "table with a `policy`)")  # fmt: skip
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
            self._presets = self.builtin_presets()
        return self._presets

    def use_presets(self, path: Path | str | None) -> None:
        """Add (or, with None, drop) a user's preset file."""
        self._presets = self.builtin_presets()
        if path is not None:
            self._presets.update(self.read_presets(path))

    def strategy_names(self) -> list[str]:
        return list(self.policies) + sorted(self.presets())

    def describe(self, name: str) -> tuple[str, dict]:
        """One line saying what a strategy (a name or a spec) does, and its parameter values."""
        policy = self.make_policy(name)
        values = {f: getattr(policy, f) for f in _fields(type(policy))}
        preset = self.presets().get(name.strip())
        if preset is not None and preset.description:
            return preset.description, values
        doc = (type(policy).__doc__ or "").strip().splitlines()
        return (doc[0] if doc else ""), values

    def parameters(self, policy: str) -> dict[str, Param]:
        """The documented parameters of a policy (by its name: `greedy`), in field order."""
        return parameters(self._policy(policy))

    def parameter_space(self, policy: str) -> dict[str, tuple]:
        """The values each parameter of a policy may take, for a tuner to search: by name,
        ("int", low, high) and ("float", low, high) for the closed ranges (bounds included) and
        ("choice", (name, ...)) for the named choices. The float parameters are probabilities that
        the compiled policies hold in thousandths: a value must lie on the grid of
        `parameters(policy)[name].step` (0.001), as `round(x, 3)` gives; any value of the space
        builds a valid policy, e.g. `make_policy("greedy:buy_min=7:fight_p=0.25")`. The defaults
        are `defaults(policy)`; a preset's values `presets()[name].params` over them."""
        return {name: doc.space() for name, doc in self.parameters(policy).items()}

    def search_space(self, policy: str) -> dict[str, tuple]:
        """`parameter_space` narrowed to each parameter's `search` range, without the parameters
        kept out of tuning (`Param.tune`): what `tune` searches."""
        return {name: doc.search_space() for name, doc in self.parameters(policy).items()
                if doc.tune}  # fmt: skip

    def defaults(self, policy: str) -> dict[str, Any]:
        """The default value of each parameter of a policy (by its name)."""
        return defaults(self._policy(policy))

    def _policy(self, policy: str) -> type:
        if policy not in self.policies:
            known = ", ".join(self.policies)
            raise StrategyError(f"unknown policy {policy!r}; known: {known}")
        return self.policies[policy]

    def text(self, name: str | None = None) -> str:
        """`abyss-mc strategies`: every strategy, what it does and its parameter values, then
        each policy's parameters explained (meaning, range, default, effect of raising it); or,
        given a strategy (a name or a spec such as `greedy:buy_min=3`), that one in full."""
        if name is not None:
            return self.strategy_text(name)
        lines = []
        for strategy in self.strategy_names():
            doc, values = self.describe(strategy)
            lines.append(_wrap(f"{strategy}: {doc}", "", "    "))
            if values:
                lines.append(_wrap(", ".join(f"{k}={v}" for k, v in values.items()), "    "))
        shown: dict[str, tuple[str, Param, Any]] = {}  # parameter -> (policy, doc, default)
        for policy, cls in self.policies.items():
            params, default = parameters(cls), defaults(cls)
            if not params:
                continue
            # a parameter a policy shares with one above (same documentation and default)
            same = [k for k, doc in params.items() if shown.get(k, ("",))[1:] == (doc, default[k])]
            lines += ["", f"Parameters of {policy}:"]
            if same:
                where = ", ".join(sorted({shown[k][0] for k in same}))
                lines.append(_wrap(f"{', '.join(same)}: as {where} above", "  ", "    "))
            for k, doc in params.items():
                if k not in same:
                    lines += _param_lines(k, doc, default[k])
                    shown[k] = (policy, doc, default[k])
        lines += ["", _ONE, _CHANGE]
        return "\n".join(lines) + "\n"

    def strategy_text(self, spec: str) -> str:
        """One strategy (a name or a spec) in full: what it does, where it comes from, and every
        parameter with its value, range, default and effect."""
        policy = self.make_policy(spec)
        cls = type(policy)
        policy_name = next(k for k, c in self.policies.items() if c is cls)
        name = spec.strip().split(":")[0]
        doc = self.describe(name)[0]  # a preset's description, also with parameters changed
        values = {k: getattr(policy, k) for k in _fields(cls)}
        lines = [_wrap(f"{spec.strip()}: {doc}", "", "    ")]
        preset = self.presets().get(name)
        default = defaults(cls)
        changed = [k for k, v in values.items() if v != default[k]]
        if preset is None:
            origin = f"the {policy_name} policy"
        elif preset.source in map(str, self.builtin):
            origin = f"a built-in preset of {policy_name}"
        else:
            origin = f"a preset of {policy_name} from {preset.source}"
        if changed:
            origin += f", changing {', '.join(changed)}"
        lines.append(_wrap(origin, "    "))
        params = parameters(cls)
        if not params:
            lines.append("    no parameters")
        else:
            lines += ["", "Parameters:"]
            for k, p in params.items():
                lines += _param_lines(k, p, default[k], value=values[k])
            lines += ["", _CHANGE]
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
            if not text.strip() and parameters(cls)[key].path:  # as from an unset variable
                raise StrategyError(f"strategy {spec!r}: {key}= is empty: give a file, or leave "
                                    f"{key} out for the built-in one")  # fmt: skip
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
        return self.table_policies([specs[i % len(specs)] for i in range(n_players)], n_players)

    def table_policies(self, specs: list[str], n_players: int) -> list:
        """One policy per strategy (a tournament's line-ups draw from them), each made for a
        table of `n_players`: the learned player takes that count's weights."""
        policies = [self.make_policy(s) for s in specs]
        return [p.at_table(n_players) if hasattr(p, "at_table") else p for p in policies]


_ONE = "One strategy in full, every parameter with its value: abyss-mc strategies [--game G] NAME."
_CHANGE = "Change a parameter: --strategies NAME:param=value[:param=value...]."


def _wrap(text: str, indent: str, later: str | None = None) -> str:
    later = indent if later is None else later
    return textwrap.fill(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=later,
        break_on_hyphens=False,
        break_long_words=False,
    )


def _param_lines(name: str, doc: Param, default: Any, value: Any = dataclasses.MISSING) -> list:
    """A parameter explained: its head line (value,) range and default, then its meaning and the
    effect of raising it, indented."""
    head = name if value is dataclasses.MISSING else f"{name} = {value}"
    if doc.kind == "path" and not default:
        default = "none (the built-in)"
    return [
        _wrap(f"{head}: {doc.range_text()}; default {default}", "  ", "      "),
        _wrap(doc.meaning, "      "),
        _wrap(("Raising it: " if doc.kind != "choice" else "Effect: ") + doc.effect, "      "),
    ]


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
