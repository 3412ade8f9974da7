"""The options of every command, one typed object each (`TournamentOptions`, ...): the command
line fills one from its flags, `abyss_mc` from Python arguments, and the run reads only it.

A field is named as the flag (``--reeval-games``: `reeval_games`; ``--set``: `set_`) and has the
command's default, so `cli` and `abyss_mc` take their defaults from here. Values may come in
either form: the command line's text (``"greedy,farmer"``, ``["k=v"]``) or Python's
(``["greedy", "farmer"]``, ``{"k": v}``); `__post_init__` keeps the text form, which is what a
run records. A resumable run stores its options in its plan (`plan.json`, as it always has) and
`resumed` reads them back: those of the plan, where and how to play (backend, scheduler,
threads, progress) those given now.

Only the standard library: ``abyss-mc --help`` and ``import abyss_mc`` stay instant.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

#: Where and how a run plays, never stored: a resumed run takes them from the new call.
EXECUTION = ("backend", "scheduler", "threads", "progress", "resume")


# --- values in either form -----------------------------------------------------------------


def names_text(value) -> str | None:
    """A comma-separated list of names (strategies, expansions, player counts) as text:
    ``["a", "b"]`` -> ``"a,b"``, ``4`` -> ``"4"``; text and None unchanged; ``()`` -> ``""``."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return ",".join(str(v) for v in value)


def _value_text(value) -> str:
    if isinstance(value, bool):  # TOML's spelling
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(_value_text(v) for v in value)
    return str(value)


