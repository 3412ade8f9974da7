"""Drama and decisiveness with an oracle (docs/metrics.md), after Ludii's state-evaluation metrics
(Browne's Drama and Decisiveness; Ludii's `Drama` and `DecisivenessMoves`), measured on rounds
with a rollout estimate of each seat's chance to win (`sim.core.oracle`).

`values[g, r, seat]`: game g's estimate before round r (r = 0: at the start), NaN after its end;
the game's last row is its result (each seat's share of the win).

- **Drama** of a round: the best estimate of any seat minus the eventual winner's (the mean over
  the winners of a shared win), 0 when the winner is the favourite. A game's drama is its mean
  over the rounds before the result (Ludii averages the same difference over moves), and its
  *peak* the largest: how far behind the winner ever looked.
- **Decisiveness**: the threshold is the best estimate any loser ever reached; the game is decided
  at the first round at which a winner's estimate exceeds it, and decisiveness is that round over
  the rounds before the result (1 when only the result does: Ludii's `DecisivenessMoves` on
  rounds). Low means decided early, as the decisive point of the tension metrics.

Each metric is a mean over games with its t interval at 95%.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

CONF = 0.95
METRICS = ("drama", "drama_peak", "decisiveness")


def per_game(values: np.ndarray) -> pd.DataFrame:
    """One row per game: its rounds before the result, drama, peak drama and decisiveness."""
    rows = []
    for v in values:
        v = v[~np.isnan(v).any(axis=1)]
        result, before = v[-1], v[:-1]
        winners = result > 0
        if not len(before) or not winners.any():
            continue
        behind = before.max(axis=1) - before[:, winners].mean(axis=1)
        losers = before[:, ~winners]
        threshold = losers.max() if losers.size else -math.inf
        ahead = np.flatnonzero((before[:, winners] > threshold).any(axis=1))
        decided = int(ahead[0]) if len(ahead) else len(before)
        rows.append({"rounds": len(before), "drama": float(behind.mean()),
                     "drama_peak": float(behind.max()),
                     "decisiveness": decided / len(before)})  # fmt: skip
    return pd.DataFrame(rows, columns=["rounds", *METRICS])


def summary(values: np.ndarray, conf: float = CONF) -> dict:
    """Each metric's mean over games with its t interval (`lo`, `hi`), and the games."""
    from scipy import stats

    df = per_game(values)
    out = {"games": len(df)}
    for m in METRICS:
        x = df[m].to_numpy()
        mean = float(x.mean()) if len(x) else math.nan
        half = (float(stats.t.ppf(0.5 + conf / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
                if len(x) > 1 else math.nan)  # fmt: skip
        out |= {m: mean, f"{m}_lo": mean - half, f"{m}_hi": mean + half}
    return out


def frame(by_tier: dict[str, dict[int, np.ndarray]]) -> pd.DataFrame:
    """One row per play strength and player count: games, then each metric `mean [lo, hi]`."""
    rows = []
    for tier, by_count in by_tier.items():
        for n, values in sorted(by_count.items()):
            s = summary(values)
            row = {"strength": tier, "players": n, "games": s["games"]}
            for m in METRICS:
                row[m.replace("_", " ")] = f"{s[m]:.2f} [{s[f'{m}_lo']:.2f}, {s[f'{m}_hi']:.2f}]"
            rows.append(row)
    return pd.DataFrame(rows)


def chart(by_tier: dict[str, dict[int, np.ndarray]]):
    """Drama, peak drama and decisiveness (mean and 95% interval) by player count, one line per
    play strength."""
    from reports.charts import error_bars, figure, legend_of_panels

    fig = figure(figsize=(8.0, 2.6))
    axes = fig.subplots(1, len(METRICS), squeeze=False)[0]
    titles = {"drama": "drama", "drama_peak": "peak drama", "decisiveness": "decisiveness"}
    for i, (tier, by_count) in enumerate(by_tier.items()):
        counts = sorted(by_count)
        stats = [summary(by_count[n]) for n in counts]
        for ax, m in zip(axes, METRICS, strict=True):
            y = np.array([[s[m], s[f"{m}_lo"], s[f"{m}_hi"]] for s in stats])
            ax.errorbar(np.array(counts) + 0.08 * (i - 1), y[:, 0], yerr=error_bars(*y.T),
                        marker="o", markersize=3, capsize=2, linewidth=1, color=f"C{i}",
                        label=tier)  # fmt: skip
    for ax, m in zip(axes, METRICS, strict=True):
        ax.set_title(titles[m], fontsize=9)
        ax.set_xlabel("players", fontsize=8)
        ax.set_ylim(0, 1.0 if m == "decisiveness" else None)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("per game", fontsize=8)
    legend_of_panels(axes)
    return fig


def load(dirs: dict) -> dict:
    """{strength: {n: values}} of the run directories `dirs` ({strength: directory}) in which
    `abyss-mc drama` measured them (`drama-<n>p.npz`)."""
    out = {}
    for tier, d in dirs.items():
        for path in sorted(d.glob("drama-*p.npz")):
            with np.load(path) as z:
                out.setdefault(tier, {})[int(path.stem.split("-")[1][:-1])] = z["values"]
    return out


def add_section(report, dirs: dict) -> None:
    """`Drama and decisiveness with an oracle`, when `abyss-mc drama` measured them in the run
    directories `dirs` ({strength: directory})."""
    found = load(dirs)
    if not found:
        return
    sec = report.section("Drama and decisiveness with an oracle")
    sec.figure(chart(found), "drama", "Drama, peak drama and decisiveness per game (95% t "
               "intervals), by player count and play strength")  # fmt: skip
    sec.table(frame(found).set_index(["strength", "players"]),
              caption="Per game, mean [95% t interval] over the sampled games")  # fmt: skip
    sec.paragraph(
        "Each seat's chance to win was estimated before every round by rollouts from the "
        "position (what no player can see redealt; the seats' own strategies to the end). "
        "**Drama**: the favourite's chance minus the eventual winner's, averaged over the "
        "rounds (0: the winner was always the favourite); its **peak**: the largest. "
        "**Decisiveness**: the share of the game played before the winner's chance first "
        "exceeds the best any loser ever had (low: decided early). docs/metrics.md defines "
        "them after Ludii's.")  # fmt: skip
