"""What the `abyss-mc` commands share: options, checks, error handling, run plans and staging.

Start-up must stay instant (``abyss-mc --help``), so the commands import only typer and the
standard library at the top; numpy, pandas, numba and the engines are imported inside them.

Errors the user can fix (bad options, invalid card data, an existing output directory) are printed
as one line, ``error: <message>``, with exit code 2; see `sim.core.errors`. Anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from sim.core.errors import ClusterLost, UserError, is_user_error, one_line
from sim.games import GAMES as REGISTERED_GAMES

# --- shared options and error handling -------------------------------------------------------


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


def schema_entry(spec) -> dict:
    """The manifest's ``schema_version``, for a game that declares its result columns."""
    if spec.results_module is None:
        return {}
    from importlib import import_module

    return {"schema_version": import_module(spec.results_module).SCHEMA_VERSION}


def cold_start_engine(spec, n_players: int, n_games: int, policies=()) -> str:
    """The engine a local run that asked for the fast path by default plays on: "reference"
    when the fast path is not compiled yet and these games finish sooner on the reference engine
    (the same games, byte for byte) than the compile takes; the fast path then compiles in the
    background for later runs (`reports.warmup`). Otherwise "fast" (compiled in the foreground
    and announced, if need be): also when a seat looks ahead (the search player), whose
    decisions are the fast path's on either engine."""
    from sim.core.firstrun import cold_start_allowed, compile_in_background, is_compiled

    play = spec.play()
    per_seat_game = getattr(play, "REFERENCE_SECONDS", None)
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
        "strategies/abyss/presets.toml).",
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


def card_digest(tables: Any, cards: Path | None, set_: list[str] | None) -> str:
    """Digest of the card data a run used: the tables' own ``digest`` if they have one, else a
    SHA-256 of the TOML files (relative path and bytes) plus the ``--set`` overrides."""
    digest = getattr(tables, "digest", None)
    if isinstance(digest, str) and digest:
        return digest
    if cards is None:  # the built-in data of a game whose tables carry no digest
        return "sha256:" + hashlib.sha256(repr(tables).encode()).hexdigest()
    root = cards
    files = [root] if root.is_file() else sorted(root.rglob("*.toml"))
    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(root).as_posix().encode() if f != root else f.name.encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    for option in set_ or []:
        h.update(b"--set " + option.encode() + b"\0")
    return "sha256:" + h.hexdigest()


PLAN_NAME = "plan.json"


CHUNKS_NAME = "chunks"


def write_plan(directory: Path, plan: dict) -> None:
    from sim.core.runs import atomic_write_text

    atomic_write_text(directory / PLAN_NAME, json.dumps(plan, indent=1) + "\n")


def read_plan(directory: Path) -> dict:
    try:
        return json.loads((directory / PLAN_NAME).read_text())
    except (OSError, ValueError):
        raise UserError(f"{directory} has no readable {PLAN_NAME}; it cannot resume") from None


def run_digests(tables: Any, presets: Path | None) -> dict[str, str]:
    """What a run is made from (`sim.core.provenance`): its card data and rules options, the
    presets (built-in and --presets), and the engine's source."""
    import sim
    import strategies
    from sim.core import provenance as pv

    strategies_dir = Path(strategies.__file__).parent
    preset_files = pv.files_digest(strategies_dir.rglob("*.toml"), strategies_dir)
    if presets is not None:
        preset_files += pv.files_digest([presets], presets.parent)
    return {
        pv.CARDS: card_digest(tables, None, None),
        pv.PRESETS: hashlib.sha256(preset_files.encode()).hexdigest(),
        pv.SOURCE: pv.source_digest([Path(sim.__file__).parent, strategies_dir]),
    }


def seal_plan(staging, resumed: bool, tables: Any, presets: Path | None, out: Path) -> None:
    """A new resumable run's plan records its digests; a resumed run's must still match them,
    or the run is refused (its finished chunks stay on disk)."""
    if not staging.resumable:
        return
    from sim.core.provenance import check_unchanged

    digests = run_digests(tables, presets)
    plan = read_plan(staging.dir)
    # a run killed between writing its plan and sealing it has played nothing: it seals now
    unsealed = "digests" not in plan and not any(staging.dir.rglob("*.done"))
    if resumed and not unsealed:
        check_unchanged(plan.get("digests"), digests, out)
    else:
        write_plan(staging.dir, {**plan, "digests": digests})


BackendOption = Annotated[
    str,
    typer.Option("--backend", metavar="local|dask",
                 help="Where the games are played: here, or on a Dask cluster (the same "
                 "results)."),
]  # fmt: skip
SchedulerOption = Annotated[
    str | None, typer.Option("--scheduler", metavar="ADDRESS", help="A Dask scheduler.")
]


