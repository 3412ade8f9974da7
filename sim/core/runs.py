"""Run directories: every command that writes results writes them into a new directory of its own.

A run directory appears only when it is complete. Work is written into a hidden sibling,
``.<name>.partial-<pid>``, which `Staging.commit` renames to the final name in one step; if the run
fails or is interrupted, the partial directory is removed. A directory that exists under its final
name therefore always holds a finished run, and no run ever overwrites another::

    with create_run_dir(out) as staging:          # refuses if `out` exists
        write_parquet(seats, staging.dir / "seats.parquet")
        write_manifest(staging.dir, command=..., seed=..., config=..., card_digest=...,
                       timings=...)
        staging.commit()                          # `out` now exists, complete

Leaving the ``with`` block without calling `commit` (normally or by an exception, including
KeyboardInterrupt) removes the partial directory, except a resumable run's once it holds a
finished chunk: completed work is never deleted (see `Staging`).

Every run holds a lock on ``.<name>.lock`` beside its output (`fcntl.flock`, released by the
kernel when the process ends, even by a kill), so a second run on the same ``--out`` stops at once
saying the output is in use, and leaves the first unharmed.

Only the standard library is imported at module level; pandas/pyarrow are imported by
`write_parquet` when it is called.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import datetime as _dt
import errno
import importlib.metadata
import json
import os
import platform
import secrets
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar

from sim.core.errors import ClusterLost, UserError
from sim.core.interrupts import raise_if_interrupted

if TYPE_CHECKING:
    import pandas as pd

MANIFEST_NAME = "manifest.json"


def read_table(path: Path | str, columns: list[str] | None = None):
    """A run's Parquet table (pandas), or one line naming the file and what is wrong with it: the
    one guard every report reads a run's tables through (docs/reliability.md)."""
    import pandas as pd

    path = Path(path)
    try:
        return pd.read_parquet(path, columns=columns)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file; the run is incomplete") from None
    except Exception as exc:  # noqa: BLE001  (pyarrow raises its own kinds: ArrowInvalid, ...)
        text = " ".join(str(exc).split())
        text = text if len(text) <= 160 else text[:159].rstrip() + "..."
        raise UserError(f"{path}: damaged or truncated, not a readable table ({text}); make "
                        "the run again (manifest.json has its command)") from None


class RunDirError(UserError):
    """The output directory cannot be used (it exists, or cannot be created)."""


