"""A learned player's weights as data (docs/learned.md): one `.npz` file per game and player
count, checked on load, its digest in every manifest that plays it.

The file holds `weights` (int32 [decisions, features], fixed point), the game's `decisions` and
`features` (their codes and names, so a file for other features is refused, not misread; one
made before features were added weighs them 0), and `meta` (JSON: game, players, the base
strategy it scores over, how it was made).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from strategies.registry import StrategyError, param

FORMAT = 1
#: the file beside the built-in weights that says how each archetype plays at the learned
#: strength, per player count (`LearnedPlayer.archetype_versions`)
ARCHETYPES = "archetypes.toml"
#: the learned player's `archetype` when it plays as itself
NO_ARCHETYPE = "none"


@dataclass(frozen=True)
class Weights:
    weights: np.ndarray
    meta: dict
    digest: str


def save_weights(path: Path, weights: np.ndarray, decisions, features, meta: dict) -> None:
    """Write a weights file (atomically: a reader never sees half of it)."""
    import io

    from sim.core.runs import atomic_write_bytes

    buf = io.BytesIO()
    np.savez(buf, weights=np.asarray(weights, dtype=np.int32),
             decisions=np.asarray(decisions, dtype=np.int64),
             features=np.asarray(features, dtype=str),
             meta=np.asarray(json.dumps({"format": FORMAT, **meta}, sort_keys=True)))  # fmt: skip
    atomic_write_bytes(Path(path), buf.getvalue())


def load_weights(path: Path, game: str, decisions, features) -> Weights:
    """The weights in `path`, for `game`'s `decisions` and `features`; a StrategyError in one
    line for anything else (no file, not a weights file, another game, other features)."""
    import zipfile
    import zlib

    path = Path(path)
    if path.is_file() and path.stat().st_size == 0:
        raise StrategyError(f"weights file {path}: empty (0 bytes)")
    try:
        blob = path.read_bytes()
        with np.load(path, allow_pickle=False) as data:
            weights, file_decisions = data["weights"], data["decisions"]
            file_features, meta = data["features"], json.loads(str(data["meta"]))
    except FileNotFoundError:
        raise StrategyError(f"weights file {path}: no such file") from None
    except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError) as exc:
        # cut short, not an .npz at all, a damaged stream or header (its compression method)
        raise StrategyError(f"weights file {path}: damaged or truncated ({exc})") from None
    except (OSError, ValueError, KeyError) as exc:
        raise StrategyError(
            f"weights file {path}: not a learned player's weights ({exc})"
        ) from None
    if meta.get("game") != game:
        raise StrategyError(f"weights file {path}: for the game {meta.get('game')!r}, not {game!r}")
    if meta.get("format") != FORMAT:
        raise StrategyError(f"weights file {path}: format {meta.get('format')}, expected {FORMAT}")
    shape = (len(decisions), len(file_features))
    if weights.shape != shape or weights.dtype != np.int32:
        raise StrategyError(
            f"weights file {path}: weights of shape {weights.shape} ({weights.dtype}), "
            f"expected {shape} (int32)"
        )
    named = [str(f) for f in file_features]
    if tuple(file_decisions) != tuple(decisions) or len(set(named)) != len(named) \
            or not set(named) <= set(features):  # fmt: skip
        raise StrategyError(f"weights file {path}: made for other decisions or features")
    return Weights(by_name(weights, named, features), meta, hashlib.sha256(blob).hexdigest())


def by_name(weights: np.ndarray, named: list[str], features) -> np.ndarray:
    """The file's weights in the columns of the game's `features`, by name: a file made before
    features were added weighs them 0, and plays as it was made."""
    out = np.zeros((weights.shape[0], len(features)), dtype=np.int32)
    column = {name: k for k, name in enumerate(features)}
    out[:, [column[name] for name in named]] = weights
    return out


@dataclass
class LearnedPlayer:
    """What every game's learned player shares (a game's `LearnedPolicy`, made by
    `learned_policy`, adds its restricted play fields): its weights file, loaded and checked when
    the player is made, the table's built-in weights, the digest, and the vector the kernel
    reads."""

    weights: str = param(
        "",
        "The weights file (`abyss-mc learn` writes one): which decisions it scores and how; "
        "empty: the built-in weights of the table's player count.",
        "plays another learned player.",
        unit="a .npz file of abyss-mc learn",
        tune=False,
        path=True,
    )
    #: the game's package (`games.<package>`), also its name in a weights file
    package: ClassVar[str]
    #: the game's policy slots: L_WEIGHTS, N_SLOTS, LEARNED_DECISIONS, FEATURE_NAMES
    slots: ClassVar[Any]
    #: the player count whose built-in weights `learned` plays when made without a table
    #: (`make_policy`)
    default_players: ClassVar[int]
    #: each heuristic parameter -> the decisions it steers (codes of LEARNED_DECISIONS): where an
    #: archetype's own parameters steer, the archetype decides (`archetype`)
    steers: ClassVar[dict[str, tuple[int, ...]]]
    #: not screened into `tune`'s default field: its weights are for one player count and field
    SCREENED = False

    def __post_init__(self) -> None:
        super().__post_init__()
        path = Path(self.weights) if self.weights else self.builtin(self.default_players)
        self.loaded = load_weights(path, self.package, self.slots.LEARNED_DECISIONS,
                                   self.slots.FEATURE_NAMES)  # fmt: skip
        self.players = self.default_players  # the table's count (`at_table`)

    @classmethod
    def registry(cls):
        return import_module(f"games.{cls.package}.strategies").REGISTRY

    @classmethod
    def builtin(cls, n_players: int) -> Path:
        """The built-in weights of `n_players` players: `learned_<n>p.npz` in the folder
        `learned` beside the game's strategies."""
        folder = Path(import_module(f"games.{cls.package}.strategies").__file__).parent
        return folder / "learned" / f"learned_{n_players}p.npz"

    def at_table(self, n_players: int):
        """With the built-in weights: those of `n_players` players, or a StrategyError in one
        line when there are none for that count. A user's file plays at its own count only
        (its `meta["players"]`: the weights answer the fields of that count), refused in one
        line at another. An archetype plays its tuned version for `n_players`."""
        player = self
        if self.weights:
            made = self.loaded.meta.get("players")
            if made != n_players:
                raise StrategyError(f"learned: weights file {self.weights} was made for {made} "
                                    f"players; this table has {n_players}")  # fmt: skip
        elif n_players != self.default_players:
            path = self.builtin(n_players)
            if not path.is_file():
                raise StrategyError(
                    f"learned: no built-in weights for {n_players} players; make them with "
                    f"`abyss-mc learn --players {n_players}` and play learned:weights=FILE"
                )
            player = dataclasses.replace(self, weights=str(path))
        if player.players != n_players:
            player = dataclasses.replace(player)
            player.players = n_players
        return player

    def archetype_version(self) -> str:
        """The archetype as played at this table: its tuned version (`<archetype>_tuned_<N>p`), or
        the hand-written preset where there is none."""
        tuned = f"{self.archetype}_tuned_{self.players}p"
        return tuned if tuned in self.registry().presets() else self.archetype

    @functools.cached_property
    def own_parameters(self) -> tuple[str, ...]:
        """The archetype's own parameters (those its hand-written preset sets) that steer a
        decision the weights score; none for the learned player itself (read once: the presets
        file is parsed on each `hand_written_presets`)."""
        if self.archetype == NO_ARCHETYPE:
            return ()
        own = self.registry().hand_written_presets()[self.archetype].params
        return tuple(p for p in own if p in self.steers)

    def carried_parameters(self) -> tuple[str, ...]:
        """The parameters at the tuned version's values: every one that steers a decision the
        archetype keeps (so that there it decides exactly as its tuned version)."""
        kept = set(self.archetype_decisions())
        return tuple(p for p, ds in self.steers.items() if kept & set(ds))

    def shifted_decisions(self) -> tuple[int, ...]:
        """The scored decisions the archetype does not keep but a carried parameter steers: the
        weights decide them, their "base picks it" feature (and any other the heuristic's
        parameters make) from a base other than the one they were fitted over."""
        kept = set(self.archetype_decisions())
        reached = {d for p in self.carried_parameters() for d in self.steers[p]}
        return tuple(d for d in self.slots.LEARNED_DECISIONS if d in reached - kept)

    def base_policy(self):
        """The heuristic under the weights: the base the weights were fitted over, with the
        carried parameters (`carried_parameters`) at the archetype's tuned version's values."""
        registry = self.registry()
        base = registry.make_policy(self.loaded.meta["base"])
        carried = self.carried_parameters()
        if not carried:
            return base
        version = registry.make_policy(self.archetype_version())
        return dataclasses.replace(base, **{p: getattr(version, p) for p in carried})

    def archetype_decisions(self) -> tuple[int, ...]:
        """The decisions the archetype keeps (its own parameters steer them: `steers`), in the
        order of LEARNED_DECISIONS; none for the learned player itself."""
        kept = {d for p in self.own_parameters for d in self.steers[p]}
        return tuple(d for d in self.slots.LEARNED_DECISIONS if d in kept)

    @classmethod
    def archetype_versions(cls, n_players: int) -> dict[str, str]:
        """Each archetype -> the strategy that plays it at the learned strength at `n_players`
        (`learned:archetype=X`, or its tuned version where that had the higher mean on the deals
        that chose: `learned/archetypes.toml`, made by scripts/learned_archetypes.py --choose);
        empty without a choice for that count."""
        import tomllib

        path = cls.builtin(n_players).parent / ARCHETYPES
        if not path.is_file():
            return {}
        return dict(tomllib.loads(path.read_text()).get(str(n_players), {}))

    @property
    def digest(self) -> str:
        """The weights file's SHA-256 (the manifests name what was played)."""
        return self.loaded.digest

    def params(self) -> np.ndarray:
        """The base strategy's vector (its slots below L_WEIGHTS) with this player's restricted
        play (its forbid_* fields are the base's), then the weights."""
        forbid = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                  if f.name.startswith("forbid_")}  # fmt: skip
        base = dataclasses.replace(self.base_policy(), **forbid)
        kept = self.archetype_decisions()
        vec = base.params().copy()
        weights = self.loaded.weights.copy()
        pick = list(self.slots.FEATURE_NAMES).index("heuristic_pick")
        for d in kept:  # scores only the base's pick: the base decides
            row = list(self.slots.LEARNED_DECISIONS).index(d)
            weights[row] = 0
            weights[row, pick] = 1
        vec[self.slots.L_WEIGHTS : self.slots.N_SLOTS] = weights.reshape(-1)
        return vec


