"""The ``abyss-mc`` command line: the typer application, each command from its own module in
`cli.commands` (``cards``, ``strategies``, ``simulate``, ``tournament``, ``sweep``, ``plan``,
``report``, ``replay``, ``bench``, ``tune``, ``restrict``, ``learn``, ``skill``, ``drama``,
``design``), and each game's own commands (`GameSpec.commands_module`: Abyss's ``ev``).

Start-up must stay instant (``abyss-mc --help``): the command modules import only typer and the
standard library at the top.
"""

from __future__ import annotations

import signal
import sys
from importlib import import_module
from typing import Annotated

import typer

from cli.commands import (
    bench,
    cards,
    design,
    drama,
    learn,
    plan,
    replay,
    report,
    restrict,
    simulate,
    skill,
    strategies,
    sweep,
    tournament,
    tune,
)
from reports.run_dir import InterruptNote
from sim import games
from sim.core import interrupts

app = typer.Typer(
    name="abyss-mc",
    help="Monte Carlo strategy analyzer for the Abyss family of board games (--game).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool) -> None:
    if value:
        import importlib.metadata

        try:
            version = importlib.metadata.version("abyss-mc")
        except importlib.metadata.PackageNotFoundError:
            version = "unknown (not installed)"
        typer.echo(f"abyss-mc {version}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version_callback, is_eager=True, help="Show version."),
    ] = False,
) -> None:
    """Monte Carlo strategy analyzer for the Abyss family of board games."""


def main() -> None:
    """Console-script entry point (``abyss-mc``): a bad command line is one line on stderr
    (``error: ...``) and exit code 2, never click's framed box."""
    try:  # typer >= 0.24 carries its own copy of click
        from typer._click import exceptions as click_errors
    except ImportError:  # pragma: no cover
        from click import exceptions as click_errors

    interrupts.install()  # a Ctrl-C is never lost (also under `python -m cli.app`)
    # SIGTERM (kill, a batch scheduler) unwinds like Ctrl-C, so a run being written is removed.
    signal.signal(signal.SIGTERM, interrupts.on_sigterm)
    try:
        code = app(prog_name="abyss-mc", standalone_mode=False)
    except SystemExit as exc:  # a SIGTERM (`interrupts.on_sigterm`) outside a run: say so
        drop_queued_charts()
        if exc.code == 128 + signal.SIGTERM and interrupts.received() and not InterruptNote.told:
            print("interrupted", file=sys.stderr)
        raise
    except click_errors.NoArgsIsHelpError as exc:
        typer.echo(exc.ctx.get_help() if exc.ctx else "", err=True)
        code = 2
    except click_errors.UsageError as exc:  # unknown command or option, a value of the wrong type
        where = exc.ctx.command_path if exc.ctx else "abyss-mc"
        message = " ".join(exc.format_message().split())
        typer.echo(f"error: {message} (see `{where} --help`)", err=True)
        code = 2
    except typer.Abort:  # EOF at a prompt
        code = 1
    if code == 130:
        drop_queued_charts()
        if not InterruptNote.told:  # typer ends a Ctrl-C with 130 and no word
            print("interrupted", file=sys.stderr)
    sys.exit(code or 0)


def drop_queued_charts() -> None:
    """An interrupted report's exit waits for the charts being drawn, not for every one queued
    (the render module is looked up, not imported: a command that drew nothing has no pool;
    also `cli.entry`'s, for a signal that surfaced as another error)."""
    render = sys.modules.get("reports.render.report")
    if render is not None and interrupts.received():
        render.stop_pool()


app.callback()(_root)
for _command in (cards.cards, strategies.strategies_, simulate.simulate, tournament.tournament,
                 sweep.sweep, tune.tune, restrict.restrict, learn.learn, plan.plan,
                 report.report_, replay.replay, bench.bench, skill.skill, drama.drama,
                 design.design):  # fmt: skip
    app.command(_command.__name__.rstrip("_"))(_command)
for _name in games.names():  # a game's own commands (Abyss's `ev`)
    _module = games.get(_name).commands_module
    if _module is not None:
        for _command, _group in import_module(_module).COMMANDS.items():
            app.add_typer(_group, name=_command)


if __name__ == "__main__":
    main()
