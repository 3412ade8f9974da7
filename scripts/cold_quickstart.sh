#!/bin/bash
# The first `abyss-mc tournament --report` from an empty compile cache, before and after a
# change, alternating (docs/benchmarks.md): BEFORE is a `git worktree` of the commit before.
# usage: scripts/cold_quickstart.sh BEFORE AFTER [PYTHON] [PAIRS]; one line per run in $LOG
# (default /tmp/cold_quickstart.txt): the tree, the pair, wall seconds, CPU seconds.
set -uo pipefail
before=$(cd "$1" && pwd); after=$(cd "$2" && pwd)
python=${3:-"$(pwd)/.venv/bin/python"}
pairs=${4:-2}
log=${LOG:-/tmp/cold_quickstart.txt}
for i in $(seq "$pairs"); do
  for tree in "$before" "$after"; do
    cache=$(mktemp -d); out=$(mktemp -d)
    start=$(date +%s.%N)
    (cd /tmp && NUMBA_CACHE_DIR=$cache PYTHONPATH=$tree /usr/bin/time -f "cpu %U user %S sys" \
        "$python" -m cli.entry tournament --report --out "$out/run" > "$out/log" 2>&1)
    end=$(date +%s.%N)
    echo "$tree $i wall $(echo "$end - $start" | bc) $(tail -1 "$out/log")" >> "$log"
    sleep 20  # a detached background compile ends before the next run starts
    rm -rf "$cache" "$out"
  done
done
