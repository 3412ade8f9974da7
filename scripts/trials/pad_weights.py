"""After `git apply scripts/trials/card_features_X.patch` (docs/learned.md, "Card-level features,
tried"): the built-in Abyss weights padded with zero weights for the features the patch appends,
so they load and play as before. usage: PYTHONPATH=. python scripts/trials/pad_weights.py"""

import json
from pathlib import Path

import numpy as np

from games.abyss.report import learn
from strategies.learned import save_weights

for path in sorted(Path("games/abyss/strategies/learned").glob("learned_*.npz")):
    with np.load(path, allow_pickle=False) as data:
        weights, decisions = data["weights"], data["decisions"]
        meta = json.loads(str(data["meta"]))
    meta.pop("format", None)  # (save_weights writes it)
    padded = np.zeros((weights.shape[0], len(learn.FEATURES)), dtype=np.int32)
    padded[:, : weights.shape[1]] = weights
    save_weights(path, padded, tuple(decisions), learn.FEATURES, meta)
    print(path, weights.shape, "->", padded.shape)
