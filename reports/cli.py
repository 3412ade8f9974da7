"""The ``abyss-mc`` command line: ``cards``, ``strategies``, ``simulate``, ``tournament``,
``report``, ``replay``, ``bench``.

Start-up must stay instant (``abyss-mc --help``), so this module imports only typer and the
standard library at the top; numpy, pandas, numba and the engine (``sim.abyss.*``) are imported
inside the commands.

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
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from sim.core.errors import UserError, is_user_error, one_line

#: Expansions the CLI accepts in ``--expansions``.
KNOWN_EXPANSIONS = ("leviathan",)
DEFAULT_STRATEGIES = "greedy,random"
#: Built-in card data, used when ``--cards`` is not given (for the card-data digest).
BUILTIN_CARDS = Path(__file__).resolve().parent.parent / "sim" / "abyss" / "data"

app = typer.Typer(
    name="abyss-mc",
    help="Monte Carlo strategy analyzer for the Abyss family of board games (--game).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


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

#: The games `--game` selects (Abyss is the default).
GAMES = ("abyss", "conspiracy", "wilds")
GameOption = Annotated[
    str,
    typer.Option("--game", metavar="|".join(GAMES), help="The game: " + ", ".join(GAMES) + "."),
]


def check_game(game: str) -> str:
    name = game.strip().lower()
    if name not in GAMES:
        raise UserError(f"unknown game {game!r} for --game; known: {', '.join(GAMES)}")
    return name


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
    """Card data from ``--cards`` (or the built-in data) with the ``--set`` overrides applied and
    the expansions' cards added."""
    if cards is not None and not cards.exists():
        raise UserError(f"card data directory {cards} does not exist")
    from sim.abyss.cards import load_cards, parse_set_options

    return load_cards(cards, parse_set_options(list(set_ or [])), expansions=expansions)


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


def _version_callback(value: bool) -> None:
    if value:
        import importlib.metadata

        try:
            version = importlib.metadata.version("abyss-mc")
        except importlib.metadata.PackageNotFoundError:
            version = "unknown (not installed)"
        typer.echo(f"abyss-mc {version}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version_callback, is_eager=True, help="Show version."),
    ] = False,
) -> None:
    """Monte Carlo strategy analyzer for the Abyss family of board games."""


# --- commands --------------------------------------------------------------------------------


@app.command()
@user_errors
def cards(
    cards: CardsOption = None,
    set_: SetOption = None,
    expansions: ExpansionsOption = "",
    game: GameOption = "abyss",
) -> None:
    """Validate the card data and describe it (after any --set overrides)."""
    if check_game(game) == "conspiracy":
        from reports import conspiracy_cli

        conspiracy_cli.check_expansions(expansions)
        conspiracy_cli.cards(cards, set_)
        return
    if game == "wilds":
        from sim.wilds.cards import describe

        typer.echo(describe(_wilds_tables(cards, set_)), nl=False)
        return
    from sim.abyss.cards import describe

    typer.echo(describe(load_tables(cards, set_, parse_expansions(expansions))))


