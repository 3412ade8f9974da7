#!/usr/bin/env bash
# The build of one finished run's report, two checkouts alternating (docs/benchmarks.md):
#   bash scripts/report_build_ab.sh BEFORE AFTER RUN [PAIRS]
# BEFORE and AFTER are checkouts (e.g. `git worktree add ../before COMMIT`), RUN a finished
# `tournament --report` run; PYTHON the interpreter (default: this checkout's .venv). Prints
# each build's wall and CPU seconds, then whether the two report.md are the same.
set -euo pipefail
before=$(realpath "$1"); after=$(realpath "$2"); run=$(realpath "$3"); pairs=${4:-2}
python=${PYTHON:-"$(dirname "$0")/../.venv/bin/python"}
out=$(mktemp -d)
for _ in $(seq "$pairs"); do
  for side in before after; do
    root=$before; [[ $side == after ]] && root=$after
    rm -rf "$out/$side"
    /usr/bin/time -f "$side %e s wall %U user %S sys" env PYTHONPATH="$root" "$python" -c \
      "import sys; sys.path.insert(0, '$root'); from cli.entry import main; sys.argv = ['abyss-mc', 'report', '$run', '--out', '$out/$side']; main()" \
      >/dev/null 2>"$out/time"
    tail -1 "$out/time"
  done
done
if diff <(grep -v '^\*Generated' "$out/before/report.md") <(grep -v '^\*Generated' "$out/after/report.md") >/dev/null; then
  echo "report.md: the same"
else
  echo "report.md: differs"
fi
rm -rf "$out"
