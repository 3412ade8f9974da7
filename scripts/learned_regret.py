"""Where the learned player loses to the search it imitates, by decision (docs/learned.md, "Where
the gap is", and for Conspiracy "How it got there"). The search (its rollouts modelling its own
seat by the learned player, the opponents by their strategies) plays in each seat in turn against
copies of FIELD; at each decision it records, the learned player's pick under WEIGHTS is compared
with the option the search played: how often they differ, and the search's mean reward of its
own choice minus that of the learned pick (win shares, over the rollouts of each). The game and
the player count are the weights file's.

The reward gap is measured on the same rollouts that chose the search's option, so it is biased
upwards (the winner of noisy means); it ranks the decisions, it does not price them.

The games are 10,000,000 on of SEED: with 2026 (the default, docs/learned.md's figures) they are
deals of the first iteration's records of `learn --seed 2026` at the count (a diagnosis that
guided the features, not a figure to report).

usage: PYTHONPATH=ROOT python scripts/learned_regret.py WEIGHTS FIELD GAMES [ROLLOUTS] [SEED]"""

import json
import sys
from importlib import import_module

import numpy as np
import pandas as pd

from reports import learned_fit as F
from reports.runs.learn import search_records
from sim import games as registry
from strategies.learned import load_weights

weights_path, field, n_games = sys.argv[1], sys.argv[2], int(sys.argv[3])
rollouts = int(sys.argv[4]) if len(sys.argv) > 4 else 64
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 2026
with np.load(weights_path, allow_pickle=False) as data:
    meta = json.loads(str(data["meta"]))
game, n_players = meta["game"], int(meta["players"])
spec = registry.get(game)
learn = import_module(spec.report().LEARN)
tables = spec.load_cards(None, [], spec.tournament_expansions)  # (as `learn` plays)
weights = load_weights(weights_path, game, learn.DECISIONS, learn.FEATURES).weights
search = (f"search:rollouts={rollouts}:rollout_policy=learned:opponents=own"
          f":rollout_weights={weights_path}")  # fmt: skip
parts = []
per_seat = -(-n_games // n_players)
for seat in range(n_players):
    lineup = [field] * (n_players - 1)
    lineup.insert(seat, search)
    games = 10_000_000 + seat * per_seat + np.arange(per_seat)
    parts.append(search_records(learn, tables, lineup, seed, games, spec.strategies()))
rec = F.Records.concat(parts)
pick = F.picks(weights, rec)
visits = np.where(rec.live, rec.visits, 0.0)
means = np.divide(rec.total, visits, out=np.full_like(visits, np.nan), where=visits > 0)
rows = np.arange(len(rec))
gap = means[rows, rec.chosen] - means[rows, pick]
frame = pd.DataFrame({"code": rec.code, "differs": pick != rec.chosen, "gap": gap})
policies = import_module(f"games.{game}.engine.policies")
by_value = {v: k.removeprefix("D_").lower() for k, v in vars(policies).items()
            if k.startswith("D_") and isinstance(v, int)}  # fmt: skip
names = {code: by_value.get(d, str(d)) for code, d in enumerate(learn.DECISIONS)}
table = frame.groupby("code").agg(decisions=("differs", "size"), differs=("differs", "mean"),
                                  gap=("gap", "mean"))  # fmt: skip
table["gap per game"] = frame.groupby("code")["gap"].sum() / n_games
table.index = [names.get(c, str(c)) for c in table.index]
print(f"{n_players * per_seat} games of seed {seed}, the search in each seat against "
      f"{n_players - 1} x {field}, {rollouts} rollouts")
print(table.sort_values("gap per game", ascending=False).to_string(float_format="%.3f"))
print(f"all: {len(frame)} decisions, differs {frame['differs'].mean():.3f}, "
      f"gap per game {frame['gap'].sum() / n_games:.3f}")