@app.command()
@user_errors
def simulate(
    players: PlayersOption = 4,
    games: Annotated[int, typer.Option("--games", help="Number of games (>= 1).")] = 1000,
    seed: SeedOption = 1,
    strategies: StrategiesOption = DEFAULT_STRATEGIES,
    out: OutDirOption = None,
    cards: CardsOption = None,
    set_: SetOption = None,
    expansions: ExpansionsOption = "",
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            metavar="fast|reference",
            help="fast: the compiled kernel on all threads (default); reference: the readable "
            "engine (same games, much slower).",
        ),
    ] = "fast",
    threads: ThreadsOption = None,
    per_game: Annotated[
        bool,
        typer.Option(
            "--per-game/--no-per-game",
            help="Write the per-game tables seats.parquet and games.parquet (the aggregates are "
            "always written).",
        ),
    ] = True,
    presets: PresetsOption = None,
    game: GameOption = "abyss",
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            metavar="local|dask",
            help="local: this machine's threads; dask: chunks of games on a Dask cluster "
            "(--scheduler ADDRESS, or a local cluster), the same results.",
        ),
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", metavar="ADDRESS", help="A running Dask scheduler."),
    ] = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            "--chunk-size",
            help="Games per chunk (the unit of progress and of --resume); default: about a "
            "second of work each.",
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Finish an interrupted run (Ctrl-C, a killed process) of the fast engine: "
            "its finished chunks are kept, the rest is played with the run's own options; the "
            "results are those of an uninterrupted run.",
        ),
    ] = None,
) -> None:
    """Simulate games; write results + manifest to a new directory; print a summary."""
    check_backend(backend, scheduler)
    if backend == "dask" and (engine != "fast" or resume is not None):
        raise UserError("--backend dask runs the fast engine and cannot --resume")
    if resume is not None:
        from sim.core.runs import partial_dir

        if partial_dir(resume).is_dir():  # the run's own game (a bad path fails below)
            game = _read_plan(partial_dir(resume)).get("game", "abyss")
    if check_game(game) == "wilds":
        check_seed(seed)
        if engine != "fast" or resume is not None:
            raise UserError(
                "Wilds runs play the fast path in one go (no --engine reference, no --resume); "
                "`abyss-mc bench --game wilds` compares the engines"
            )
        if games < 2:
            raise UserError(f"--games must be at least 2; got {games}")
        _simulate_wilds(games, seed, cards, set_, out, backend, scheduler, threads, chunk_size)
        return
    if game == "conspiracy":
        from reports import conspiracy_cli

        if resume is not None:
            options = _read_plan(partial_dir(resume))
            players, games, seed = options["n_players"], options["n_games"], options["seed"]
            strategies, set_ = ",".join(options["strategies"]), options["set"]
            cards = Path(options["cards"]) if options["cards"] else None
            presets = Path(options["presets"]) if options["presets"] else None

        check_engine(engine)
        check_seed(seed)
        conspiracy_cli.simulate(
            players=players,
            games=games,
            seed=seed,
            strategies=conspiracy_cli.DEFAULT_STRATEGIES
            if strategies == DEFAULT_STRATEGIES
            else strategies,
            out=out,
            cards_dir=cards,
            set_=set_,
            engine=engine,
            threads=threads,
            presets=presets,
            expansions=expansions,
            resume=resume,
            chunk_size=chunk_size,
            backend=backend,
            scheduler=scheduler,
        )
        return
    t_start = time.perf_counter()
    from sim.core.runs import create_run_dir, default_run_dir, write_manifest, write_parquet

    if resume is not None:
        from sim.core.runs import resume_run_dir

        out_dir = resume
        staging = resume_run_dir(resume)
        plan = _read_plan(staging.dir)
        players, games, seed = plan["n_players"], plan["n_games"], plan["seed"]
        strategies, engine, per_game = ",".join(plan["strategies"]), "fast", plan["per_game"]
        expansions = ",".join(plan["expansions"])
        cards = Path(plan["cards"]) if plan["cards"] else None
        set_, presets = plan["set"], Path(plan["presets"]) if plan["presets"] else None
    use_presets(presets)
    exp = parse_expansions(expansions)
    check_players(players, exp)
    if games < 1:
        raise UserError(f"--games must be at least 1; got {games}")
    check_seed(seed)
    check_engine(engine)
    if chunk_size is not None and chunk_size < 1:
        raise UserError(f"--chunk-size must be at least 1; got {chunk_size}")
    lineup = parse_lineup(strategies, players)

    if resume is None:
        out_dir = out if out is not None else default_run_dir("runs", seed=seed)
        # refuses an existing directory before any work; the fast engine's runs can resume
        staging = create_run_dir(out_dir, resumable=engine == "fast")
        _write_plan(
            staging.dir,
            {
                "n_players": players,
                "n_games": games,
                "seed": seed,
                "strategies": lineup,
                "per_game": per_game,
                "expansions": list(exp),
                "cards": str(cards) if cards is not None else None,
                "set": list(set_ or []),
                "presets": str(presets) if presets is not None else None,
            },
        )
    with staging, _interrupt_note(staging, out_dir):
        t0 = time.perf_counter()
        tables = load_tables(cards, set_, exp)
        seal_plan(staging, resume is not None, tables, presets, out_dir)
        t_cards = time.perf_counter() - t0

        from sim.abyss.runner import run_games

        t0 = time.perf_counter()
        if backend == "dask":
            run_games = _dask_runner(scheduler, threads)  # noqa: F811
        seats_rows, games_rows, agg, runner_timings = run_games(
            tables,
            engine=engine,
            n_players=players,
            n_games=games,
            seed=seed,
            strategies=abyss_policies(lineup),
            expansions=exp,
            threads=threads,
            per_game=per_game,
            progress=sys.stderr.isatty(),
            store=_chunk_store(staging) if engine == "fast" else None,
            chunk_size=chunk_size,
        )
        t_run = time.perf_counter() - t0

        from reports.summary import summarize_aggregates
        from sim.core.runs import atomic_write_text
        from sim.core.schema import SCHEMA_VERSION, games_frame, seats_frame

        t0 = time.perf_counter()
        if per_game:
            write_parquet(seats_frame(seats_rows), staging.dir / "seats.parquet")
            write_parquet(games_frame(games_rows), staging.dir / "games.parquet")
        agg.save(staging.dir / "aggregates.npz")
        summary = summarize_aggregates(agg)
        atomic_write_text(staging.dir / "summary.txt", summary)
        t_write = time.perf_counter() - t0
        write_manifest(
            staging.dir,
            command=["abyss-mc", *sys.argv[1:]],
            seed=seed,
            config={
                "command": "simulate",
                "n_players": players,
                "n_games": games,
                "seed": seed,
                "strategies": lineup,
                "expansions": list(exp),
                "engine": engine,
                "threads": runner_timings.get("threads"),
                "per_game": per_game,
                **data_options(cards, set_, presets, out_dir),
            },
            card_digest=card_digest(tables, cards, set_),
            timings={
                "load_cards": t_cards,
                "run_simulation": t_run,
                "write": t_write,
                "total": time.perf_counter() - t_start,
                "runner": dict(runner_timings or {}),
            },
            extra={"schema_version": SCHEMA_VERSION},
        )
        _finish(staging)

    typer.echo(summary, nl=False)
    typer.echo(f"results: {out_dir}")


def _dask_runner(scheduler: str | None, workers: int | None):
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


PLAN_NAME = "plan.json"
CHUNKS_NAME = "chunks"


def _write_plan(directory: Path, plan: dict) -> None:
    from sim.core.runs import atomic_write_text

    atomic_write_text(directory / PLAN_NAME, json.dumps(plan, indent=1) + "\n")


def _read_plan(directory: Path) -> dict:
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
    plan = _read_plan(staging.dir)
    if resumed:
        check_unchanged(plan.get("digests"), digests, out)
    else:
        _write_plan(staging.dir, {**plan, "digests": digests})


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


