"""Expert iteration (`abyss-mc learn`, docs/learned.md): the search labels decisions, a learned
player imitates it, and the next search plays it as its rollout policy.

Each iteration plays search games against a field (seats rotated), records every decision of the
search seat that the learned player scores (the game's LEARN module), fits the scorer on most of
the games (`reports.learned_fit`), checks it on the held-out games (agreement with the search,
the search's reward of its picks) and measures its strength on fresh deals against the field
(every game a new deal, seats rotated). The weights of each iteration are written as a file the
`learned:weights=FILE` strategy plays; the next iteration's search models every player by them.
Every number reproduces from the seed (`DEALS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

import numpy as np
import pandas as pd

from reports import learned_fit as F

#: the records of iteration i are games DEALS * i on (of the run's seed); every strength is
#: measured on the same games of seed + 1
DEALS = 10_000_000


@dataclass
class LearnSetup:
    spec: object
    tables: object
    expansions: tuple
    n_players: int
    field: list[str]  # the opponents (n_players - 1 specs)
    base: str  # the learned player's base heuristic, the first search's rollout policy
    seed: int
    iterations: int
    record_games: int
    rollouts: int
    strength_games: int
    out: Path
    progress: object = None
    #: the fit's soft target (`learned_fit.TARGETS`): the search's visit shares imitated it best
    #: (docs/learned.md: 30% against 25% for the mean rewards' and the choices' targets)
    target: str = "visits"
    penalty: float = F.DEFAULT_PENALTY


def win_share(seats: pd.DataFrame, name: str) -> tuple[float, float, int]:
    """The mean share of the win of the seats of `name` (ties shared), its 95% half-width and
    the number of such seats."""
    first = (seats["rank"] == 1).astype(float)
    share = first / first.groupby(seats["game"]).transform("sum")
    mine = share[seats["strategy"] == name].to_numpy()
    half = 1.96 * mine.std(ddof=1) / np.sqrt(len(mine)) if len(mine) > 1 else np.nan
    return float(mine.mean()), float(half), len(mine)


def strength(setup: LearnSetup, player: str) -> tuple[float, float, int]:
    """`player` in one seat, the field in the others, seats rotated, on the same
    `strength_games` deals for every player (none of them a deal the records came from). A
    player that is the field's own strategy wins its share, 1/n, by symmetry."""
    if player in setup.field and len(set(setup.field)) == 1:
        return 1 / setup.n_players, 0.0, 0
    play = setup.spec.play()
    registry = setup.spec.strategies()
    policies = registry.make_policies([player, *setup.field], setup.n_players)
    played = play.run_games(setup.tables, engine="fast", n_players=setup.n_players,
                            n_games=setup.strength_games, seed=setup.seed + 1,
                            policies=policies, expansions=setup.expansions)  # fmt: skip
    if setup.progress is not None:
        setup.progress(setup.strength_games)
    return win_share(played.seats, policies[0].name)


