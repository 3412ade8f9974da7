"""Compare two output trees of scripts/before_after.sh: every file byte for byte, except the lines
and keys that are a run's time (stamps, durations, code digests), which a refactoring changes.

usage: python scripts/compare_outputs.py BEFORE AFTER [ROOT_BEFORE ROOT_AFTER]

The output folders' own paths (and the checkouts' roots, when given) are read as one name, so
two runs into different folders compare equal.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

#: Manifest keys that say when, how long or which code, not what was played.
VOLATILE = {"created", "started", "finished", "seconds", "elapsed", "duration", "wall_seconds",
            "cpu_seconds", "code", "code_digest", "git", "version", "host", "python", "timings",
            "compile_seconds", "games_per_second", "versions", "platform", "abyss_mc_version",
            "engine source"}
#: Report lines that carry a time stamp or a duration.
TIMES = re.compile(r"\d{4}-\d\d-\d\dT?[ \d:.]*|\d+(\.\d+)? ?(s|seconds|min)\b|Generated .*"
                   r"|[\d,.]+ games/s|# On: .*")
#: (path, name) pairs replaced before comparing: set by main
PATHS: list[tuple[str, str]] = []


def _text(path: Path) -> str:
    text = path.read_text()
    for where, name in PATHS:
        text = text.replace(where, name)
    return text


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def same(a: Path, b: Path) -> bool:
    if a.read_bytes() == b.read_bytes():
        return True
    if a.suffix == ".json":
        try:
            return _strip(json.loads(_text(a))) == _strip(json.loads(_text(b)))
        except ValueError:
            return False
    if a.suffix in {".md", ".html", ".txt", ".log", ".toml"}:
        return TIMES.sub("", _text(a)) == TIMES.sub("", _text(b))
    return False


def main(before: Path, after: Path, roots: list[str]) -> int:
    PATHS.extend([(str(before), "OUT"), (str(after), "OUT")])
    PATHS.extend((root.rstrip("/"), "ROOT") for root in roots)
    names = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    names |= {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    bad = []
    for name in sorted(names):
        a, b = before / name, after / name
        if not a.exists() or not b.exists():
            bad.append(f"only in {'after' if b.exists() else 'before'}: {name}")
        elif not same(a, b):
            bad.append(f"differs: {name}")
    print("\n".join(bad) or f"identical: {len(names)} files")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]))
