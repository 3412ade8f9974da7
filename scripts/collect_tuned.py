"""Collect the runs of scripts/tune_presets.sh into the built-in tuned presets and the table of
docs/tuning-results.md.

A run's preset becomes `<preset>_tuned_<N>p` in strategies/<game>/tuned.toml, with the command
that made it, only when its held-out check says it wins more than the preset it started from (the
interval of the difference lies above 0); every run is in the table, shipped or not.

    python scripts/collect_tuned.py runs/tuning
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = """# Tuned presets: each made by `abyss-mc tune` (the command is above each preset), with
# the held-out check in its description; the table of all of them is docs/tuning-results.md.
# Regenerate with scripts/tune_presets.sh rather than by hand.
"""


def main(root: Path) -> None:
    runs = sorted(p for p in root.iterdir() if (p / "tuned.toml").is_file())
    files: dict[str, list[str]] = {"abyss": [], "conspiracy": []}
    rows = []
    for run in runs:
        config = json.loads((run / "manifest.json").read_text())["config"]
        game, start, n = config["game"], config["strategy"], config["players"]
        held = config["held_out"]
        text = (run / "tuned.toml").read_text()
        (old,) = tomllib.loads(text)
        name = f"{start}_tuned_{n}p"
        shipped = held["verdict"] == "better"
        if shipped:
            files[game].append(text.replace(f"[{old}]", f"[{name}]"))
        rows.append((game, start, n, config["opponents"], held, name if shipped else None))
    for game, blocks in files.items():
        path = ROOT / "strategies" / game / "tuned.toml"
        path.write_text(HEADER + "".join("\n" + b for b in blocks))
    lines = [
        "| game | preset | players | field | before | after | difference (95% CI) | shipped |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for game, start, n, field, held, name in sorted(rows, key=lambda r: (r[0], r[2], r[1])):
        diff = f"{held['diff']:+.1%} [{held['lo']:+.1%}, {held['hi']:+.1%}]"
        lines.append(
            f"| {game} | {start} | {n} | {', '.join(field)} | {held['start']:.1%} | "
            f"{held['tuned']:.1%} | {diff} | {name or 'no: ' + held['verdict']} |"
        )
    out = ROOT / "docs" / "tuning-results.md"
    out.write_text(
        "# Tuned presets: before and after\n\n"
        "Made by `scripts/tune_presets.sh` (every built-in preset, `abyss-mc tune --game G "
        "--strategy P --players N --seed 2026` on the defaults; Abyss with Leviathan). *Before* "
        "and *after*: the win rate of the starting preset and of the tuned one against the same "
        "field, on held-out deals the search never saw (20,000 games each, paired by deal). A "
        "tuned preset is shipped (`strategies/<game>/tuned.toml`) only when its interval lies "
        "above 0. See docs/tuning.md.\n\n" + "\n".join(lines) + "\n"
    )
    print("\n".join(lines))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