def _chunk_store(staging, part: str = ""):
    if not staging.resumable:
        return None
    from sim.core.chunks import ChunkStore

    return ChunkStore(staging.dir / CHUNKS_NAME / part)


def _run_game(run_dir: Path) -> str:
    """The `game` a run directory's manifest names ("abyss" when it names none)."""
    try:
        config = json.loads((Path(run_dir) / "manifest.json").read_text()).get("config", {})
    except (OSError, ValueError):
        return "abyss"
    return config.get("game", "abyss")


def _wilds_tables(cards: Path | None, set_: list[str] | None):
    if cards is not None and not cards.exists():
        raise UserError(f"card data directory {cards} does not exist")
    from sim.abyss.cards import parse_set_options
    from sim.wilds.cards import load_cards as load_wilds

    return load_wilds(cards, parse_set_options(list(set_ or [])))


def _simulate_wilds(games: int, seed: int, cards, set_, out, backend="local", scheduler=None,
                    threads=None, chunk_size=None) -> None:  # fmt: skip
    """`simulate --game wilds`: episodes of every strike setting and warp-deck variant; the
    long-form table, a summary and the report (all data PLACEHOLDER). On `--backend dask` the
    episodes are played on the cluster, with the same results."""
    import contextlib

    from reports.wilds import build_report, distributed_runner, effort, run_analysis
    from sim.core.runs import (
        atomic_write_text,
        create_run_dir,
        default_run_dir,
        write_manifest,
        write_parquet,
    )

    t_start = time.perf_counter()
    tables = _wilds_tables(cards, set_)
    out_dir = out if out is not None else default_run_dir("runs", seed=seed)
    with create_run_dir(out_dir) as staging, contextlib.ExitStack() as stack:
        if backend == "dask":
            from sim.core.dask_backend import client

            c = stack.enter_context(client(scheduler, threads))
            frame = run_analysis(tables, seed, games, run=distributed_runner(c, chunk_size))
        else:
            frame = run_analysis(tables, seed, games)
        write_parquet(frame, staging.dir / "crystals.parquet")
        table = effort(frame[frame["deck"] == "as given"], ["setting", "warped"])
        text = (
            "Warped crystals (ALL DATA IS PLACEHOLDER): per crystal broken, mean strikes and "
            f"turns spent on it, {games:,} episodes per setting\n"
            + table[["setting", "warped", "strikes", "turns_spent", "warps"]].to_string(
                index=False, float_format=lambda x: f"{x:.2f}"
            )
            + "\n"
        )
        atomic_write_text(staging.dir / "summary.txt", text)
        command = " ".join(["abyss-mc", *sys.argv[1:]])
        build_report(frame, tables, command).write(staging.dir / "report")
        write_manifest(
            staging.dir,
            command=["abyss-mc", *sys.argv[1:]],
            seed=seed,
            config={"game": "wilds", "command": "simulate", "n_games": games, "seed": seed,
                    **data_options(cards, set_, None, out_dir)},
            card_digest=tables.digest,
            timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        staging.commit()
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
    typer.echo(f"report: {out_dir / 'report' / 'report.html'}")


def data_options(cards, set_, presets, out_dir) -> dict:
    """The card data, presets and output of a run, as its manifest records them."""
    return {
        "cards": str(cards) if cards is not None else None,
        "set": list(set_ or []),
        "presets": str(presets) if presets is not None else None,
        "out": str(out_dir),
    }


def _tournament_options(
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


def _finish(staging) -> None:
    """Publish the finished run, then remove its scaffolding (the chunks and the plan). In this
    order, a kill in between leaves a complete run with scaffolding in it, never a lost one."""
    staging.commit(scaffolding=(CHUNKS_NAME, PLAN_NAME))


class _interrupt_note:
    """On Ctrl-C or SIGTERM during a resumable run: say how to finish it, exit 130. On a failure
    (a full disk, an unreadable file) once chunks are finished: one line that names the problem,
    says the finished chunks are kept and how to finish the run."""

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
            if issubclass(exc_type, KeyboardInterrupt):
                raise SystemExit(130) from None  # this line is the message (no "Aborted!")
        elif issubclass(exc_type, OSError) and self.staging.has_finished_chunks():
            where = f" ({exc.filename})" if exc.filename else ""
            raise UserError(
                f"{exc.strerror or one_line(exc)}{where}; the finished chunks are kept in "
                f"{self.staging.dir}: fix the problem, then finish the run with {finish}"
            ) from None
        return False


@app.command()
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
        typer.echo(json.dumps(events, indent=1, default=_json_default))
    else:
        typer.echo(text)


@app.command()
@user_errors
def bench(
    players: PlayersOption = 4,
    strategies: StrategiesOption = "greedy",
    expansions: ExpansionsOption = "leviathan",
    games: Annotated[
        int, typer.Option("--games", help="Games per fast-path measurement.")
    ] = 200_000,
    reference_games: Annotated[
        int, typer.Option("--reference-games", help="Games for the reference engine.")
    ] = 200,
    memory_games: Annotated[
        int,
        typer.Option(
            "--memory-games", help="Games of the aggregates-only memory run (0: skip it)."
        ),
    ] = 0,
    starts: Annotated[
        bool,
        typer.Option(
            "--starts/--no-starts", help="Measure cold and warm start in fresh processes."
        ),
    ] = True,
    markdown: Annotated[
        Path | None,
        typer.Option("--markdown", metavar="FILE", help="Also write the table as Markdown."),
    ] = None,
    seed: SeedOption = 1,
    cards: CardsOption = None,
    set_: SetOption = None,
    presets: PresetsOption = None,
    game: GameOption = "abyss",
) -> None:
    """Measure both engines' speed in one run: games/s, threads, start-up, memory."""
    if check_game(game) == "conspiracy":
        _bench_conspiracy(players, strategies, games, reference_games, seed, cards, set_, markdown)
        return
    if game == "wilds":
        _bench_wilds(games, reference_games, seed, cards, set_, markdown)
        return
    use_presets(presets)
    exp = parse_expansions(expansions)
    check_players(players, exp)
    check_seed(seed)
    for name, value in (("--games", games), ("--reference-games", reference_games)):
        if value < 1:
            raise UserError(f"{name} must be at least 1; got {value}")
    if memory_games < 0:
        raise UserError(f"--memory-games must be >= 0; got {memory_games}")
    lineup = parse_lineup(strategies, players)
    tables = load_tables(cards, set_, exp)
    from strategies.abyss import make_policies

    make_policies(lineup, players)
    from reports.bench import run_bench

    result = run_bench(
        tables=tables,
        expansions=exp,
        players=players,
        lineup=lineup,
        fast_games=games,
        reference_games=reference_games,
        memory_games=memory_games,
        seed=seed,
        starts=starts,
        progress=lambda text: typer.echo(text, err=True),
    )
    _emit_bench(result, markdown)


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
        typer.echo(json.dumps(g.events, indent=1, default=_json_default))
        return
    typer.echo(f"Conspiracy, seed {seed}, game {index}: " + ", ".join(
        f"seat {s} {name}" for s, name in enumerate(seated)
    ))  # fmt: skip
    for e in g.events:
        details = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("event", "turn"))
        typer.echo(f"turn {e['turn']:>3}  {e['event']:<16} {details}")


def _emit_bench(result, markdown: Path | None) -> None:
    """Print a benchmark's Markdown table, and write it to `--markdown FILE` (atomically)."""
    from sim.core.runs import atomic_write_text

    text = result.markdown(" ".join(["abyss-mc", *sys.argv[1:]]))
    typer.echo(text)
    if markdown is not None:
        atomic_write_text(markdown, text)


def _replay_wilds(seed, index, json_out, cards, set_):
    from sim.wilds.rules import Game as WildsGame

    check_seed(seed)
    if index < 0:
        raise UserError(f"--index must be >= 0; got {index}")
    g = WildsGame(_wilds_tables(cards, set_), seed, index).play()
    if json_out:
        typer.echo(json.dumps(g.events, indent=1, default=_json_default))
        return
    typer.echo(f"Warped crystals (PLACEHOLDER data), seed {seed}, episode {index}:")
    for e in g.events:
        details = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("event", "turn"))
        typer.echo(f"turn {e['turn']:>3}  {e['event']:<8} {details}")