def resumed_plan(resume: Path):
    """`--resume DIR` of a command whose plan holds its `options`: (the run's staging, its
    options, card data, presets and --set)."""
    from sim.core.runs import resume_run_dir

    staging = resume_run_dir(resume)
    plan = read_plan(staging.dir)
    cards, presets = recorded_paths(plan)
    return staging, plan["options"], cards, presets, plan["set"]


def save_array(store, first: int, n: int, array, name: str = "shares.npy") -> None:
    """Store one finished chunk holding a single numpy array (`load_array` reads it back)."""
    import numpy as np

    from sim.core.results import atomic_save

    def write(path):
        atomic_save(path, lambda f: np.save(f, array))

    store.save(first, n, {name: write})


def load_array(store, first: int, name: str = "shares.npy"):
    import numpy as np

    return np.load(store.path(first, name))


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


@contextlib.contextmanager
def cluster_for(backend: str, scheduler: str | None, workers: int | None):
    """A Dask client for `--backend dask` (`sim.core.dask_backend.client`), else None."""
    if backend != "dask":
        yield None
        return
    from sim.core.dask_backend import client

    with client(scheduler, workers) as c:
        yield c


def chunk_store(staging, part: str = ""):
    if not staging.resumable:
        return None
    from sim.core.chunks import ChunkStore

    return ChunkStore(staging.dir / CHUNKS_NAME / part)


def run_game(run_dir: Path) -> str:
    """The `game` a run directory's manifest names ("abyss" when it names none)."""
    try:
        config = json.loads((Path(run_dir) / "manifest.json").read_text()).get("config", {})
    except (OSError, ValueError):
        return "abyss"
    return config.get("game", "abyss")


def data_paths(cards, set_, presets) -> dict:
    """The card data and presets of a run, as its plan and manifest record them."""
    return {
        "cards": str(cards) if cards is not None else None,
        "set": list(set_ or []),
        "presets": str(presets) if presets is not None else None,
    }


def data_options(cards, set_, presets, out_dir) -> dict:
    """The card data, presets and output of a run, as its manifest records them."""
    return {**data_paths(cards, set_, presets), "out": str(out_dir)}


def recorded_paths(options: dict) -> tuple[Path | None, Path | None]:
    """The `--cards` and `--presets` paths a plan or manifest recorded (`data_paths`)."""
    cards, presets = options.get("cards"), options.get("presets")
    return (Path(cards) if cards else None), (Path(presets) if presets else None)


def write_run_manifest(staging, seed: int, config: dict, **fields) -> None:
    """The run's manifest.json (`sim.core.runs.write_manifest`), with the command line."""
    import sys

    from sim.core.runs import write_manifest

    write_manifest(staging.dir, command=["abyss-mc", *sys.argv[1:]], seed=seed, config=config,
                   **fields)  # fmt: skip


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
        **data_paths(cards, set_, presets),
        "game": game,
    }


def finish_run(staging) -> None:
    """Publish the finished run, then remove its scaffolding (the chunks and the plan). In this
    order, a kill in between leaves a complete run with scaffolding in it, never a lost one."""
    staging.commit(scaffolding=(CHUNKS_NAME, PLAN_NAME))


class interrupt_note:
    """On Ctrl-C or SIGTERM during a resumable run: say how to finish it, exit 130. On a failure
    (a full disk, an unreadable file) once chunks are finished: one line that names the problem,
    says the finished chunks are kept and how to finish the run."""

    told = False  # a run's interruption has been explained to the user

    def __init__(self, staging, out_dir: Path, command: str = "simulate") -> None:
        self.staging, self.out_dir, self.command = staging, out_dir, command

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None or self.staging.committed:
            return False
        if not self.staging.resumable:
            if issubclass(exc_type, ClusterLost):
                raise UserError(f"{exc}; nothing was kept (this run is short): run it again")
            return False
        finish = f"`abyss-mc {self.command} --resume {self.out_dir}`"
        if issubclass(exc_type, ClusterLost):
            kept = self.staging.finished_chunks()
            raise ClusterLost(  # still a ClusterLost: the staging keeps itself
                f"{exc}; the {kept} finished chunk(s) are kept in {self.staging.dir}: finish the "
                f"run with {finish} (here, or with --backend dask on a cluster)"
            ) from None
        if issubclass(exc_type, (KeyboardInterrupt, SystemExit)):
            typer.echo(f"interrupted: finish the run with {finish}", err=True)
            interrupt_note.told = True  # this line is the message (reports.cli.main)
            if issubclass(exc_type, KeyboardInterrupt):
                raise SystemExit(130) from None
        elif issubclass(exc_type, OSError) and self.staging.has_finished_chunks():
            where = f" ({exc.filename})" if exc.filename else ""
            raise UserError(
                f"{exc.strerror or one_line(exc)}{where}; the finished chunks are kept in "
                f"{self.staging.dir}: fix the problem, then finish the run with {finish}"
            ) from None
        return False


def json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    if hasattr(value, "tolist"):  # numpy array
        return value.tolist()
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return str(value)
