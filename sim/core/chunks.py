"""Finished chunks of a resumable run, stored as they complete.

A chunk is games [first, first + n) of the run. Its files are written first (each atomically,
after any old marker of the same first game is removed), then a marker ``<first>-<n>.done``
holding the SHA-256 of each file; only a chunk with its marker counts, so a process killed
while writing leaves at most an unmarked chunk, which a resumed run plays again. Games are pure
functions of (seed, game index), so replaying a chunk gives the same results, and the run's
results never depend on where it was interrupted.

Chunks may be stored in any order (a Dask run stores each as it arrives): `completed` lists every
stored chunk in game order, `missing` the games still to play, and a resumed run plays only those,
then merges all of them in game order.

A marker also names the plan that made the chunk (`stamp`: the digest of the run's plan, its seed,
counts, line-up, card data and code): a resumed run refuses a chunk of another plan, one copied
in from another run (`foreign`), before it plays anything.

Before the stored chunks are used (`completed`), every file is checked against its marker. A chunk
that fails (a flipped bit, a truncated or missing file, a marker without checksums) is never
merged: it and the chunks after it are moved, whole, to ``quarantine/`` (kept on disk, never
deleted) with a one-line warning, and the run plays them again from the failed chunk's first game.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from sim.core.runs import atomic_write_text

_DONE = re.compile(r"^(\d+)-(\d+)\.done$")
QUARANTINE = "quarantine"


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class ChunkStore:
    def __init__(self, root: Path | str, warn: Callable[[str], None] | None = None,
                 stamp: str | None = None, label: Callable[[int, int], str] | None = None,
                 ) -> None:  # fmt: skip
        self.root = Path(root)
        #: what a chunk (first, n) is called in a warning (a store of iterations names them so)
        self.label = label or (lambda first, n: f"chunk of games {first}-{first + n - 1}")
        self.root.mkdir(parents=True, exist_ok=True)
        self.warn = warn or (lambda message: print(message, file=sys.stderr))
        self.stamp = stamp
        self._checked = False

    def path(self, first: int, name: str) -> Path:
        """Where chunk `first` keeps its file `name`."""
        return self.root / f"{first:012d}-{name}"

    def marker(self, first: int, n: int) -> Path:
        return self.root / f"{first:012d}-{n}.done"

    def save(self, first: int, n: int, writers: dict[str, Callable[[Path], None]]) -> None:
        """Write the chunk's files (`writers[name](path)`, each atomic), then its marker with
        their checksums. A chunk stored again from the same game with another length (a look
        cut to a budget, replayed to the deals that fit a resumed run) first loses its old
        marker: two markers of one chunk, one of them stale, would send it to quarantine."""
        for old in self.root.glob(f"{first:012d}-*.done"):
            old.unlink(missing_ok=True)
        sums = {}
        for name, write in writers.items():
            write(self.path(first, name))
            sums[name] = file_sha256(self.path(first, name))
        made = {"sha256": sums, **({"plan": self.stamp} if self.stamp else {})}
        atomic_write_text(self.marker(first, n), json.dumps(made, sort_keys=True))

    def completed(self) -> list[tuple[int, int]]:
        """Every marked chunk (first, n), in game order, every file checked against its marker
        (see the module's docstring)."""
        if not self._checked:
            self._checked = True
            self._quarantine_first_bad()
        return self._marked()

    def end(self) -> int:
        """Games 0 .. end - 1 are done (the chunks that follow one another from game 0)."""
        end = 0
        for first, n in self.completed():
            if first != end:
                break
            end = first + n
        return end

    def missing(self, n_games: int) -> list[tuple[int, int]]:
        """The spans (first, n) of games 0 .. n_games - 1 that no stored chunk holds, in order."""
        out, at = [], 0
        for first, n in self.completed():
            if first > at:
                out.append((at, min(first, n_games) - at))
            at = max(at, first + n)
        if at < n_games:
            out.append((at, n_games - at))
        return [(first, n) for first, n in out if n > 0]

    # ------------------------------------------------------------------ checking
    def _marked(self) -> list[tuple[int, int]]:
        """Every chunk with a marker, in game order; overlapping chunks (never written by one
        run) would count games twice: the later one is left out and played again."""
        marked = {}
        for f in self.root.iterdir():
            m = _DONE.match(f.name)
            if m:
                marked[int(m.group(1))] = int(m.group(2))
        out, end = [], 0
        for first in sorted(marked):
            if first >= end:
                out.append((first, marked[first]))
                end = first + marked[first]
        return out

    def problem(self, first: int, n: int) -> str | None:
        """Why chunk `first` cannot be used, or None."""
        try:
            sums = json.loads(self.marker(first, n).read_text())["sha256"]
        except (OSError, ValueError, KeyError, TypeError):
            return "has no readable checksums"
        if not isinstance(sums, dict) or not sums:
            return "has no readable checksums"
        for name, digest in sorted(sums.items()):
            try:
                actual = file_sha256(self.path(first, name))
            except OSError:
                return f"lacks its file {name}"
            if actual != digest:
                return f"fails its checksum ({name} is corrupt or truncated)"
        return None

    def _quarantine_first_bad(self) -> None:
        for first, n in self._marked():
            why = self.problem(first, n)
            if why is None:
                continue
            moved, where = self._quarantine_from(first)
            self.warn(
                f"warning: the stored {self.label(first, n)} {why}; it is not "
                f"used: it and the {moved - 1} chunk(s) after it were moved to {where} (kept) and "
                "are played again"
            )
            return

    def _quarantine_from(self, first: int) -> tuple[int, Path]:
        """Move every chunk file and marker from game `first` on into a new quarantine folder."""
        box = self.root / QUARANTINE
        box.mkdir(exist_ok=True)
        k = 1
        while (box / str(k)).exists():
            k += 1
        where = box / str(k)
        where.mkdir()
        markers = 0
        for f in sorted(self.root.iterdir()):
            head = f.name.split("-", 1)[0]
            if f.is_file() and head.isdigit() and int(head) >= first:
                markers += bool(_DONE.match(f.name))
                f.rename(where / f.name)
        return markers, where


def foreign(root: Path, stamp: str, stamped: bool = False) -> Path | None:
    """The first marker under `root` (every stage's store, quarantine aside) made by a plan other
    than `stamp`'s, or None. A marker without a plan (an older version's) is taken as this run's,
    unless the run's chunks are all `stamped` (a plan of this version: such a marker was copied
    in); an unreadable one is the checksums' business (`ChunkStore.problem`)."""
    if not root.is_dir():
        return None
    for marker in sorted(root.rglob("*.done")):
        if QUARANTINE in marker.relative_to(root).parts or not _DONE.match(marker.name):
            continue
        try:
            made = json.loads(marker.read_text()).get("plan")
        except (OSError, ValueError, AttributeError):
            continue
        if (made is not None or stamped) and made != stamp:
            return marker
    return None
