"""numba, configured for this project: import `njit` and `prange` from here, never from numba.

numba's on-disk cache (`cache=True`) is keyed on the file of the function being compiled, so an
edit to a callee in another file can leave a stale compiled caller (numba-notes, trap 7). Here the
cache directory is keyed by a digest of every Python source file of the engine packages (`sim`,
`strategies`): any edit starts a fresh cache, and the kernels can live in several readable files.
A user-set ``NUMBA_CACHE_DIR`` is respected.

LLVM optimises at level 1 unless ``NUMBA_OPT`` says otherwise: the kernels run as fast as at
levels 2 and 3 (within 1-2%, measured) and the cold compile takes 10-15 s less (docs/decisions.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
from pathlib import Path

_OPT_CHOSEN_BY_USER = "NUMBA_OPT" in os.environ
os.environ.setdefault("NUMBA_OPT", "1")  # before numba reads its configuration

import numba  # noqa: E402
from numba import get_num_threads, get_thread_id, njit, prange, set_num_threads  # noqa: E402, F401

_ROOT = Path(__file__).resolve().parents[2]
#: every engine and compiled policy: a game's report and commands compile nothing, so editing
#: them keeps the cache
_PACKAGES = ("sim", "strategies", "games/*/engine", "games/*/strategies")


def source_digest() -> str:
    """SHA-256 (16 hex digits) of the engine's Python sources, in a stable order."""
    h = hashlib.sha256()
    for package in _PACKAGES:
        for path in sorted(p for d in sorted(_ROOT.glob(package)) for p in d.rglob("*.py")):
            h.update(path.relative_to(_ROOT).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _cache_dir() -> Path:
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    base = Path(home)
    if not os.access(base if base.exists() else base.parent, os.W_OK):
        base = Path(tempfile.gettempdir())
    return base / "abyss-mc" / "numba" / source_digest()


# numba re-reads its NUMBA_* variables before every compile when they changed since it last read
# them, and then resets what this module sets (the cache directory back to "", next to the
# sources, where a stale caller can survive an edit: numba-notes, trap 7). Read them now, so that
# NUMBA_OPT set above (also when numba was imported before this module) counts as read.
numba.core.config.reload_config()
if not _OPT_CHOSEN_BY_USER:  # also when numba was imported before this module
    numba.config.OPT = numba.config._process_opt_level("1")

def cache_dir() -> str:
    """The directory of numba's cache: the user's NUMBA_CACHE_DIR, else the one for these
    sources (not `numba.config.CACHE_DIR`, which numba resets to "" when it reloads its
    configuration after a NUMBA_ variable changed, as tests do)."""
    return os.environ.get("NUMBA_CACHE_DIR") or str(_cache_dir())


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = cache_dir()


def njit_ints(fn):
    """`njit(cache=True)`, compiled once: for a workspace (a C-contiguous int32 array) and int64
    arguments. Callers' other integers (int32 array items, literals, booleans) are converted at
    the call, so the body is not compiled again for each mix of integer types (numba-notes, traps
    2 and 3). It compiles (or loads from the cache) when its module is imported, one process at
    a time (`_one_at_a_time`)."""
    with _one_at_a_time(fn):
        return njit(_ints_signature(fn), cache=True)(fn)


_LOCKS: list[Path] = []


@contextlib.contextmanager
def _one_at_a_time(fn):
    """Around a compile at import: the processes that import a module at once on a cold cache
    (a command's background compiles, the test workers) compile each function in turn, the
    first for all (the others wait, then load it from the cache), not each for itself. A
    blocking `flock` on a file in the cache directory, released when the block ends or the
    process dies; without `fcntl` (Windows) or a writable cache, each compiles for itself."""
    handle = _locked(fn)
    try:
        yield
    finally:
        if handle is not None:
            handle.close()  # (closing releases the flock)


def _locked(fn):
    """The open, locked lock file of `fn`, or None where no lock can be taken (no `fcntl`, a
    cache that cannot hold the file, a file system that refuses `flock`)."""
    try:
        import fcntl
    except ImportError:
        return None
    if not _LOCKS:
        _LOCKS.append(Path(cache_dir()) / "locks")
    try:
        _LOCKS[0].mkdir(parents=True, exist_ok=True)
        handle = open(_LOCKS[0] / f"{fn.__module__}.{fn.__qualname__}", "a")
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
    except OSError:
        handle.close()
        return None
    except BaseException:  # a Ctrl-C or SIGTERM while waiting: no file left open
        handle.close()
        raise
    return handle


def _ints_signature(fn) -> str:
    return "(int32[::1]" + ", int64" * (fn.__code__.co_argcount - 1) + ")"


def njit_closure(fn=None, *, ints: bool = False, **options):
    """`njit(cache=True)` for a kernel made by a factory (a closure over other kernels and
    constants: `sim.core.driver`, `sim.core.search`). numba keys a closure's cache entry on its
    pickled cell contents, and a pickled kernel carries a random id and the signatures compiled
    so far: every process missed the cache and compiled the closure again. Here the key is the
    cells' names and values (a kernel by its module and qualified name, and its own cells): the
    same closure finds its entry in every process. What the named kernels compile to is covered
    by the cache directory's source digest. `ints=True`: compiled once for a workspace and
    int64 arguments, as `njit_ints`."""
    if fn is None:
        return lambda f: njit_closure(f, ints=ints, **options)
    # a closure's compiled name: numba names a function by module, qualified name and a counter
    # of its own process, and two cached closures of one factory (one per game) loaded into one
    # process could take the same name: the JIT links one body for both (Conspiracy's search
    # then ran Abyss's rollout). Their cells tell them apart.
    tag = hashlib.sha256(repr(_closure_key(fn)).encode()).hexdigest()[:12]
    fn.__qualname__ = f"{fn.__qualname__}_{tag}"
    dispatcher = njit(cache=True, **options)(fn)
    dispatcher._cache = stable_cache(dispatcher.py_func)
    if ints:  # as njit with a signature does, but after the cache above is in place
        dispatcher.compile(_ints_signature(fn))
        dispatcher.disable_compile()
    return dispatcher


def stable_cache(py_func):
    """numba's cache of a compiled closure `py_func`, keyed on its code and its cells' values
    (`njit_closure`)."""
    from numba.core.caching import FunctionCache

    class StableClosureCache(FunctionCache):
        def _index_key(self, sig, codegen):
            code = hashlib.sha256(self._py_func.__code__.co_code).hexdigest()
            cells = hashlib.sha256(repr(_closure_key(self._py_func)).encode()).hexdigest()
            return (sig, codegen.magic_tuple(), (code, cells))

    return StableClosureCache(py_func)


def _closure_key(fn) -> tuple:
    return tuple(_cell_key(c.cell_contents) for c in fn.__closure__ or ())


def _cell_key(value):
    """A closure cell's value as plain data, the same in every process."""
    py_func = getattr(value, "py_func", None)
    if py_func is not None:  # a kernel
        return ("kernel", py_func.__module__, py_func.__qualname__, _closure_key(py_func))
    if isinstance(value, tuple):
        return tuple(_cell_key(v) for v in value)
    if isinstance(value, (bool, int, float, str, type(None))) or hasattr(value, "dtype"):
        return repr(value)
    raise TypeError(f"a compiled closure over {type(value).__name__} has no stable cache key")


# --- arrays without reference counting --------------------------------------------------------
from numba import carray, types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402


@intrinsic
def _int32_pointer(typingctx, address):
    """The integer `address` as an int32 pointer (for `carray`)."""
    sig = types.CPointer(types.int32)(address)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@njit(cache=True)
def borrow(arr):
    """A view of the int32 array `arr` that numba does not reference-count.

    numba increments and decrements an array's reference count, atomically, each time the array
    is passed to a compiled function; in the game kernels that was a third of the run time. The
    view has no owner to count, so those calls return at once. The caller must keep `arr` alive
    while the view is in use.
    """
    return carray(_int32_pointer(arr.ctypes.data), arr.shape)


# --- a signal during a compile -----------------------------------------------------------------
from numba.core import event as _event  # noqa: E402

from sim.core.interrupts import deferred, raise_if_interrupted  # noqa: E402  (the standard library only)


class _StopOnInterrupt(_event.Listener):
    """Before each function numba compiles: a Ctrl-C or SIGTERM whose exception a finalizer
    swallowed (llvmlite runs thousands while numba compiles) stops the compile here
    (`sim.core.interrupts`), not at the run's next chunk, a minute later when cold."""

    def on_start(self, event) -> None:
        if _CHECK_INTERRUPTS.is_set():
            raise_if_interrupted()

    def on_end(self, event) -> None:
        pass


#: cleared while a compile must not raise (`interrupts_deferred`)
_CHECK_INTERRUPTS = threading.Event()
_CHECK_INTERRUPTS.set()
_event.register("numba:compile", _StopOnInterrupt())


@contextlib.contextmanager
def interrupts_deferred():
    """Compiles in this block do not stop for a Ctrl-C or SIGTERM: it is left for the run's next
    check (`sim.core.interrupts`). For a compile called from compiled code (`sim.core.apart`),
    through which an exception cannot be raised."""
    _CHECK_INTERRUPTS.clear()
    try:
        with deferred():
            yield
    finally:
        _CHECK_INTERRUPTS.set()


# --- bit tricks ---------------------------------------------------------------------------------
if numba.config.DISABLE_JIT:

    def lowest_bit(x):
        """The index of the lowest set bit of the non-zero integer x."""
        x = int(x)
        return (x & -x).bit_length() - 1

else:
    from numba.cpython.unsafe.numbers import trailing_zeros as lowest_bit  # noqa: E402, F401
