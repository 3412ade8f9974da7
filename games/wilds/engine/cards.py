"""The warped-crystal simulator's data (`games/wilds/engine/data/wilds.toml`), loaded and validated.

All of it is PLACEHOLDER data (shared/reference/components.md section 4.2): the map, the crystals,
the warp deck and the climber. Errors are one line naming the file, the entry and the problem
(`sim.core.carddata`); `--set` overrides use keys like `climber.ap_per_turn=5`.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.carddata import CardDataError, Checker, _one_line

DATA_FILE = "wilds.toml"
OPEN, BODY, LEDGE, SPECIAL = 0, 1, 2, 3
TERRAIN = {".": OPEN, "#": BODY, "=": LEDGE, "~": SPECIAL}
SNAP_TIES = ("reading", "continue")
WARP_CRYSTAL, WARP_CLIMBER = 0, 1  # what a warp diagram moves: the struck crystal, the climber
MAX_HP = 6


@dataclass(frozen=True)
class WildsTables:
    terrain: np.ndarray  # int8 (rows, cols): OPEN, BODY, LEDGE, SPECIAL
    crystal_row: np.ndarray  # int8 per crystal
    crystal_col: np.ndarray
    crystal_hp: np.ndarray
    crystal_warped: np.ndarray  # bool
    warp_move: np.ndarray  # int8 (cards, 2): (rows, cols); (0, 0) for a non-diagram card
    warp_regain: np.ndarray  # int8 per card: HP regained (0 for a diagram)
    warp_target: np.ndarray  # int8 per card: what a diagram moves, WARP_CRYSTAL or WARP_CLIMBER
    start: tuple[int, int]
    ap_per_turn: int
    strike_cost: int
    climb_cost: int
    diagonal_cost: int
    strike_values: np.ndarray  # int8
    strike_weights: np.ndarray  # int16
    snap_tie: int  # index into SNAP_TIES
    digest: str
    source: str

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.terrain.shape[0]), int(self.terrain.shape[1])

    @property
    def n_crystals(self) -> int:
        return len(self.crystal_hp)


def default_data_dir() -> Path:
    return Path(__file__).resolve().parent / "data"


def load_cards(data_dir: str | Path | None = None, overrides: dict | None = None) -> WildsTables:
    """The data of `data_dir` (default: the built-in placeholders) with `--set` overrides."""
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    path = root / DATA_FILE if root.is_dir() else root
    try:
        doc = tomllib.loads(path.read_text())
    except OSError as exc:
        raise CardDataError(f"{path}: (file): cannot read: {_one_line(str(exc))}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CardDataError(f"{path}: (file): invalid TOML: {_one_line(str(exc))}") from None
    overridden = _apply(doc, overrides or {}, path)
    c = Checker(path, overridden)
    return _validate(c, doc, path)


def _apply(doc: dict, overrides: dict, path: Path) -> dict:
    applied = {}
    for key, value in overrides.items():
        table, _, field = key.partition(".")
        tbl = doc.get(table)
        if not isinstance(tbl, dict) or not field or field not in tbl:
            raise CardDataError(
                f"{path}: --set {key}: unknown key; keys are map.rows, warp.cards, "
                "climber.<field>, rules.snap_tie"
            )
        if isinstance(value, str) and value.startswith("["):
            try:
                value = tomllib.loads(f"v = {value}")["v"]
            except tomllib.TOMLDecodeError as exc:
                raise CardDataError(
                    f"{path}: --set {key}: invalid TOML array: {_one_line(str(exc))}"
                ) from None
        tbl[field] = value
        applied[(id(tbl), field)] = key
    return applied


def _validate(c: Checker, doc: dict[str, Any], path: Path) -> WildsTables:
    c.keys(doc, "(file)", ("map", "crystal", "warp", "climber", "rules"))
    terrain = _map(c, c.table(doc["map"], "[map]"))
    rows, cols = terrain.shape
    crystals = c.entries(doc, "crystal", (1, 64))
    seen: dict = {}
    cr, cc, hp, warped = [], [], [], []
    for i, tbl in enumerate(crystals):
        entry = f"[[crystal]] #{i + 1}"
        c.keys(tbl, entry, ("row", "col", "hp", "warped"))
        r = c.integer(tbl, "row", entry, 0, rows - 1)
        k = c.integer(tbl, "col", entry, 0, cols - 1)
        if terrain[r, k] == OPEN:
            c.fail(entry, f"space ({r}, {k}) is open: a crystal rests on a non-open space")
        c.unique(entry, seen, (r, k), "space", tbl, "row")
        cr.append(r)
        cc.append(k)
        hp.append(c.integer(tbl, "hp", entry, 1, MAX_HP))
        warped.append(c.boolean(tbl, "warped", entry))
    warp = c.table(doc["warp"], "[warp]")
    c.keys(warp, "[warp]", ("cards",))
    moves, regains, targets = _warp_cards(c, warp)
    climber = c.table(doc["climber"], "[climber]")
    fields = ("start", "ap_per_turn", "strike_cost", "climb_cost", "diagonal_cost",
              "strike_values", "strike_weights")  # fmt: skip
    c.keys(climber, "[climber]", fields)
    start = c.int_list(climber, "start", "[climber]", (2, 2), 0, max(rows, cols) - 1)
    if start[0] >= rows or start[1] >= cols or terrain[start[0], start[1]] == OPEN:
        c.fail("[climber]", f"start {start}: must be a non-open space on the map")
    values = c.int_list(climber, "strike_values", "[climber]", (1, 8), 1, 9)
    weights = c.int_list(climber, "strike_weights", "[climber]", (1, 8), 0, 1000)
    if len(values) != len(weights) or sum(weights) == 0:
        c.fail("[climber]", "strike_weights: one weight per strike value, not all zero")
    rules = c.table(doc["rules"], "[rules]")
    c.keys(rules, "[rules]", ("snap_tie",))
    tie = c.choice(rules, "snap_tie", "[rules]", SNAP_TIES, "tie rule")
    digest = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()
    return WildsTables(
        terrain=terrain,
        crystal_row=np.array(cr, dtype=np.int8),
        crystal_col=np.array(cc, dtype=np.int8),
        crystal_hp=np.array(hp, dtype=np.int8),
        crystal_warped=np.array(warped, dtype=bool),
        warp_move=moves,
        warp_regain=regains,
        warp_target=targets,
        start=(int(start[0]), int(start[1])),
        ap_per_turn=c.integer(climber, "ap_per_turn", "[climber]", 1, 20),
        strike_cost=c.integer(climber, "strike_cost", "[climber]", 1, 20),
        climb_cost=c.integer(climber, "climb_cost", "[climber]", 1, 20),
        diagonal_cost=c.integer(climber, "diagonal_cost", "[climber]", 1, 20),
        strike_values=np.array(values, dtype=np.int8),
        strike_weights=np.array(weights, dtype=np.int16),
        snap_tie=SNAP_TIES.index(tie),
        digest=digest,
        source=str(path),
    )


def _map(c: Checker, tbl: dict) -> np.ndarray:
    c.keys(tbl, "[map]", ("rows",))
    rows = tbl["rows"]
    if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
        c.fail("[map]", "rows: expected an array of strings", tbl, "rows")
    width = len(rows[0])
    if not 1 <= len(rows) <= 32 or not 1 <= width <= 32:
        c.fail("[map]", "rows: the map is 1..32 rows of 1..32 spaces", tbl, "rows")
    out = np.zeros((len(rows), width), dtype=np.int8)
    for i, row in enumerate(rows):
        if len(row) != width:
            c.fail("[map]", f"rows[{i}]: {len(row)} spaces, the first row has {width}", tbl, "rows")
        for j, ch in enumerate(row):
            if ch not in TERRAIN:
                c.fail(
                    "[map]", f"rows[{i}][{j}]: unknown space {ch!r}; known: . # = ~", tbl, "rows"
                )
            out[i, j] = TERRAIN[ch]
    if not (out != OPEN).any():
        c.fail("[map]", "rows: the map needs at least one non-open space", tbl, "rows")
    return out


def _warp_cards(c: Checker, warp: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each card: `{ move = [rows, cols] }` (a diagram moving the struck crystal), `{ climber =
    [rows, cols] }` (a diagram moving the climber who drew it) or `{ regain = n }`."""
    cards = warp["cards"]
    if not isinstance(cards, list) or not 1 <= len(cards) <= 64:
        c.fail("[warp]", "cards: expected an array of 1..64 cards", warp, "cards")
    moves = np.zeros((len(cards), 2), dtype=np.int8)
    regains = np.zeros(len(cards), dtype=np.int8)
    targets = np.zeros(len(cards), dtype=np.int8)
    for i, card in enumerate(cards):
        entry = f"[warp] cards[{i}]"
        card = c.table(card, entry)
        if set(card) in ({"move"}, {"climber"}):
            key = next(iter(card))
            move = c.int_list(card, key, entry, (2, 2), -9, 9)
            if move == [0, 0]:
                what = "crystal" if key == "move" else "climber"
                c.fail(entry, f"{key}: a diagram moves the {what}; [0, 0] does not")
            moves[i] = move
            targets[i] = WARP_CRYSTAL if key == "move" else WARP_CLIMBER
        elif set(card) == {"regain"}:
            regains[i] = c.integer(card, "regain", entry, 1, MAX_HP)
        else:
            c.fail(
                entry,
                "expected { move = [rows, cols] }, { climber = [rows, cols] } or { regain = n }",
            )
    return moves, regains, targets


