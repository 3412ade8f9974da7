"""Validation of card-data TOML shared by every game's loader: one-line errors naming the file,
the entry and the problem, and the `--set` override that caused it."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any


class CardDataError(ValueError):
    """Invalid card data or override; the message is one line: "<file>: <entry>: <problem>"
    (a user error: `sim.core.errors.is_user_error` knows the name)."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


#: TOML's names of Python types, bool before int (a bool is an int).
_TOML_TYPES = ((bool, "boolean"), (int, "integer"), (float, "float"), (str, "string"),
               (list, "array"), (dict, "table"))  # fmt: skip


def _type_name(value: object) -> str:
    return next((name for kind, name in _TOML_TYPES if isinstance(value, kind)), None) or (
        type(value).__name__
    )


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Checker:
    """Raises CardDataError naming the file, the entry and the problem."""

    def __init__(self, path: Path, overridden: dict[tuple[int, str], str]):
        self.path = path
        self.overridden = overridden

    def fail(self, entry: str, what: str, tbl: Any = None, key: str | None = None) -> None:
        note = ""
        if key is not None and (id(tbl), key) in self.overridden:
            note = f" (set by --set {self.overridden[(id(tbl), key)]})"
        raise CardDataError(_one_line(f"{self.path}: {entry}: {what}{note}"))

    def table(self, value: Any, entry: str, what: str = "expected a table") -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(entry, f"{what}, got {_type_name(value)}")
        return value

    def keys(self, tbl: dict[str, Any], entry: str, required: tuple[str, ...], optional=()) -> None:
        allowed = set(required) | set(optional)
        for key in tbl:
            if key not in allowed:
                expected = ", ".join(list(required) + list(optional))
                self.fail(entry, f"unknown key {key!r} (expected: {expected})", tbl, key)
        for key in required:
            if key not in tbl:
                self.fail(entry, f"missing key {key!r}")

    def integer(self, tbl: dict[str, Any], key: str, entry: str, lo: int, hi: int) -> int:
        return self.bounded(tbl[key], key, entry, lo, hi, tbl, key)

    def bounded(
        self, value: Any, name: str, entry: str, lo: int, hi: int, tbl: Any = None, key=None
    ) -> int:
        """`value`, an integer in lo..hi; `name` is how messages call it (`key`, `key[i]`...)."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(
                entry, f"{name}: expected an integer, got {_type_name(value)} {_show(value)}",
                tbl, key,
            )  # fmt: skip
        if not lo <= value <= hi:
            self.fail(entry, f"{name}: must be in {lo}..{hi}, got {value}", tbl, key)
        return value

    def typed(self, tbl: dict[str, Any], key: str, entry: str, kind: type, expected: str) -> Any:
        """tbl[key] if it is a `kind`; else "<key>: expected <expected>, got <what it is>"."""
        value = tbl[key]
        if not isinstance(value, kind):
            got = f"{_type_name(value)} {_show(value)}"
            self.fail(entry, f"{key}: expected {expected}, got {got}", tbl, key)
        return value

    def boolean(self, tbl: dict[str, Any], key: str, entry: str) -> bool:
        return self.typed(tbl, key, entry, bool, "true or false")

    def string(self, tbl: dict[str, Any], key: str, entry: str, nonempty: bool = False) -> str:
        value = self.typed(tbl, key, entry, str, "a string")
        if nonempty and not value.strip():
            self.fail(entry, f"{key}: must not be empty", tbl, key)
        return value

    def choice(self, tbl: dict[str, Any], key: str, entry: str, names: Any, kind: str) -> str:
        """A name from `names` (case-insensitive); returns the lower-case name."""
        value = self.string(tbl, key, entry).strip().lower()
        if value not in names:
            self.fail(
                entry,
                f"{key}: unknown {kind} {tbl[key]!r} (expected one of: {', '.join(names)})",
                tbl,
                key,
            )
        return value

    def int_list(
        self, tbl: dict[str, Any], key: str, entry: str, n: tuple[int, int], lo: int, hi: int
    ) -> list[int]:
        value = self.typed(tbl, key, entry, list, "an array of integers")
        if not n[0] <= len(value) <= n[1]:
            self.fail(entry, f"{key}: must have {n[0]}..{n[1]} entries, got {len(value)}", tbl, key)
        for i, item in enumerate(value):
            self.bounded(item, f"{key}[{i}]", entry, lo, hi, tbl, key)
        return list(value)

    def entries(self, doc: dict[str, Any], key: str, n: tuple[int, int]) -> list[dict]:
        """An array of tables `[[key]]` with n[0]..n[1] entries."""
        value = doc[key]
        entry = f"[[{key}]]"
        if not isinstance(value, list):
            self.fail(entry, f"expected an array of tables, got {_type_name(value)}")
        if not n[0] <= len(value) <= n[1]:
            self.fail(entry, f"must have {n[0]}..{n[1]} entries, got {len(value)}")
        for i, item in enumerate(value):
            self.table(item, f"{entry} entry {i + 1}")
        return value

    def unique(
        self, label: str, seen: dict, key: Any, what: str, tbl: Any = None, field=None
    ) -> None:
        """Fail if `key` was seen before (`seen` maps keys to the label that used them)."""
        if key in seen:
            self.fail(label, f"duplicate {what} (also used by {seen[key]})", tbl, field)
        seen[key] = label

    def card_names(
        self, label: str, tbl: Any, seen: tuple[dict, dict, dict], number: Any, name: str,
        prefix: str, number_what: str | None = None, note: bool = False,
    ) -> str:  # fmt: skip
        """A card's `--set` slug: its name must give one, and its number, name and slug must be
        unique (`seen`: the numbers, names and slugs met so far). `note`: duplicate messages
        also name the `--set` override behind them."""
        slug = slugify(name)
        if not slug:
            self.fail(label, "name: must contain a letter or digit", tbl, "name")
        numbers, names, slugs = seen
        where, number_field, name_field = (tbl, "number", "name") if note else (None, None, None)
        what = number_what or f"number {number}"
        self.unique(label, numbers, number, what, where, number_field)
        self.unique(label, names, name.lower(), f"name {name!r}", where, name_field)
        self.unique(label, slugs, slug, f"--set name {prefix}.{slug}", where, name_field)
        return slug


def count_of(field: str, doc: str | None = None) -> property:
    """A property of a card table: how many cards of a kind (the rows of array `field`)."""
    return property(lambda self: len(getattr(self, field)), doc=doc)


def entry_label(
    kind: str, index: int, tbl: dict[str, Any], number_key: str = "number", or_key=None
) -> str:
    """How messages name entry `index` of an array of tables: "lord #3 The Shaman", or
    "lord entry 4" before its number is known; `or_key` names it when it has no name."""
    number, name = tbl.get(number_key), tbl.get("name")
    label = f"{kind} entry {index + 1}"
    if isinstance(number, int) and not isinstance(number, bool):
        label = f"{kind} #{number}"
    other = tbl.get(or_key) if or_key else None
    if isinstance(name, str) and name.strip():
        label += f" {name.strip()}"
    elif isinstance(other, str) and other.strip():
        label += f" ({other.strip()})"
    return label


# --------------------------------------------------------------------------------------------
# Reading the files, applying --set overrides, the digest
# --------------------------------------------------------------------------------------------


def read_data_files(directory: Path, names, optional=()) -> tuple[dict[str, Path], dict[str, Any]]:
    """The path of each data file of `directory` and its parsed TOML. A folder that lacks one of
    `names` (another game's card data, a partial copy) or holds a TOML file the game never reads
    (`optional`: the files it may hold besides, such as an expansion's, relative paths) is refused
    in one line: an edited file the game ignores would play the data as shipped."""
    if not directory.is_dir():
        raise CardDataError(f"{directory}: (directory): not a directory")
    missing = [name for name in names if not (directory / name).is_file()]
    if missing:
        raise CardDataError(f"{directory}: (directory): lacks {', '.join(missing)}: a card "
                            f"data folder holds {', '.join(names)} (another game's data, or a "
                            "partial copy?)")  # fmt: skip
    stray = _stray_file(directory, (*names, *optional))
    if stray is not None:
        raise CardDataError(stray)
    paths = {name: directory / name for name in names}
    return paths, {name: read_toml(path) for name, path in paths.items()}


def _stray_file(directory: Path, known) -> str | None:
    """Why a TOML file of `directory` (or of a folder of a `known` file) is not read, or None."""
    known = {Path(k).as_posix() for k in known}
    folders = {directory} | {directory / Path(k).parent for k in known}
    for folder in sorted(folders):
        for path in sorted(folder.glob("*.toml")):
            rel = path.relative_to(directory).as_posix()
            if rel in known:
                continue
            home = [k for k in sorted(known) if Path(k).name == path.name]
            where = f": it belongs at {home[0]}" if home else ""
            return (f"{path}: (file): not read by the game{where} (a card data folder holds "
                    f"{', '.join(sorted(known))})")
    return None


def read_toml(path: Path) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CardDataError(f"{path}: (file): cannot read: {_one_line(str(exc))}") from None
    try:
        return tomllib.loads(data.decode("utf-8-sig"))  # an editor's byte order mark is no error
    except UnicodeDecodeError as exc:
        raise CardDataError(f"{path}: (file): not UTF-8 text: {_one_line(str(exc))}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CardDataError(f"{path}: (file): invalid TOML: {_one_line(str(exc))}") from None


def subtable(doc: Any, name: str) -> dict | None:
    """doc[name] if both are tables (an override target in a broken file is None)."""
    value = doc.get(name) if isinstance(doc, dict) else None
    return value if isinstance(value, dict) else None


def apply_overrides(
    raw: dict[str, Any],
    overrides: dict[str, object],
    targets_of: Callable[[dict[str, Any]], dict[str, tuple[dict | None, str]]],
    hint: str,
    convert: Callable[[str, object], object] | None = None,
) -> dict[tuple[int, str], str]:
    """Apply `--set` overrides to the raw files in place; returns {(id(raw table), field):
    override key}, so that messages name the override behind a bad value.

    `targets_of(raw)` maps every valid key to (the raw table to change, or None when its file is
    broken, the field); an unknown key fails with suggestions, or `hint`. `convert(field, value)`
    reads values the `--set` parser keeps as text."""
    if not overrides:
        return {}
    import numpy as np

    targets = targets_of(raw)
    applied: dict[tuple[int, str], str] = {}
    for key, value in overrides.items():
        if key not in targets:
            raise CardDataError(f"--set: {key!r}: unknown key; {suggest(key, list(targets), hint)}")
        tbl, field = targets[key]
        if isinstance(value, np.generic):  # numpy scalars from Python callers
            value = value.item()
        if convert is not None:
            value = convert(field, value)
        if tbl is None:  # the file itself is broken: validation reports it
            continue
        tbl[field] = value
        applied[(id(tbl), field)] = key
    return applied


def value_of(
    raw: dict[str, Any],
    key: str,
    targets_of: Callable[[dict[str, Any]], dict[str, tuple[dict | None, str]]],
    hint: str,
    defaults: dict[str, object],
) -> object:
    """The value of the `--set` key `key` in the raw files (overrides applied): what a design
    search (`abyss-mc design --vary`) measures its distance from. A key that its file leaves out
    has its default (`defaults`: `--set` key -> the rules as printed)."""
    targets = targets_of(raw)
    if key not in targets:
        raise CardDataError(f"--vary: {key!r}: unknown key; {suggest(key, list(targets), hint)}")
    tbl, field = targets[key]
    if tbl is not None and field in tbl:
        return tbl[field]
    if key in defaults:
        return defaults[key]
    raise CardDataError(f"--vary: {key!r}: the card data has no value for it")


def digest(canonical: dict[str, Any]) -> str:
    """SHA-256 (hex) of the canonical data: what a run's results are comparable by."""
    blob = json.dumps(canonical, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("ascii")).hexdigest()


def int_array(values: list, dtype: Any):
    """A C-contiguous numpy array for the kernels (numpy is imported when data is loaded)."""
    import numpy as np

    return np.ascontiguousarray(np.array(values, dtype=dtype))


def suggest(key: str, candidates: list[str], hint: str) -> str:
    """ "did you mean ...?" for a mistyped `--set` key, else `hint` (what the keys look like)."""
    import difflib

    close = difflib.get_close_matches(key, candidates, n=3, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in candidates}
        close = [lowered[c] for c in difflib.get_close_matches(key.lower(), list(lowered), n=3)]
    if close:
        return "did you mean " + ", ".join(repr(c) for c in close) + "?"
    return hint


def slugify(name: str) -> str:
    """Card name -> override slug: lower-case, a leading "the " removed, other runs -> "_"."""
    s = name.strip().lower()
    if s.startswith("the "):
        s = s[4:]
    return re.sub(r"[^a-z0-9]+", "_", s).strip("_")


# --------------------------------------------------------------------------------------------
# --set KEY=VALUE
# --------------------------------------------------------------------------------------------

_SET_KEY_RE = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+")


def parse_set_options(items: list[str]) -> dict[str, object]:
    """Parse `--set key=value` items into {key: value}.

    The value is read as a TOML scalar (integer, float, boolean or quoted string); anything else
    (a bare word, an array, a date) is kept as the literal string. An empty value is "". Later
    items override earlier ones with the same key.
    """
    out: dict[str, object] = {}
    for item in items:
        key, sep, text = str(item).partition("=")
        key = key.strip()
        if not sep and _SET_KEY_RE.fullmatch(key):
            raise CardDataError(f"--set: {_one_line(repr(str(item)))}: no value; write "
                                f"KEY=VALUE, e.g. --set {key}=2")
        if not sep or not _SET_KEY_RE.fullmatch(key):
            raise CardDataError(f"--set: {_one_line(repr(str(item)))}: expected key=value")
        out[key] = _parse_scalar(text.strip())
    return out


def _parse_scalar(text: str) -> object:
    if text == "":
        return ""
    try:
        doc = tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        return text
    if set(doc) != {"v"}:
        return text
    value = doc["v"]
    if isinstance(value, (bool, int, float, str)):
        return value
    return text
