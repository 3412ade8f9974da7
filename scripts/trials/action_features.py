"""Trial (f) of docs/learned.md, "Where the gap is" (issue 52): do features of the action's
options (on "recruit": the best affordable Lord's `lord_score` and how many Lords the seat can
afford; on "request support": the biggest Council stack and the Council's cards) let the scorer
imitate the search's action better on games it did not see?

One recording of the search's decisions (`learned_capacity.record`: 64 rollouts, its own seat
modelled by the built-in learned player, the opponents by their strategies, every open 4-player
field, the search in each seat in turn; seed 2026's games 50,000,000 on), then for three splits of
the games (a fifth held out) the fit with the four features against the same fit with their
columns zeroed (the control).

usage (a worktree with `git apply scripts/trials/action_features_f.patch`, which appends the
features; weights are placed by name, so the built-in files play as before):
    PYTHONPATH=. python scripts/trials/action_features.py GAMES_PER_FIELD_AND_SEAT RECORDS.npz
"""

from __future__ import annotations

import sys
import time
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
import learned_capacity as C  # noqa: E402

from games.abyss.engine import policy_params as P  # noqa: E402
from reports import learned_fit as F  # noqa: E402
from sim import games as registry  # noqa: E402


def main() -> None:
    per, path = int(sys.argv[1]), Path(sys.argv[2])
    if path.is_file():
        records = C.load(path)
    else:
        t = time.perf_counter()
        records = C.record(per)
        C.save(records, path)
        print(f"recorded {len(records)} decisions in {time.perf_counter() - t:.0f} s")
    learn = import_module(registry.get("abyss").report().LEARN)
    new = [P.FEATURE_NAMES.index(name) for name in P.ACTION_NAMES]

    def control(r: F.Records) -> F.Records:
        features = r.features.copy()
        features[:, :, new] = 0
        return C.with_features(r, features)

    for split in (2026, 2027, 2028):
        train, held = F.split_by_game(records, 0.2, split)
        for label, make in (("control", control), ("with the action's features", lambda r: r)):
            fit = F.fit(make(train), target="visits", n_codes=learn.N_CODES)
            ev = F.evaluate(fit, make(held)).set_index("code")
            every, action = ev.loc[F.ALL_CODES], ev.loc[C.ACTION]
            print(f"split {split}, {label:<27} every decision: agreement {every.agreement:.4f}, "
                  f"gap {every.reward_gap:.5f} | the action: agreement {action.agreement:.4f}, "
                  f"cross-entropy {action.log_loss:.4f}, gap {action.reward_gap:.5f}")


if __name__ == "__main__":
    main()