def _bench_wilds(games, reference_games, seed, cards, set_, markdown):
    """Episodes per second of both Wilds engines (same episodes), 1 thread and all threads."""
    import numpy as np

    from reports.bench import BenchResult
    from sim.core.batch import set_threads
    from sim.core.jit import numba
    from sim.wilds.kernel import run_episodes
    from sim.wilds.rules import Game as WildsGame

    check_seed(seed)
    t = _wilds_tables(cards, set_)
    result = BenchResult({"game": "wilds", "episodes": games})
    run_episodes(t, seed, np.arange(8))  # compile or load
    t0 = time.perf_counter()
    for g in range(reference_games):
        WildsGame(t, seed, g, record=False).play()
    ref = reference_games / (time.perf_counter() - t0)
    result.add("Wilds reference engine", ref, f"{ref:,.0f} episodes/s")
    rates = {}
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        set_threads(threads)
        t0 = time.perf_counter()
        run_episodes(t, seed, np.arange(games))
        rates[threads] = games / (time.perf_counter() - t0)
        result.add(f"Wilds fast path, {threads} thread(s)", rates[threads],
                   f"{rates[threads]:,.0f} episodes/s")  # fmt: skip
    set_threads(None)
    result.add("fast (1 thread) / reference", rates[1] / ref, f"{rates[1] / ref:,.0f}x")
    _emit_bench(result, markdown)


def _bench_conspiracy(players, strategies, games, reference_games, seed, cards, set_, markdown):
    from reports import conspiracy_cli
    from reports.bench import run_conspiracy_bench

    check_seed(seed)
    tables = conspiracy_cli.load_tables(cards, set_)
    conspiracy_cli.check_players(tables, players)
    if strategies == "greedy":  # the Abyss default
        strategies = "coalition_builder,key_hunter,pearl_master,pile_raider"
    lineup = conspiracy_cli.lineup_of(strategies, players)
    result = run_conspiracy_bench(
        tables=tables,
        players=players,
        lineup=lineup,
        fast_games=games,
        reference_games=reference_games,
        seed=seed,
        abyss_games=games,
        progress=lambda text: typer.echo(text, err=True),
    )
    _emit_bench(result, markdown)


@app.command("strategies")
@user_errors
def strategies_(presets: PresetsOption = None, game: GameOption = "abyss") -> None:
    """List the strategies (policies and presets), what they do, and their parameters."""
    if check_game(game) == "conspiracy":
        from reports import conspiracy_cli

        conspiracy_cli.use_presets(presets)
        typer.echo(conspiracy_cli.strategies_text(), nl=False)
        return
    use_presets(presets)
    from strategies.abyss import describe, strategy_names

    for name in strategy_names():
        text, values = describe(name)
        typer.echo(f"{name}: {text}")
        if values:
            typer.echo("    " + ", ".join(f"{k}={v}" for k, v in values.items()))