def settings(value) -> list[str] | None:
    """``--set`` items: ``{"game.court_size": 5}`` -> ``["game.court_size=5"]`` (a list of
    values -> ``"k=v1,v2"``, a sweep's axis); ``"k=v"`` -> ``["k=v"]``; lists unchanged."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [f"{k}={_value_text(v)}" for k, v in value.items()]
    return [str(v) for v in value]


def ranges(value) -> list[str] | None:
    """``--vary`` items: ``{"k": (0, 4)}`` -> ``["k=0..4"]``, ``{"k": ["a", "b"]}`` ->
    ``["k=a|b"]``; text as `settings`."""
    if isinstance(value, dict):
        return [f"{k}={v[0]}..{v[1]}" if isinstance(v, tuple) else
                f"{k}={'|'.join(_value_text(x) for x in v)}" if isinstance(v, list) else
                f"{k}={_value_text(v)}" for k, v in value.items()]  # fmt: skip
    return settings(value)


def _path(value) -> Path | None:
    return None if value is None else Path(value)


# --- what every command's options share ------------------------------------------------------


@dataclass
class Options:
    """What every command's options do: normalise their values, and read a stored run's."""

    #: fields holding names (text), settings (--set lists) and paths
    NAMES: ClassVar[tuple[str, ...]] = ("strategies", "expansions")
    SETTINGS: ClassVar[tuple[str, ...]] = ("set_",)
    PATHS: ClassVar[tuple[str, ...]] = ("cards", "presets", "out", "resume")

    def __post_init__(self) -> None:
        for name in self.NAMES:
            if hasattr(self, name):
                setattr(self, name, names_text(getattr(self, name)))
        for name in self.SETTINGS:
            if hasattr(self, name):
                setattr(self, name, settings(getattr(self, name)))
        for name in self.PATHS:
            if hasattr(self, name):
                setattr(self, name, _path(getattr(self, name)))

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {f.name: f.default for f in dataclasses.fields(cls)}

    def resumed(self, plan: dict) -> Options:
        """The options of the run whose plan is `plan`, played as these say (`EXECUTION`) into
        the directory being resumed. Keys a plan of an older version lacks take the default."""
        stored = self.from_plan(plan)
        here = {k: getattr(self, k) for k in EXECUTION if hasattr(self, k)}
        return type(self)(**{**self.defaults(), **stored, **here, "out": self.resume})

    def from_plan(self, plan: dict) -> dict:
        """The fields a run's plan recorded (each command's own layout): every command that
        resumes (simulate, tournament, sweep and the `Stored` ones) defines it."""
        raise NotImplementedError(f"{type(self).__name__}: this command does not resume")


def _data(plan: dict) -> dict:
    """The card data and presets a plan recorded (`reports.run_dir.data_paths`)."""
    cards, presets = plan.get("cards"), plan.get("presets")
    return {"cards": cards or None, "set_": plan.get("set"), "presets": presets or None}


@dataclass
class Stored(Options):
    """A command whose plan holds its options as given, under "options" (tune, restrict, design,
    learn): the keys are the field names (``open`` is --open)."""

    KEYS: ClassVar[tuple[str, ...]] = ()

    def stored(self) -> dict:
        """The options as the plan and the manifest record them."""
        return {k: getattr(self, k) for k in self.KEYS}

    def from_plan(self, plan: dict) -> dict:
        known = set(self.names())
        return {**{k: v for k, v in plan["options"].items() if k in known}, **_data(plan)}


# --- each command's options ------------------------------------------------------------------


@dataclass
class SimulateOptions(Options):
    """`abyss-mc simulate`."""

    players: int = 4
    games: int = 1000
    seed: int = 1
    strategies: str | None = None
    out: Path | None = None
    cards: Path | None = None
    set_: list[str] | None = None
    expansions: str | None = None
    engine: str | None = None
    threads: int | None = None
    per_game: bool = True
    presets: Path | None = None
    game: str = "abyss"
    backend: str = "local"
    scheduler: str | None = None
    chunk_size: int | None = None
    resume: Path | None = None
    yes: bool = False
    progress: bool = False

    def from_plan(self, plan: dict) -> dict:
        return {"game": plan.get("game", "abyss"), "players": plan["n_players"],
                "games": plan["n_games"], "seed": plan["seed"],
                "strategies": ",".join(plan["strategies"]), "engine": "fast",
                "per_game": plan["per_game"], "expansions": ",".join(plan["expansions"]),
                **_data(plan)}  # fmt: skip


@dataclass
class TournamentOptions(Options):
    """`abyss-mc tournament`."""

    NAMES: ClassVar[tuple[str, ...]] = ("strategies", "expansions", "players")

    strategies: str | None = None
    players: str = "all"
    blocks: int = 1000
    design: str = "balanced"
    crn: str = "auto"
    sequential: float | None = None
    backend: str = "local"
    scheduler: str | None = None
    seed: int = 1
    out: Path | None = None
    report: bool = False
    expansions: str | None = None
    fight_points: int = 2000
    cards: Path | None = None
    set_: list[str] | None = None
    threads: int | None = None
    presets: Path | None = None
    game: str = "abyss"
    resume: Path | None = None
    strengths: str = "auto"
    search_blocks: int = 20
    search_rollouts: int = 32
    card_blocks: int | None = None
    minutes: float | None = None
    yes: bool = False
    progress: bool = False

    def from_plan(self, plan: dict) -> dict:
        keys = ("strategies", "players", "blocks", "design", "crn", "seed", "report",
                "expansions", "fight_points", "game")  # fmt: skip
        return {**{k: plan[k] for k in keys}, **_data(plan),
                "sequential": plan.get("sequential"), "strengths": plan.get("strengths", "none"),
                "card_blocks": plan.get("card_blocks", 0), "minutes": plan.get("card_minutes"),
                "search_blocks": plan.get("search_blocks", self.search_blocks),
                "search_rollouts": plan.get("search_rollouts", self.search_rollouts)}  # fmt: skip


@dataclass
class SweepOptions(Options):
    """`abyss-mc sweep`: `set_` are the axes (``{"key": [v1, v2]}`` in Python), `fixed` the
    overrides of every point."""

    SETTINGS: ClassVar[tuple[str, ...]] = ("set_", "fixed")

    set_: list[str] | None = None
    fixed: list[str] | None = None
    players: int = 4
    games: int = 20_000
    seed: int = 1
    strategies: str | None = None
    expansions: str | None = None
    cards: Path | None = None
    out: Path | None = None
    report: bool = True
    threads: int | None = None
    presets: Path | None = None
    game: str = "abyss"
    backend: str = "local"
    scheduler: str | None = None
    resume: Path | None = None
    yes: bool = False

    def from_plan(self, plan: dict) -> dict:
        keys = ("fixed", "players", "games", "seed", "strategies", "expansions", "game")
        return {**{k: plan[k] for k in keys}, **_data(plan)}


@dataclass
class TuneOptions(Stored):
    """`abyss-mc tune`."""

    KEYS: ClassVar[tuple[str, ...]] = (
        "strategy", "game", "players", "against", "games", "candidates", "params", "open",
        "sampler", "finalists", "reeval_games", "heldout_games", "seed", "expansions")  # fmt: skip
    NAMES: ClassVar[tuple[str, ...]] = ("against", "expansions", "params")

    strategy: str | None = None
    game: str = "abyss"
    players: int = 4
    against: str | None = None
    games: int = 1_200_000
    candidates: int = 384
    params: str | None = None
    open: bool = False
    sampler: str = "tpe"
    finalists: int = 5
    reeval_games: int = 40_000
    heldout_games: int = 20_000
    seed: int = 1
    out: Path | None = None
    resume: Path | None = None
    backend: str = "local"
    scheduler: str | None = None
    threads: int | None = None
    expansions: str | None = None
    cards: Path | None = None
    set_: list[str] | None = None
    presets: Path | None = None
    yes: bool = False
    progress: bool = False


@dataclass
class RestrictOptions(Stored):
    """`abyss-mc restrict`."""

    KEYS: ClassVar[tuple[str, ...]] = ("strategy", "game", "players", "blocks", "seed",
                                       "expansions")  # fmt: skip
    NAMES: ClassVar[tuple[str, ...]] = ("expansions",)

    strategy: str | None = None
    game: str = "abyss"
    players: int = 4
    blocks: int = 2000
    seed: int = 1
    out: Path | None = None
    resume: Path | None = None
    backend: str = "local"
    scheduler: str | None = None
    threads: int | None = None
    expansions: str | None = None
    cards: Path | None = None
    set_: list[str] | None = None
    presets: Path | None = None
    yes: bool = False
    progress: bool = False


@dataclass
class DesignOptions(Stored):
    """`abyss-mc design`: `vary` as ``["key=0..4"]`` or ``{"key": (0, 4)}`` (choices: a list),
    `target` as ``["seat_spread<=0.05"]``."""

    KEYS: ClassVar[tuple[str, ...]] = (
        "vary", "target", "game", "players", "strategies", "card_strategy", "minutes",
        "candidates", "blocks", "finalists", "reeval_blocks", "retune_candidates", "seed",
        "expansions")  # fmt: skip

    vary: list[str] | None = None
    target: list[str] | None = None
    game: str = "abyss"
    players: int = 4
    strategies: str | None = None
    card_strategy: str | None = None
    minutes: float | None = None
    candidates: int = 48
    blocks: int = 200
    finalists: int = 4
    reeval_blocks: int = 800
    retune_candidates: int = 16
    seed: int = 1
    expansions: str | None = None
    cards: Path | None = None
    set_: list[str] | None = None
    presets: Path | None = None
    out: Path | None = None
    resume: Path | None = None
    backend: str = "local"
    scheduler: str | None = None
    threads: int | None = None
    yes: bool = False
    progress: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        self.vary = list(ranges(self.vary) or [])
        self.target = list(settings(self.target) or [])


@dataclass
class LearnOptions(Stored):
    """`abyss-mc learn`."""

    KEYS: ClassVar[tuple[str, ...]] = (
        "game", "players", "iterations", "games", "rollouts", "strength_games", "field",
        "opponents", "base", "seed", "expansions")  # fmt: skip
    NAMES: ClassVar[tuple[str, ...]] = ("expansions", "field")

    game: str = "abyss"
    players: int = 4
    iterations: int = 2
    games: int = 1000
    rollouts: int = 64
    strength_games: int = 4000
    field: str = "open"
    opponents: str = "own"
    base: str | None = None
    backend: str = "local"
    scheduler: str | None = None
    seed: int = 1
    out: Path | None = None
    resume: Path | None = None
    expansions: str | None = None
    cards: Path | None = None
    set_: list[str] | None = None
    presets: Path | None = None
    yes: bool = False
    progress: bool = False


@dataclass
class PlanOptions(Options):
    """`abyss-mc plan`."""

    effect: float = 0.01
    strategies: str | None = None
    players: int = 4
    metric: str = "win"
    alpha: float = 0.05
    power: float = 0.8
    pilot_blocks: int = 400
    seed: int = 1
    expansions: str | None = None
    cards: Path | None = None
    set_: list[str] | None = None
    presets: Path | None = None
    game: str = "abyss"


@dataclass
class BenchOptions(Options):
    """`abyss-mc bench`."""

    PATHS: ClassVar[tuple[str, ...]] = ("cards", "presets", "markdown")

    players: int = 4
    strategies: str | None = None
    expansions: str | None = None
    games: int = 200_000
    reference_games: int = 200
    memory_games: int = 0
    starts: bool = True
    markdown: Path | None = None
    seed: int = 1
    cards: Path | None = None
    set_: list[str] | None = None
    presets: Path | None = None
    game: str = "abyss"


@dataclass
class ReplayOptions(Options):
    """`abyss-mc replay`: one game of a run (`run_dir`, its game `index`) or of the options
    given; `game` may be the index, as on the command line (``--game 42``)."""

    PATHS: ClassVar[tuple[str, ...]] = ("run_dir", "cards", "presets")

    run_dir: Path | None = None
    seed: int = 1
    game: str = "abyss"
    index: int | None = None
    players: int = 4
    strategies: str | None = None
    json_out: bool = False
    cards: Path | None = None
    set_: list[str] | None = None
    expansions: str | None = None
    presets: Path | None = None


@dataclass
class DramaOptions(Options):
    """`abyss-mc drama RUN_DIR`."""

    PATHS: ClassVar[tuple[str, ...]] = ("run_dir",)

    run_dir: Path | None = None
    games: int = 256
    rollouts: int = 16


@dataclass
class SkillOptions(Options):
    """`abyss-mc skill RUN_DIR`: `rungs`, the ladder, weakest first."""

    NAMES: ClassVar[tuple[str, ...]] = ("rungs",)
    PATHS: ClassVar[tuple[str, ...]] = ("run_dir",)

    run_dir: Path | None = None
    rungs: str = ""


@dataclass
class ReportOptions(Options):
    """`abyss-mc report RUN_DIR`."""

    PATHS: ClassVar[tuple[str, ...]] = ("run_dir", "out")

    run_dir: Path | None = None
    out: Path | None = None


@dataclass
class CardsOptions(Options):
    """`abyss-mc cards`."""

    cards: Path | None = None
    set_: list[str] | None = None
    expansions: str | None = None
    game: str = "abyss"


@dataclass
class StrategiesOptions(Options):
    """`abyss-mc strategies`: every strategy, or one (`strategy`) in full."""

    strategy: str | None = None
    presets: Path | None = None
    game: str = "abyss"
