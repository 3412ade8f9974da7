"""How many of the learned column's chosen archetype versions beat their tuned version
(docs/learned.md, "Archetypes played well"): the tables' paired differences and 95% intervals
(seed 7070, each count) read back from docs/learned.md, a two-sided normal p from each
(z = difference / (half-width / 1.96)), Holm over every chosen version (`archetypes.toml`: those
that play `learned:archetype=X`). The tables round to one decimal, so the count is also given at
the edges of that rounding (every figure 0.05 towards, then away from, a verdict): Holm is
monotone in each p, so the true count lies between the two.

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
                out.append((game, n, m.group(1), diff, half, p_value(diff, half)))
    return out


def p_value(diff: float, half: float) -> float:
    return 2 * stats.norm.sf(abs(diff) / (half / 1.96)) if half > 0 else 1.0


def above_count(found: list[tuple], ps: list[float]) -> int:
    told = multipletests(ps, alpha=0.05, method="holm")[0]
    return sum(t and r[3] > 0 for r, t in zip(found, told, strict=True))


def main() -> None:
    found = rows()
    told = multipletests([r[5] for r in found], alpha=0.05, method="holm")[0]
    above = sum(t and r[3] > 0 for r, t in zip(found, told, strict=True))
    below = sum(t and r[3] < 0 for r, t in zip(found, told, strict=True))
    # the rounding's edges: each |difference| 0.05 smaller and half-width 0.05 larger, and back
    low = above_count(found, [p_value(max(0.0, abs(r[3]) - 0.05), r[4] + 0.05) for r in found])
    high = above_count(found, [p_value(abs(r[3]) + 0.05, max(0.05, r[4] - 0.05)) for r in found])
    print(f"{len(found)} chosen versions: {above} above their tuned version ({low} to {high} at "
          f"the edges of the tables' rounding), {below} below")
    for (game, n, archetype, diff, half, _), t in zip(found, told, strict=True):
        if not t:
            print(f"cannot tell: {game} {n} players {archetype} {diff:+.1f} ± {half:.1f}")


if __name__ == "__main__":
    main()