@app.command()
@user_errors
def tournament(
    strategies: Annotated[
        str,
        typer.Option(
            "--strategies",
            metavar="A,B,...",
            help="The strategies to compare (at least two, each once), with optional "
            "parameters: name:param=value.",
        ),
    ] = DEFAULT_TOURNAMENT,
    players: Annotated[
        str,
        typer.Option(
            "--players",
            metavar="N[,N...]",
            help="Players per game: 2-4, or 2-5 with Leviathan; several counts (e.g. 3,4) play "
            "one tournament each and the report compares their seat advantage. Default: every "
            "count the game allows.",
        ),
    ] = "all",
    blocks: Annotated[
        int,
        typer.Option(
            "--blocks",
            help="Deals to play; every table of the design plays each deal (common random "
            "numbers). Games = blocks x tables.",
        ),
    ] = 2500,
    design: Annotated[
        str,
        typer.Option(
            "--design",
            metavar="balanced|cyclic|all",
            help="Line-ups when there are more strategies than seats: balanced (default: each "
            "strategy in n line-ups of every block, the strategies in a fresh random order each "
            "block, so every pair meets equally often in expectation), cyclic (one fixed order) "
            "or every combination. Each line-up plays in every rotation of its seats.",
        ),
    ] = "balanced",
    crn: Annotated[
        str,
        typer.Option(
            "--crn",
            metavar="auto|block|lineup|none",
            help="Common random numbers: every table of a block plays the same deal (block), "
            "only the rotations of each line-up (lineup), or every table its own deal (none); "
            "auto (default): block with one line-up, none with several, as measured best in "
            "docs/tournament.md.",
        ),
    ] = "auto",
    sequential: Annotated[
        float | None,
        typer.Option(
            "--sequential",
            metavar="ALPHA",
            help="Stop as soon as every pair of strategies is told apart, with family-wise "
            "error rate ALPHA at any stopping time; --blocks is then the budget.",
        ),
    ] = None,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            metavar="local|dask",
            help="Where the blocks are played: here, or on a Dask cluster (chunks of blocks; "
            "the same results). Not with --sequential.",
        ),
    ] = "local",
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", metavar="ADDRESS", help="A Dask scheduler.")
    ] = None,
    seed: SeedOption = 1,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="New directory for the results (must not "
            "exist). Default: a new runs/<UTC time>-seed<seed>.",
        ),
    ] = None,
    report: Annotated[
        bool, typer.Option("--report/--no-report", help="Also write the balance report.")
    ] = False,
    expansions: ExpansionsOption = "leviathan",
    fight_points: Annotated[
        int,
        typer.Option(
            "--fight-points",
            help="With Leviathan: decision points of the fight-or-explore rollouts for the "
            "report (also as many games of rule rollouts); 0 skips them. See `abyss-mc ev "
            "rollout` for the full analysis.",
        ),
    ] = 2000,
    cards: CardsOption = None,
    set_: SetOption = None,
    threads: ThreadsOption = None,
    presets: PresetsOption = None,
    game: GameOption = "abyss",
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Finish an interrupted tournament: its finished chunks of blocks are kept, the "
            "rest is played with its own options.",
        ),
    ] = None,
) -> None:
    """Compare strategies with seat rotation and common random numbers; print the ranking."""
    if resume is not None:
        from sim.core.runs import resume_run_dir

        staging = resume_run_dir(resume)
        options = _read_plan(staging.dir)
        strategies, players, blocks = options["strategies"], options["players"], options["blocks"]
        design, crn, seed, report = (
            options["design"],
            options["crn"],
            options["seed"],
            options["report"],
        )
        expansions, fight_points = options["expansions"], options["fight_points"]
        cards = Path(options["cards"]) if options["cards"] else None
        set_, presets, game = options["set"], options["presets"], options["game"]
        presets = Path(presets) if presets else None
        out, sequential = resume, options.get("sequential")
    else:
        staging = None
    check_backend(backend, scheduler)
    if backend == "dask" and sequential is not None:
        raise UserError("--backend dask does not run --sequential tournaments; use local")
    if check_game(game) == "conspiracy":
        from reports import conspiracy_cli

        check_seed(seed)
        conspiracy_cli.tournament(
            backend=backend,
            scheduler=scheduler,
            players=players,
            strategies=None if strategies == DEFAULT_TOURNAMENT else strategies,
            blocks=blocks,
            seed=seed,
            design=design,
            crn=crn,
            sequential=sequential,
            report=report,
            out=out,
            cards_dir=cards,
            set_=set_,
            threads=threads,
            presets=presets,
            staging=staging,
        )
        return
    t_start = time.perf_counter()
    use_presets(presets)
    exp = parse_expansions(expansions)
    counts = (
        [2, 3, 4] + ([5] if "leviathan" in exp else [])
        if players == "all"
        else parse_player_counts(players)
    )
    for n in counts:
        check_players(n, exp)
    check_seed(seed)
    if blocks < 1:
        raise UserError(f"--blocks must be at least 1; got {blocks}")
    if fight_points < 0 or fight_points == 1:
        raise UserError(f"--fight-points must be 0 or at least 2; got {fight_points}")
    if sequential is not None and not 0 < sequential < 1:
        raise UserError(f"--sequential must be between 0 and 1; got {sequential}")
    names = [p.strip() for p in strategies.split(",") if p.strip()]
    from reports.tournament import crn_mode

    crn = crn_mode(crn)
    from strategies.abyss import make_policy

    for name in names:
        make_policy(name)  # unknown names and parameters fail before any work
    from reports.tournament import make_design

    plans = {n: make_design(names, n, design) for n in counts}

    from sim.core.runs import create_run_dir, default_run_dir, write_manifest, write_parquet

    out_dir = out if out is not None else default_run_dir("runs", seed=seed)
    resumed = staging is not None
    if staging is None:
        staging = create_run_dir(out_dir, resumable=True)
        _write_plan(
            staging.dir,
            {
                **_tournament_options(
                    strategies, players, blocks, design, crn, seed, report, expansions,
                    fight_points, cards, set_, presets, "abyss",
                ),
                "sequential": sequential,
            },
        )  # fmt: skip
    with staging, _interrupt_note(staging, out_dir, "tournament"), \
            cluster_for(backend, scheduler, threads) as cluster:
        tables = load_tables(cards, set_, exp)
        seal_plan(staging, resumed, tables, presets, out_dir)
        import pandas as pd

        from reports.tournament import run_tournament, tournament_text
        from sim.core.runs import atomic_write_text
        from sim.core.schema import SCHEMA_VERSION, tournament_frames

        results = {}
        for n in counts:
            results[n] = run_tournament(
                tables,
                names,
                n_players=n,
                n_blocks=blocks,
                seed=seed,
                design=design,
                crn=crn,
                threads=threads,
                progress=sys.stderr.isatty(),
                sequential_alpha=sequential,
                store=_chunk_store(staging, f"{n}p"),
                client=cluster,
            )
        typed = [tournament_frames(r.seats, r.games) for r in results.values()]
        seats_df = pd.concat([t[0] for t in typed], ignore_index=True)
        games_df = pd.concat([t[1] for t in typed], ignore_index=True)
        write_parquet(seats_df, staging.dir / "seats.parquet")
        write_parquet(games_df, staging.dir / "games.parquet")
        for n, r in results.items():
            name = "aggregates.npz" if len(counts) == 1 else f"aggregates-{n}p.npz"
            r.aggregates.save(staging.dir / name)
        text = "".join(
            (f"== {n} players ==\n" if len(counts) > 1 else "") + tournament_text(r)
            for n, r in results.items()
        )
        atomic_write_text(staging.dir / "summary.txt", text)
        if "leviathan" in exp and fight_points:
            _fight_rollouts(tables, names, counts, seed, fight_points, staging.dir)
        write_manifest(
            staging.dir,
            command=["abyss-mc", *sys.argv[1:]],
            seed=seed,
            config={
                "command": "tournament",
                "fight_points": fight_points if "leviathan" in exp else 0,
                "n_players": counts[0] if len(counts) == 1 else counts,
                "strategies": names,
                "blocks": {n: r.n_blocks for n, r in results.items()}
                if len(counts) > 1
                else results[counts[0]].n_blocks,
                "blocks_budget": blocks,
                "tables": {n: p.n_tables for n, p in plans.items()}
                if len(counts) > 1
                else plans[counts[0]].n_tables,
                "n_games": int(len(games_df)),
                "design": design,
                "crn": crn,
                "sequential": sequential,
                "stopped_early": all(r.stopped_early for r in results.values()),
                "seed": seed,
                "expansions": list(exp),
                **data_options(cards, set_, presets, out_dir),
            },
            card_digest=card_digest(tables, cards, set_),
            timings={
                "total": time.perf_counter() - t_start,
                "runner": {str(n): r.timings for n, r in results.items()},
            },
            extra={"schema_version": SCHEMA_VERSION},
        )
        if report:
            from reports.balance import write_report

            write_report(staging.dir, staging.dir / "report")
        _finish(staging)
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
    if report:
        typer.echo(f"report: {out_dir / 'report' / 'report.html'}")