class Staging:
    """A run directory being written. Write into `dir`; `commit` publishes it as `path`.

    A *resumable* staging (`create_run_dir(..., resumable=True)`, `resume_run_dir`) lives in
    ``.<name>.partial`` and is kept when the run is interrupted (Ctrl-C, SIGTERM, a lost Dask
    cluster; a killed process leaves it anyway) or fails (a full disk, a corrupt chunk) once it
    holds a finished chunk (a ``*.done`` marker, `sim.core.chunks`), so that ``--resume <name>``
    can finish it."""

    def __init__(self, path: Path, partial: Path, resumable: bool = False, lock=None) -> None:
        self.path = path
        self.dir = partial
        self.resumable = resumable
        self.committed = False
        self.aborted = False
        self._lock = lock

    def commit(self, scaffolding: tuple[str, ...] = ()) -> Path:
        """Atomically rename the partial directory to its final name and return that name; then
        remove the `scaffolding` files or folders (a resumable run's plan and chunks) from it."""
        if self.committed:
            return self.path
        if self.aborted:
            raise RuntimeError("commit() after abort()")
        raise_if_interrupted()  # a Ctrl-C the run swallowed never publishes it
        _remove_temp_files(self.dir)
        try:
            _rename_noreplace(self.dir, self.path)
        except FileExistsError:
            self.abort()
            raise RunDirError(_exists_message(self.path)) from None
        except OSError as exc:
            self.abort()
            raise RunDirError(f"cannot create {self.path}: {exc.strerror or exc}") from None
        self.committed = True
        self.release()
        for name in scaffolding:
            target = self.path / name
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            else:
                _unlink_quietly(target)
        return self.path

    def abort(self) -> None:
        """Remove the partial directory (no-op after `commit`)."""
        if self.committed or self.aborted:
            return
        self.aborted = True
        shutil.rmtree(self.dir, ignore_errors=True)
        self.release()

    def release(self) -> None:
        """Give up the output's lock (the kernel also releases it when the process ends)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def has_finished_chunks(self) -> bool:
        return self.resumable and any(self.dir.rglob("*.done"))

    def finished_chunks(self) -> int:
        """The finished chunks kept (markers ``*.done``, `sim.core.chunks`; none quarantined)."""
        if not self.resumable:
            return 0
        return sum(1 for p in self.dir.rglob("*.done") if "quarantine" not in p.parts)

    def __enter__(self) -> Staging:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.committed:
            return
        interrupted = exc_type is not None and issubclass(
            exc_type, (KeyboardInterrupt, SystemExit, ClusterLost)
        )
        if self.resumable and exc_type is not None and (interrupted or self.has_finished_chunks()):
            self.release()  # kept for --resume: completed work is never deleted
            return
        self.abort()


class OutputLock:
    """An exclusive lock on ``.<name>.lock`` beside a run's output, held for the run's life.

    `fcntl.flock` is released by the kernel when the process ends (a kill included), so a stale
    lock file never blocks a later run; the file's text names the holder's pid for the message.
    Where `fcntl` does not exist (Windows), runs are not locked."""

    #: the locks this process holds (`release_all`: a command refused in one line gives them up)
    held: ClassVar[set] = set()

    def __init__(self, path: Path) -> None:
        self.file = path.parent / f".{path.name}.lock"
        self.fd: int | None = None

    @classmethod
    def release_all(cls) -> None:
        """Give up every lock still held: a command that stops with a user error (a check after
        `--resume` took the lock, before the run began) leaves no `.NAME.lock` behind."""
        for lock in list(cls.held):
            lock.release()

    @classmethod
    def close_inherited(cls) -> None:
        """In a forked child (a report's chart worker): close its copies of the locks' files and
        forget them. The parent keeps its locks (a flock belongs to the open file, which the
        parent still holds), and the child holds none: a child left behind by a killed parent
        once kept the run locked, and `--resume` was refused."""
        for lock in list(cls.held):
            if lock.fd is not None:
                os.close(lock.fd)
        cls.held.clear()

    def acquire(self, output: Path) -> OutputLock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            return self
        fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise RunDirError(
                f"output {output} is in use by a running process (pid {holder}); wait for it "
                "to finish or choose another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self.fd = fd
        OutputLock.held.add(self)
        return self

    def release(self) -> None:
        OutputLock.held.discard(self)
        if self.fd is not None:
            _unlink_quietly(self.file)
            os.close(self.fd)  # closing releases the flock
            self.fd = None


def create_run_dir(path: Path | str, resumable: bool = False) -> Staging:
    """Start writing a new run directory at `path`; refuse if anything exists there already.

    Parent directories are created as needed. Raises `RunDirError` with a one-line message.
    A resumable run is staged in ``.<name>.partial`` (see `Staging`).
    """
    path = Path(path)
    if path == Path("."):  # `--out ''` (an unset variable) or `--out .`
        raise RunDirError("--out names the current folder (empty?): give a new folder's name")
    if path.exists() or path.is_symlink():
        raise RunDirError(_exists_message(path))
    parent = path.parent
    lock = None
    try:
        parent.mkdir(parents=True, exist_ok=True)
        lock = OutputLock(path).acquire(path)
        if resumable:
            partial = partial_dir(path)
            if partial.exists():
                raise RunDirError(
                    f"an interrupted run of {path} is waiting in {partial}; finish it with "
                    f"--resume {path}, or remove {partial}"
                )
            partial.mkdir()
        else:
            partial = _make_partial_dir(parent, f".{path.name}.partial-{os.getpid()}")
    except RunDirError:
        if lock is not None:
            lock.release()
        raise
    except OSError as exc:
        if lock is not None:
            lock.release()
        raise RunDirError(f"cannot create {path}: {exc.strerror or exc}") from None
    return Staging(path, partial, resumable, lock)


def partial_dir(path: Path | str) -> Path:
    """Where a resumable run of `path` is staged."""
    path = Path(path)
    return path.parent / f".{path.name}.partial"


def resume_run_dir(path: Path | str) -> Staging:
    """The staging of an interrupted resumable run of `path`, to finish it."""
    path = Path(path)
    if path.name.startswith(".") and path.name.endswith(".partial") and len(path.name) > 9:
        run = path.parent / path.name[1:-len(".partial")]  # the staging handed over, not the run
        raise RunDirError(f"{path} is the staging of an unfinished run: resume it with --resume "
                          f"{run}")  # fmt: skip
    if path.exists():
        raise RunDirError(f"{path} is already complete; nothing to resume")
    partial = partial_dir(path)
    lock = OutputLock(path).acquire(path)
    if not partial.is_dir():
        lock.release()
        raise RunDirError(f"no interrupted run of {path} to resume (no {partial})")
    return Staging(path, partial, resumable=True, lock=lock)


def default_run_dir(root: Path | str = "runs", seed: int | None = None) -> Path:
    """A new directory name under `root`: ``<UTC timestamp>-seed<seed>``, made unique with ``-2``,
    ``-3``, ... if a run with the same name exists (e.g. two runs started in the same second)."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{stamp}-seed{seed}" if seed is not None else stamp
    root = Path(root)
    candidate = root / base
    n = 1
    while candidate.exists():
        n += 1
        candidate = root / f"{base}-{n}"
    return candidate


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write `data` to `path` via a temporary file in the same directory and `os.replace`, so
    readers see either the old file or the complete new one."""
    path = Path(path)
    fd, tmp = _open_temp_file(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def atomic_write_text(path: Path | str, text: str) -> None:
    """`atomic_write_bytes` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


def write_parquet(df: pd.DataFrame, path: Path | str) -> None:
    """Write `df` as Parquet with pyarrow (index dropped), atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    table = pa.Table.from_pandas(df, preserve_index=False)
    fd, tmp = _open_temp_file(path)
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def write_manifest(
    dir: Path | str,
    *,
    command: list[str],
    seed: int,
    config: Mapping[str, Any],
    card_digest: str,
    timings: Mapping[str, float],
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``manifest.json`` describing a run: what was asked, with which data and software.

    Fields: abyss_mc_version, created (UTC, ISO 8601), command, seed, config, card_digest,
    timings (seconds), versions (python, numpy, numba, pandas, pyarrow), platform, and any
    `extra` fields. Values that JSON cannot hold directly (paths, tuples, numpy scalars) are
    converted. Returns the manifest's path.
    """
    manifest: dict[str, Any] = {
        "abyss_mc_version": _dist_version("abyss-mc"),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "command": list(command),
        "seed": seed,
        "config": dict(config),
        "card_digest": card_digest,
        "timings": dict(timings),
        "versions": {
            "python": platform.python_version(),
            **{name: _dist_version(name) for name in ("numpy", "numba", "pandas", "pyarrow")},
        },
        "platform": {
            "system": platform.platform(),
            "machine": platform.machine(),
            "python_implementation": platform.python_implementation(),
            "cpu_count": os.cpu_count(),
        },
    }
    if extra:
        manifest.update(extra)
    path = Path(dir) / MANIFEST_NAME
    atomic_write_text(path, json.dumps(manifest, indent=2, default=_json_default) + "\n")
    return path


# --- helpers ---------------------------------------------------------------------------------


def _exists_message(path: Path) -> str:
    return f"output directory {path} already exists; choose a new --out"


def _dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _json_default(value: Any) -> Any:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, set | frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return value.item()
    if hasattr(value, "tolist") and callable(value.tolist):  # numpy array
        return value.tolist()
    raise TypeError(f"manifest value of type {type(value).__name__} is not JSON serialisable")


def _make_partial_dir(parent: Path, prefix: str) -> Path:
    """A new directory `parent/prefix[-n]`, created with the usual permissions (umask), unlike
    `tempfile.mkdtemp` which makes it private."""
    for n in range(1, 10_000):
        candidate = parent / (prefix if n == 1 else f"{prefix}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(errno.EEXIST, "no free partial directory name", str(parent / prefix))


def _open_temp_file(path: Path) -> tuple[int, str]:
    """Create a new temporary file next to `path` (mode 0o666 minus umask, like a normal file)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(path))


def _remove_temp_files(directory: Path) -> None:
    """Temporary files (``*.tmp``) left by writes that a kill interrupted: never results."""
    for tmp in directory.rglob("*.tmp"):
        _unlink_quietly(tmp)


def _unlink_quietly(path: str | Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


_RENAME_NOREPLACE = 1
_AT_FDCWD = -100
_renameat2: Any = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        _renameat2 = _libc.renameat2
        _renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
        _renameat2.argtypes += [ctypes.c_uint]
        _renameat2.restype = ctypes.c_int
    except (OSError, AttributeError):  # no glibc >= 2.28: fall back to check-then-rename
        _renameat2 = None


def _rename_noreplace(src: Path, dst: Path) -> None:
    """Rename `src` to `dst`, raising FileExistsError if `dst` exists.

    Plain `os.rename` would silently replace an *empty* directory at `dst`; on Linux this uses
    ``renameat2(RENAME_NOREPLACE)`` so the check and the rename are one step.
    """
    if _renameat2 is not None:
        rc = _renameat2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE)
        if rc == 0:
            return
        err = ctypes.get_errno()
        if err == errno.EEXIST:
            raise FileExistsError(err, os.strerror(err), str(dst))
        if err not in (errno.EINVAL, errno.ENOSYS):  # EINVAL/ENOSYS: unsupported here, fall back
            raise OSError(err, os.strerror(err), str(dst))
    if dst.exists() or dst.is_symlink():
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(dst))
    os.rename(src, dst)
