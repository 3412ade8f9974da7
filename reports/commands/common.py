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
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from sim.core.errors import UserError, is_user_error, one_line
from sim.games import GAMES as REGISTERED_GAMES

#: Expansions the CLI accepts in ``--expansions``.


KNOWN_EXPANSIONS = ("leviathan",)


DEFAULT_STRATEGIES = "greedy,random"


#: Built-in card data, used when ``--cards`` is not given (for the card-data digest).


BUILTIN_CARDS = Path(__file__).resolve().parent.parent / "sim" / "abyss" / "data"


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
    str,
    typer.Option(
        "--expansions",
        metavar="LIST",
        help="Comma-separated expansions to play with: " + ", ".join(KNOWN_EXPANSIONS) + ".",
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
    str,
    typer.Option(
        "--strategies",
        metavar="A,B,...",
        help="Strategy per seat, comma-separated; cycled if shorter than --players.",
    ),
]


#: The games `--game` selects (Abyss is the default): the registered ones (`sim.games`, names
#: only, so no game module is imported for --help).
GAMES = tuple(REGISTERED_GAMES)


GameOption = Annotated[
    str,
    typer.Option("--game", metavar="|".join(GAMES), help="The game: " + ", ".join(GAMES) + "."),
]


def check_game(game: str) -> str:
    """The registered game `--game` names (`sim.games`), or a one-line user error."""
    from sim import games

    return games.get(game).name


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


#: The tournament of the README's quick start: every built-in strategy and the random policy.


DEFAULT_TOURNAMENT = (
    "greedy,lord_rusher,key_hunter,council_hoarder,auction_buyer,pearl_economist,"
    "leviathan_hunter,cautious_explorer,farmer,random"
)


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


def parse_expansions(text: str) -> tuple[str, ...]:
    """``"leviathan"`` -> ``("leviathan",)``; ``""`` -> ``()``. Unknown names are user errors."""
    names = tuple(dict.fromkeys(p.strip().lower() for p in text.split(",") if p.strip()))
    unknown = [n for n in names if n not in KNOWN_EXPANSIONS]
    if unknown:
        raise UserError(f"unknown expansion {unknown[0]!r}; known: {', '.join(KNOWN_EXPANSIONS)}")
    return names


def check_players(n_players: int, expansions: tuple[str, ...]) -> None:
    """2-4 players in the base game, 2-5 with Leviathan."""
    if n_players == 5 and "leviathan" not in expansions:
        raise UserError("5 players need the Leviathan expansion (--expansions leviathan)")
    if not 2 <= n_players <= 5:
        raise UserError(f"--players must be 2-4 (2-5 with --expansions leviathan); got {n_players}")


def check_engine(engine: str) -> None:
    if engine not in ("fast", "reference"):
        raise UserError(f"--engine must be fast or reference; got {engine!r}")


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


def abyss_policies(lineup: list[str]) -> list:
    """The policies of a line-up of Abyss strategy specs (the engines take policies)."""
    from strategies.abyss import make_policies

    return make_policies(lineup, len(lineup))


def use_presets(presets: Path | None) -> None:
    from strategies.abyss import use_presets as use

    use(presets)


def load_tables(
    cards: Path | None, set_: list[str] | None, expansions: tuple[str, ...] = ()
) -> Any:
    """Abyss card data from ``--cards`` (or the built-in data) with the ``--set`` overrides applied
    and the expansions' cards added (`sim.core.game.GameSpec.load_cards`)."""
    from sim import games

    return games.get("abyss").load_cards(cards, set_, expansions)


def card_digest(tables: Any, cards: Path | None, set_: list[str] | None) -> str:
    """Digest of the card data a run used: the tables' own ``digest`` if they have one, else a
    SHA-256 of the TOML files (relative path and bytes) plus the ``--set`` overrides."""
    digest = getattr(tables, "digest", None)
    if isinstance(digest, str) and digest:
        return digest
    root = cards if cards is not None else BUILTIN_CARDS
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
    if resumed:
        check_unchanged(plan.get("digests"), digests, out)
    else:
        write_plan(staging.dir, {**plan, "digests": digests})


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


def wilds_tables(cards: Path | None, set_: list[str] | None):
    from sim import games

    return games.get("wilds").load_cards(cards, set_)


def data_options(cards, set_, presets, out_dir) -> dict:
    """The card data, presets and output of a run, as its manifest records them."""
    return {
        "cards": str(cards) if cards is not None else None,
        "set": list(set_ or []),
        "presets": str(presets) if presets is not None else None,
        "out": str(out_dir),
    }


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
        "cards": str(cards) if cards is not None else None,
        "set": list(set_ or []),
        "presets": str(presets) if presets is not None else None,
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
        if exc_type is None or self.staging.committed or not self.staging.resumable:
            return False
        finish = f"`abyss-mc {self.command} --resume {self.out_dir}`"
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


def dask_runner(scheduler: str | None, workers: int | None):
    """`run_games` on a Dask cluster (`sim.core.dask_backend`), with the same results."""

    def run(tables, *, n_players, n_games, seed, strategies, per_game, chunk_size, **_):
        from sim.abyss.fast import run_distributed
        from sim.core.dask_backend import client

        with client(scheduler, workers) as c:
            return run_distributed(
                c,
                tables,
                n_players=n_players,
                n_games=n_games,
                seed=seed,
                strategies=strategies,
                chunk_size=chunk_size,
                per_game=per_game,
            )

    return run
