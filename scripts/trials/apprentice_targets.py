"""Which soft target makes the apprentice closest to its expert (issue 52, "better targets"):
the records of one more round of `scripts/learned_match_round.py` (the same line-ups and
recipe, from START, games OPEN_FIRST and MATCH_FIRST on of seed 2026, which chooses and never
reports), fitted once per target and penalty (`CANDIDATES`); the weights go to
OUT_DIR/<name>.npz for `scripts/trials/apprentice_match.py`. The records are kept in
OUT_DIR/records.npz with the arguments that made them, so a second call with the same arguments
fits again without playing (and other arguments are refused).

usage: PYTHONPATH=. python scripts/trials/apprentice_targets.py START OPEN_PER MATCH_PER OUT_DIR
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

OPEN_FIRST, MATCH_FIRST = 62_000_000, 67_000_000
#: (name, target, temperature, penalty): the recipe (visit shares, penalty 1e-3; the temperature
#: is not read for them), the search's mean rewards at falling temperatures (the lower, the more
#: a decision's best option alone counts), then the recipe at other penalties
CANDIDATES = (("visits", "visits", 0.1, 1e-3), ("means-0.1", "means", 0.1, 1e-3),
              ("means-0.03", "means", 0.03, 1e-3), ("means-0.01", "means", 0.01, 1e-3),
              ("visits-pen1e-5", "visits", 0.1, 1e-5), ("visits-pen1e-4", "visits", 0.1, 1e-4),
              ("visits-pen1e-2", "visits", 0.1, 1e-2))  # fmt: skip


def main() -> None:
    start, open_per, match_per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    out = Path(sys.argv[4])
    out.mkdir(parents=True, exist_ok=True)
    spec = registry.get("abyss")
    learn = import_module(spec.report().LEARN)
    kept = out / "records.npz"
    digest = hashlib.sha256(Path(start).read_bytes()).hexdigest()
    made_by = np.array([digest, str(open_per), str(match_per), str(OPEN_FIRST), str(MATCH_FIRST)])
    t0 = time.perf_counter()
    fields = open_fields(spec.strategies(), N_PLAYERS)
    records = kept_records(kept, made_by, lambda: F.Records.concat([
        record(fields, open_per, OPEN_FIRST, start),
        record([MATCH_FIELD], match_per, MATCH_FIRST, start)]))  # fmt: skip
    print(f"{len(records)} decisions, {time.perf_counter() - t0:.0f} s", flush=True)
    train, held = F.split_by_game(records, 0.2, SEED)
    for name, target, temperature, penalty in CANDIDATES:
        fit = F.fit(train, target=target, temperature=temperature, penalty=penalty,
                    n_codes=learn.N_CODES)  # fmt: skip
        row = F.evaluate(fit, held).set_index("code").loc[F.ALL_CODES]
        write_weights(learn, out / f"{name}.npz", fit.weights, "farmer_open_4p", N_PLAYERS,
                      {"command": "scripts/trials/apprentice_targets.py START "
                                  f"{open_per} {match_per} OUT_DIR",
                       "start_sha256": digest, "seed": SEED, "open_first": OPEN_FIRST,
                       "match_first": MATCH_FIRST, "target": target, "penalty": penalty,
                       **({"temperature": temperature} if target == "means" else {}),
                       "records": len(train)})  # fmt: skip
        print(f"{name}: held-out agreement {row.agreement:.4f}, reward gap "
              f"{row.reward_gap:+.5f}", flush=True)


if __name__ == "__main__":
    main()
