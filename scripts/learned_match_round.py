"""One more round of expert iteration for the 4-player learned player, with the states of the
match against its expert among its records (docs/learned.md, "The built-in weights"; issue 52:
"Closer to its expert").

The search (64 rollouts, its rollout policy the START weights, the opponents by their own
strategies; another search seat is modelled by the rollout policy) records its decisions, Abyss
with Leviathan, seed 2026 (the records' seed: it chooses, never reports):
- against every open 4-player field (three copies), the search in each seat in turn,
  OPEN_PER games per field and seat, games 60,000,000 on;
- against the match's own opponents (`search`, `learned`, `search`: two searches at their
  defaults and the START player), the search in each seat in turn, MATCH_PER games per seat,
  games 65,000,000 on.
The built-in recipe's fit (a conditional logit on the search's visit shares, four fifths of the
games; the held-out fifth measures agreement) on both sets of records gives OUT; its `fields`
name the match's `learned` seat so, meaning the START player (`start_sha256`). Deterministic: the
same arguments give the same weights bit for bit (checked once, on this machine and these
library versions).

usage: PYTHONPATH=. python scripts/learned_match_round.py START OPEN_PER MATCH_PER OUT
The built-in `learned_4p.npz`: START the `learn` run's weights (SHA-256 1674a7cb...), 50, 100.
"""

from __future__ import annotations

import hashlib
import sys
import time
from importlib import import_module
from pathlib import Path

import numpy as np

from reports import learned_fit as F
from reports.runs.learn import open_fields, search_records, write_weights
from sim import games as registry

N_PLAYERS, SEED, OPEN_FIRST, MATCH_FIRST = 4, 2026, 60_000_000, 65_000_000
MATCH_FIELD = ["search", "learned", "search"]


def record(fields: list[list[str]], per: int, first: int, start: str,
           rollouts: int = 64) -> F.Records:  # fmt: skip
    """The search's records against each field, in each seat in turn, `per` games each."""
    spec = registry.get("abyss")
    learn = import_module(spec.report().LEARN)
    tables = spec.load_cards(None, [], ("leviathan",))
    strategies = spec.strategies()
    search = (f"search:rollouts={rollouts}:rollout_policy=learned:rollout_weights={start}"
              ":opponents=own")
    parts = []
    for field in fields:
        field = [f"learned:weights={start}" if s == "learned" else s for s in field]
        for seat in range(N_PLAYERS):
            lineup = [*field[:seat], search, *field[seat:]]
            parts.append(search_records(learn, tables, lineup, SEED, first + np.arange(per),
                                        strategies))  # fmt: skip
            first += per
    return F.Records.concat(parts)


def records_in(z) -> F.Records:
    """The records held in an opened .npz (`kept_records`)."""
    from dataclasses import fields

    return F.Records(**{f.name: z[f.name] for f in fields(F.Records)})


def kept_records(kept: Path, made_by: np.ndarray, make) -> F.Records:
    """The records in `kept` (an .npz) if the same arguments (`made_by`) made them, else
    `make()`'s, kept there; records made by other arguments are refused in one line."""
    from dataclasses import fields

    if kept.is_file():
        with np.load(kept) as z:
            if "made_by" not in z.files or not np.array_equal(z["made_by"], made_by):
                sys.exit(f"{kept} was made by other arguments: use another OUT_DIR")
            return records_in(z)
    records = make()
    np.savez_compressed(kept, made_by=made_by,
                        **{f.name: getattr(records, f.name) for f in fields(F.Records)})
    return records


def main() -> None:
    start, open_per, match_per, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    spec = registry.get("abyss")
    learn = import_module(spec.report().LEARN)
    t0 = time.perf_counter()
    fields = open_fields(spec.strategies(), N_PLAYERS)
    records = F.Records.concat([record(fields, open_per, OPEN_FIRST, start),
                                record([MATCH_FIELD], match_per, MATCH_FIRST, start)])
    train, held = F.split_by_game(records, 0.2, SEED)
    fit = F.fit(train, target="visits", n_codes=learn.N_CODES)
    row = F.evaluate(fit, held).set_index("code").loc[F.ALL_CODES]
    digest = hashlib.sha256(Path(start).read_bytes()).hexdigest()
    write_weights(learn, Path(out), fit.weights, "farmer_open_4p", N_PLAYERS,
                  {"command": f"scripts/learned_match_round.py START {open_per} {match_per} OUT",
                   "start_sha256": digest, "seed": SEED, "rollouts": 64, "opponents": "own",
                   "target": "visits", "records": len(train), "fields": [*fields, MATCH_FIELD]})
    print(f"{len(records)} decisions ({len(train)} to fit), held-out agreement "
          f"{row.agreement:.3f}, {time.perf_counter() - t0:.0f} s -> {out}")


if __name__ == "__main__":
    main()
