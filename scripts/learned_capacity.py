"""Is the learned player short of capacity or of features? (docs/learned.md, "Where the gap is")

Records the search's decisions (its rollout policy: the built-in 4-player learned player, the
opponents by their own strategies, every open 4-player field, the search in each seat in turn),
then fits on four fifths of the games and measures on the held-out fifth:
- today's linear scorer over today's features;
- the same with interactions: "the base picks it" and greedy's key times each state feature;
- the same with the state features' pairwise products within the option's category.
Each fit's held-out agreement with the search, cross-entropy against its visit shares, and
reward gap (the search's mean reward of the fit's pick minus that of its own choice), over every
decision and at the action and buying. If richer fits over the same features close little of
the gap, the features are what is short, not the form.

usage: PYTHONPATH=. python scripts/learned_capacity.py GAMES_PER_FIELD_AND_SEAT [RECORDS.npz]
(the records are saved to, or loaded from, RECORDS.npz)
"""

from __future__ import annotations

import sys
import time
from importlib import import_module
from pathlib import Path

import numpy as np

from reports import learned_fit as F
from reports.runs.learn import open_fields, search_records
from sim import games as registry

N_PLAYERS = 4
WEIGHTS = "games/abyss/strategies/learned/learned_4p.npz"


def record(per: int) -> F.Records:
    spec = registry.get("abyss")
    learn = import_module(spec.report().LEARN)
    tables = spec.load_cards(None, [], ("leviathan",))
    strategies = spec.strategies()
    search = (f"search:rollouts=64:rollout_policy=learned:rollout_weights={WEIGHTS}"
              ":opponents=own")
    parts, first = [], 50_000_000
    for field in open_fields(strategies, N_PLAYERS):
        for seat in range(N_PLAYERS):
            lineup = [*field[:seat], search, *field[seat:]]
            games = first + np.arange(per)
            parts.append(search_records(learn, tables, lineup, 2026, games, strategies))
            first += per
    return F.Records.concat(parts)


def save(r: F.Records, path: Path) -> None:
    np.savez_compressed(path, **{k: getattr(r, k) for k in
                                 ("code", "n", "features", "visits", "total", "chosen", "seat",
                                  "game")})  # fmt: skip


def load(path: Path) -> F.Records:
    with np.load(path) as d:
        return F.Records(**{k: d[k] for k in d.files})


def with_features(r: F.Records, features: np.ndarray) -> F.Records:
    return F.Records(r.code, r.n, features, r.visits, r.total, r.chosen, r.seat, r.game)


def expanded(r: F.Records, products: bool) -> F.Records:
    """Today's features, the base's pick and greedy's key times each state feature of the
    option's category (the block that is set), and with `products` the pairwise products of
    the state features within it."""
    x = r.features
    n_state, n_cat = 9, 3
    blocks = x[:, :, 2:2 + n_cat * n_state].reshape(*x.shape[:2], n_cat, n_state)
    g = blocks.sum(axis=2)[:, :, 1:]  # the option's state features (one block set), bias out
    extra = [x[:, :, 0:1] * g, x[:, :, 1:2] * g]
    if products:
        i, j = np.triu_indices(g.shape[2])
        pairs = g[:, :, i] * g[:, :, j]
        for c in range(n_cat):  # per category, as the state block
            on = (np.abs(blocks[:, :, c, :]).sum(axis=2) > 0)[:, :, None]
            extra.append(np.where(on, pairs, 0.0))
    return with_features(r, np.concatenate([x, *extra], axis=2))


def main() -> None:
    per = int(sys.argv[1])
    path = Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/capacity_records.npz")
    if path.is_file():
        r = load(path)
    else:
        t = time.perf_counter()
        r = record(per)
        save(r, path)
        print(f"recorded {len(r)} decisions in {time.perf_counter() - t:.0f} s -> {path}")
    learn = import_module(registry.get("abyss").report().LEARN)
    train, held = F.split_by_game(r, 0.2, 2026)
    print(f"{len(train)} training and {len(held)} held-out decisions")
    print(f"{'form':<34} {'features':>8} {'agree':>7} {'x-entropy':>9} {'gap':>9} "
          f"{'gap@action':>10} {'gap@buy':>8}")
    for label, make in (("linear (today)", lambda x: x),
                        ("+ pick, key x state", lambda x: expanded(x, False)),
                        ("+ state products", lambda x: expanded(x, True))):
        tr, he = make(train), make(held)
        fit = F.fit(tr, target="visits", n_codes=learn.N_CODES)
        ev = F.evaluate(fit, he).set_index("code")
        row = ev.loc[F.ALL_CODES]
        print(f"{label:<34} {tr.features.shape[2]:>8} {row.agreement:>7.3f} {row.log_loss:>9.4f} "
              f"{row.reward_gap:>9.5f} {gap_at(ev, ACTION):>10.5f} {gap_at(ev, BUY):>8.5f}")


#: the action's and buying's rows (their codes in the records: policy_params.LEARNED_DECISIONS)
ACTION, BUY = 0, 3


def gap_at(ev, code: int) -> float:
    return float(ev.loc[code].reward_gap) if code in ev.index else float("nan")


if __name__ == "__main__":
    main()
