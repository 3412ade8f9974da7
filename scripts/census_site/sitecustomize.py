"""Census hooks for every Python process of a run (docs/benchmarks.md): put this directory
first on PYTHONPATH and set

- `COMPILE_CENSUS=FILE`: a line per function numba compiles (not loads from its cache): the
  process, the nesting depth (0: a compile that no other compile of the process started), CPU
  and wall seconds, the function and its argument types. Imports numba in every process.
- `PROC_CENSUS=FILE`: a line per process at its normal exit: its CPU and wall seconds, the
  modules it loaded (how many; whether numba, pandas and matplotlib) and its command line (a
  process killed by a signal writes none).

The compile census fails the tests that check what an import loads (it imports numba in every
process).

Summarised by `python scripts/compile_census.py FILE`."""

import os
import time

_START = time.perf_counter()

if os.environ.get("COMPILE_CENSUS"):
    from numba.core import compiler as _compiler

    _depth = [0]
    _compile_extra = _compiler.compile_extra

    def _census_compile(typingctx, targetctx, func, args, return_type, flags, locals,
                        library=None, pipeline_class=_compiler.Compiler):  # fmt: skip
        cpu, wall = time.process_time(), time.perf_counter()
        _depth[0] += 1
        try:
            return _compile_extra(typingctx, targetctx, func, args, return_type, flags, locals,
                                  library=library, pipeline_class=pipeline_class)  # fmt: skip
        finally:
            _depth[0] -= 1
            name = f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', '?')}"
            with open(os.environ["COMPILE_CENSUS"], "a") as out:
                out.write(f"{os.getpid()}\t{_depth[0]}\t{time.process_time() - cpu:.3f}\t"
                          f"{time.perf_counter() - wall:.3f}\t{name}\t{args}\n")

    _compiler.compile_extra = _census_compile  # (numba's dispatcher calls it by the module)

if os.environ.get("PROC_CENSUS"):
    import atexit
    import sys

    def _census_exit() -> None:
        t = os.times()
        loaded = tuple(m in sys.modules for m in ("numba", "pandas", "matplotlib"))
        with open(os.environ["PROC_CENSUS"], "a") as out:
            out.write(f"{os.getpid()}\t{t.user + t.system:.2f}\t"
                      f"{time.perf_counter() - _START:.2f}\t{len(sys.modules)}\t{loaded}\t"
                      f"{' '.join(sys.argv)[:200]}\n")

    atexit.register(_census_exit)
