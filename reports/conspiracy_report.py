"""The balance report of an *Abyss: Conspiracy* run, as HTML, Markdown and PNG charts.

Reads a run directory written by ``abyss-mc simulate --game conspiracy`` or ``abyss-mc tournament
--game conspiracy``: ``manifest.json`` (``config.game == "conspiracy"``), ``seats.parquet`` and
``games.parquet`` (docs/results-schema.md). The page is built with `reports.render` and the chart
style and helpers of `reports.balance`; tournament statistics come from `reports.stats`.

Intervals are 95%. Per section the unit of the interval is said in the text:

* simulate: every game is an independent deal. Rates get Wilson intervals over seat-games, means
  Student t intervals over seat-games; paired comparisons (the ``pile_raider`` head-to-head) pair
  the seats of one game and use a t interval over games.
* tournament: the tables of a block share a deal, so the block is the unit. Seat and strategy
  rates use `reports.stats` (t intervals over per-block means; pairwise differences paired within
  blocks, Holm-corrected). Descriptive rates of subgroups (Location holders, coalition sizes, pile
  shares) use the cluster-robust (linearised ratio) interval with the block as the cluster and
  a t quantile with (blocks - 1) degrees of freedom; rate intervals are never narrower than the
  Wilson interval of the seat-games, as in `reports.stats.strategy_summary`.

Win rates use the ``win`` column (the seat's share of first place: 1/k among k tied winners), so
the win rates of the seats of one player count sum to 1.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from reports.balance import (
    CONF,
    _err,
    _figure,
    chart_cards,
    chart_matrix,
    chart_rates,
    chart_seats,
    chart_seats_by_count,
    chart_sources,
    seat_advantage_blocks,
)
from reports.summary import t_quantile, wilson_interval
from sim.core.errors import UserError

__all__ = [
    "SOURCE_LABELS",
    "ConspiracyRun",
    "build_report",
    "coalition_distribution",
    "end_reasons",
    "game_length",
    "group_rates",
    "load_run",
    "location_impact",
    "pile_raider_head_to_head",
    "pile_share_rates",
    "pile_summary",
    "points_by_source",
    "seat_advantage",
    "strategy_rates",
    "write_report",
]

#: Score columns of the seats table and their labels (they sum to `score`).
SOURCE_LABELS = {
    "score_lords": "Lords",
    "score_locations": "Locations",
    "score_coalition": "Coalition",
    "score_pearl_master": "Pearl Master",
}
SEAT_COLUMNS = (
    "game",
    "seat",
    "strategy",
    "score",
    *SOURCE_LABELS,
    "coalition_size",
    "n_lords",
    "draws",
    "pile_takes",
    "pile_lords",
    "rank",
    "win",
    "location_set",
)
GAME_COLUMNS = ("game", "n_players", "turns", "end_reason")
TOURNAMENT_COLUMNS = ("block", "table")
#: Bins of the share of a seat's recruitment turns spent taking a discard pile.
PILE_BINS = (-np.inf, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
PILE_LABELS = ("none", "(0, 20%]", "(20%, 40%]", "(40%, 60%]", "(60%, 80%]", "(80%, 100%]")
RAIDER = "pile_raider"


# ------------------------------------------------------------------------------ the run
class ConspiracyRun:
    """A Conspiracy run directory, read (`load_run`)."""

    def __init__(self, run_dir: Path, manifest: dict, seats: pd.DataFrame, games: pd.DataFrame):
        self.dir = Path(run_dir)
        self.manifest = manifest
        self.config = manifest.get("config") or {}
        self.seats = seats
        self.games = games
        self.counts = sorted(int(n) for n in games["n_players"].unique())
        self._tables: object = None
        self.tables_error: str | None = None

    @property
    def is_tournament(self) -> bool:
        return self.config.get("command") == "tournament"

    @property
    def multi(self) -> bool:
        """Whether the run holds several player counts."""
        return len(self.counts) > 1

    @property
    def strategies(self) -> list[str]:
        """The distinct strategies, in the order of the config (then any others, by name)."""
        seen = [str(s) for s in self.config.get("strategies") or []]
        present = set(self.seats["strategy"].unique())
        ordered = list(dict.fromkeys(s for s in seen if s in present))
        return ordered + sorted(present - set(ordered))

    @property
    def cluster(self) -> str | None:
        """The column whose values are the independent units of a tournament (None: seat-games
        of different games are independent)."""
        return "block" if self.is_tournament else None

    def tables(self):
        """The card tables the run played with (Location names), or None if they no longer
        load (`tables_error` says why)."""
        if self._tables is None and self.tables_error is None:
            from sim import games

            try:
                self._tables = games.get("conspiracy").load_run_cards(self.config, ())
            except Exception as exc:  # moved or edited card files: report without names
                from sim.core.errors import one_line

                self.tables_error = one_line(exc)
        return self._tables


def load_run(run_dir: Path | str) -> ConspiracyRun:
    """Read a Conspiracy run directory; `UserError` (one line) if it is not one."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UserError(f"run directory {run_dir} does not exist")
    manifest_path = run_dir / "manifest.json"
    if not manifest_path.is_file():
        raise UserError(f"{run_dir} is not a run directory (no manifest.json)")
    try:
        manifest = json.loads(manifest_path.read_text())
    except (ValueError, OSError) as exc:
        raise UserError(f"{manifest_path}: unreadable manifest ({exc})") from None
    config = manifest.get("config") if isinstance(manifest, dict) else None
    game = config.get("game", "abyss") if isinstance(config, dict) else None
    if game != "conspiracy":
        raise UserError(
            f"{run_dir} is not an Abyss: Conspiracy run (its manifest says game "
            f"{game!r}, expected 'conspiracy')"
        )
    frames = []
    for name, needed in (("seats.parquet", SEAT_COLUMNS), ("games.parquet", GAME_COLUMNS)):
        path = run_dir / name
        if not path.is_file():
            raise UserError(
                f"{run_dir}: no {name}; the Conspiracy report needs the per-game tables"
            )
        try:
            frame = pd.read_parquet(path)
        except Exception as exc:
            raise UserError(f"{path}: unreadable ({' '.join(str(exc).split())})") from None
        if config.get("command") == "tournament":
            needed = (*needed, *TOURNAMENT_COLUMNS)
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            raise UserError(f"{path}: missing column(s) {', '.join(missing)}")
        frames.append(frame)
    seats, games = frames
    if not len(games) or not len(seats):
        raise UserError(f"{run_dir}: the run holds no games")
    return ConspiracyRun(run_dir, manifest, _prepare_seats(seats, games), games)


