#!/usr/bin/env bash
# Issue 20's target: the best tuned preset against the best hand-written one in a 4-player Abyss +
# Leviathan tournament. Every hand-written preset, greedy, and every shipped 4-player preset of one
# kind (KIND=tuned, the default: games/abyss/strategies/tuned.toml, tuned within their archetypes; or
# KIND=open: open.toml, every parameter tuned) in one balanced tournament, seat rotation, intervals
# over blocks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
kind="${KIND:-tuned}"
hand="greedy,lord_rusher,key_hunter,council_hoarder,auction_buyer,pearl_economist,leviathan_hunter,cautious_explorer,farmer"
tuned=$(grep -o "^\[[a-z_]*_${kind}_4p\]" "games/abyss/strategies/${kind}.toml" | tr -d '[]' | paste -sd, -)
abyss-mc tournament --players 4 --strategies "$hand,$tuned" --blocks "${BLOCKS:-2000}" \
    --fight-points 0 --seed 2026 --out "${1:-runs/tuning/tournament-${kind}-4p}"
