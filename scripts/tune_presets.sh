#!/usr/bin/env bash
# Tune every built-in preset at 2, 3 and 4 players (Abyss with Leviathan, and Conspiracy) with
# `abyss-mc tune` on its defaults, then collect the results into the built-in tuned presets
# (strategies/<game>/tuned.toml) and the table of docs/tuning.md (scripts/collect_tuned.py).
# Each run keeps its directory under runs/tuning/ (trace, chart, summary, manifest); a run that
# was interrupted is finished with --resume when this script is started again.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ABYSS_PRESETS="lord_rusher key_hunter council_hoarder auction_buyer pearl_economist leviathan_hunter cautious_explorer farmer"
CONSPIRACY_PRESETS="coalition_builder key_hunter pearl_master high_ip pile_raider"
root=runs/tuning
mkdir -p "$root"
tune() {  # game preset players
    local out="$root/$1-$2-$3p"
    if [[ -f "$out/tuned.toml" ]]; then return; fi
    if [[ -d "$root/.$1-$2-$3p.partial" ]]; then
        abyss-mc tune --resume "$out"
    else
        abyss-mc tune --game "$1" --strategy "$2" --players "$3" --seed 2026 --out "$out"
    fi > /dev/null
    echo "$out"
}
for n in 4 3 2; do
    for p in $ABYSS_PRESETS; do tune abyss "$p" "$n"; done
    for p in $CONSPIRACY_PRESETS; do tune conspiracy "$p" "$n"; done
done
python scripts/collect_tuned.py "$root"
