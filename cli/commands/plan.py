"""`abyss-mc plan`: blocks, games and time a comparison needs."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.commands import common as c
from sim.core.errors import UserError


@c.user_errors
def plan(
    effect: c.option(float, "--effect", "The difference to detect: in win share (0.01 = one point "
                     "of win rate) or, with --metric ip, in IP.") = 0.01,
    strategies: c.option(str | None, "--strategies", "The two strategies to compare (default: the "
                         "first two of the game's tournament).", "A,B") = None,
    players: c.PlayersOption = 4,
    metric: Annotated[str, typer.Option("--metric", metavar="win|ip")] = "win",
    alpha: c.option(float, "--alpha", "Two-sided test level.") = 0.05,
    power: c.option(float, "--power", "Chance to detect the effect.") = 0.8,
    pilot_blocks: c.option(int, "--pilot-blocks", "Blocks of the pilot tournament, per mode.") = (
        400),
    seed: c.SeedOption = 1,
    expansions: c.ExpansionsOption = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    presets: c.PresetsOption = None,
    game: c.GameOption = "abyss",
) -> None:
    """How many games a comparison needs, with and without common random numbers, and how long
    they take on this machine (from a pilot tournament)."""
    c.check_seed(seed)
    if effect <= 0:
        raise UserError(f"--effect must be positive; got {effect}")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise UserError("--alpha and --power must be between 0 and 1")
    if metric not in ("win", "ip"):
        raise UserError(f"--metric must be win or ip; got {metric!r}")
    if pilot_blocks < 10:
        raise UserError(f"--pilot-blocks must be at least 10; got {pilot_blocks}")
    spec = c.game_spec(game)
    spec.play()
    default = ",".join(spec.default_tournament.split(",")[:2])
    names = [s.strip() for s in (strategies or default).split(",") if s.strip()]
    if len(names) != 2 or names[0] == names[1]:
        raise UserError("--strategies must name two different strategies: A,B")
    spec.strategies().use_presets(presets)
    exp = c.game_expansions(spec, expansions, spec.tournament_expansions)
    tables = spec.load_cards(cards, set_, exp)
    spec.check_players(tables, players, exp)
    for name in names:
        spec.strategies().make_policy(name)
    from reports.runs.plan import make_plan, plan_text

    rows, pilot = make_plan(
        tables,
        names,
        n_players=players,
        effect=effect,
        metric="win" if metric == "win" else "score",
        alpha=alpha,
        power=power,
        pilot_blocks=pilot_blocks,
        seed=seed,
        game=spec.name,
    )
    typer.echo(
        plan_text(
            rows,
            pilot,
            a=names[0],
            b=names[1],
            effect=effect,
            metric=metric,
            alpha=alpha,
            power=power,
        ),  # fmt: skip
        nl=False,
    )