def _prepare_seats(seats: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Seats with `players` (the game's player count), `ip` (the score, float) and `strategy`
    as str."""
    seats = seats.copy()
    seats["strategy"] = seats["strategy"].astype(str)
    if "n_players" in seats.columns:
        players = seats["n_players"].to_numpy()
    elif games["n_players"].nunique() == 1:
        players = np.full(len(seats), int(games["n_players"].iloc[0]))
    else:  # one simulate run has one player count, but be safe: join on the game
        by_game = games.drop_duplicates("game").set_index("game")["n_players"]
        players = seats["game"].map(by_game).to_numpy()
    seats["players"] = players.astype(np.int64)
    seats["ip"] = seats["score"].astype(np.float64)
    return seats


# ------------------------------------------------------------------------------ statistics
def group_rates(seats: pd.DataFrame, by: str | list[str], cluster: str | None = None):
    """Win rate and mean IP of each group of seat-games, with 95% intervals.

    Columns: ``seat-games``, ``win rate`` (mean of ``win``, the share of first place), ``win lo``,
    ``win hi``, ``mean IP``, ``IP lo``, ``IP hi``. Without `cluster` the seat-games are taken as
    independent: Wilson interval for the rate (on the rounded number of wins), Student t for the
    mean. With `cluster` (a tournament's ``block``) the interval is cluster-robust: the linearised
    variance of the ratio estimator, ``G/(G-1) * sum_b (y_b - r n_b)^2 / N^2`` over the G clusters
    of the frame, with a t quantile on G - 1 degrees of freedom; the rate interval is clipped to
    [0, 1] and never narrower than the Wilson interval.
    """
    keys = [by] if isinstance(by, str) else list(by)
    df = seats[[*keys, "win", "ip", *([cluster] if cluster else [])]].copy()
    df["ip2"] = df["ip"] ** 2
    g = df.groupby(keys, observed=True, sort=True)
    n = g.size()
    wins = g["win"].sum()
    ip = g["ip"].sum()
    ip2 = g["ip2"].sum()
    out = pd.DataFrame(index=n.index)
    out["seat-games"] = n.astype(int)
    out["win rate"] = wins / n
    out["mean IP"] = ip / n
    wilson = [wilson_interval(int(round(w)), int(k), CONF) for w, k in zip(wins, n, strict=True)]
    wl = np.array([lo for lo, _ in wilson])
    wh = np.array([hi for _, hi in wilson])
    if cluster is None:
        out["win lo"], out["win hi"] = wl, wh
        var = (ip2 - ip**2 / n) / (n - 1)
        half = np.array(
            [
                t_quantile(CONF, int(k) - 1) * math.sqrt(max(v, 0.0) / k) if k > 1 else np.nan
                for v, k in zip(var, n, strict=True)
            ]
        )
    else:
        n_clusters = df[cluster].nunique()
        per = df.groupby([*keys, cluster], observed=True, sort=False).agg(
            n=("win", "size"), w=("win", "sum"), s=("ip", "sum")
        )
        group = per.index.droplevel(cluster)
        r_win = out["win rate"].reindex(group).to_numpy()
        r_ip = out["mean IP"].reindex(group).to_numpy()
        per["zw"] = (per["w"] - r_win * per["n"]) ** 2
        per["zs"] = (per["s"] - r_ip * per["n"]) ** 2
        sums = per.groupby(level=list(range(len(keys))), observed=True)[["zw", "zs"]].sum()
        sums = sums.reindex(out.index)
        if n_clusters > 1:
            q = t_quantile(CONF, n_clusters - 1) * math.sqrt(n_clusters / (n_clusters - 1))
            half_w = q * np.sqrt(sums["zw"].to_numpy()) / n.to_numpy()
            half = q * np.sqrt(sums["zs"].to_numpy()) / n.to_numpy()
        else:
            half_w = half = np.full(len(out), np.nan)
        rate = out["win rate"].to_numpy()
        out["win lo"] = np.clip(np.fmin(rate - half_w, wl), 0.0, 1.0)
        out["win hi"] = np.clip(np.fmax(rate + half_w, wh), 0.0, 1.0)
        if n_clusters < 2:
            out["win lo"], out["win hi"] = np.nan, np.nan
    out["IP lo"] = out["mean IP"] - half
    out["IP hi"] = out["mean IP"] + half
    return out[["seat-games", "win rate", "win lo", "win hi", "mean IP", "IP lo", "IP hi"]]


def seat_advantage(run: ConspiracyRun) -> pd.DataFrame:
    """Win rate of each seat (1 = first player) per player count, indexed (players, seat):
    Wilson intervals over seat-games (simulate) or t intervals over blocks (tournament,
    `reports.balance.seat_advantage_blocks`). Columns ``games``, ``win rate``, ``lo``, ``hi``."""
    frames = []
    for n in run.counts:
        part = run.seats[run.seats["players"] == n]
        if run.is_tournament:
            frame = seat_advantage_blocks(part)
        else:
            rates = group_rates(part.assign(seat=part["seat"] + 1), "seat")
            frame = pd.DataFrame(
                {
                    "games": rates["seat-games"],
                    "win rate": rates["win rate"],
                    "lo": rates["win lo"],
                    "hi": rates["win hi"],
                }
            )
        frame = frame.reset_index()
        frame.insert(0, "players", n)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True).set_index(["players", "seat"])


def strategy_rates(run: ConspiracyRun, n_players: int) -> pd.DataFrame:
    """Win rate and mean IP per strategy at one player count (simulate: Wilson and t over
    seat-games), sorted by decreasing win rate."""
    part = run.seats[run.seats["players"] == n_players]
    rates = group_rates(part, "strategy")
    return rates.sort_values("win rate", ascending=False, kind="stable")


def _keys(run: ConspiracyRun) -> list[str]:
    """Group keys of the per-strategy tables: the strategy, and the player count if several."""
    return ["players", "strategy"] if run.multi else ["strategy"]


def _label(index) -> list[str]:
    """Chart labels of an index of strategies or (players, strategy) pairs."""
    return [f"{i[1]} ({i[0]}p)" if isinstance(i, tuple) else str(i) for i in index]


def points_by_source(run: ConspiracyRun) -> pd.DataFrame:
    """Mean IP per seat-game from each source, per strategy; the last column is the mean total."""
    g = run.seats.groupby(_keys(run), sort=True)
    frame = g[list(SOURCE_LABELS)].mean().rename(columns=SOURCE_LABELS)
    frame["total"] = g["ip"].mean()
    return frame


def coalition_distribution(run: ConspiracyRun) -> pd.DataFrame:
    """Share of each strategy's seat-games ending with a largest same-colour coalition of each
    size (columns: sizes), plus its mean size."""
    table = pd.crosstab(
        [run.seats[k] for k in _keys(run)], run.seats["coalition_size"], normalize="index"
    )
    sizes = run.seats["coalition_size"]
    table = table.reindex(columns=range(int(sizes.min()), int(sizes.max()) + 1), fill_value=0.0)
    table.columns = [int(c) for c in table.columns]
    table.columns.name = "coalition size"
    mean = run.seats.groupby(_keys(run))["coalition_size"].mean()
    table["mean"] = mean.reindex(table.index).to_numpy()
    return table


def location_impact(run: ConspiracyRun, n_players: int) -> tuple[pd.DataFrame, float]:
    """For each Location (in card order): ``#`` (printed number), ``held`` (seat-games ending
    with it), ``pick rate`` (share of seat-games), the win rate of its holders with its interval
    (``lo``, ``hi``: Wilson, or cluster-robust over blocks in a tournament) and ``vs overall``
    (minus the win rate of all seats). Returns (table indexed by Location name, overall rate)."""
    part = run.seats[run.seats["players"] == n_players]
    bits = part["location_set"].to_numpy().astype(np.int64) & 0xFFFFFFFF
    tables = run.tables()
    if tables is not None:
        names = list(tables.location_names)
        numbers = [int(x) for x in tables.location_number]
    else:
        top = int(bits.max()).bit_length() if len(bits) else 0
        names = [f"Location {i}" for i in range(top)]
        numbers = [None] * top
    overall = float(part["win"].mean())
    cols = ["win", "ip", *([run.cluster] if run.cluster else [])]
    base = part[cols].reset_index(drop=True)
    rows = []
    for i, name in enumerate(names):
        held = ((bits >> i) & 1).astype(bool)
        win = lo = hi = np.nan
        if held.any():
            # every seat-game stays in the frame: in a tournament the blocks without a holder
            # still count as clusters (a subgroup's size per block is random)
            rates = group_rates(base.assign(held=held), "held", run.cluster).loc[True]
            win, lo, hi = rates["win rate"], rates["win lo"], rates["win hi"]
        rows.append(
            {
                "Location": name,
                "#": numbers[i],
                "held": int(held.sum()),
                "pick rate": held.mean() if len(held) else np.nan,
                "win rate": win,
                "lo": lo,
                "hi": hi,
                "vs overall": win - overall,
            }
        )
    return pd.DataFrame(rows).set_index("Location"), overall


def pile_summary(run: ConspiracyRun) -> pd.DataFrame:
    """Per strategy: mean pile takes, draws and Lords from piles per seat-game, the mean Lords,
    and the pooled shares of recruitment turns (pile takes / (pile takes + draws)) and of Lords
    that came from discard piles."""
    g = run.seats.groupby(_keys(run), sort=True)
    sums = g[["pile_takes", "draws", "pile_lords", "n_lords"]].sum()
    means = g[["pile_takes", "draws", "pile_lords", "n_lords"]].mean()
    return pd.DataFrame(
        {
            "pile takes": means["pile_takes"],
            "draws": means["draws"],
            "Lords from piles": means["pile_lords"],
            "Lords": means["n_lords"],
            "turns from piles": sums["pile_takes"] / (sums["pile_takes"] + sums["draws"]),
            "Lords from piles (share)": sums["pile_lords"] / sums["n_lords"],
        }
    )


def pile_share(seats: pd.DataFrame) -> pd.Categorical:
    """Each seat-game's share of recruitment turns that took a discard pile, binned
    (`PILE_LABELS`; NaN for a seat that never recruited)."""
    takes = seats["pile_takes"].to_numpy(dtype=float)
    turns = takes + seats["draws"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(turns > 0, takes / turns, np.nan)
    return pd.cut(share, PILE_BINS, labels=list(PILE_LABELS), right=True)


def pile_share_rates(run: ConspiracyRun) -> pd.DataFrame:
    """Win rate and mean IP by binned share of recruitment turns from piles (all strategies
    together; per player count if several), with ``share`` = the bin's share of seat-games."""
    df = run.seats.assign(**{"from piles": pile_share(run.seats)})
    keys = ["players", "from piles"] if run.multi else ["from piles"]
    rates = group_rates(df.dropna(subset=["from piles"]), keys, run.cluster)
    total = rates.groupby(level=0)["seat-games"].transform("sum") if run.multi else None
    share = rates["seat-games"] / (total if total is not None else rates["seat-games"].sum())
    rates.insert(1, "share", share)
    return rates


def _policy(spec: str):
    try:
        from strategies.conspiracy import make_policy

        return make_policy(spec)
    except Exception:  # a user preset not loaded here, or a renamed one
        return None


def _is_heuristic(spec: str) -> bool:
    from strategies.conspiracy import HeuristicPolicy

    policy = _policy(spec)
    if policy is None:
        return spec.split(":")[0] != "random"
    return isinstance(policy, HeuristicPolicy)


def _params(spec: str) -> dict | None:
    import dataclasses

    policy = _policy(spec)
    if policy is None:
        return None
    return {f.name: getattr(policy, f.name) for f in dataclasses.fields(policy) if f.name != "name"}


def param_differences(a: str, b: str) -> str:
    """The parameters in which two strategies differ, as ``key a/b`` text."""
    pa, pb = _params(a), _params(b)
    if pa is None or pb is None or type(_policy(a)) is not type(_policy(b)):
        return "unknown" if pa is None or pb is None else "different policies"
    diff = [f"{k} {pa[k]}/{pb[k]}" for k in pa if pa[k] != pb[k]]
    return ", ".join(diff) or "none"


def pile_min_pairs(strategies: list[str]) -> list[tuple[str, str]]:
    """Pairs of heuristic strategies that differ in `pile_min` and in nothing else."""
    out = []
    for i, a in enumerate(strategies):
        for b in strategies[i + 1 :]:
            pa, pb = _params(a), _params(b)
            if pa is None or pb is None or not (_is_heuristic(a) and _is_heuristic(b)):
                continue
            if set(pa) == set(pb) and [k for k in pa if pa[k] != pb[k]] == ["pile_min"]:
                out.append((a, b))
    return out


def pile_raider_head_to_head(run: ConspiracyRun) -> pd.DataFrame | None:
    """`pile_raider` minus each other heuristic strategy of the run: the difference in win rate
    and mean IP, paired within games (simulate) or blocks (tournament), t intervals over those,
    p-values Holm-adjusted over the comparisons; None without `pile_raider` or another
    heuristic. Descriptive: the strategies differ in more than their use of the piles."""
    from reports import stats

    names = run.strategies
    raider = (
        RAIDER if RAIDER in names else next((s for s in names if s.split(":")[0] == RAIDER), None)
    )
    if raider is None:
        return None
    others = [s for s in names if s != raider and _is_heuristic(s)]
    if not others:
        return None
    rows = []
    for n in run.counts:
        part = run.seats[
            (run.seats["players"] == n) & run.seats["strategy"].isin([raider, *others])
        ]
        df = pd.DataFrame(
            {
                "block": part["block"] if run.is_tournament else part["game"],
                "table": part["table"] if run.is_tournament else 0,
                "seat": part["seat"],
                "strategy": part["strategy"],
                "win": part["win"],
                "ip": part["ip"],
                "rank": part["rank"],
            }
        )
        found = {}
        for metric in ("win", "ip"):
            pairs = stats.pairwise(df, metric=metric, conf=CONF, correction="none")
            for row in pairs.itertuples(index=False):
                if raider not in (row.a, row.b):
                    continue
                sign = 1.0 if row.a == raider else -1.0
                other = row.b if row.a == raider else row.a
                lo, hi = (row.lo, row.hi) if sign > 0 else (-row.hi, -row.lo)
                entry = found.setdefault(other, {"pairs": row.n_blocks})
                entry[metric] = (sign * row.diff, lo, hi, row.p)
        if not found:
            continue
        others_here = [o for o in others if o in found]
        p_win = stats.adjust_pvalues([found[o]["win"][3] for o in others_here], "holm")
        p_ip = stats.adjust_pvalues([found[o]["ip"][3] for o in others_here], "holm")
        for o, pw, pi in zip(others_here, p_win, p_ip, strict=True):
            e = found[o]
            rows.append(
                {
                    "players": n,
                    "versus": o,
                    "games" if not run.is_tournament else "blocks": e["pairs"],
                    "win diff": e["win"][0],
                    "win lo": e["win"][1],
                    "win hi": e["win"][2],
                    "win p (Holm)": pw,
                    "IP diff": e["ip"][0],
                    "IP lo": e["ip"][1],
                    "IP hi": e["ip"][2],
                    "IP p (Holm)": pi,
                    "differs in": param_differences(raider, o),
                }
            )
    if not rows:
        return None
    frame = pd.DataFrame(rows).set_index(["players", "versus"])
    return frame if run.multi else frame.droplevel("players")


def game_length(run: ConspiracyRun) -> pd.DataFrame:
    """Player turns per game (all players' turns together), per player count."""
    rows = []
    for n in run.counts:
        turns = run.games.loc[run.games["n_players"] == n, "turns"].to_numpy(dtype=float)
        q = np.quantile(turns, [0.05, 0.5, 0.95])
        rows.append(
            {
                "players": n,
                "games": len(turns),
                "mean turns": turns.mean(),
                "sd": turns.std(ddof=1) if len(turns) > 1 else np.nan,
                "mean rounds": turns.mean() / n,
                "min": turns.min(),
                "5%": q[0],
                "median": q[1],
                "95%": q[2],
                "max": turns.max(),
            }
        )
    return pd.DataFrame(rows).set_index("players")


def end_reasons(run: ConspiracyRun) -> pd.DataFrame:
    """Games and share of games per end reason, per player count."""
    games = run.games.assign(end_reason=run.games["end_reason"].astype(str))
    counts = games.groupby(["n_players", "end_reason"]).size().rename("games").reset_index()
    counts["share"] = counts["games"] / counts.groupby("n_players")["games"].transform("sum")
    counts = counts.rename(columns={"n_players": "players", "end_reason": "end reason"})
    return counts.set_index(["players", "end reason"])


# ------------------------------------------------------------------------------ charts
def chart_coalitions(distribution: pd.DataFrame):
    """Share of seat-games per largest-coalition size: a line per strategy (a colour per
    strategy and a line style per player count when the index holds several counts)."""
    fig = _figure(figsize=(7, 3.6))
    ax = fig.add_subplot()
    sizes = [c for c in distribution.columns if c != "mean"]
    index = list(distribution.index)
    strategies = list(dict.fromkeys(i[1] if isinstance(i, tuple) else i for i in index))
    counts = list(dict.fromkeys(i[0] for i in index if isinstance(i, tuple)))
    colours = {s: f"C{k % 10}" for k, s in enumerate(strategies)}
    styles = ("-", "--", ":", "-.")
    for key, label in zip(index, _label(index), strict=True):
        strategy = key[1] if isinstance(key, tuple) else key
        style = styles[counts.index(key[0]) % len(styles)] if isinstance(key, tuple) else "-"
        values = distribution.loc[key, sizes].to_numpy(dtype=float)
        ax.plot(
            sizes,
            values,
            marker="o",
            markersize=3,
            color=colours[strategy],
            linestyle=style,
            label=label,
        )
    ax.set_xticks(sizes)
    ax.set_xlabel("largest same-colour coalition (Lords)")
    ax.set_ylabel("share of seat-games")
    ax.legend(fontsize=7, ncol=2 if len(index) > 6 else 1)
    return fig


def chart_rate_by(rates: pd.DataFrame, level: str, xlabel: str, fair: dict[int, float]):
    """Win rate (with intervals) and mean IP against one index level, a line per player count."""
    fig = _figure(figsize=(9, 3.4))
    ax_win, ax_ip = fig.subplots(1, 2)
    groups = rates.groupby(level="players") if "players" in rates.index.names else [(None, rates)]
    for n, frame in groups:
        x_labels = [str(v) for v in frame.index.get_level_values(level)]
        x = np.arange(len(x_labels))
        label = f"{n} players" if n is not None else None
        v = frame["win rate"].to_numpy()
        ax_win.errorbar(
            x,
            v,
            yerr=_err(v, frame["win lo"], frame["win hi"]),
            fmt="o-",
            capsize=3,
            markersize=4,
            label=label,
        )
        m = frame["mean IP"].to_numpy()
        ax_ip.errorbar(
            x, m, yerr=_err(m, frame["IP lo"], frame["IP hi"]), fmt="o-", capsize=3, markersize=4
        )
        ax_win.set_xticks(x, x_labels, rotation=30 if len(x_labels[0]) > 3 else 0)
        ax_ip.set_xticks(x, x_labels, rotation=30 if len(x_labels[0]) > 3 else 0)
    for n, share in fair.items():
        ax_win.axhline(share, color="grey", linestyle="--", linewidth=0.8, label=f"1/{n}")
    ax_win.set_xlabel(xlabel)
    ax_win.set_ylabel("win rate (95% interval)")
    ax_ip.set_xlabel(xlabel)
    ax_ip.set_ylabel("mean IP (95% interval)")
    ax_win.legend(fontsize=7)
    return fig


def chart_turns(run: ConspiracyRun):
    fig = _figure(figsize=(6, 3.2))
    ax = fig.add_subplot()
    for n in run.counts:
        turns = run.games.loc[run.games["n_players"] == n, "turns"].to_numpy(dtype=int)
        counts = np.bincount(turns)
        nz = np.nonzero(counts)[0]
        lo, hi = nz[0], nz[-1] + 1
        x = np.arange(lo, hi)
        share = counts[lo:hi] / counts.sum()
        if run.multi:
            ax.step(x, share, where="mid", label=f"{n} players")
        else:
            ax.bar(x, share, width=1.0, color="#8172B2")
    ax.set_xlabel("player turns in the game")
    ax.set_ylabel("share of games")
    if run.multi:
        ax.legend(fontsize=7)
    return fig


# ------------------------------------------------------------------------------ report
def _interval_text(run: ConspiracyRun) -> str:
    if run.is_tournament:
        return (
            "95% intervals with the block (one deal, every table of the design) as the unit: "
            "Student t over per-block means for seats and strategies, cluster-robust over "
            "blocks for subgroups"
        )
    return (
        "95% intervals: Wilson for rates and Student t for means, over seat-games (every game "
        "is an independent deal)"
    )


def _unit(run: ConspiracyRun) -> str:
    """The unit of the subgroup intervals, for captions."""
    if run.is_tournament:
        return "cluster-robust over blocks"
    return "Wilson and t over seat-games"


def build_report(run_dir: Path | str | ConspiracyRun):
    """The balance report of a Conspiracy run (a `reports.render.Report`)."""
    from reports.render import Report

    run = run_dir if isinstance(run_dir, ConspiracyRun) else load_run(run_dir)
    cfg = run.config
    n_games = len(run.games)
    players = ", ".join(str(n) for n in run.counts)
    kind = "tournament" if run.is_tournament else "simulation"
    overrides = ", ".join(str(s) for s in cfg.get("set") or []) or "none"
    report = Report(
        f"Abyss: Conspiracy balance report: {n_games:,} games",
        f"{kind}, {players} players, seed {cfg.get('seed')}, card overrides: {overrides}",
    )
    _about(report, run)
    _seats_section(report, run)
    _strategy_section(report, run)
    _sources_section(report, run)
    _coalition_section(report, run)
    _location_section(report, run)
    _pile_section(report, run)
    _length_section(report, run)
    return report


def _about(report, run: ConspiracyRun) -> None:
    cfg = run.config
    n_games = len(run.games)
    sec = report.section("About this run")
    sec.paragraph(
        f"{n_games:,} games of Abyss: Conspiracy ({', '.join(str(n) for n in run.counts)} "
        "players) with the strategies "
        + ", ".join(f"`{s}`" for s in run.strategies)
        + f". {_interval_text(run)}. A player who shares first place gets an equal share of the "
        "win, so the win rates of the seats of a game sum to 1."
    )
    rows = {
        "command": cfg.get("command", "?"),
        "games": f"{n_games:,}",
        "players": ", ".join(str(n) for n in run.counts),
        "strategies": ", ".join(run.strategies),
        "seed": cfg.get("seed", run.manifest.get("seed")),
        "card data": cfg.get("cards") or "shipped",
        "card overrides": ", ".join(str(s) for s in cfg.get("set") or []) or "none",
    }
    if run.is_tournament:
        rows["blocks"] = f"{run.seats['block'].nunique():,}"
        for key in ("design", "crn", "tables"):
            value = cfg.get(key)
            if isinstance(value, dict):  # per player count
                value = ", ".join(f"{v} at {k} players" for k, v in value.items())
            if value is not None:
                rows[key] = value
    sec.table(
        pd.DataFrame({"value": [str(v) for v in rows.values()]}, index=pd.Index(rows, name="")),
        caption="Run configuration",
    )
    command = run.manifest.get("command")
    if command:
        sec.paragraph("Command: `" + " ".join(str(c) for c in command) + "`")
    tables = run.tables()
    if tables is None:
        sec.note(
            f"The run's card data no longer loads ({run.tables_error}); Locations are shown by "
            "index instead of name."
        )
    elif run.manifest.get("card_digest") not in (None, tables.digest):
        sec.note(
            "The card data loaded now differs from the data the run played with (its digest "
            "changed): the Location names below may not match the cards played."
        )


def _seats_section(report, run: ConspiracyRun) -> None:
    table = seat_advantage(run)
    sec = report.section("Seat advantage per player count")
    unit = (
        "Student t intervals over blocks (`reports.stats`): the tables of a block share a deal"
        if run.is_tournament
        else "Wilson intervals over seat-games (every game an independent deal)"
    )
    sec.paragraph(
        "How often each seat (1 = first player) wins, whatever strategy sits there; a fair game "
        "gives every seat 1/n of the wins. Strategies rotate through the seats, so the seats "
        f"differ only by their place in turn order. Win shares with 95% {unit}."
    )
    seat_unit = "t over blocks" if run.is_tournament else "Wilson over seat-games"
    sec.table(
        table,
        caption=f"Win share by seat (95% intervals, {seat_unit})",
        float_format="{:.3f}",
    )
    if run.multi:
        fig = chart_seats_by_count(table)
    else:
        fig = chart_seats(table.loc[run.counts[0]], run.counts[0])
    sec.figure(fig, "seat_advantage", f"Win share by seat (95% intervals, {seat_unit})")


def _strategy_section(report, run: ConspiracyRun) -> None:
    from reports import stats

    sec = report.section("Strategy comparison")
    if not run.is_tournament:
        sec.paragraph(
            "Win rate (share of first place) and mean final IP of each strategy over its "
            "seat-games, with 95% Wilson (rate) and Student t (mean) intervals over seat-games. "
            "Every strategy of the line-up plays every game, rotating through the seats. The "
            "causal comparison of strategies is a tournament (common deals, block intervals)."
        )
    else:
        sec.paragraph(
            "Win share and mean final IP per strategy with 95% Student t intervals over blocks "
            "(`reports.stats.strategy_summary`), then every pair compared within blocks: the "
            "difference in win share per seat-game (row minus column), a paired t test over "
            "blocks, Holm's correction for the number of pairs. A star marks the differences "
            "that stay significant at 5% after the correction."
        )
    for n in run.counts:
        tag = f" ({n} players)" if run.multi else ""
        name = f"-{n}p" if run.multi else ""
        if not run.is_tournament:
            rates = strategy_rates(run, n)
            sec.table(
                rates,
                caption="Win share and mean IP per strategy (95% intervals: Wilson and t over "
                "seat-games)" + tag,
            )
            sec.figure(
                chart_rates(rates, n),
                "strategy_win_rates" + name,
                "Win rate per strategy (95% Wilson intervals over seat-games)" + tag,
            )
            continue
        part = run.seats[run.seats["players"] == n]
        df = part[["block", "table", "seat", "strategy", "win", "ip", "rank"]]
        summary = stats.strategy_summary(df, conf=CONF)
        shown = summary.rename(
            columns={
                "win_rate": "win rate",
                "win_lo": "win lo",
                "win_hi": "win hi",
                "mean_ip": "mean IP",
                "ip_lo": "IP lo",
                "ip_hi": "IP hi",
                "games": "seat-games",
            }
        )
        sec.table(shown, caption="Win share and mean IP per strategy (intervals over blocks)" + tag)
        sec.figure(
            chart_rates(shown, n),
            "strategy_win_rates" + name,
            "Win share per strategy (95% t intervals over blocks)" + tag,
        )
        if df["strategy"].nunique() < 2:
            continue
        pairs = stats.pairwise(df, metric="win", conf=CONF, correction="holm")
        matrix = stats.pairwise_matrix(pairs, "diff")
        significant = stats.pairwise_matrix(pairs, "significant").fillna(False).astype(bool)
        sec.figure(
            chart_matrix(matrix, significant, "win share difference (row - column)"),
            "strategy_matrix" + name,
            "Pairwise win-share differences, paired over blocks; * = significant after Holm" + tag,
        )
        sec.table(
            pairs.set_index(["a", "b"]),
            caption="Pairwise differences a - b in win share (t intervals over blocks, p "
            "adjusted by Holm)" + tag,
            float_format="{:.4f}",
        )


def _sources_section(report, run: ConspiracyRun) -> None:
    frame = points_by_source(run)
    sec = report.section("Points by source")
    sec.paragraph(
        "Mean final IP per seat-game from each source, per strategy: Lords (their printed IP), "
        "Locations, the coalition bonus (IP per Lord of the largest same-colour group) and the "
        "Pearl Master token. The sources add up to the total."
    )
    sec.table(frame, caption="Mean IP per seat-game by source", float_format="{:.2f}")
    chart = frame.drop(columns="total")
    chart.index = _label(chart.index)
    fig = chart_sources(chart)
    fig.axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # off the bars
    sec.figure(fig, "points_by_source", "Mean IP by source, per strategy")


def _coalition_section(report, run: ConspiracyRun) -> None:
    sec = report.section("Coalition sizes")
    dist = coalition_distribution(run)
    sec.paragraph(
        "The largest coalition is a seat's largest connected group of same-colour Lords in its "
        "Chamber at the end. First its distribution per strategy (share of the strategy's "
        "seat-games), then the win rate and mean IP by coalition size, all strategies together. "
        "The second is descriptive: a large coalition goes with the strategies that build one, "
        f"so it mixes their strength with the coalition's. {_interval_text(run)}."
    )
    sec.table(
        dist, caption="Largest coalition: share of seat-games per size", float_format="{:.3f}"
    )
    sec.figure(chart_coalitions(dist), "coalition_sizes", "Distribution of the largest coalition")
    keys = ["players", "coalition_size"] if run.multi else ["coalition_size"]
    rates = group_rates(run.seats, keys, run.cluster)
    rates = rates.rename_axis(index={"coalition_size": "coalition size"})
    sec.table(
        rates,
        caption="Win share and mean IP by size of the largest coalition (95% intervals, "
        f"{_unit(run)})",
    )
    sec.figure(
        chart_rate_by(rates, "coalition size", "largest coalition (Lords)", _fair(run)),
        "win_by_coalition_size",
        f"Win share and mean IP by largest coalition (95% intervals, {_unit(run)})",
    )


def _fair(run: ConspiracyRun) -> dict[int, float]:
    return {n: 1 / n for n in run.counts}


def _location_section(report, run: ConspiracyRun) -> None:
    sec = report.section("Location impact")
    interval = (
        "cluster-robust over blocks, never narrower than Wilson"
        if run.is_tournament
        else "Wilson over the holders' seat-games"
    )
    sec.paragraph(
        "For each Location: how often a seat holds it at the end (pick rate: share of "
        "seat-games), and the win rate of those seats with its 95% interval "
        f"({interval}), against the win rate of all seats. This is descriptive: a high win "
        "rate shows a Location that strong players take, or one that makes a player strong; "
        "the strategy comparison separates the two. Locations never held have no win rate."
    )
    for n in run.counts:
        tag = f" ({n} players)" if run.multi else ""
        frame, overall = location_impact(run, n)
        sec.figure(
            chart_cards(frame, overall, "Locations: win rate of the seats holding it" + tag),
            "location_impact" + (f"-{n}p" if run.multi else ""),
            f"Win share of the holders of each Location (95% intervals, {_unit(run)}); "
            "dashed: all seats" + tag,
        )
        sec.table(
            frame.sort_values("win rate", ascending=False, kind="stable"),
            caption=f"Locations: pick rate and win share of holders, 95% intervals "
            f"({_unit(run)}); all seats: {overall:.3f}" + tag,
            float_format="{:.3f}",
        )


def _pile_section(report, run: ConspiracyRun) -> None:
    sec = report.section("Discard pile versus drawing")
    sec.paragraph(
        "Each turn a player recruits either by drawing from the Lord deck (keeping one Lord, "
        "discarding the others face up onto their colour's pile) or by taking a whole discard "
        "pile. Per strategy: mean pile takes, draws and Lords placed from piles per seat-game, "
        "and the pooled shares of recruitment turns and of Lords that came from piles."
    )
    sec.table(pile_summary(run), caption="Recruitment per strategy", float_format="{:.3f}")
    rates = pile_share_rates(run)
    sec.paragraph(
        "Win rate and mean IP by the seat's share of recruitment turns that took a pile "
        "(pile takes / (pile takes + draws)), binned, all strategies together. "
        f"{_interval_text(run)}. Descriptive: the share depends on the strategy and on the "
        "deal (big piles appear when others discard), so this is not the effect of taking "
        "piles."
    )
    sec.table(
        rates,
        caption="Win share and mean IP by share of recruitment turns from piles (95% "
        f"intervals, {_unit(run)})",
    )
    sec.figure(
        chart_rate_by(rates, "from piles", "share of recruitment turns from piles", _fair(run)),
        "pile_share",
        f"Win share and mean IP by share of recruitment turns from piles (95% intervals, "
        f"{_unit(run)})",
    )
    h2h = pile_raider_head_to_head(run)
    causal = pile_min_pairs(run.strategies)
    if h2h is not None:
        unit = "blocks" if run.is_tournament else "games"
        sec.paragraph(
            f"`{RAIDER}` against each other heuristic strategy of the run: the difference "
            f"({RAIDER} minus the other) in win share and mean IP per seat-game, paired within "
            f"{unit}, with 95% t intervals over {unit} and Holm-adjusted p-values. "
            f"**Descriptive only**: `{RAIDER}` differs from the others in more than its pile "
            "threshold (see the last column), so the difference is not the effect of taking "
            "piles."
        )
        sec.table(
            h2h,
            caption=f"{RAIDER} minus each other heuristic (differs in: {RAIDER}'s value / "
            "the other's)",
            float_format="{:.4f}",
        )
    if run.is_tournament and causal:
        sec.note(
            "This tournament holds strategies that differ only in `pile_min` ("
            + "; ".join(f"`{a}` vs `{b}`" for a, b in causal)
            + "): their paired difference in the strategy comparison above is the causal "
            "effect of the pile threshold, for this deal distribution and these opponents."
        )
    else:
        sec.note(
            "The causal comparison is a tournament of strategies that differ only in "
            "`pile_min`, e.g. `abyss-mc tournament --game conspiracy --strategies "
            "heuristic,heuristic:pile_min=15`: every table of a block plays the same deal and "
            "the paired difference over blocks isolates the pile threshold."
        )


def _length_section(report, run: ConspiracyRun) -> None:
    sec = report.section("Game length and end reasons")
    sec.paragraph(
        "Player turns per game (all players' turns together; rounds = turns / players) and what "
        "ended the games. A game ends when a player completes their Chamber and each opponent "
        "has played one last turn; the turn limit is a safety stop of the simulator."
    )
    sec.table(game_length(run), caption="Player turns per game", float_format="{:.1f}")
    sec.figure(chart_turns(run), "game_length", "Distribution of game length")
    reasons = end_reasons(run)
    sec.table(reasons, caption="End reasons", float_format="{:.3f}")
    by_reason = reasons.groupby(level="end reason")["games"].sum()
    stopped = int(by_reason.get("turn_limit", 0))
    if stopped:
        sec.note(
            f"{stopped:,} games hit the simulator's turn limit: their scores are those of an "
            "unfinished game."
        )


def write_report(run_dir: Path | str, out_dir: Path | str | None = None) -> dict:
    """Build the report of `run_dir` and write it to `out_dir` (default ``run_dir/report``):
    ``{"html": Path, "markdown": Path, "figures": [Path, ...]}``."""
    report = build_report(run_dir)
    return report.write(Path(out_dir) if out_dir is not None else Path(run_dir) / "report")
