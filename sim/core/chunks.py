"""Finished chunks of a resumable run, stored as they complete.

A chunk is games [first, first + n) of the run. Its files are written first (each atomically),
then a marker ``<first>-<n>.done``; only a chunk with its marker counts, so a process killed
while writing leaves at most an unmarked chunk, which a resumed run plays again. Games are pure
functions of (seed, game index), so replaying a chunk gives the same results, and the run's
results never depend on where it was interrupted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from sim.core.runs import atomic_write_text

_DONE = re.compile(r"^(\d+)-(\d+)\.done$")


class ChunkStore:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, first: int, name: str) -> Path:
        """Where chunk `first` keeps its file `name`."""
        return self.root / f"{first:012d}-{name}"

    def save(self, first: int, n: int, writers: dict[str, Callable[[Path], None]]) -> None:
        """Write the chunk's files (`writers[name](path)`, each atomic), then its marker."""
        for name, write in writers.items():
            write(self.path(first, name))
        atomic_write_text(self.root / f"{first:012d}-{n}.done", "")

    def completed(self) -> list[tuple[int, int]]:
        """The marked chunks (first, n) that follow one another from game 0, in order."""
        marked = {}
        for f in self.root.iterdir():
            m = _DONE.match(f.name)
            if m:
                marked[int(m.group(1))] = int(m.group(2))
        out, first = [], 0
        while first in marked:
            out.append((first, marked[first]))
            first += marked[first]
        return out

    def end(self) -> int:
        """Games 0 .. end - 1 are done."""
        done = self.completed()
        return done[-1][0] + done[-1][1] if done else 0