def records(setup: LearnSetup, rollout: str, weights: str, first_game: int) -> F.Records:
    """The search's records: `record_games` games, the search in each seat in turn."""
    learn = import_module(setup.spec.report().LEARN)
    registry = setup.spec.strategies()
    search = f"search:rollouts={setup.rollouts}:rollout_policy={rollout}"
    if weights:
        search += f":rollout_weights={weights}"
    parts = []
    n = setup.n_players
    per_seat = -(-setup.record_games // n)
    for seat in range(n):
        lineup = list(setup.field)
        lineup.insert(seat, search)
        games = first_game + seat * per_seat + np.arange(per_seat)
        parts.append(learn.search_records(setup.tables, lineup, setup.seed, games, registry))
        if setup.progress is not None:
            setup.progress(per_seat)
    return F.Records.concat(parts)


def iterate(setup: LearnSetup, done: dict[int, dict] | None = None) -> pd.DataFrame:
    """Every iteration: records, fit, held-out check, strength; its weights file and its row
    (`iteration_<i>.json`) written to `setup.out` as it ends, so an interrupted run resumes past
    the iterations in `done` (their rows, by iteration). The learning curve, one row per
    iteration (iteration 0: the base heuristic)."""
    import json

    from sim.core.runs import atomic_write_text

    done = done or {}
    learn = import_module(setup.spec.report().LEARN)
    if 0 not in done:
        share, half, games = strength(setup, setup.base)
        done[0] = {"iteration": 0, "player": setup.base, "records": 0, "agreement": np.nan,
                   "reward_gap": np.nan, "win_share": share, "half_width": half, "games": games}
        atomic_write_text(setup.out / "iteration_0.json", json.dumps(done[0]))
    rollout, weights = setup.base, ""
    for it in range(1, setup.iterations + 1):
        path = setup.out / f"learned_{it}.npz"
        if it not in done:
            done[it] = _iteration(setup, learn, it, rollout, weights, path)
            atomic_write_text(setup.out / f"iteration_{it}.json", json.dumps(done[it]))
        rollout, weights = "learned", str(path)
    return pd.DataFrame([done[i] for i in range(setup.iterations + 1)])


def _iteration(setup: LearnSetup, learn, it: int, rollout: str, weights: str, path: Path) -> dict:
    recs = records(setup, rollout, weights, DEALS * it)
    train, held = F.split_by_game(recs, 0.2, setup.seed + it)
    fit = F.fit(train, target=setup.target, penalty=setup.penalty, n_codes=learn.N_CODES)
    check = F.evaluate(fit, held)
    overall = check[check["code"] == F.ALL_CODES].iloc[0]
    made = {"iteration": it, "seed": setup.seed, "records": len(train),
            "rollouts": setup.rollouts, "field": setup.field, "target": setup.target,
            "search_rollout_policy": rollout, "search_rollout_weights": Path(weights).name}
    learn.write_weights(path, fit.weights, setup.base, setup.n_players, made)
    share, half, games = strength(setup, f"learned:weights={path}")
    return {"iteration": it, "player": f"learned:weights={path.name}", "records": len(recs),
            "agreement": float(overall["agreement"]), "reward_gap": float(overall["reward_gap"]),
            "win_share": share, "half_width": half, "games": games}


def read_done(out: Path) -> dict[int, dict]:
    """The rows of the iterations an interrupted run finished."""
    import json

    rows = [json.loads(p.read_text()) for p in sorted(out.glob("iteration_*.json"))]
    return {row["iteration"]: row for row in rows}


def curve_text(curve: pd.DataFrame, setup: LearnSetup) -> str:
    """The learning curve as a table, then what it says."""
    lines = [f"Learned player, {setup.n_players} players, against {', '.join(setup.field)} "
             f"(seats rotated, {setup.strength_games} deals each; parity "
             f"{1 / setup.n_players:.1%})", "",
             f"{'iteration':>9}  {'records':>8}  {'agreement':>9}  {'win share':>18}  player"]
    for r in curve.itertuples():
        agree = "" if np.isnan(r.agreement) else f"{r.agreement:.1%}"
        share = f"{r.win_share:.1%} +/- {r.half_width:.1%}"
        lines.append(f"{r.iteration:>9}  {r.records:>8}  {agree:>9}  {share:>18}  {r.player}")
    best = curve.iloc[curve["win_share"].to_numpy()[1:].argmax() + 1] if len(curve) > 1 else None
    if best is not None:
        lo, hi = best.win_share - best.half_width, best.win_share + best.half_width
        base = curve.win_share.iloc[0]
        verdict = ("stronger than its base" if lo > base else "weaker than its base" if hi < base
                   else "not told apart from its base")  # fmt: skip
        lines += ["", f"Best: iteration {best.iteration}, {best.win_share:.1%} "
                  f"(95% interval {lo:.1%} to {hi:.1%}): {verdict}."]
        if curve.games.iloc[0] == 0:
            lines.append(f"(The base is the whole field: its {base:.1%} is its share by symmetry.)")
    return "\n".join(lines) + "\n"


def curve_png(curve: pd.DataFrame, setup: LearnSetup) -> bytes:
    """The learning curve: win share per iteration with 95% intervals, parity marked."""
    from reports.charts import figure
    from reports.render import render_png

    fig = figure(figsize=(5.5, 3.2))
    ax = fig.add_subplot()
    ax.errorbar(curve["iteration"], curve["win_share"], yerr=curve["half_width"], marker="o",
                capsize=3)  # fmt: skip
    ax.axhline(1 / setup.n_players, color="grey", lw=0.8, ls="--", label="parity")
    ax.set_xlabel("iteration (0: the base heuristic)")
    ax.set_ylabel("win share against the field")
    ax.set_xticks(curve["iteration"])
    ax.legend(fontsize=7, frameon=False)
    return render_png(fig)
