"""Where does Conspiracy's learned player part from the search against key_hunter_open_2p? The
search (64 rollouts, its own seat modelled by WEIGHTS, the opponent by its strategy) in each seat;
at each recorded decision, the learned pick against the search's: agreement and the reward gap
(the search's mean reward of the learned pick minus that of its own choice; biased downwards, the
search played the winner of noisy means: it ranks decisions, it does not price them).
usage: PYTHONPATH=. python scripts/trials/conspiracy_gap.py WEIGHTS GAMES_PER_SEAT
(docs/learned.md, "Abyss: Conspiracy": the records it saves go to /tmp/consp_gap.npz)"""
import sys
from importlib import import_module

import numpy as np

from reports import learned_fit as F
from reports.learn_run import search_records
from sim import games as registry

w_path, per = sys.argv[1], int(sys.argv[2])
spec = registry.get("conspiracy")
learn = import_module(spec.report().LEARN)
tables = spec.load_cards(None, [], ())
strategies = spec.strategies()
search = f"search:rollouts=64:rollout_policy=learned:rollout_weights={w_path}:opponents=own"
parts = []
for seat in range(2):
    lineup = ["key_hunter_open_2p"]
    lineup.insert(seat, search)
    games = 70_000_000 + seat * per + np.arange(per)
    parts.append(search_records(learn, tables, lineup, 2026, games, strategies))
r = F.Records.concat(parts)
with np.load(w_path) as d:
    w = d["weights"] / 4096.0
    names = list(d["features"])
print("features", names == list(learn.FEATURES))
s = F.scores(w, r)
pick = np.argmax(s, axis=1)
rows = np.arange(len(r))
vp, vc = r.visits[rows, pick], r.visits[rows, r.chosen]
known = (vp > 0) & (vc > 0)
gap = np.zeros(len(r))
gap[known] = r.total[rows, pick][known] / vp[known] - r.total[rows, r.chosen][known] / vc[known]
names_d = ["source", "keep", "place", "swap", "loc_source", "loc_keep"]
for code in np.unique(r.code):
    m = r.code == code
    print(f"{names_d[code]:<11} n={m.sum():6d} agree={np.mean(pick[m] == r.chosen[m]):.3f} "
          f"gap/decision={gap[m].mean():+.5f} total gap={gap[m].sum():+.2f}")
print("all gap total", gap.sum(), "per game", gap.sum() / (2 * per))
np.savez_compressed("/tmp/consp_gap.npz", code=r.code, n=r.n, features=r.features, visits=r.visits,
                    total=r.total, chosen=r.chosen, pick=pick, gap=gap)
