"""A learned player's weights as data (docs/learned.md): one `.npz` file per game and player
count, checked on load, its digest in every manifest that plays it.

The file holds `weights` (int32 [decisions, features], fixed point), the game's `decisions` and
`features` (their codes and names, so a file for other features is refused, not misread), and
`meta` (JSON: game, players, the base strategy it scores over, how it was made).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from strategies.registry import StrategyError

FORMAT = 1


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
    path = Path(path)
    try:
        blob = path.read_bytes()
        with np.load(path, allow_pickle=False) as data:
            weights, file_decisions = data["weights"], data["decisions"]
            file_features, meta = data["features"], json.loads(str(data["meta"]))
    except FileNotFoundError:
        raise StrategyError(f"weights file {path}: no such file") from None
    except (OSError, ValueError, KeyError) as exc:
        raise StrategyError(
            f"weights file {path}: not a learned player's weights ({exc})"
        ) from None
    if meta.get("game") != game:
        raise StrategyError(f"weights file {path}: for the game {meta.get('game')!r}, not {game!r}")
    if meta.get("format") != FORMAT:
        raise StrategyError(f"weights file {path}: format {meta.get('format')}, expected {FORMAT}")
    shape = (len(decisions), len(features))
    if weights.shape != shape or weights.dtype != np.int32:
        raise StrategyError(
            f"weights file {path}: weights of shape {weights.shape} ({weights.dtype}), "
            f"expected {shape} (int32)"
        )
    if tuple(file_decisions) != tuple(decisions) or tuple(file_features) != tuple(features):
        raise StrategyError(f"weights file {path}: made for other decisions or features")
    return Weights(weights, meta, hashlib.sha256(blob).hexdigest())
