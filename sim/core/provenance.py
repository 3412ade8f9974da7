"""What a run was made from, as digests: card data and rules options, presets, engine source.

A resumable run records these digests in its plan when it starts; `--resume` recomputes them and
refuses to go on if any changed, since the finished chunks and the rest would then come from two
different games (`check_unchanged`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from sim.core.errors import UserError

#: The digests a plan records, in the order a refusal names them.
CARDS, PRESETS, SOURCE = "card data and rules options", "presets", "engine source"


def files_digest(files: Iterable[Path], root: Path | None = None) -> str:
    """SHA-256 over each file's name (relative to `root`) and bytes, in sorted order; a missing
    file counts as its name alone, so that deleting a file changes the digest too."""
    h = hashlib.sha256()
    for path in sorted(Path(f) for f in files):
        name = path.relative_to(root) if root is not None else path
        h.update(name.as_posix().encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"<missing>")
        h.update(b"\0")
    return h.hexdigest()


def source_digest(package_dirs: Iterable[Path]) -> str:
    """The Python source of the given package folders (every ``*.py`` below them)."""
    h = hashlib.sha256()
    for root in sorted(Path(d) for d in package_dirs):
        h.update(root.name.encode() + b"\0")
        h.update(files_digest(root.rglob("*.py"), root).encode())
    return h.hexdigest()


def check_unchanged(recorded: Mapping[str, str] | None, current: Mapping[str, str], run) -> None:
    """Refuse (one line) to resume `run` if any recorded digest differs from the current one."""
    if not recorded:
        raise UserError(
            f"cannot resume {run}: its plan records no digests of its card data, presets and "
            "engine (it was started by an older version); start a new run"
        )
    changed = [name for name, digest in current.items() if recorded.get(name) != digest]
    if changed:
        raise UserError(
            f"cannot resume {run}: the {' and the '.join(changed)} changed since the run started, "
            "so its finished chunks and the rest would be two different games; restore them or "
            "start a new run"
        )
