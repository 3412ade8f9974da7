"""The life of a run directory, written once for every command and every game.

A command makes one `Run`, new or resumed, and works inside it::

    run = Run.start("tournament", out, seed, plan)        # or Run.resume("tournament", out)
    with run:
        run.seal(tables, presets)                          # what the run is made of
        client = run.cluster(backend, scheduler, threads)  # a Dask client, or None
        ... play, each finished chunk into run.store("4p") ...
        ... write the results into run.dir ...
        run.write_manifest(seed, config, card_digest=..., timings=...)
        run.finish()                                       # published: `out` exists, complete

What it guarantees (docs/reliability.md): the results appear under `out` only when complete (one
atomic rename, `sim.core.runs.Staging`); a resumable run keeps its plan (`plan.json`: the options,
then the digests of its card data, presets and source) and its finished chunks
(`sim.core.chunks`) in ``.<out>.partial`` through Ctrl-C, SIGTERM, a kill, a full disk or a lost
Dask cluster, and says in one line how to finish it; ``--resume`` refuses a run whose data or
code changed since.

Only the standard library at import; the engines, numpy and Dask load when a run asks for them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from sim.core.errors import ClusterLost, UserError, one_line

PLAN_NAME = "plan.json"
CHUNKS_NAME = "chunks"


class Run:
    """One run directory: its `command` ("tournament", ...), final path `out`, staging, `plan`
    (the options it was started with) and whether it was `resumed`."""

    def __init__(self, command: str, out: Path, staging, plan: dict, resumed: bool) -> None:
        self.command, self.out, self.staging = command, Path(out), staging
        self.plan, self.resumed = plan, resumed
        self._stack = contextlib.ExitStack()
        self._client = None

    @classmethod
    def start(cls, command: str, out: Path | None, seed: int, plan: dict | None = None, *,
              resumable: bool = True) -> Run:  # fmt: skip
        """A new run at `out` (default: a new ``runs/<UTC time>-seed<seed>``), refused if it
        exists; a resumable one records `plan` at once."""
        from sim.core.runs import create_run_dir, default_run_dir

        out = out if out is not None else default_run_dir("runs", seed=seed)
        staging = create_run_dir(out, resumable=resumable)
        if resumable:
            write_plan(staging.dir, plan or {})
        return cls(command, out, staging, dict(plan or {}), resumed=False)

    @classmethod
    def resume(cls, command: str, out: Path) -> Run:
        """The interrupted run of `out`, with the plan it was started with."""
        from sim.core.runs import resume_run_dir

        staging = resume_run_dir(out)
        try:
            plan = read_plan(staging.dir)
        except UserError:  # refused: the staging stays as it was, its lock is given up
            staging.release()
            raise
        return cls(command, out, staging, plan, resumed=True)

    @property
    def dir(self) -> Path:
        """Where the results are written until `finish`."""
        return self.staging.dir

    def __enter__(self) -> Run:
        self._stack.enter_context(self.staging)
        self._stack.enter_context(InterruptNote(self.staging, self.out, self.command))
        return self

    def __exit__(self, *exc) -> bool:
        return self._stack.__exit__(*exc)

    def seal(self, tables: Any, presets: Path | None) -> None:
        """A new resumable run's plan records its digests; a resumed run's must still match
        them, or the run is refused (its finished chunks stay on disk)."""
        if not self.staging.resumable:
            return
        from sim.core.provenance import check_unchanged

        digests = run_digests(tables, presets)
        plan = read_plan(self.dir)
        # a run killed between writing its plan and sealing it has played nothing: it seals now
        unsealed = "digests" not in plan and not any(self.dir.rglob("*.done"))
        if self.resumed and not unsealed:
            check_unchanged(plan.get("digests"), digests, self.out)
            self.check_chunks(plan)
        else:
            write_plan(self.dir, {**plan, "digests": digests})

    def check_chunks(self, plan: dict) -> None:
        """Refuse (one line, before anything plays) a stored chunk made by another plan: one
        copied in from another run would be merged as this run's games."""
        from sim.core.chunks import foreign

        # a plan of this version says so: every chunk it stores carries the plan's stamp
        marker = foreign(self.dir / CHUNKS_NAME, plan_digest(plan), bool(plan.get(STAMPED)))
        if marker is not None:
            where = marker.relative_to(self.dir)
            made = ("carries no plan stamp, as no chunk of this run does" if "plan" not in
                    json.loads(marker.read_text()) else "was made by another run's plan")
            raise UserError(f"cannot resume {self.out}: the stored chunk {where} {made} "
                            f"(copied from another run?); take it out of {self.dir}, or start "
                            "a new run")  # fmt: skip

    def cluster(self, backend: str, scheduler: str | None, workers: int | None):
        """A Dask client for `--backend dask` (connected once, closed when the run ends), else
        None."""
        if backend != "dask":
            return None
        if self._client is None:
            from sim.core.dask_backend import client

            self._client = self._stack.enter_context(client(scheduler, workers))
        return self._client

    def store(self, part: str = ""):
        """The chunk store of a resumable run (`part`: one of its stages), else None."""
        if not self.staging.resumable:
            return None
        from sim.core.chunks import ChunkStore

        stamp = plan_digest(read_plan(self.dir))  # each chunk names the plan that made it
        return ChunkStore(self.dir / CHUNKS_NAME / part, stamp=stamp)

    def write_manifest(self, seed: int, config: dict, **fields) -> None:
        """The run's manifest.json (`sim.core.runs.write_manifest`), with the command line."""
        from sim.core.runs import write_manifest

        write_manifest(self.dir, command=["abyss-mc", *sys.argv[1:]], seed=seed, config=config,
                       **fields)  # fmt: skip

    def finish(self) -> None:
        """Publish the finished run, then remove its scaffolding (the chunks and the plan). In
        this order, a kill in between leaves a complete run with scaffolding in it, never a lost
        one."""
        self.staging.commit(scaffolding=(CHUNKS_NAME, PLAN_NAME))


