"""What the `abyss-mc` commands share: options, checks and error handling (the life of a run
directory is `reports.run_dir`).

Start-up must stay instant (``abyss-mc --help``), so the commands import only typer and the
standard library at the top; numpy, pandas, numba and the engines are imported inside them.

Errors the user can fix (bad options, invalid card data, an existing output directory) are printed
as one line, ``error: <message>``, with exit code 2; see `sim.core.errors`. Anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations

import functools
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from reports import run_dir as run
from sim.core.errors import UserError, is_user_error, one_line
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


def game_spec(game: str):
    """The spec of the game `--game` names (`sim.core.game.GameSpec`), or a one-line user
    error."""
    from sim import games

    return games.get(game)


def game_expansions(spec, text: str | None, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    """`--expansions` for `spec`: ``None`` (not given) is `default`; ``""`` is none."""
    if text is None:
        return default
    names = tuple(dict.fromkeys(p.strip().lower() for p in text.split(",") if p.strip()))
    return spec.check_expansions(names)


def mixed_lineup(spec, n_players: int) -> str:
    """A line-up of different strategies, one per seat: the game's tournament strategies but
    random, in order (a sweep's default, so that a change can favour one style over another)."""
    names = [s for s in spec.default_tournament.split(",") if s.split(":")[0] != "random"]
    return ",".join(names[i % len(names)] for i in range(n_players)) if names else ""


def cold_start_engine(spec, n_players: int, n_games: int, policies=()) -> str:
    """The engine a local run that asked for the fast path by default plays on: "reference"
    when the fast path is not compiled yet and these games finish sooner on the reference engine
    (the same games, byte for byte) than the compile takes; the fast path then compiles in the
    background for later runs (`reports.runs.warmup`). Otherwise "fast" (compiled in the foreground
    and announced, if need be): also when a seat looks ahead (the search player), whose
    decisions are the fast path's on either engine."""
    from sim.core.firstrun import cold_start_allowed, compile_in_background, is_compiled

    play = spec.play()
    per_seat_game = play.REFERENCE_SECONDS
    if per_seat_game is None or "reference" not in spec.engines or not cold_start_allowed():
        return "fast"
    if any(getattr(p, "LOOKS_AHEAD", False) for p in policies):
        return "fast"
    if is_compiled(spec.name):
        return "fast"
    estimate = n_games * n_players * per_seat_game
    if estimate > play.COMPILE_SECONDS:
        return "fast"
    compile_in_background(spec.name)
    print(f"the {spec.name} fast path is not compiled yet: these {n_games} games play on the "
          f"reference engine (the same games, about {max(1, round(estimate))} s) while it "
          f"compiles in the background (about {play.COMPILE_SECONDS} s, once); later runs start "
          "at once", file=sys.stderr, flush=True)  # fmt: skip
    return "reference"


def resumed(command: str, resume: Path | None, options: dict, set_, cards, presets, out):
    """`(run, options, set_, cards, presets, out)`: those of the run in `resume` (its plan's, its
    card data and presets as recorded), or, with no run to resume, those given (run None)."""
    if resume is None:
        return None, options, set_, cards, presets, out
    from reports.run_dir import Run, recorded_paths

    run = Run.resume(command, resume)
    return (run, run.plan["options"], run.plan["set"], *recorded_paths(run.plan), resume)


def field_setup(o: dict, cards, set_, presets):
    """`(spec, registry, expansions, tables)` of a run playing a field of strategies (options
    `o`: game, expansions, players, seed), the presets added, the player count and seed
    checked."""
    spec = game_spec(o["game"])
    registry = spec.strategies()
    registry.use_presets(presets)
    exp = game_expansions(spec, o["expansions"], spec.tournament_expansions)
    tables = spec.load_cards(cards, set_, exp)
    spec.check_players(tables, o["players"], exp)
    check_seed(o["seed"])
    return spec, registry, exp, tables


def game_lineup(spec, text: str | None, n_players: int) -> tuple[list[str], list]:
    """The line-up `--strategies` gives (the game's default when not given), cycled to
    `n_players` seats, and its policies: unknown names and parameters fail before any work."""
    lineup = parse_lineup(text or spec.default_strategies, n_players)
    return lineup, spec.strategies().make_policies(lineup, n_players)


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
        except OSError as exc:
            # a full disk, a file that cannot be read or written: one line, not a traceback
            where = f" ({exc.filename})" if exc.filename else ""
            typer.echo(f"error: {exc.strerror or one_line(exc)}{where}", err=True)
            raise typer.Exit(1) from None
        except Exception as exc:
            if not is_user_error(exc):
                raise
            typer.echo(f"error: {one_line(exc)}", err=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def check_seed(seed: int) -> None:
    if not 0 <= seed < 2**63:
        raise UserError(f"--seed must be between 0 and 2**63-1; got {seed}")


def parse_player_counts(text: str) -> list[int]:
    """``"4"`` -> [4]; ``"3,4"`` -> [3, 4] (each checked by `check_players`)."""
    try:
        counts = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise UserError(f"--players must be a number or a list like 3,4; got {text!r}") from None
    if not counts:
        raise UserError("--players is empty")
    return list(dict.fromkeys(counts))


def parse_lineup(text: str, n_players: int) -> list[str]:
    """Strategy names per seat: ``"greedy,random"`` for 4 players -> greedy, random, greedy,
    random. More names than players is a user error. Names are checked by the engine."""
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise UserError("--strategies is empty; give at least one strategy name")
    if len(names) > n_players:
        raise UserError(f"--strategies lists {len(names)} strategies for {n_players} players")
    return list(itertools.islice(itertools.cycle(names), n_players))


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


class GamesProgress:
    """A bar over every game of a multi-stage command, with the time left (on a terminal)."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.show, self.done, self.bar = total, show, 0, None
        self.t0 = 0.0

    def __enter__(self):
        import time

        self.t0 = time.perf_counter()
        if self.show:
            from sim.core.batch import ProgressBar

            self.bar = ProgressBar(self.total, "games")
        return self

    def advance(self, games: int) -> None:
        import time

        self.done += games
        if self.bar is not None:
            elapsed = time.perf_counter() - self.t0
            self.bar.update(min(self.done, self.total), self.done / elapsed if elapsed else 0.0)

    def __exit__(self, *exc) -> bool:
        if self.bar is not None:
            self.bar.close()
        return False


def check_backend(backend: str, scheduler: str | None) -> None:
    if backend not in ("local", "dask"):
        raise UserError(f"--backend must be local or dask; got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise UserError("--scheduler needs --backend dask")


def run_game(run_dir: Path) -> str:
    """The `game` a run directory's manifest names ("abyss" when it names none)."""
    try:
        config = json.loads((Path(run_dir) / "manifest.json").read_text()).get("config", {})
    except (OSError, ValueError):
        return "abyss"
    return config.get("game", "abyss")


def tournament_options(
    strategies, players, blocks, design, crn, seed, report, expansions, fight_points, cards,
    set_, presets, game,
) -> dict:  # fmt: skip
    """What `tournament --resume` needs to play the rest as the run was started."""
    return {
        "strategies": strategies,
        "players": players,
        "blocks": blocks,
        "design": design,
        "crn": crn,
        "seed": seed,
        "report": report,
        "expansions": expansions,
        "fight_points": fight_points,
        **run.data_paths(cards, set_, presets),
        "game": game,
    }


def json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    if hasattr(value, "tolist"):  # numpy array
        return value.tolist()
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return str(value)
