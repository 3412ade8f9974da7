"""The ``abyss-mc`` command line: the typer application, each command from its own module in
`reports.commands` (``cards``, ``strategies``, ``simulate``, ``tournament``, ``sweep``, ``plan``,
``report``, ``replay``, ``bench``, ``ev``).

Start-up must stay instant (``abyss-mc --help``): the command modules import only typer and the
standard library at the top.
"""

from __future__ import annotations

import signal
import sys
from typing import Annotated

import typer

from reports.commands import (
    bench,
    cards,
    ev,
    plan,
    replay,
    report,
    simulate,
    strategies,
    sweep,
    tournament,
)
from reports.commands.common import interrupt_note

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
    """Console-script entry point (``abyss-mc``)."""
    # SIGTERM (kill, a batch scheduler) unwinds like Ctrl-C, so a run being written is removed.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        app(prog_name="abyss-mc")
    except SystemExit as exc:
        # typer ends a Ctrl-C with exit code 130 and no word: say it, unless a run already did
        if exc.code == 130 and not interrupt_note.told:
            print("interrupted", file=sys.stderr)
        raise


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


app.callback()(_root)
app.command()(cards.cards)
app.command("strategies")(strategies.strategies_)
app.command()(simulate.simulate)
app.command()(tournament.tournament)
app.command()(sweep.sweep)
app.command()(plan.plan)
app.command("report")(report.report_)
app.command()(replay.replay)
app.command()(bench.bench)
app.add_typer(ev.ev_app, name="ev")


if __name__ == "__main__":
    main()