#: no design search: a Wilds run is not games of a line-up (`sim.core.contract.CardsModule`)
set_value = None


def describe(t: WildsTables) -> str:
    rows, cols = t.shape
    chars = {v: k for k, v in TERRAIN.items()}
    lines = [
        "Leviathan Wilds: Shattered Peak, warped crystals (ALL DATA IS PLACEHOLDER)",
        f"Data: {t.source}",
        f"Digest: {t.digest}",
        f"Map {rows} x {cols} (. open, # body, = ledge, ~ special terrain):",
    ]
    lines += ["  " + "".join(chars[int(v)] for v in row) for row in t.terrain]
    for i in range(t.n_crystals):
        kind = "warped" if t.crystal_warped[i] else "plain"
        lines.append(
            f"  crystal {i + 1}: ({t.crystal_row[i]}, {t.crystal_col[i]}) {kind}, "
            f"{t.crystal_hp[i]} HP"
        )
    diagrams = t.warp_regain == 0
    climber = int((diagrams & (t.warp_target == WARP_CLIMBER)).sum())
    lines.append(
        f"Warp deck: {len(t.warp_regain)} cards, {int(diagrams.sum())} diagrams "
        f"({climber} moving the climber)"
    )
    lines.append(
        f"Climber: start {t.start}, {t.ap_per_turn} AP a turn, strike values "
        f"{list(map(int, t.strike_values))} (weights {list(map(int, t.strike_weights))})"
    )
    return "\n".join(lines) + "\n"