class InterruptNote:
    """On Ctrl-C or SIGTERM during a resumable run: say how to finish it, exit 130. On a lost
    Dask cluster: say so, keep the staging (even before its first chunk), say how to finish. On
    a failure (a full disk, an unreadable file) once chunks are finished: one line that names
    the problem, says the finished chunks are kept and how to finish the run."""

    told = False  # a run's interruption has been explained to the user (`cli.app.main`)

    def __init__(self, staging, out_dir: Path, command: str = "simulate") -> None:
        self.staging, self.out_dir, self.command = staging, out_dir, command

    def __enter__(self) -> InterruptNote:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        from sim.core.interrupts import exit_code, received

        if exc_type is None or self.staging.committed:
            return False
        surfaced = received() and not issubclass(exc_type, (KeyboardInterrupt, SystemExit,
                                                             ClusterLost))  # fmt: skip
        if surfaced:  # the signal raised as another error: Python 3.11 wraps one raised in a
            # class's `__set_name__` (matplotlib's first import, in the report) in RuntimeError
            exc_type = SystemExit
        if not self.staging.resumable:
            if issubclass(exc_type, ClusterLost):
                raise UserError(f"{exc}; nothing was kept (this run is short): run it again")
            if issubclass(exc_type, (KeyboardInterrupt, SystemExit)) and received():
                print("interrupted: nothing was kept (this command does not resume): run it "
                      "again", file=sys.stderr, flush=True)  # fmt: skip
                InterruptNote.told = True
                if surfaced or issubclass(exc_type, KeyboardInterrupt):
                    raise SystemExit(exit_code()) from None
            return False
        finish = f"`abyss-mc {self.command} --resume {self.out_dir}`"
        if issubclass(exc_type, ClusterLost):
            kept = self.staging.finished_chunks()
            raise ClusterLost(  # still a ClusterLost: the staging keeps itself
                f"{exc}; the {kept} finished chunk(s) are kept in {self.staging.dir}: finish the "
                f"run with {finish} (here, or with --backend dask on a cluster)"
            ) from None
        if issubclass(exc_type, (KeyboardInterrupt, SystemExit)):
            print(f"interrupted: finish the run with {finish}", file=sys.stderr, flush=True)
            InterruptNote.told = True  # this line is the message (cli.app.main)
            if surfaced or issubclass(exc_type, KeyboardInterrupt):
                raise SystemExit(exit_code()) from None
        elif issubclass(exc_type, OSError) and self.staging.has_finished_chunks():
            where = f" ({exc.filename})" if exc.filename else ""
            raise UserError(
                f"{exc.strerror or one_line(exc)}{where}; the finished chunks are kept in "
                f"{self.staging.dir}: fix the problem, then finish the run with {finish}"
            ) from None
        elif issubclass(exc_type, MemoryError) and self.staging.has_finished_chunks():
            raise UserError(
                f"not enough memory for this run; the finished chunks are kept in "
                f"{self.staging.dir}: free memory (or use --threads 1), then finish the run "
                f"with {finish}"
            ) from None
        return False


