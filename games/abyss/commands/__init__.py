"""Abyss's own commands, beside the generic ones (`GameSpec.commands_module`): `abyss-mc ev`, the
Leviathan decision, fight or explore. Like every command module they import only typer and the
standard library at the top, so ``abyss-mc --help`` stays instant."""

from games.abyss.commands import ev_rollouts  # noqa: F401  (its commands join ev_app)
from games.abyss.commands.ev import ev_app

#: name -> the typer application of each command group
COMMANDS = {"ev": ev_app}
