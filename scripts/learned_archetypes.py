"""The learned player and each archetype played well (`learned:archetype=X`, docs/learned.md
"Archetypes played well") against every open preset of a player count, each open preset in every
other seat, seats rotated, on the same deals: each archetype's share beside its tuned version's
(`X_tuned_<N>p`) and the difference paired by deal. Per row: the mean over the open fields, the
worst field, and how many fields are above and below parity and above and below the tuned
version (Holm over the fields, 5%). The deals of SEED choose nothing: give a seed no run chose on
(5050 in docs/learned.md). Where a count has no open presets, the fields are its tuned presets.

With --choose, the rows are also the choice of each archetype's version for the learned tier
(`strategies.learned.archetype_lineup`): the archetype with the learned player's decisions where
that has the higher mean than its tuned version on these deals (the mean paired difference above
0: a point estimate, the choice's deals report nothing),
else the tuned version, printed as the TOML section of that count for
games/<game>/strategies/learned/archetypes.toml. The choice is made on SELECTION_SEED (6060),
never on the deals that report.

usage: PYTHONPATH=. python scripts/learned_archetypes.py GAME PLAYERS [GAMES] [SEED] [ONLY]
       PYTHONPATH=. python scripts/learned_archetypes.py --choose GAME PLAYERS [GAMES]
e.g.   PYTHONPATH=. python scripts/learned_archetypes.py abyss 4 2000 5050
ONLY (a comma list of archetypes, or "learned") restricts the rows.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

from reports.runs.learn import game_shares, paired_gain
from sim import games as registry

ALPHA = 0.05
#: the deals that choose each archetype's version (`--choose`): no figure reported comes from them
SELECTION_SEED = 6060


def shares(spec, tables, strategies, who: str, field: str, n: int, n_games: int, seed: int):
    """`who`'s share of each game's win against n - 1 copies of `field` (None: `who` is the
    field, its share 1/n by symmetry)."""
    if who == field:
        return None
    policies = strategies.make_policies([who] + [field] * (n - 1), n)
    played = spec.play().run_games(tables, engine="fast", n_players=n, n_games=n_games, seed=seed,
                                   policies=policies, expansions=spec.tournament_expansions)
    return game_shares(played.seats, policies[0].name)


def holm_sides(diffs: list[np.ndarray]) -> tuple[int, int]:
    """How many of the fields' paired differences are above and below 0 (Holm, ALPHA)."""
    p = [2 * stats.norm.sf(abs(d.mean()) / (d.std(ddof=1) / np.sqrt(len(d)))) for d in diffs]
    held = multipletests(p, method="holm")[1]
    up = sum(h < ALPHA and d.mean() > 0 for h, d in zip(held, diffs, strict=True))
    down = sum(h < ALPHA and d.mean() < 0 for h, d in zip(held, diffs, strict=True))
    return int(up), int(down)


def main() -> None:
    args = sys.argv[1:]
    choose = args[:1] == ["--choose"]
    args = args[1:] if choose else args
    game, n = args[0], int(args[1])
    n_games = int(args[2]) if len(args) > 2 else 600
    seed = SELECTION_SEED if choose else int(args[3]) if len(args) > 3 else 5050
    only = args[4].split(",") if len(args) > 4 and not choose else None
    spec = registry.get(game)
    strategies = spec.strategies()
    tables = spec.load_cards(None, [], spec.tournament_expansions)
    presets = strategies.presets()
    fields = [s for s in presets if s.endswith(f"_open_{n}p")]
    fields = fields or [s for s in presets if s.endswith(f"_tuned_{n}p")]
    rows = ["learned", *strategies.hand_written_presets()]
    rows = [r for r in rows if only is None or r in only]
    parity = 1 / n
    t0, c0 = time.perf_counter(), time.process_time()
    chosen = {}
    print(f"{spec.title}, {n} players: {n_games:,} deals per open field ({len(fields)} fields), "
          f"seed {seed}, seats rotated; parity {parity:.1%}; 95% intervals with the deal as the "
          "unit; Holm over the fields")
    print("| player | mean share | worst field | fields above / below parity | tuned version | "
          "minus tuned, paired | fields above / below tuned |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        player = "learned" if row == "learned" else f"learned:archetype={row}"
        tuned = None if row == "learned" else f"{row}_tuned_{n}p"
        tuned = tuned if tuned in presets else None
        mine, versus = [], []
        for field in fields:
            x = shares(spec, tables, strategies, player, field, n, n_games, seed)
            mine.append(x)
            if tuned is not None:
                y = shares(spec, tables, strategies, tuned, field, n, n_games, seed)
                versus.append(x - (parity if y is None else y))
        means = [x.mean() for x in mine]
        worst = int(np.argmin(means))
        half = 1.96 * mine[worst].std(ddof=1) / np.sqrt(n_games)
        mean, mean_half, _ = paired_gain([x - parity for x in mine])
        up, down = holm_sides([x - parity for x in mine])
        cells = [f"`{player}`", f"{mean + parity:.1%} ± {mean_half:.1%}",
                 f"{means[worst]:.1%} ± {half:.1%} ({fields[worst]})", f"{up} / {down}"]
        if versus:
            gain, gain_half, _ = paired_gain(versus)
            tup, tdown = holm_sides(versus)
            tuned_mean = mean + parity - gain
            cells += [f"{tuned_mean:.1%}", f"{100 * gain:+.1f} ± {100 * gain_half:.1f}",
                      f"{tup} / {tdown}"]
            chosen[row] = (player if gain > 0 else tuned, gain, gain_half)
        else:
            cells += ["-", "-", "-"]
        print("| " + " | ".join(cells) + " |", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU)")
    if choose:
        print(f"\n# Chosen by: PYTHONPATH=. python scripts/learned_archetypes.py --choose {game} "
              f"{n} {n_games} (seed {seed}; the learned version where its mean paired difference "
              "from the tuned version is above 0)")
        print(f'["{n}"]')
        for row, (version, gain, half) in chosen.items():
            print(f'{row} = "{version}"  # minus tuned: {100 * gain:+.1f} ± {100 * half:.1f}')


if __name__ == "__main__":
    main()