# --- the plan and what a run is made of -------------------------------------------------------


#: the key of a plan's own digest: a plan edited after the run started is refused on resume
PLAN_DIGEST = "plan_digest"
#: a plan's key saying every chunk of its run names the plan (a marker without it was copied in)
STAMPED = "chunks_stamped"


def plan_digest(plan: dict) -> str:
    """SHA-256 of the plan (without its digest), its keys sorted."""
    import hashlib

    body = {k: v for k, v in plan.items() if k != PLAN_DIGEST}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def write_plan(directory: Path, plan: dict) -> None:
    """The plan, with its digest (a run's seed, counts, line-up or points are what made its
    chunks: edited between an interrupt and `--resume`, they would label or add other games)."""
    from sim.core.runs import atomic_write_text

    plan = {**plan, STAMPED: True}
    plan[PLAN_DIGEST] = plan_digest(plan)
    atomic_write_text(directory / PLAN_NAME, json.dumps(plan, indent=1) + "\n")


def read_plan(directory: Path) -> dict:
    """The plan as the run wrote it; refused in one line when it was changed since (a plan of an
    older version, without a digest, is read as it is)."""
    try:
        plan = json.loads((directory / PLAN_NAME).read_text())
    except (OSError, ValueError):
        raise UserError(f"{directory} has no readable {PLAN_NAME}; it cannot resume") from None
    if not isinstance(plan, dict):
        raise UserError(f"{directory / PLAN_NAME} is not a run's plan; it cannot resume")
    made = plan.pop(PLAN_DIGEST, None)
    if made is not None and made != plan_digest(plan):
        raise UserError(f"{directory / PLAN_NAME} was changed after the run started (its digest "
                        "does not match): restore it, or start a new run; the finished chunks "
                        "are kept")  # fmt: skip
    return plan


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


def run_digests(tables: Any, presets: Path | None) -> dict[str, str]:
    """What a run is made from (`sim.core.provenance`): its card data and rules options, the
    presets (every game's built-in ones and --presets), and the engines' and strategies'
    source."""
    import games
    import sim
    import strategies
    from sim.core import provenance as pv

    games_dir = Path(games.__file__).parent
    preset_files = pv.files_digest(games_dir.glob("*/strategies/*.toml"), games_dir)
    if presets is not None:
        preset_files += pv.files_digest([presets], presets.parent)
    source = [Path(sim.__file__).parent, Path(strategies.__file__).parent, games_dir]
    return {
        pv.CARDS: card_digest(tables, None, None),
        pv.PRESETS: hashlib.sha256(preset_files.encode()).hexdigest(),
        pv.SOURCE: pv.source_digest(source),
    }


def schema_entry(spec) -> dict:
    """The manifest's ``schema_version``, for a game that declares its result columns."""
    if spec.results_module is None:
        return {}
    from importlib import import_module

    return {"schema_version": import_module(spec.results_module).SCHEMA_VERSION}


def data_paths(cards, set_, presets) -> dict:
    """The card data and presets of a run, as its plan and manifest record them."""
    return {
        "cards": str(cards) if cards is not None else None,
        "set": list(set_ or []),
        "presets": str(presets) if presets is not None else None,
    }


def data_args(cards, set_, presets) -> list[str]:
    """The options that give a recorded command its card data and presets."""
    args = ["--cards", str(cards)] if cards is not None else []
    for item in set_ or []:
        args += ["--set", item]
    return args + (["--presets", str(presets)] if presets is not None else [])


def data_options(cards, set_, presets, out_dir) -> dict:
    """The card data, presets and output of a run, as its manifest records them."""
    return {**data_paths(cards, set_, presets), "out": str(out_dir)}


def recorded_paths(options: dict) -> tuple[Path | None, Path | None]:
    """The `--cards` and `--presets` paths a plan or manifest recorded (`data_paths`)."""
    cards, presets = options.get("cards"), options.get("presets")
    return (Path(cards) if cards else None), (Path(presets) if presets else None)


# --- chunks of one array ----------------------------------------------------------------------


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