def hand_written_names(directory: Path) -> tuple[str, ...]:
    """The hand-written presets of a game's strategies `directory` (its `presets.toml`): the
    archetypes the learned player and the search's rollouts may play."""
    import tomllib

    return tuple(tomllib.loads((directory / "presets.toml").read_text()))


def archetype_param(module: str):
    """The learned player's `archetype`: one of the game's hand-written presets (the first presets
    file beside `module`), or empty."""
    import sys

    names = hand_written_names(Path(sys.modules[module].__file__).parent)
    return param(
        NO_ARCHETYPE,
        "A hand-written preset whose approach it plays (an archetype played well, docs/learned.md "
        "\"Archetypes played well\"): wherever one of the preset's own parameters steers a "
        "decision (the game's `STEERS`), the preset's tuned version for the table decides; the "
        "weights score every other decision. none: the learned player itself.",
        "plays that approach, with the learned player's decisions where the approach has none.",
        choices=(NO_ARCHETYPE, *names),
        unit="names: none or a hand-written preset",
        tune=False,
    )


def learned_policy(module: str, compiled: type, base: type, forbid: tuple[str, ...], *,
                   kind: int, slots: Any, default_players: int,
                   steers: dict[str, tuple[int, ...]]) -> type:  # fmt: skip
    """A game's learned player, declared in `module` (`games.<package>.strategies.learned`): a
    `LearnedPlayer` on the game's `compiled` policy base, with the restricted play fields `forbid`
    of its `base` heuristic (their defaults and documentation), the kernel's policy `kind`, its
    policy `slots`, the player count of the `learned` made without a table, and which decisions
    each heuristic parameter `steers` (an archetype keeps those of its own parameters)."""
    from strategies.registry import copied_param

    fields = [("name", str, dataclasses.field(default="learned"))]
    fields += [(name, int, copied_param(base, name)) for name in forbid]
    fields += [("archetype", str, archetype_param(module))]
    namespace = {
        "__module__": module,
        "__doc__": "Scores each option by weights learned from the search's decisions "
        "(docs/learned.md).",
        "package": module.split(".")[1],
        "kind": kind,
        "slots": slots,
        "default_players": default_players,
        "steers": steers,
    }
    return dataclasses.make_dataclass("LearnedPolicy", fields, bases=(LearnedPlayer, compiled),
                                      namespace=namespace)  # fmt: skip
