"""Validation of card-data TOML shared by every game's loader: one-line errors naming the file,
the entry and the problem, and the `--set` override that caused it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any


class CardDataError(ValueError):
    """Invalid card data or override; the message is one line: "<file>: <entry>: <problem>"
    (a user error: `sim.core.errors.is_user_error` knows the name)."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


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
        value = tbl[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(
                entry,
                f"{key}: expected an integer, got {_type_name(value)} {_show(value)}",
                tbl,
                key,
            )
        if not lo <= value <= hi:
            self.fail(entry, f"{key}: must be in {lo}..{hi}, got {value}", tbl, key)
        return value

    def boolean(self, tbl: dict[str, Any], key: str, entry: str) -> bool:
        value = tbl[key]
        if not isinstance(value, bool):
            self.fail(
                entry,
                f"{key}: expected true or false, got {_type_name(value)} {_show(value)}",
                tbl,
                key,
            )
        return value

    def string(self, tbl: dict[str, Any], key: str, entry: str, nonempty: bool = False) -> str:
        value = tbl[key]
        if not isinstance(value, str):
            self.fail(
                entry, f"{key}: expected a string, got {_type_name(value)} {_show(value)}", tbl, key
            )
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
        value = tbl[key]
        if not isinstance(value, list):
            self.fail(
                entry,
                f"{key}: expected an array of integers, got {_type_name(value)} {_show(value)}",
                tbl,
                key,
            )
        if not n[0] <= len(value) <= n[1]:
            self.fail(entry, f"{key}: must have {n[0]}..{n[1]} entries, got {len(value)}", tbl, key)
        for i, item in enumerate(value):
            if isinstance(item, bool) or not isinstance(item, int):
                self.fail(
                    entry,
                    f"{key}[{i}]: expected an integer, got {_type_name(item)} {_show(item)}",
                    tbl,
                    key,
                )
            if not lo <= item <= hi:
                self.fail(entry, f"{key}[{i}]: must be in {lo}..{hi}, got {item}", tbl, key)
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

    def unique(self, label: str, seen: dict, key: Any, what: str, tbl: Any, field: str) -> None:
        """Fail if `key` was seen before (`seen` maps keys to the label that used them)."""
        if key in seen:
            self.fail(label, f"duplicate {what} (also used by {seen[key]})", tbl, field)
        seen[key] = label


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
