"""How many of the learned column's chosen archetype versions beat their tuned version
(docs/learned.md, "Archetypes played well"): the tables' paired differences and 95% intervals
(seed 7070, each count) read back from docs/learned.md, a two-sided normal p from each
(z = difference / (half-width / 1.96)), Holm over every chosen version (`archetypes.toml`: those
that play `learned:archetype=X`).

usage: python scripts/archetype_holm.py
"""

from __future__ import annotations

import re
import tomllib

from scipy import stats
from statsmodels.stats.multitest import multipletests

ROW = re.compile(r"\| `learned:archetype=(\w+)` \|.*\| ([+-]\d+\.\d) ± (\d+\.\d) \|")
TABLE = re.compile(r"(Abyss|Conspiracy)[^\n]*?(\d) players")


def chosen() -> set[tuple[str, str, str]]:
    """(game, count, archetype) of every version the learned tier plays at the learned strength."""
    found = set()
    for game in ("abyss", "conspiracy"):
        path = f"games/{game}/strategies/learned/archetypes.toml"
        with open(path, "rb") as f:
            for n, versions in tomllib.load(f).items():
                found |= {(game, n, a) for a, v in versions.items() if v.startswith("learned:")}
    return found


def rows() -> list[tuple]:
    text = open("docs/learned.md").read()
    section = text[text.index("## Archetypes played well"):text.index("## The search tier")]
    versions, out = chosen(), []
    for block in re.split(r"\n(?=(?:Abyss|Conspiracy)[^\n]*\d players)", section):
        head = TABLE.match(block)
        if head is None:
            continue
        game, n = head.group(1).lower(), head.group(2)
        for line in block.split("\n"):
            m = ROW.match(line)
            if m and (game, n, m.group(1)) in versions:
                diff, half = float(m.group(2)), float(m.group(3))
                p = 2 * stats.norm.sf(abs(diff) / (half / 1.96)) if half > 0 else 1.0
                out.append((game, n, m.group(1), diff, half, p))
    return out


def main() -> None:
    found = rows()
    told = multipletests([r[5] for r in found], alpha=0.05, method="holm")[0]
    above = sum(t and r[3] > 0 for r, t in zip(found, told, strict=True))
    below = sum(t and r[3] < 0 for r, t in zip(found, told, strict=True))
    print(f"{len(found)} chosen versions: {above} above their tuned version, {below} below")
    for (game, n, archetype, diff, half, _), t in zip(found, told, strict=True):
        if not t:
            print(f"cannot tell: {game} {n} players {archetype} {diff:+.1f} ± {half:.1f}")


if __name__ == "__main__":
    main()
