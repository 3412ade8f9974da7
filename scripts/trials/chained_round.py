"""A round of expert iteration built on another (issue 52, "more iterations"): the rounds tried
before were each one round from the shipped weights (docs/learned.md, "Where the gap is"). Here
the search's rollout policy is START, the fit of such a round, and the records are the same
line-ups as `scripts/learned_match_round.py`'s on games OPEN_FIRST and MATCH_FIRST on of seed
2026 (which chooses, never reports). Two fits by the recipe (visit shares, penalty 1e-3):

- OUT_DIR/chained.npz: this round's records alone (the next round of START);
- OUT_DIR/pooled.npz: this round's and the records of the earlier rounds given (`records.npz`
  of `apprentice_targets.py` or `stronger_labels.py`): more decisions for the same scorer.

Each prints its agreement with this round's search on a held-out fifth of this round's games
(the pooled fit never trains on them). Records are kept in OUT_DIR/records.npz as
`apprentice_targets.py` keeps them.

usage: PYTHONPATH=. python scripts/trials/chained_round.py START OPEN_PER MATCH_PER OUT_DIR
       [RECORDS.npz ...]
"""

from __future__ import annotations

import hashlib
import sys
import time
from importlib import import_module
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from learned_match_round import (  # noqa: E402
    MATCH_FIELD,
    N_PLAYERS,
    SEED,
    kept_records,
    record,
    records_in,
)

from reports import learned_fit as F  # noqa: E402
from reports.runs.learn import open_fields, write_weights  # noqa: E402
from sim import games as registry  # noqa: E402

OPEN_FIRST, MATCH_FIRST = 64_000_000, 69_000_000


def load(path: str) -> F.Records:
    with np.load(path) as z:
        return records_in(z)


def main() -> None:
    start, open_per, match_per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    out, earlier = Path(sys.argv[4]), sys.argv[5:]
    out.mkdir(parents=True, exist_ok=True)
    spec = registry.get("abyss")
    learn = import_module(spec.report().LEARN)
    digest = hashlib.sha256(Path(start).read_bytes()).hexdigest()
    made_by = np.array([digest, str(open_per), str(match_per), str(OPEN_FIRST), str(MATCH_FIRST)])
    t0 = time.perf_counter()
    field_lineups = open_fields(spec.strategies(), N_PLAYERS)
    records = kept_records(out / "records.npz", made_by, lambda: F.Records.concat([
        record(field_lineups, open_per, OPEN_FIRST, start),
        record([MATCH_FIELD], match_per, MATCH_FIRST, start)]))  # fmt: skip
    print(f"{len(records)} decisions, {time.perf_counter() - t0:.0f} s", flush=True)
    train, held = F.split_by_game(records, 0.2, SEED)
    pooled = F.Records.concat([train, *(load(p) for p in earlier)])
    for name, data in (("chained", train), ("pooled", pooled)):
        fit = F.fit(data, target="visits", n_codes=learn.N_CODES)
        row = F.evaluate(fit, held).set_index("code").loc[F.ALL_CODES]
        write_weights(learn, out / f"{name}.npz", fit.weights, "farmer_open_4p", N_PLAYERS,
                      {"command": "scripts/trials/chained_round.py START "
                                  f"{open_per} {match_per} OUT_DIR {' '.join(earlier)}",
                       "start_sha256": digest, "seed": SEED, "open_first": OPEN_FIRST,
                       "match_first": MATCH_FIRST, "target": "visits",
                       "records": len(data)})  # fmt: skip
        print(f"{name}: {len(data)} decisions, held-out agreement {row.agreement:.4f}, "
              f"reward gap {row.reward_gap:+.5f}", flush=True)


if __name__ == "__main__":
    main()
