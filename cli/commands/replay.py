"""`abyss-mc replay`: one game of a run, move by move."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c
from reports.run_dir import recorded_paths
from sim.core.errors import UserError


@c.user_errors
def replay(
    run_dir: Annotated[
        Path | None,
        typer.Argument(
            metavar="[RUN_DIR]",
            help="A run directory of `abyss-mc simulate`: replay its game --game N with every "
            "option from its manifest.",
        ),
    ] = None,
    seed: c.SeedOption = 1,
    game: Annotated[
        str,
        typer.Option(
            "--game",
            metavar="GAME|N",
            help="With RUN_DIR: the index N of the game (0-based). Without: the game ("
            + ", ".join(c.GAMES)
            + "); a number is the game index, as --index.",
        ),
    ] = "abyss",
    index: c.option(int | None, "--index", "Game index in the run (0-based).") = None,
    players: c.PlayersOption = 4,
    strategies: c.StrategiesOption = None,
    json_out: c.option(bool, "--json", "Print the event log as JSON instead of text.") = False,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    expansions: c.ExpansionsOption = None,
    presets: c.PresetsOption = None,
) -> None:
    """Replay one game of a run move by move: `abyss-mc replay RUN_DIR --game N`, or with the
    run's options repeated (--seed/--players/--strategies/...)."""
    name = game
    if game.strip().lstrip("-").isdigit():  # `--game 42`: the index
        if int(game) < 0:
            raise UserError(f"--game must be a game ({', '.join(c.GAMES)}) or an index >= 0; "
                            f"got {game}")  # fmt: skip
        name, index = "abyss", int(game) if index is None else index
    elif run_dir is not None and game != "abyss":
        raise UserError(f"--game with RUN_DIR is the index of a game of the run; got {game!r}")
    index = 0 if index is None else index
    if index < 0:
        raise UserError(f"--index must be >= 0; got {index}")
    if run_dir is not None:
        config = _run_config(run_dir, index)
        name, seed, players = config.get("game", "abyss"), config["seed"], config["n_players"]
        strategies = ",".join(config["strategies"])
        expansions = ",".join(config.get("expansions") or [])
        set_, (cards, presets) = config.get("set") or [], recorded_paths(config)
    spec = c.game_spec(name)
    c.check_seed(seed)
    if spec.analysis_module is not None:
        text, events = spec.analysis().replay(seed=seed, index=index, cards=cards, set_=set_)
    else:
        spec.strategies().use_presets(presets)
        exp = c.game_expansions(spec, expansions)
        tables = spec.load_cards(cards, set_, exp)
        spec.check_players(tables, players, exp)
        _, policies = c.game_lineup(spec, strategies, players)
        text, events = spec.play().replay(tables, seed=seed, game=index, n_players=players,
                                          policies=policies, expansions=exp)  # fmt: skip
    if json_out:
        typer.echo(json.dumps(events, indent=1, default=c.json_default))
    else:
        typer.echo(text)


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
