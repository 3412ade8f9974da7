#!/bin/bash
# A cold 20,000-game `simulate` (empty compile cache), before and after a change, alternating
# (docs/benchmarks.md): BEFORE is a `git worktree` of the commit before.
# usage: scripts/cold_simulate.sh BEFORE AFTER [PAIRS]; a line per run in $LOG; ARGS, the
# command's options (default: the 20,000-game run; ARGS="--games 1000": the README's first run)
args=${ARGS:-"--games 20000 --players 4 --expansions leviathan --engine fast"}
before=$(cd "$1" && pwd); after=$(cd "$2" && pwd); pairs=${3:-2}; log=${LOG:-/tmp/cold_simulate.txt}
python=${PYTHON:-"$(pwd)/.venv/bin/python"}
for i in $(seq $pairs); do for tree in $before $after; do
  cache=$(mktemp -d); out=$(mktemp -d)
  start=$(date +%s.%N)
  (cd /tmp && NUMBA_CACHE_DIR=$cache PYTHONPATH=$tree /usr/bin/time -f "cpu %U user %S sys" "$python" -m cli.entry simulate $args --out $out/run > $out/log 2>&1)
  end=$(date +%s.%N)
  echo "$tree $i wall $(echo "$end - $start" | bc) $(tail -1 $out/log) $(grep -o 'compiled in [0-9.]* s' $out/log | head -1)" >> $log
  # the fast path's background compile outlives the run: let it end before the next run starts
  while pgrep -f "reports.runs.warmup" > /dev/null; do sleep 1; done
  rm -rf $cache $out
done; done
