"""What the `abyss-mc` commands share: the options they declare alike, error handling and
printing a result. A command parses its flags into its options object
(`reports.runs.options`), calls `abyss_mc.run` and prints the result (`show`); the checks and
the work are the library's (`reports.runs`).

Start-up must stay instant (``abyss-mc --help``): the commands import only typer, the standard
library, `abyss_mc` and the options at the top (none of which imports numpy, pandas or numba).

Errors the user can fix (bad options, invalid card data, an existing output directory) are printed
as one line, ``error: <message>``, with exit code 2; see `sim.core.errors`. Anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from reports.runs.setup import check_seed, game_spec  # noqa: F401  (a game's own commands')
from sim.core.errors import is_user_error, one_line
from sim.games import GAMES as REGISTERED_GAMES

# --- shared options and error handling -------------------------------------------------------


def option(kind, flags: str, help: str, metavar: str | None = None):
    """A command's option in one line: `games: c.option(int, "--games", "Games to play.") = 200`
    (flags: e.g. "--starts/--no-starts")."""
    return Annotated[kind, typer.Option(flags, help=help, metavar=metavar)]



CardsOption = Annotated[
    Path | None,
    typer.Option(
        "--cards",
        metavar="DIR",
        help="Directory of card-data TOML files (default: the built-in data). See "
        "docs/card-data.md.",
    ),
]


SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help="Override one card-data or rules value, e.g. --set game.court_size=5 or "
        "--set rules.landlord_immediate_pearl=false. Repeatable.",
    ),
]


ExpansionsOption = Annotated[
    str | None,
    typer.Option(
        "--expansions",
        metavar="LIST",
        help='Comma-separated expansions to play with (Abyss: leviathan; "" for none). '
        "Default: none for simulate, the game's full box for a tournament or a benchmark.",
    ),
]


SeedOption = Annotated[int, typer.Option("--seed", help="Seed of the run (0 <= seed < 2**63).")]


ThreadsOption = Annotated[
    int | None,
    typer.Option("--threads", help="Worker threads for the fast engine (default: all cores)."),
]


PlayersOption = Annotated[
    int, typer.Option("--players", help="Players per game: 2-4, or 2-5 with Leviathan.")
]


StrategiesOption = Annotated[
    str | None,
    typer.Option(
        "--strategies",
        metavar="A,B,...",
        help="Strategy per seat, comma-separated; cycled if shorter than --players. Default: "
        "the game's (Abyss greedy,random; Conspiracy key_hunter,pile_raider).",
    ),
]


#: The games `--game` selects (Abyss is the default): the registered ones (`sim.games`, names
#: only, so no game module is imported for --help).
GAMES = tuple(REGISTERED_GAMES)


GameOption = Annotated[
    str,
    typer.Option("--game", metavar="|".join(GAMES), help="The game: " + ", ".join(GAMES) + "."),
]


OutDirOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="DIR",
        help="New directory for the results; must not exist. Default: a new "
        "runs/<UTC time>-seed<seed>.",
    ),
]


PresetsOption = Annotated[
    Path | None,
    typer.Option(
        "--presets",
        metavar="FILE",
        help="A TOML file of strategy presets to add to the built-in ones (format: "
        "games/abyss/strategies/presets.toml).",
    ),
]


F = TypeVar("F", bound=Callable[..., Any])


def user_errors(fn: F) -> F:
    """Decorator for every command: user errors become ``error: <message>`` and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except MemoryError:
            # a run too large for this machine (issue 53: a huge Wilds run raised a traceback)
            typer.echo("error: not enough memory for this run: make it smaller (fewer games, "
                       "players or points), or run it in parts", err=True)  # fmt: skip
            raise typer.Exit(1) from None
        except OSError as exc:
            # a full disk, a file that cannot be read or written: one line, not a traceback
            where = f" ({exc.filename})" if exc.filename else ""
            typer.echo(f"error: {exc.strerror or one_line(exc)}{where}", err=True)
            raise typer.Exit(1) from None
        except Exception as exc:
            if not is_user_error(exc):
                raise
            from sim.core.runs import OutputLock

            OutputLock.release_all()  # a refusal after `--resume` took the lock leaves none
            typer.echo(f"error: {one_line(exc)}", err=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


BackendOption = Annotated[
    str,
    typer.Option("--backend", metavar="local|dask",
                 help="Where the games are played: local, this machine's threads; dask, chunks "
                 "of games on a Dask cluster (--scheduler ADDRESS, or a local cluster). The "
                 "same results."),
]  # fmt: skip
SchedulerOption = Annotated[
    str | None, typer.Option("--scheduler", metavar="ADDRESS", help="A running Dask scheduler.")
]


def resume_option(what: str):
    """``--resume DIR``: finish an interrupted run; `what` says what is kept."""
    return option(Path | None, "--resume", f"Finish an interrupted {what}.", "DIR")


YesOption = Annotated[
    bool,
    typer.Option("--yes", help="Go on without asking when the run is estimated to take more than "
                 "an hour or to write more than a tenth of the free disk."),
]  # fmt: skip


#: The options declared alike by every command that has them (by field name).
SHARED = {"players": PlayersOption, "seed": SeedOption, "strategies": StrategiesOption,
          "out": OutDirOption, "cards": CardsOption, "set_": SetOption,
          "expansions": ExpansionsOption, "threads": ThreadsOption, "presets": PresetsOption,
          "game": GameOption, "backend": BackendOption, "scheduler": SchedulerOption,
          "yes": YesOption}  # fmt: skip


class Required:
    """A command-line argument without a default: `run_dir=Required(RunDirArgument)`."""

    def __init__(self, annotation) -> None:
        self.annotation = annotation


def command(kind, **declared):
    """Decorator of a command: its parameters are the fields of its options `kind` (in their
    order, with their defaults; `progress` aside), each declared as in `declared` or, for those
    every command declares alike, `SHARED`. The command receives them as keywords (`run`), and
    its user errors become one line (`user_errors`)."""
    import dataclasses
    import inspect

    def parameter(field) -> inspect.Parameter:
        given = declared.get(field.name, SHARED.get(field.name))
        if given is None:
            raise TypeError(f"{kind.__name__}.{field.name}: no command-line declaration")
        if isinstance(given, Required):
            return inspect.Parameter(field.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                     annotation=given.annotation)  # fmt: skip
        return inspect.Parameter(field.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                 default=field.default, annotation=given)  # fmt: skip

    def decorate(fn):
        params = [parameter(f) for f in dataclasses.fields(kind) if f.name != "progress"]
        fn.__signature__ = inspect.Signature(params, return_annotation=None)
        fn.__annotations__ = {p.name: p.annotation for p in params}
        return user_errors(fn)

    return decorate


def run(kind, flags: dict) -> None:
    """Run the command of options `kind` (`abyss_mc.run`) with the `flags` typer parsed (with
    the progress bars on a terminal), and print its result."""
    import abyss_mc as amc

    shown = {"progress": tty()} if "progress" in kind.defaults() else {}
    show(amc.run(kind(**flags, **shown)))


def tty() -> bool:
    """Whether the progress bars show (on a terminal)."""
    return sys.stderr.isatty()


def show(result) -> None:
    """Print a command's result: its summary, then the lines after it (`abyss_mc.results`)."""
    typer.echo(result.text, nl=False)
    for note in result.notes:
        typer.echo(note)
