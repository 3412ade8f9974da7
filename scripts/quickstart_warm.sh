#!/usr/bin/env bash
# The default quick start (`abyss-mc tournament --report`) timed warm for a checkout: run once to
# warm its compile cache, then timed (docs/benchmarks.md). usage: scripts/quickstart_warm.sh ROOT
# [PYTHON]  (ROOT: a checkout, e.g. a `git worktree` of the commit before; PYTHON: the venv's)
set -euo pipefail
root=$(cd "$1" && pwd)
python=${2:-"$(pwd)/.venv/bin/python"}
out=$(mktemp -d)
cd "$root"
PYTHONPATH="$root" "$python" -m cli.entry tournament --report --out "$out/warm" > /dev/null 2>&1
PYTHONPATH="$root" /usr/bin/time -f "$root: %e s wall, %U+%S s CPU" \
    "$python" -m cli.entry tournament --report --out "$out/timed" > /dev/null
# the timed run's phases (its manifest), wall seconds
"$python" -c "import json, sys; t = json.load(open(sys.argv[1]))['timings']
print('  phases:', ', '.join(f'{k} {v:.1f}' for k, v in t['phases'].items()))" "$out/timed/manifest.json"
rm -rf "$out"
