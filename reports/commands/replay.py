"""`abyss-mc replay`: one game of a run, move by move."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from reports.commands.common import (
    DEFAULT_STRATEGIES,
    GAMES,
    CardsOption,
    ExpansionsOption,
    PlayersOption,
    PresetsOption,
    SeedOption,
    SetOption,
    StrategiesOption,
    abyss_policies,
    check_game,
    check_players,
    check_seed,
    json_default,
    load_tables,
    parse_expansions,
    parse_lineup,
    use_presets,
    user_errors,
    wilds_tables,
)
from sim.core.errors import UserError


@user_errors
def replay(
    seed: SeedOption = 1,
    game: Annotated[
        str,
        typer.Option(
            "--game",
            metavar="GAME|N",
            help="The game (" + ", ".join(GAMES) + "); a number is the game index, as --index.",
        ),
    ] = "abyss",
    index: Annotated[
        int | None, typer.Option("--index", help="Game index in the run (0-based).")
    ] = None,
    players: PlayersOption = 4,
    strategies: StrategiesOption = DEFAULT_STRATEGIES,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the event log as JSON instead of text.")
    ] = False,
    cards: CardsOption = None,
    set_: SetOption = None,
    expansions: ExpansionsOption = "",
    presets: PresetsOption = None,
) -> None:
    """Replay one game of a run move by move (same --seed/--players/--strategies/... as the run)."""
    if game.strip().lstrip("-").isdigit():  # `--game 42`: the index (the option's older meaning)
        if int(game) < 0:
            raise UserError(
                f"--game must be a game ({', '.join(GAMES)}) or an index >= 0; got {game}"
            )
        game, index = "abyss", int(game) if index is None else index
    index = 0 if index is None else index
    if check_game(game) == "conspiracy":
        _replay_conspiracy(seed, index, players, strategies, json_out, cards, set_, presets)
        return
    if game == "wilds":
        _replay_wilds(seed, index, json_out, cards, set_)
        return
    game = index
    use_presets(presets)
    exp = parse_expansions(expansions)
    check_players(players, exp)
    check_seed(seed)
    if game < 0:
        raise UserError(f"--game must be >= 0; got {game}")
    lineup = parse_lineup(strategies, players)
    tables = load_tables(cards, set_, exp)

    from sim.abyss.replay import narrate_game

    text, events = narrate_game(
        tables, seed=seed, game=game, n_players=players, strategies=abyss_policies(lineup),
        expansions=exp,
    )
    if json_out:
        typer.echo(json.dumps(events, indent=1, default=json_default))
    else:
        typer.echo(text)


def _replay_conspiracy(seed, index, players, strategies, json_out, cards, set_, presets):
    from reports import conspiracy_cli
    from sim.conspiracy.fast import rotated_seatings
    from sim.conspiracy.rules import Game
    from strategies.conspiracy import make_policies

    check_seed(seed)
    if index < 0:
        raise UserError(f"--index must be >= 0; got {index}")
    conspiracy_cli.use_presets(presets)
    tables = conspiracy_cli.load_tables(cards, set_)
    conspiracy_cli.check_players(tables, players)
    if strategies == DEFAULT_STRATEGIES:
        strategies = conspiracy_cli.DEFAULT_STRATEGIES
    lineup = conspiracy_cli.lineup_of(strategies, players)
    import numpy as np

    seating = rotated_seatings(np.array([index]), players)[0]
    seated = [lineup[j] for j in seating]
    g = Game(tables, make_policies(seated, players), seed, index).play()
    if json_out:
        typer.echo(json.dumps(g.events, indent=1, default=json_default))
        return
    typer.echo(f"Conspiracy, seed {seed}, game {index}: " + ", ".join(
        f"seat {s} {name}" for s, name in enumerate(seated)
    ))  # fmt: skip
    for e in g.events:
        details = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("event", "turn"))
        typer.echo(f"turn {e['turn']:>3}  {e['event']:<16} {details}")


def _replay_wilds(seed, index, json_out, cards, set_):
    from sim.wilds.rules import Game as WildsGame

    check_seed(seed)
    if index < 0:
        raise UserError(f"--index must be >= 0; got {index}")
    g = WildsGame(wilds_tables(cards, set_), seed, index).play()
    if json_out:
        typer.echo(json.dumps(g.events, indent=1, default=json_default))
        return
    typer.echo(f"Warped crystals (PLACEHOLDER data), seed {seed}, episode {index}:")
    for e in g.events:
        details = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("event", "turn"))
        typer.echo(f"turn {e['turn']:>3}  {e['event']:<8} {details}")
