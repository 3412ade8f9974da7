"""Kernels called apart: compiled once as a C function, called through a pointer, compiled only
when first called (or ahead, in another process).

numba links the whole tree of every function a compiled function calls into it and generates
its machine code again there. A game's decision entry (its policies and the search's hooks: about
50 functions) is called from about a hundred rule functions, so a cold compile generated it a
hundred times (130 of a cold 20,000-game run's 134 s, 82 s called apart: docs/benchmarks.md). A
kernel called apart is a C function (numba's `cfunc`, cached on disk like any kernel) whose
address sits in a cell, a word of memory registered in the process's symbol table; its callers
call a stub that loads the cell and calls what it points to, so they compile without it. Until it
is first called, the cell points to a function that compiles (or loads) it and fills the cell:

* an expansion's phases called apart are never compiled by a game without the expansion;
* a cold run compiles the kernels called apart in a second process
  (`compile_in_background`) while it compiles the rules that call them, side by side on two
  cores; the first call waits for that process (a lock per kernel) and loads what it cached.

A kernel called apart takes a workspace (a C-contiguous int32 array) and three int64, and returns
an integer (`njit_ints`' convention).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import sys
import threading
from importlib import import_module

from numba import carray, types
from numba.extending import intrinsic

from sim.core.jit import cache_dir, interrupts_deferred, njit_closure, stable_cache

#: the C signature of a kernel called apart: the workspace's data and length, three int64
_C_ARGS = (ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)
_LAZY = ctypes.CFUNCTYPE(ctypes.c_int64, *_C_ARGS)


class _Apart:
    """One kernel called apart: its symbol, its cell and, once compiled, its C function (and
    `call`, the same from Python, for a call that met the cell before it was filled)."""

    def __init__(self, symbol: str, target):
        self.symbol, self.target = symbol, target  # target: a kernel, or "module:name"
        self.cell = ctypes.c_int64(0)
        self.c_func = self.call = None
        self.lazy = _LAZY(self._first_call)  # (kept alive: the cell points to it at first)
        self.cell.value = ctypes.cast(self.lazy, ctypes.c_void_p).value
        self.lock = threading.Lock()

    def resolve(self) -> None:
        """Compile the C function (or load it from the cache, after any other process that is
        compiling it) and point the cell to it."""
        with self.lock:
            if self.c_func is not None:
                return
            with _compiling(self.symbol):
                c_func = _c_function(self.symbol, self.kernel())
            self.c_func, self.call = c_func, _LAZY(c_func.address)
            self.cell.value = c_func.address

    def kernel(self):
        if isinstance(self.target, str):
            module, name = self.target.split(":")
            return getattr(import_module(module), name)
        return self.target

    def _first_call(self, data, size, a, b, c):
        """The cell's first target: compile, then call. A compile that fails here cannot raise
        through compiled code, so it ends the process with the error on stderr."""
        try:
            with interrupts_deferred():
                self.resolve()
        except BaseException:  # noqa: BLE001
            import traceback

            traceback.print_exc()
            print(f"abyss-mc: could not compile {self.symbol}", file=sys.stderr, flush=True)
            import os

            os._exit(70)
        return self.call(data, size, a, b, c)


_REGISTRY: dict[str, _Apart] = {}


def called_apart(target):
    """`target(s, a, b, c)` called apart (module docstring): `target` is a kernel (`njit`) or
    "module:name" of one, imported only when it is first called. Returns the
    stub to call in its place, with the same arguments and result; `stub.apart_symbol` names
    it for `resolve` and `compile_in_background`."""
    import llvmlite.binding as ll

    if isinstance(target, str):
        where = target.replace(":", ".")
    else:
        where = f"{target.py_func.__module__}.{target.py_func.__qualname__}"
    symbol = "abyss_mc_" + "".join(c if c.isalnum() else "_" for c in where)
    apart = _REGISTRY.get(symbol)
    if apart is None:
        apart = _REGISTRY[symbol] = _Apart(symbol, target)
        ll.add_symbol(symbol, ctypes.addressof(apart.cell))
    cell = symbol

    @njit_closure(inline="always")
    def stub(s, a, b, c):
        return _call_cell(cell, s, a, b, c)

    stub.apart_symbol = symbol
    return stub


def resolve(*symbols: str) -> None:
    """Compile (or load) the kernels called apart named (every one registered, if none)."""
    for symbol in symbols or tuple(_REGISTRY):
        _REGISTRY[symbol].resolve()


def _c_function(symbol: str, kernel):
    from numba.core import sigutils
    from numba.core.ccallback import CFunc

    def entry(data, size, a, b, c):
        return kernel(carray(data, size), a, b, c)

    entry.__qualname__ = f"entry_{symbol}"
    c_sig = types.int64(types.CPointer(types.int32), types.int64, types.int64, types.int64,
                        types.int64)  # fmt: skip
    c_func = CFunc(entry, sigutils.normalize_signature(c_sig), locals={}, options={})
    c_func._cache = stable_cache(entry)
    c_func.compile()
    return c_func


@intrinsic
def _call_cell(typingctx, symbol, s, a, b, c):
    """A call of the C function whose address is in the cell registered as the string literal
    `symbol` (`called_apart`), with the workspace's data and length and three int64."""
    from llvmlite import ir

    if not isinstance(symbol, types.StringLiteral):
        return None
    name = symbol.literal_value
    sig = types.int64(symbol, s, a, b, c)

    def codegen(context, builder, signature, args):
        _, arr, *ints = args
        ary = context.make_array(signature.args[1])(context, builder, arr)
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(i64, [ary.data.type, i64, i64, i64, i64])
        cell = _global(builder.module, name)
        target = builder.inttoptr(builder.load(cell), fnty.as_pointer())
        ints = [context.cast(builder, v, t, types.int64)
                for v, t in zip(ints, signature.args[2:], strict=True)]  # fmt: skip
        return builder.call(target, [ary.data, builder.extract_value(ary.shape, 0), *ints])

    return sig, codegen


def _global(module, name):
    """The cell `name` declared in `module` (resolved when the module is loaded)."""
    from llvmlite import ir

    try:
        return module.get_global(name)
    except KeyError:
        cell = ir.GlobalVariable(module, ir.IntType(64), name)
        cell.linkage = "external"
        return cell


# --- one compile of each kernel, whichever process gets there first ----------------------------
@contextlib.contextmanager
def _compiling(symbol: str):
    """Held while this process compiles `symbol`'s C function: another process that wants it
    waits, then loads it from the cache (a blocking `flock` on a file in the cache directory,
    released by the kernel if the process dies; without `fcntl`, no waiting)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    from pathlib import Path

    path = Path(cache_dir()) / f"{hashlib.sha256(symbol.encode()).hexdigest()[:16]}.apart"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def compile_in_background(module: str, names: list[str]) -> None:
    """Start `python -m sim.core.apart MODULE NAME...` detached: it imports `module` and compiles
    the kernels its stubs `NAME...` call apart into the cache, in that order, each under its lock,
    while this process compiles the rest (this one imports nothing for it)."""
    from sim.core.firstrun import detached

    detached([sys.executable, "-m", "sim.core.apart", module, *names])


def _main(argv: list[str]) -> None:
    module, *names = argv
    stubs = import_module(module)
    resolve(*(getattr(stubs, name).apart_symbol for name in names))


if __name__ == "__main__":  # (the registry is the imported module's, not this __main__'s)
    import_module("sim.core.apart")._main(sys.argv[1:])
