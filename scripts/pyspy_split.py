"""Where a profiled run's CPU goes (docs/benchmarks.md): a `py-spy record --format raw --idle
--threads --subprocesses -r RATE` file, its samples split into the compiled kernels (innermost
frame a lane of `sim.core.driver`, which runs them), samples waiting (innermost frame a lock, a
condition, a select, a pipe or a worker's parent watch) and the rest (Python on a core), in
seconds at RATE samples a second. A kernel's sample counts as on a core: the lanes call it without
waiting. usage: python scripts/pyspy_split.py FILE RATE"""

import sys

WAITING = ("Condition.wait", "_PollLikeSelector.select", "end_with_parent", "Connection._recv",
           "Connection._send", "SemLock", "acquire", "time.sleep", "wait (")  # fmt: skip


def main() -> None:
    path, rate = sys.argv[1], float(sys.argv[2])
    kernels = waiting = rest = 0
    for line in open(path):
        stack, _, n = line.rstrip().rpartition(" ")
        leaf = stack.split(";")[-1]
        if "lane (sim/core/driver.py" in leaf:
            kernels += int(n)
        elif any(w in leaf for w in WAITING):
            waiting += int(n)
        else:
            rest += int(n)
    for name, n in (("kernels", kernels), ("waiting", waiting), ("the rest", rest)):
        print(f"{name}: {n / rate:.1f} s")


if __name__ == "__main__":
    main()
