"""Regenerate the example reports of docs/reports/ from today's code, each with its command.

Every example is made by one `abyss-mc` command into a fresh run directory; the report
(`report.md`, `report.html`, `figures/`), the printed summary and the small JSON results are
copied into docs/reports/<name>/ (the Parquet tables are not kept: the command recreates them).
docs/reports/README.md lists the same commands.

    python scripts/regenerate_reports.py                 # every example
    python scripts/regenerate_reports.py default-tournament conspiracy-tournament
    python scripts/regenerate_reports.py --list

Run from the repository root with the project installed (`pip install -e .`). The long one is
`fight-or-explore-search` (about 12 minutes on 2 cores); the others take 1-3 minutes each.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "reports"

#: name -> the command's arguments after `abyss-mc` (its --out is added here)
EXAMPLES: dict[str, list[str]] = {
    "default-tournament": ["tournament", "--report"],
    "conspiracy-tournament": ["tournament", "--game", "conspiracy", "--report"],
    "sweep-hand-limit": [
        "sweep", "--set", "leviathan_game.hand_limit=8,10,14", "--set", "lord.rebel.cost=6,10",
        "--games", "20000", "--strategies", "greedy,leviathan_hunter,lord_rusher,cautious_explorer",
    ],
    "fight-or-explore": ["ev", "rollout"],
    "fight-or-explore-search": ["ev", "search", "--games", "900"],
}

#: what is copied from a run directory besides its report (missing ones are skipped)
KEEP = ("summary.txt", "manifest.json", "rollout.json", "verify.json", "search_check.json")


def regenerate(name: str, cli: Path) -> float:
    """Run the example's command into a temporary directory and put what it wrote into
    docs/reports/<name>/ (its files replaced; files it does not write, such as an earlier run
    kept for comparison, stay); returns the seconds it took."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / name
        command = [str(cli), *EXAMPLES[name], "--out", str(out)]
        began = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - began
        target = DOCS / name
        staged = DOCS / f".{name}.new"
        shutil.rmtree(staged, ignore_errors=True)
        staged.mkdir()
        report = out / "report" if (out / "report").is_dir() else out
        for part in ("report.md", "report.html", "figures"):
            source = report / part
            if source.is_dir():
                shutil.copytree(source, staged / part)
            elif source.is_file():
                shutil.copy2(source, staged / part)
        for part in KEEP:
            if (out / part).is_file():
                shutil.copy2(out / part, staged / part)
        # the old example is changed only once the new one is complete
        target.mkdir(exist_ok=True)
        for part in staged.iterdir():
            old = target / part.name
            if old.is_dir():
                shutil.rmtree(old)
            part.replace(old)
        staged.rmdir()
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="examples to regenerate (default: all)")
    parser.add_argument("--list", action="store_true", help="print each example's command")
    args = parser.parse_args(argv)
    if args.list:
        for name, command in EXAMPLES.items():
            print(f"{name}: abyss-mc {' '.join(command)}")
        return 0
    unknown = [n for n in args.names if n not in EXAMPLES]
    if unknown:
        print(f"error: unknown example {', '.join(unknown)}; known: {', '.join(EXAMPLES)}",
              file=sys.stderr)
        return 2
    cli = Path(sys.executable).with_name("abyss-mc")
    if not cli.exists():
        print("error: abyss-mc is not installed beside this Python (pip install -e .)",
              file=sys.stderr)
        return 2
    for name in args.names or list(EXAMPLES):
        seconds = regenerate(name, cli)
        print(f"{name}: {seconds:.0f} s -> {(DOCS / name).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
