"""The A/A of the verdict table on the game itself (issue 49; docs/metrics.md "The verdict table").

Two play strengths made of the same players: eight names of one Farmer as the hand-written
presets and four of them with "tuned" versions identical to them (scripts/aa/farmers.toml), so
the second strength has fewer strategies and fewer games, each strength on deals of its own
(`reports.play.seeds.tier_seed`). Every report's table should say "differs" anywhere in at most 5%
of
runs. `--planted` plays scripts/aa/planted.toml instead, where the strongest player differs
between the strengths (`f1` in the first, `f2_tuned_<N>p` in the second): "differs" expected.

    python scripts/aa_verdicts.py FIRST_SEED RUNS [--planted] [--blocks 600] [--out DIR]

Prints one line per run (its seed and the rows that did not hold or cannot tell), then the
count of runs with "differs" anywhere and each row's statuses.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
STRATEGIES = ",".join(f"f{i}" for i in range(1, 9))


def run_once(seed: int, presets: Path, blocks: int, out: Path) -> dict[str, str]:
    """One report's verdict table: question -> across strengths."""
    cmd = [sys.executable, "-m", "cli.entry", "tournament", "--players", "3,4", "--strategies",
           STRATEGIES, "--presets", str(presets), "--blocks", str(blocks), "--report",
           "--strengths", "tuned", "--card-blocks", "0", "--fight-points", "0", "--seed",
           str(seed), "--out", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, cwd=HERE.parent)
    lines = (out / "report" / "verdicts.txt").read_text().splitlines()
    start = lines[0].index("across strengths")
    return {line[:40].strip(): line[start:].strip() for line in lines[2:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=int)
    parser.add_argument("runs", type=int)
    parser.add_argument("--planted", action="store_true")
    parser.add_argument("--blocks", type=int, default=600)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    presets = HERE / "aa" / ("planted.toml" if args.planted else "farmers.toml")
    root = args.out or Path(tempfile.mkdtemp(prefix="aa-"))
    differs, rows = 0, {}
    for seed in range(args.first, args.first + args.runs):
        table = run_once(seed, presets, args.blocks, root / f"seed-{seed}")
        found = any(v.startswith("differs") for v in table.values())
        differs += found
        for q, v in table.items():
            rows.setdefault(q, Counter())[v.split(",")[0].split(":")[0]] += 1
        shown = {q: v for q, v in table.items() if not v.startswith(("holds", "cannot tell"))}
        print(f"seed {seed}: {'DIFFERS ' if found else ''}{shown}", flush=True)
    print(f"\n{differs} of {args.runs} reports say \"differs\" somewhere "
          f"({'planted' if args.planted else 'A/A'}, {args.blocks} blocks, 3 and 4 players)")
    for q, counts in rows.items():
        print(f"  {q}: {dict(counts)}")


if __name__ == "__main__":
    main()
