"""The strategies of each game: named presets in TOML, their parameters, and the registry that
turns a spec such as ``greedy:fight_p=0.6`` into a policy object for the engines (the compiled
policies themselves live beside each game's kernel, `sim/<game>/policies.py`).

A game's strategies are the package ``strategies.<game>``, whose ``REGISTRY`` (a
`registry.Registry`: `make_policies`, `use_presets`, `strategy_names`, `describe`, `text`,
`parameters`, `parameter_space`, ...) `for_game` returns; what their compiled policies share is
`strategies.compiled`. Each policy parameter is documented on its field (`registry.param`).
"""

from __future__ import annotations

from sim.core.errors import UserError


def for_game(game: str):
    """The strategies registry of a game (``REGISTRY`` of its spec's `strategies_module`, by
    default ``strategies.<game>``), or a one-line user error."""
    from sim import games

    spec = games.get(game)
    try:
        return spec.strategies()
    except ModuleNotFoundError as exc:
        if exc.name != (spec.strategies_module or f"games.{spec.name}.strategies"):
            raise
        raise UserError(f"the game {game!r} has no strategies to choose from") from None
