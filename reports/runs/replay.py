"""`abyss-mc replay`: one game of a run, move by move: of a `simulate` run directory (every
option from its manifest) or of the options given."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from reports.run_dir import recorded_paths
from reports.runs import setup as S
from reports.runs.options import ReplayOptions
from sim.core.errors import UserError


def run(o: ReplayOptions) -> S.Output:
    """The game's moves as text (or, with `json_out`, its event log as JSON); the events are
    `frames["events"]` (a list of dicts)."""
    o = _resolved(o)
    spec = S.game_spec(o.game)
    S.check_seed(o.seed)
    if spec.analysis_module is not None:
        text, events = spec.analysis().replay(seed=o.seed, index=o.index, cards=o.cards,
                                              set_=o.set_)  # fmt: skip
    else:
        spec.strategies().use_presets(o.presets)
        exp = S.game_expansions(spec, o.expansions)
        tables = spec.load_cards(o.cards, o.set_, exp)
        spec.check_players(tables, o.players, exp)
        _, policies = S.game_lineup(spec, o.strategies, o.players)
        text, events = spec.play().replay(tables, seed=o.seed, game=o.index, n_players=o.players,
                                          policies=policies, expansions=exp)  # fmt: skip
    shown = json.dumps(events, indent=1, default=json_default) if o.json_out else text
    return S.Output(shown + "\n", o.run_dir, frames={"events": events})


def _resolved(o: ReplayOptions) -> ReplayOptions:
    """The options with the game's name and index apart (``--game 42`` is the index) and, with
    a run directory, the run's own."""
    name, index = o.game, o.index
    if o.game.strip().lstrip("-").isdigit():  # `--game 42`: the index
        if int(o.game) < 0:
            raise UserError(f"--game must be a game ({', '.join(_games())}) or an index >= 0; "
                            f"got {o.game}")  # fmt: skip
        name, index = "abyss", int(o.game) if index is None else index
    elif o.run_dir is not None and o.game != "abyss":
        raise UserError(f"--game with RUN_DIR is the index of a game of the run; got {o.game!r}")
    index = 0 if index is None else index
    if index < 0:
        raise UserError(f"--index must be >= 0; got {index}")
    o = replace(o, game=name, index=index)
    if o.run_dir is None:
        return o
    config = _run_config(o.run_dir, index)
    cards, presets = recorded_paths(config)
    return replace(o, game=config.get("game", "abyss"), seed=config["seed"],
                   players=config["n_players"], strategies=",".join(config["strategies"]),
                   expansions=",".join(config.get("expansions") or []),
                   set_=config.get("set") or [], cards=cards, presets=presets)  # fmt: skip


def _games() -> tuple[str, ...]:
    from sim.games import GAMES

    return tuple(GAMES)


def _run_config(run_dir: Path, index: int) -> dict:
    """The options of a finished `simulate` run (its manifest), with `index` checked against
    its number of games."""
    try:
        config = json.loads((Path(run_dir) / "manifest.json").read_text())["config"]
    except (OSError, ValueError, KeyError):
        raise UserError(f"{run_dir} is not a finished run directory (no readable "
                        "manifest.json)") from None  # fmt: skip
    if config.get("command") != "simulate":
        raise UserError(f"{run_dir} is a {config.get('command')} run; replay reads simulate runs")
    if "strategies" not in config:  # an analysis (the Wilds' episodes)
        config["strategies"], config["n_players"] = [], 1
    if index >= config["n_games"]:
        raise UserError(f"--game must be below the run's {config['n_games']:,} games; "
                        f"got {index}")  # fmt: skip
    return config


def json_default(value):
    """JSON for what an event log holds besides plain values: numpy scalars and arrays, tuples
    and sets."""
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    if hasattr(value, "tolist"):  # numpy array
        return value.tolist()
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return str(value)
