#!/bin/bash
# usage: scripts/before_after.sh ROOT OUT: the commands of the behaviour-unchanged check of a
# refactoring (docs/decisions.md, issue 29), run on the checkout ROOT into OUT; compare two OUTs
# with cmp (manifests differ in time stamps, timings and digests only)
set -e
ROOT=$1; OUT=$2; rm -rf $OUT; mkdir -p $OUT
cd $ROOT
A="${PYTHON:-python} -m cli.entry"
export PYTHONPATH=$ROOT
$A simulate --games 3000 --seed 3 --players 4 --expansions leviathan --strategies greedy,farmer,leviathan_hunter,random --out $OUT/sim >/dev/null
$A tournament --players 3 --blocks 60 --no-report --fight-points 0 --seed 5 --out $OUT/tour >/dev/null
$A simulate --game conspiracy --games 2000 --seed 4 --out $OUT/csim >/dev/null
$A sweep --set leviathan_game.hand_limit=8,12 --games 400 --no-report --seed 2 --out $OUT/sweep >/dev/null
$A tournament --players 3 --blocks 60 --report --strengths none --card-blocks 0 --fight-points 0 --seed 5 --out $OUT/tourrep >/dev/null
$A restrict --strategy farmer --players 3 --blocks 30 --seed 2 --out $OUT/restrict >/dev/null 2>&1 || echo "restrict failed"
echo done
