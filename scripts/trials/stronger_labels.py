"""Labels from a stronger search (issue 52, "better targets"; docs/learned.md, "Where the gap
is"): one more round of `scripts/learned_match_round.py` from START (the same line-ups, records
and fit), but the recording search plays ROLLOUTS rollouts a decision instead of 64, so the
visit shares the apprentice imitates are less noisy. Games OPEN_FIRST and MATCH_FIRST on of seed
2026 (the records' seed: it chooses, never reports). The records are kept in OUT_DIR/records.npz
with the arguments that made them (a second call fits again without playing); the weights go
to OUT_DIR/visits.npz for `scripts/trials/apprentice_match.py`.

usage: PYTHONPATH=. python scripts/trials/stronger_labels.py START OPEN_PER MATCH_PER ROLLOUTS
    OUT_DIR
"""

from __future__ import annotations

import hashlib
import sys
import time
from importlib import import_module
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from learned_match_round import MATCH_FIELD, N_PLAYERS, SEED, kept_records, record  # noqa: E402

from reports import learned_fit as F  # noqa: E402
from reports.runs.learn import open_fields, write_weights  # noqa: E402
from sim import games as registry  # noqa: E402

OPEN_FIRST, MATCH_FIRST = 63_000_000, 68_000_000


def main() -> None:
    start, open_per, match_per, rollouts = sys.argv[1], *map(int, sys.argv[2:5])
    out = Path(sys.argv[5])
    out.mkdir(parents=True, exist_ok=True)
    learn = import_module(registry.get("abyss").report().LEARN)
    digest = hashlib.sha256(Path(start).read_bytes()).hexdigest()
    made_by = np.array([digest, *map(str, (open_per, match_per, rollouts, OPEN_FIRST,
                                           MATCH_FIRST))])  # fmt: skip
    t0 = time.perf_counter()
    fields = open_fields(registry.get("abyss").strategies(), N_PLAYERS)
    records = kept_records(out / "records.npz", made_by, lambda: F.Records.concat([
        record(fields, open_per, OPEN_FIRST, start, rollouts),
        record([MATCH_FIELD], match_per, MATCH_FIRST, start, rollouts)]))  # fmt: skip
    print(f"{len(records)} decisions, {time.perf_counter() - t0:.0f} s", flush=True)
    train, held = F.split_by_game(records, 0.2, SEED)
    fit = F.fit(train, target="visits", n_codes=learn.N_CODES)
    row = F.evaluate(fit, held).set_index("code").loc[F.ALL_CODES]
    write_weights(learn, out / "visits.npz", fit.weights, "farmer_open_4p", N_PLAYERS,
                  {"command": "scripts/trials/stronger_labels.py START "
                              f"{open_per} {match_per} {rollouts} OUT_DIR",
                   "start_sha256": digest, "seed": SEED, "open_first": OPEN_FIRST,
                   "match_first": MATCH_FIRST, "rollouts": rollouts, "target": "visits",
                   "records": len(train)})  # fmt: skip
    print(f"held-out agreement {row.agreement:.4f}, reward gap {row.reward_gap:+.5f}", flush=True)


if __name__ == "__main__":
    main()
