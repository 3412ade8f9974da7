"""The learned player's strength table (docs/learned.md): against every open preset of its count
(each in every other seat, seats rotated), beside its base on the same deals; the difference from
the base and from parity paired by deal, Holm over the fields. At 4-player Abyss also the speed
(games per second of a line-up with it against four open presets). The game and the player count
are the weights file's (Abyss with Leviathan, as `learn` plays).

usage: python scripts/learned_table.py WEIGHTS [GAMES] [SEED]  (GAMES 0: the speed only)
SEED 77 (the default) holds the deals that chose the base and the features: a figure to report
comes from a seed that chose nothing (docs/learned.md, "Which deals chose and which report").
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

from reports.runs.learn import game_shares, paired_gain
from sim import games as registry

ALPHA = 0.05


def _meta(weights: str) -> dict:
    with np.load(weights, allow_pickle=False) as data:
        return json.loads(str(data["meta"]))


def _interval(x: np.ndarray) -> tuple[float, float, float]:
    """Mean, 95% half-width, two-sided p-value of mean 0 (normal: hundreds of deals)."""
    se = x.std(ddof=1) / np.sqrt(len(x))
    return float(x.mean()), float(1.96 * se), float(2 * stats.norm.sf(abs(x.mean()) / se))


def _pct(mean: float, half: float, _p: float = 0.0) -> str:
    return f"{mean:.1%} ± {half:.1%}"


def _pts(mean: float, half: float, _p: float = 0.0) -> str:
    return f"{100 * mean:+.1f} ± {100 * half:.1f}"


def _side(mean: float, p: float, up: str, down: str) -> str:
    return (up if mean > 0 else down) if p < ALPHA else "cannot tell"


def table(weights: str, n_games: int, seed: int) -> None:
    meta = _meta(weights)
    spec, n = registry.get(meta["game"]), int(meta["players"])
    strategies = spec.strategies()
    player, base, parity = f"learned:weights={weights}", meta["base"], 1 / n
    tables = spec.load_cards(None, [], spec.tournament_expansions)
    fields = sorted(s for s in strategies.strategy_names() if s.endswith(f"_open_{n}p"))
    rows, gains = [], []
    for field in fields:
        shares = {}
        for who in (player, base):
            if who == field:
                shares[who] = None  # its share is 1/n by symmetry
                continue
            policies = strategies.make_policies([who] + [field] * (n - 1), n)
            played = spec.play().run_games(tables, engine="fast", n_players=n, n_games=n_games,
                                           seed=seed, policies=policies,
                                           expansions=spec.tournament_expansions)  # fmt: skip
            shares[who] = game_shares(played.seats, policies[0].name)
        mine, theirs = shares[player], shares[base]
        gains.append(mine - (parity if theirs is None else theirs))
        rows.append({"field": field, "mine": _interval(mine),
                     "base": None if theirs is None else _interval(theirs),
                     "gain": _interval(gains[-1]),
                     "parity": _interval(mine - parity)})  # fmt: skip
    for key in ("gain", "parity"):
        held = multipletests([r[key][2] for r in rows], method="holm")[1]
        for r, p in zip(rows, held, strict=True):
            r[f"{key}_holm"] = p
    print(f"{meta['game']}, {n} players, {n_games:,} deals per field, seed {seed}, seats "
          f"rotated; parity {parity:.1%}; differences paired by deal, p Holm over the "
          f"{len(rows)} fields")
    print(f"| field ({n - 1} of) | learned | base ({base}) | learned minus base | Holm p | "
          "learned minus parity | Holm p |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        theirs = f"{parity:.0%} (itself)" if r["base"] is None else _pct(*r["base"])
        print(f"| {r['field']} | {_pct(*r['mine'])} | {theirs} | {_pts(*r['gain'])} | "
              f"{r['gain_holm']:.2g} | {_pts(*r['parity'])} | {r['parity_holm']:.2g} |")
    for key, up, down, what in (("gain", "above", "below", "its base"),
                                ("parity", "above", "below", "parity")):
        said = [_side(r[key][0], r[f"{key}_holm"], up, down) for r in rows]
        print(f"against {what}: " + ", ".join(f"{said.count(w)} {w}" for w in
                                              (up, down, "cannot tell")))  # fmt: skip
    mine, theirs = np.mean([r["mine"][0] for r in rows]), np.mean(
        [parity if r["base"] is None else r["base"][0] for r in rows])
    gain, half, _ = paired_gain(gains)
    print(f"mean over the {len(rows)} fields: learned {mine:.1%}, base {theirs:.1%}; learned "
          f"minus base, paired by deal: {_pts(gain, half)} points")


def speed(weights: str) -> None:
    """Games per second, after a warm-up (4-player Abyss only)."""
    spec = registry.get("abyss")
    strategies = spec.strategies()
    tables = spec.load_cards(None, [], spec.tournament_expansions)
    player = f"learned:weights={weights}"
    opens = ["farmer_open_4p", "leviathan_hunter_open_4p", "pearl_economist_open_4p"]
    for label, lineup in (("learned + 3 open presets", [player, *opens]),
                          ("4 open presets", ["pearl_economist_open_4p", *opens])):  # fmt: skip
        policies = strategies.make_policies(lineup, 4)
        for n_games, seed in ((200, 1), (20000, 2)):  # (a warm-up, then the clocked games)
            t0, c0 = time.perf_counter(), time.process_time()
            spec.play().run_games(tables, engine="fast", n_players=4, n_games=n_games, seed=seed,
                                  policies=policies, expansions=spec.tournament_expansions)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{label}: {20000 / wall:,.0f} games/s wall, {cpu:.1f} s CPU for 20,000 games")


def main() -> None:
    weights = sys.argv[1]
    n_games = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 77
    if n_games > 0:
        table(weights, n_games, seed)
    meta = _meta(weights)
    if meta["game"] == "abyss" and int(meta["players"]) == 4:
        speed(weights)


if __name__ == "__main__":
    main()