def _fight_rollouts(tables, names, counts, seed, n_points, run_dir: Path) -> None:
    """The tournament's fight-or-explore rollouts (its strategies but random; 4 players if
    played) for the report, into run_dir / FIGHT_DIR."""
    from reports.balance import FIGHT_DIR
    from reports.rollout import run_rollouts, save_rollouts

    n = 4 if 4 in counts else counts[0]
    lineup = [s for s in names if s.split(":")[0] != "random"] or names
    lineup = [lineup[i % len(lineup)] for i in range(max(n, len(lineup)))]
    found = run_rollouts(
        tables,
        n_players=n,
        strategies=lineup,
        seed=seed,
        n_points=n_points,
        replicates=16,
        rule_points=n_points,
        rule_replicates=4,
        progress=sys.stderr.isatty(),
    )
    (run_dir / FIGHT_DIR).mkdir()
    save_rollouts(found, run_dir / FIGHT_DIR)


@app.command()
@user_errors
def sweep(
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="KEY=V1,V2,...",
            help="A card-data or rules value to sweep, with its values; repeat for a grid "
            "(every combination), e.g. --set leviathan_game.hand_limit=8,10,12,14.",
        ),
    ] = None,
    fixed: Annotated[
        list[str] | None,
        typer.Option("--fixed", metavar="KEY=VALUE", help="An override for every point."),
    ] = None,
    players: PlayersOption = 4,
    games: Annotated[int, typer.Option("--games", help="Games per point (>= 2).")] = 20_000,
    seed: SeedOption = 1,
    strategies: StrategiesOption = "greedy",
    expansions: ExpansionsOption = "leviathan",
    cards: CardsOption = None,
    out: OutDirOption = None,
    report: Annotated[bool, typer.Option("--report/--no-report")] = True,
    threads: ThreadsOption = None,
    presets: PresetsOption = None,
    game: GameOption = "abyss",
    backend: Annotated[
        str, typer.Option("--backend", metavar="local|dask", help="As for simulate (Abyss).")
    ] = "local",
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", metavar="ADDRESS", help="A Dask scheduler.")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Finish an interrupted sweep: its finished points are kept, the rest is "
            "played with the sweep's own options.",
        ),
    ] = None,
) -> None:
    """Play the default and every point of a grid of card-data or rules values on the same
    seeds; report what changes, with intervals and multiple-comparison correction."""
    from reports.sweep import build_report, parse_sweep, run_sweep, sweep_text
    from sim.core.runs import (
        atomic_write_text,
        create_run_dir,
        default_run_dir,
        resume_run_dir,
        write_manifest,
        write_parquet,
    )

    if resume is not None:
        staging = resume_run_dir(resume)
        sweep_plan = _read_plan(staging.dir)
        set_, fixed, players = sweep_plan["set"], sweep_plan["fixed"], sweep_plan["players"]
        games, seed, strategies = sweep_plan["games"], sweep_plan["seed"], sweep_plan["strategies"]
        expansions, game = sweep_plan["expansions"], sweep_plan["game"]
        cards = Path(sweep_plan["cards"]) if sweep_plan["cards"] else None
        presets = Path(sweep_plan["presets"]) if sweep_plan["presets"] else None
    if backend not in ("local", "dask"):
        raise UserError(f"--backend must be local or dask; got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise UserError("--scheduler needs --backend dask")
    check_seed(seed)
    if games < 2:
        raise UserError(f"--games must be at least 2; got {games}")
    axes = parse_sweep(list(set_ or []))
    base = list(fixed or [])
    name = check_game(game)
    if name == "wilds":
        from reports.sweep import wilds_run

        if backend == "dask":
            raise UserError("--backend dask does not run Wilds sweeps; use --backend local")

        def load(setting):
            return _wilds_tables(cards, base + [f"{k}={v}" for k, v in setting.items()])

        run = wilds_run(games, seed)
    elif name == "conspiracy":
        from reports import conspiracy_cli

        conspiracy_cli.use_presets(presets)
        conspiracy_cli.check_expansions("" if expansions == "leviathan" else expansions)

        def load(setting):
            items = base + [f"{k}={v}" for k, v in setting.items()]
            return conspiracy_cli.load_tables(cards, items)

        probe = load({})
        conspiracy_cli.check_players(probe, players)
        lineup = conspiracy_cli.lineup_of(
            "key_hunter,pile_raider" if strategies == "greedy" else strategies, players
        )
        policies = conspiracy_cli.make_policies(lineup, players)

        def run(tables):
            from sim.conspiracy.fast import run_distributed, run_fast

            if backend == "dask":
                from sim.core.dask_backend import client

                with client(scheduler, threads) as c:
                    seats, game_cols, _ = run_distributed(
                        c, tables, n_players=players, n_games=games, seed=seed,
                        strategies=policies,
                    )  # fmt: skip
                return seats, game_cols
            seats, game_cols, _ = run_fast(
                tables, n_players=players, n_games=games, seed=seed, strategies=policies,
                threads=threads,
            )  # fmt: skip
            return seats, game_cols
    else:
        use_presets(presets)
        exp = parse_expansions(expansions)
        check_players(players, exp)
        lineup = parse_lineup(strategies, players)
        policies = abyss_policies(lineup)

        def load(setting):
            items = base + [f"{k}={v}" for k, v in setting.items()]
            return load_tables(cards, items, exp)

        def run(tables):
            from sim.abyss.fast import run_fast
            from sim.core.results import win_shares

            if backend == "dask":
                seats, game_cols, _, _ = _dask_runner(scheduler, threads)(
                    tables, n_players=players, n_games=games, seed=seed, strategies=policies,
                    per_game=True, chunk_size=None,
                )  # fmt: skip
            else:
                seats, game_cols, _, _ = run_fast(
                    tables, n_players=players, n_games=games, seed=seed, strategies=policies,
                    threads=threads,
                )  # fmt: skip
            seats["win"] = win_shares(seats["rank"].reshape(-1, players)).ravel()
            return seats, game_cols

    if resume is None:
        out_dir = out if out is not None else default_run_dir("runs", seed=seed)
        staging = create_run_dir(out_dir, resumable=True)
        _write_plan(
            staging.dir,
            {
                "set": list(set_ or []),
                "fixed": base,
                "players": players,
                "games": games,
                "seed": seed,
                "strategies": strategies,
                "expansions": expansions,
                "game": name,
                "cards": str(cards) if cards is not None else None,
                "presets": str(presets) if presets is not None else None,
            },
        )
    else:
        out_dir = resume
    with staging, _interrupt_note(staging, out_dir, "sweep"):
        seal_plan(staging, resume is not None, load({}), presets, out_dir)
        result = run_sweep(
            load,
            run,
            axes,
            progress=lambda text: typer.echo(text, err=True),
            store=_chunk_store(staging),
        )
        command = " ".join(["abyss-mc", *sys.argv[1:]])
        rep, diffs = build_report(result, name, command)
        write_parquet(result.points.astype(str), staging.dir / "points.parquet")
        write_parquet(result.seats, staging.dir / "seats.parquet")
        write_parquet(result.games, staging.dir / "games.parquet")
        write_parquet(diffs, staging.dir / "differences.parquet")
        text = sweep_text(result, diffs)
        atomic_write_text(staging.dir / "summary.txt", text)
        if report:
            rep.write(staging.dir / "report")
        write_manifest(
            staging.dir,
            command=["abyss-mc", *sys.argv[1:]],
            seed=seed,
            config={
                "command": "sweep",
                "game": name,
                "axes": {k: list(v) for k, v in axes},
                "fixed": base,
                "n_players": players,
                "n_games": games,
                "strategies": strategies,
                "expansions": expansions,
                **data_options(cards, base, presets, out_dir),
            },
            card_digest=card_digest(load({}), cards, base),
            timings={},
            extra={"digests": run_digests(load({}), presets)},
        )
        _finish(staging)
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")


@app.command()
@user_errors
def plan(
    effect: Annotated[
        float,
        typer.Option(
            "--effect",
            help="The difference to detect: in win share (0.01 = one "
            "point of win rate) or, with --metric ip, in IP.",
        ),
    ] = 0.01,
    strategies: Annotated[
        str, typer.Option("--strategies", metavar="A,B", help="The two strategies to compare.")
    ] = "greedy,leviathan_hunter",
    players: PlayersOption = 4,
    metric: Annotated[str, typer.Option("--metric", metavar="win|ip")] = "win",
    alpha: Annotated[float, typer.Option("--alpha", help="Two-sided test level.")] = 0.05,
    power: Annotated[float, typer.Option("--power", help="Chance to detect the effect.")] = 0.8,
    pilot_blocks: Annotated[
        int, typer.Option("--pilot-blocks", help="Blocks of the pilot tournament, per mode.")
    ] = 400,
    seed: SeedOption = 1,
    expansions: ExpansionsOption = "leviathan",
    cards: CardsOption = None,
    set_: SetOption = None,
    presets: PresetsOption = None,
    game: GameOption = "abyss",
) -> None:
    """How many games a comparison needs, with and without common random numbers, and how long
    they take on this machine (from a pilot tournament)."""
    check_seed(seed)
    if effect <= 0:
        raise UserError(f"--effect must be positive; got {effect}")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise UserError("--alpha and --power must be between 0 and 1")
    if metric not in ("win", "ip"):
        raise UserError(f"--metric must be win or ip; got {metric!r}")
    if pilot_blocks < 10:
        raise UserError(f"--pilot-blocks must be at least 10; got {pilot_blocks}")
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    if len(names) != 2 or names[0] == names[1]:
        raise UserError("--strategies must name two different strategies: A,B")
    if check_game(game) == "conspiracy":
        from reports import conspiracy_cli

        conspiracy_cli.use_presets(presets)
        conspiracy_cli.check_expansions("" if expansions == "leviathan" else expansions)
        tables = conspiracy_cli.load_tables(cards, set_)
        conspiracy_cli.check_players(tables, players)
        from strategies.conspiracy import make_policy
    else:
        use_presets(presets)
        exp = parse_expansions(expansions)
        check_players(players, exp)
        tables = load_tables(cards, set_, exp)
        from strategies.abyss import make_policy
    for name in names:
        make_policy(name)
    from reports.plan import make_plan, plan_text

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
        game=game,
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


@app.command("report")
@user_errors
def report_(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run directory.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help="Where to write (default: RUN_DIR/report)."),
    ] = None,
) -> None:
    """Write the balance report of a run: report.html (self-contained), report.md, PNGs.

    For a rollout run (`abyss-mc ev rollout`), the "Fight or explore?" page."""
    from reports.conspiracy_cli import is_conspiracy_run
    from reports.rollout import is_rollout_run

    if _run_game(run_dir) == "wilds":
        import pandas as pd

        from reports.wilds import build_report as wilds_report

        manifest = json.loads((Path(run_dir) / "manifest.json").read_text())
        config = manifest.get("config", {})
        tables = _wilds_tables(
            Path(config["cards"]) if config.get("cards") else None, config.get("set")
        )
        frame = pd.read_parquet(Path(run_dir) / "crystals.parquet")
        command = " ".join(manifest.get("command") or [])
        paths = wilds_report(frame, tables, command).write(
            out if out is not None else Path(run_dir) / "report"
        )
    elif is_conspiracy_run(run_dir):
        from reports.conspiracy_report import write_report as write_conspiracy

        paths = write_conspiracy(run_dir, out)
    elif is_rollout_run(run_dir):
        from reports.fight_report import write_fight_page
        from reports.rollout import run_tables

        paths = write_fight_page(run_dir, out, run_tables(run_dir))
    else:
        from reports.balance import write_report

        paths = write_report(run_dir, out)
    typer.echo(f"report: {paths['html']}")
    typer.echo(f"markdown: {paths['markdown']}")


from reports.ev_cli import ev_app  # noqa: E402

app.add_typer(ev_app, name="ev")


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    if hasattr(value, "tolist"):  # numpy array
        return value.tolist()
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return str(value)


def main() -> None:
    """Console-script entry point (``abyss-mc``)."""
    # SIGTERM (kill, a batch scheduler) unwinds like Ctrl-C, so a run being written is removed.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    app(prog_name="abyss-mc")


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    main()
