#!/bin/bash
# usage: scripts/before_after.sh ROOT OUT: the commands of the behaviour-unchanged check of a
# refactoring (docs/decisions.md, issues 29 and 51): every command, small, on fixed seeds, run on
# the checkout ROOT into OUT. Compare two OUTs with scripts/compare_outputs.py (manifests and
# reports differ in time stamps, timings and code digests only).
set -e
ROOT=$1; OUT=$2; rm -rf $OUT; mkdir -p $OUT
cd $ROOT
A="${PYTHON:-python} -m cli.entry"
export PYTHONPATH=$ROOT
$A simulate --games 3000 --seed 3 --players 4 --expansions leviathan --strategies greedy,farmer,leviathan_hunter,random --out $OUT/sim >/dev/null
$A tournament --players 3 --blocks 60 --no-report --fight-points 0 --seed 5 --out $OUT/tour >/dev/null
$A simulate --game conspiracy --games 2000 --seed 4 --out $OUT/csim >/dev/null
$A simulate --game wilds --games 1000 --seed 4 --out $OUT/wsim >/dev/null
$A sweep --set leviathan_game.hand_limit=8,12 --games 400 --no-report --seed 2 --out $OUT/sweep >/dev/null
$A tournament --players 3 --blocks 60 --report --strengths none --card-blocks 0 --fight-points 0 --seed 5 --out $OUT/tourrep >/dev/null
$A report $OUT/tour --out $OUT/tour-report >/dev/null
$A restrict --strategy farmer --players 3 --blocks 30 --seed 2 --out $OUT/restrict >/dev/null 2>&1 || echo "restrict failed"
$A tune --strategy farmer --players 2 --games 600 --candidates 6 --finalists 2 --reeval-games 100 --heldout-games 100 --seed 6 --out $OUT/tune >/dev/null 2>&1 || echo "tune failed"
$A design --players 4 --vary rules.seat_4_pearls=0..2 --target "seat_share:4>=0.22" --candidates 3 --blocks 20 --finalists 2 --reeval-blocks 20 --retune-candidates 0 --seed 7 --out $OUT/design > $OUT/design.txt 2>&1 || echo "design failed"
$A learn --players 2 --iterations 1 --games 8 --rollouts 4 --strength-games 40 --seed 8 --out $OUT/learn >/dev/null 2>&1 || echo "learn failed"
$A tournament --players 2 --blocks 4 --strategies greedy,farmer --no-report --fight-points 0 --seed 9 --out $OUT/dramasrc >/dev/null
$A drama $OUT/dramasrc --games 4 --rollouts 4 > $OUT/drama.txt 2>&1 || echo "drama failed"
$A tournament --players 2 --blocks 10 --strategies random,greedy,farmer --no-report --fight-points 0 --seed 10 --out $OUT/ladder >/dev/null
$A skill $OUT/ladder --rungs random,greedy,farmer > $OUT/skill.txt 2>&1 || echo "skill failed"
$A replay --seed 11 --players 3 --index 2 > $OUT/replay.txt
$A replay --seed 11 --players 3 --index 2 --json > $OUT/replay.json
$A cards > $OUT/cards.txt
$A cards --game conspiracy > $OUT/ccards.txt
$A strategies > $OUT/strategies.txt
$A plan --effect 0.05 --strategies greedy,farmer --pilot-blocks 20 --seed 12 > $OUT/plan.txt 2>&1 || echo "plan failed"
echo done
