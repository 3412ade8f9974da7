"""`abyss-mc drama RUN_DIR`: drama and decisiveness with an oracle (`reports.metrics.drama`) for
every play strength and player count of a tournament, on its sampled deals.

The games are the tournament's own: the tables of every 16th deal (`sim.core.samples.EVERY`,
the deals whose rounds the tension metrics keep), rebuilt from the manifest's design, seed and
line-up, and played again with the oracle (`sim.core.oracle`), so the values belong to the games
the report describes. Each strength's values go to its run directory (`drama-<n>p.npz`, with each
game's deal: the report's intervals take the deal as the unit), where the report finds them
(`reports.sections.drama.add_section`).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from sim.core.errors import UserError


def _config(run_dir: Path) -> dict:
    try:
        return json.loads((run_dir / "manifest.json").read_text())["config"]
    except (OSError, ValueError, KeyError):
        raise UserError(f"{run_dir} is not a finished run directory (no readable "
                        "manifest.json)") from None  # fmt: skip


def _counts(config: dict) -> list[int]:
    n = config["n_players"]
    return [int(x) for x in (n if isinstance(n, list) else [n])]


def oracle_games(config: dict, n_players: int, wanted: int):
    """The line-up, and the game index and seating of the first `wanted` sampled tables of a
    tournament at `n_players` (its deals 0, 16, 32, ...)."""
    from reports.play.tournament import block_games, make_design
    from sim.core.samples import EVERY, sampled

    lineups = config.get("lineups")
    names = list(lineups[str(n_players)] if lineups else config["strategies"])
    plan = make_design(names, n_players, config.get("design", "balanced"), config["seed"])
    blocks = config["blocks"]
    blocks = int(blocks[str(n_players)] if isinstance(blocks, dict) else blocks)
    games, seatings = [], []
    for first in range(0, blocks, EVERY):
        _, _, g, s = block_games(plan, first, min(EVERY, blocks - first), config.get("crn", "auto"))
        keep = sampled(g)
        games.append(g[keep])
        seatings.append(s[keep])
        if sum(len(x) for x in games) >= wanted:
            break
    return names, np.concatenate(games)[:wanted], np.concatenate(seatings)[:wanted]


def run_drama(run_dir: Path, games: int, rollouts: int, progress=None) -> dict:
    """Play each strength's sampled games with the oracle: {strength title: {n: Measured}}, each
    saved beside the strength's games. A UserError when the run is no tournament, its game has
    no oracle or the rollouts do not split into the oracle's folds."""
    from reports import strengths as St
    from reports.metrics.drama import Measured
    from reports.play.tournament import game_policies
    from reports.run_dir import recorded_paths
    from reports.sections.tiers import tier_dirs
    from sim import games as registry
    from sim.core.oracle import FOLDS

    if rollouts < FOLDS or rollouts % FOLDS:
        raise UserError(f"--rollouts must be a multiple of {FOLDS} (the oracle reads its "
                        f"favourites on folds of the rollouts); got {rollouts}")  # fmt: skip
    run_dir = Path(run_dir)
    config = _config(run_dir)
    if config.get("command") != "tournament":
        raise UserError(f"{run_dir} is a {config.get('command')} run; drama reads tournaments")
    spec = registry.get(config.get("game", "abyss"))
    if spec.play().oracle_values is None:
        raise UserError(f"{spec.name} has no state-value oracle: drama needs one")
    out = {}
    for tier, d in tier_dirs(SimpleNamespace(dir=run_dir, config=config)).items():
        cfg = _config(d)
        cards, presets = recorded_paths(cfg)
        spec.strategies().use_presets(presets)
        tables = spec.load_cards(cards, cfg.get("set") or [], tuple(cfg.get("expansions") or ()))
        for n in _counts(cfg):
            names, g, seats = oracle_games(cfg, n, games)
            if progress:
                progress(f"{St.title(tier)}, {n} players: {len(g)} games, {rollouts} rollouts "
                         "a round")  # fmt: skip
            values = spec.play().oracle_values(
                tables, seed=cfg["seed"], games=g, seatings=seats,
                strategies=game_policies(spec.name, names, n), n_rollouts=rollouts)  # fmt: skip
            if values is None:  # a search seat: the oracle would need the search's driver
                continue
            np.savez(d / f"drama-{n}p.npz", values=values, games=g, seatings=seats,
                     rollouts=np.int64(rollouts))  # fmt: skip
            out.setdefault(St.title(tier), {})[n] = Measured(values, g, rollouts)
    return out


def run(o):
    """`abyss-mc drama RUN_DIR` (options `o`: `reports.runs.options.DramaOptions`): measure and
    save; the table of every strength and player count (`frames["drama"]`)."""
    import sys

    from reports.runs.setup import Output
    from reports.sections.drama import frame

    if o.games < 1 or o.rollouts < 1:
        raise UserError(f"--games and --rollouts must be at least 1; got {o.games} and "
                        f"{o.rollouts}")  # fmt: skip
    found = run_drama(o.run_dir, o.games, o.rollouts,
                      progress=lambda line: print(line, file=sys.stderr))  # fmt: skip
    if not found:
        raise UserError(f"{o.run_dir}: no play strength without a search seat to measure")
    table = frame(found)
    return Output(table.to_string(index=False) + "\n", o.run_dir,
                  (f"add them to the report: abyss-mc report {o.run_dir}",), {"drama": table})
