"""The balance report of an *Abyss: Conspiracy* run, as HTML, Markdown and PNG charts.

Reads a run directory written by ``abyss-mc simulate --game conspiracy`` or ``abyss-mc tournament
--game conspiracy`` (`games.conspiracy.report.run`). This module writes the page, a section at a
time; the numbers come from `games.conspiracy.report.stats` and, for the discard piles,
`games.conspiracy.report.piles`; tournament statistics from `reports.stats.blocks`. The page is
built with
`reports.render.report` and the generic seat and strategy tables and charts of
`reports.sections.seat_tables`.

Intervals are 95%. Per section the unit of the interval is said in the text:

* simulate: every game is an independent deal. Rates get Wilson intervals over seat-games, means
  Student t intervals over seat-games; paired comparisons (the ``pile_raider`` head-to-head) pair
  the seats of one game and use a t interval over games.
* tournament: the tables of a block share a deal, so the block is the unit. Seat and strategy
  rates use `reports.stats.blocks` (t intervals over per-block means; pairwise differences paired
  within
  blocks, Holm-corrected). Descriptive rates of subgroups (Location holders, coalition sizes, pile
  shares) use the cluster-robust (linearised ratio) interval with the block as the cluster and
  a t quantile with (blocks - 1) degrees of freedom; rate intervals are never narrower than the
  Wilson interval of the seat-games, as in `reports.stats.blocks.strategy_summary`.

Win rates use the ``win`` column (the seat's share of first place: 1/k among k tied winners), so
the win rates of the seats of one player count sum to 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from games.conspiracy.report.piles import (
    RAIDER,
    pile_min_pairs,
    pile_raider_head_to_head,
    pile_share_rates,
    pile_summary,
)
from games.conspiracy.report.run import ConspiracyRun, load_run
from games.conspiracy.report.stats import (
    coalition_distribution,
    end_reasons,
    game_length,
    group_rates,
    location_impact,
    points_by_source,
    seat_advantage,
    strategy_rates,
)
from reports.render.charts import error_bars, figure, legend_outside
from reports.sections import seat_tables

__all__ = ["build_report", "chart_coalitions", "chart_rate_by", "chart_turns", "write_report"]


def _label(index) -> list[str]:
    """Chart labels of an index of strategies or (players, strategy) pairs."""
    return [f"{i[1]} ({i[0]}p)" if isinstance(i, tuple) else str(i) for i in index]


# ------------------------------------------------------------------------------ charts
def chart_coalitions(distribution: pd.DataFrame):
    """Share of seat-games per largest-coalition size: a line per strategy (a colour per
    strategy and a line style per player count when the index holds several counts)."""
    fig = figure(figsize=(7, 3.6))
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
    legend_outside(ax, ncol=2 if len(index) > 6 else 1)
    return fig


def chart_rate_by(rates: pd.DataFrame, level: str, xlabel: str, fair: dict[int, float]):
    """Win rate (with intervals) and mean IP against one index level, a line per player count."""
    fig = figure(figsize=(9, 3.4))
    ax_win, ax_ip = fig.subplots(1, 2)
    groups = rates.groupby(level="players") if "players" in rates.index.names else [(None, rates)]
    for n, frame in groups:
        x_labels = [str(v) for v in frame.index.get_level_values(level)]
        x = np.arange(len(x_labels))
        for ax, column, bound in ((ax_win, "win rate", "win"), (ax_ip, "mean IP", "IP")):
            v = frame[column].to_numpy()
            err = error_bars(v, frame[f"{bound} lo"], frame[f"{bound} hi"])
            label = f"{n} players" if n is not None else None  # the legend is the win panel's
            ax.errorbar(x, v, yerr=err, fmt="o-", capsize=3, markersize=4, label=label)
            ax.set_xticks(x, x_labels, rotation=30 if len(x_labels[0]) > 3 else 0)
    for n, share in fair.items():
        ax_win.axhline(share, color="grey", linestyle="--", linewidth=0.8, label=f"1/{n}")
    ax_win.set_xlabel(xlabel)
    ax_win.set_ylabel("win rate (95% interval)")
    ax_ip.set_xlabel(xlabel)
    ax_ip.set_ylabel("mean IP (95% interval)")
    legend_outside(ax_ip, handles=ax_win.get_legend_handles_labels()[0])  # the win panel's
    return fig


def chart_turns(run: ConspiracyRun):
    fig = figure(figsize=(6, 3.2))
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
        legend_outside(ax)
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
    """The balance report of a Conspiracy run (a `reports.render.report.Report`)."""
    from reports.render.report import Report

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
    from reports.sections import tiers as strength_report

    _about(report, run)
    strength_report.add_card_values(report, run)
    strength_report.add_strength_rankings(report, run)
    strength_report.add_approaches(report, run, "conspiracy", run.tables())
    _seats_section(report, run)
    _strategy_section(report, run)
    _sources_section(report, run)
    _coalition_section(report, run)
    _location_section(report, run)
    _pile_section(report, run)
    _length_section(report, run)
    from reports.sections.end_conditions import add_end_section

    add_end_section(report, run.seats, run.games)
    strength_report.add_tension(report, run, lambda d, main: tension_samples(
        run if main else load_run(d)), TENSION_PROXY)  # fmt: skip
    strength_report.add_head_to_head(report, run)
    strength_report.add_verdicts(report, run, lambda d, main: run_verdicts(
        run if main else load_run(d)))  # fmt: skip
    return report


def run_verdicts(run: ConspiracyRun) -> list:
    """Per player count the best strategy and the seat advantage (`reports.sections.verdicts`)."""
    from reports.sections import verdicts as V
    from reports.sections.end_conditions import end_verdicts
    from reports.sections.skill import skill_verdict
    from reports.sections.tension import tension_verdicts

    out = []
    for n in run.counts:
        part = run.seats[run.seats["players"] == n]
        if part["strategy"].nunique() > 1:
            if run.is_tournament:
                out.append(V.best_strategy_blocks(part, n, V.pair_conf(run.config, n)))
            else:
                out.append(V.best_strategy_rates(strategy_rates(run, n), n))
        out.append(V.seat_verdict(_seat_table(part, n, run.is_tournament), n))
    skill = skill_verdict({n: run.seats[run.seats["players"] == n] for n in run.counts})
    samples = tension_samples(run)
    return (out + tension_verdicts(samples) + end_verdicts(run.seats, run.games, samples)
            + ([skill] if skill else []))  # fmt: skip


#: what the tension metrics' running score is (`tension_samples`): every point is face up
TENSION_PROXY = (
    "the IP a seat would score if the game ended after the round (its Lords, Locations, "
    "Coalition and the Pearl Master; all of it is face up, so this is the score every player "
    "sees)"
)


def tension_samples(run: ConspiracyRun) -> dict:
    """The run's sampled games by player count (`reports.metrics.tension.Sample`: every 16th
    game replayed with its running IP round by round, `games.conspiracy.engine.trajectory`). A
    simulation, a run with a search seat, or a run made before the samples were kept has none."""
    from sim.core.samples import GameSamples

    out = {}
    for n in run.counts:
        for name in (f"aggregates-{n}p.npz", "aggregates.npz"):
            path = run.dir / name
            if path.is_file() and (name != "aggregates.npz" or len(run.counts) == 1):
                sample = tension_sample(GameSamples.load(path))
                if sample is not None:
                    out[n] = sample
                break
    return out


def tension_sample(kept):
    """The games a tournament kept with their running scores (`sim.core.samples.GameSamples`)
    as a `reports.metrics.tension.Sample`, or None when it kept none."""
    from reports.metrics.tension import Sample
    from sim.core.results import win_shares

    if not len(kept):
        return None
    return Sample(kept.scores, win_shares(kept.rank), kept.final, kept.game, kept.strategy)


def _seat_table(part: pd.DataFrame, n: int, blocks: bool) -> pd.DataFrame:
    """Seat win rates at one player count, intervals at 1 - 0.05/n (Bonferroni over the seats):
    t over blocks for a tournament, Wilson over games for a simulation."""
    from reports.sections.seat_tables import seat_advantage_blocks, seat_rates

    level = 1 - 0.05 / n
    if blocks:
        return seat_advantage_blocks(part, level, se=True)
    by_seat = part.groupby("seat", sort=True)["win"]
    return seat_rates(by_seat.size(), by_seat.sum(), level, se=True)


def _about(report, run: ConspiracyRun) -> None:
    cfg = run.config
    n_games = len(run.games)
    sec = report.section(
        "About this run",
        f"{n_games:,} games of Abyss: Conspiracy ({', '.join(str(n) for n in run.counts)} "
        "players) with the strategies "
        + ", ".join(f"`{s}`" for s in run.strategies)
        + f". {_interval_text(run)}. A player who shares first place gets an equal share of the "
        "win, so the win rates of the seats of a game sum to 1.",
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
        "Student t intervals over blocks (`reports.stats.blocks`): the tables of a block share a "
        "deal"
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
        fig = seat_tables.chart_seats_by_count(table)
    else:
        fig = seat_tables.chart_seats(table.loc[run.counts[0]], run.counts[0])
    sec.figure(fig, "seat_advantage", f"Win share by seat (95% intervals, {seat_unit})")


def _strategy_section(report, run: ConspiracyRun) -> None:
    from reports.stats import blocks as stats

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
            "(`reports.stats.blocks.strategy_summary`), then every pair compared within blocks: "
            "the "
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
                seat_tables.chart_rates(rates, n),
                "strategy_win_rates" + name,
                "Win rate per strategy (95% Wilson intervals over seat-games)" + tag,
            )
            continue
        part = run.seats[run.seats["players"] == n]
        df = part[["block", "table", "seat", "strategy", "win", "ip", "rank"]]
        summary = stats.strategy_summary(df, conf=seat_tables.CONF).drop(columns="win_se")
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
            seat_tables.chart_rates(shown, n),
            "strategy_win_rates" + name,
            "Win share per strategy (95% t intervals over blocks)" + tag,
        )
        if df["strategy"].nunique() < 2:
            continue
        pairs = stats.pairwise(df, metric="win", conf=seat_tables.CONF, correction="holm")
        matrix = stats.pairwise_matrix(pairs, "diff")
        significant = stats.pairwise_matrix(pairs, "significant").fillna(False).astype(bool)
        sec.figure(
            seat_tables.chart_matrix(matrix, significant, "win share difference (row - column)"),
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
    sec = report.section(
        "Points by source",
        "Mean final IP per seat-game from each source, per strategy: Lords (their printed IP), "
        "Locations, the coalition bonus (IP per Lord of the largest same-colour group) and the "
        "Pearl Master token. The sources add up to the total.",
    )
    sec.table(frame, caption="Mean IP per seat-game by source", float_format="{:.2f}")
    chart = frame.drop(columns="total")
    chart.index = _label(chart.index)
    fig = seat_tables.chart_sources(chart)
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
    _rates_by(
        sec,
        run,
        rates,
        "coalition size",
        xlabel="largest coalition (Lords)",
        name="win_by_coalition_size",
        by="size of the largest coalition",
        chart_by="largest coalition",
    )


def _rates_by(sec, run, rates, level, *, xlabel, name, by, chart_by=None) -> None:
    """Win share and mean IP of subgroups of seat-games (`group_rates`): the table, then the
    chart against the index level `level`, with each player count's fair share."""
    intervals = f"(95% intervals, {_unit(run)})"
    sec.table(rates, caption=f"Win share and mean IP by {by} {intervals}")
    fair = {n: 1 / n for n in run.counts}
    sec.figure(
        chart_rate_by(rates, level, xlabel, fair),
        name,
        f"Win share and mean IP by {chart_by or by} {intervals}",
    )


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
            seat_tables.chart_cards(
                frame, overall, "Locations: win rate of the seats holding it" + tag
            ),
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
    sec = report.section(
        "Discard pile versus drawing",
        "Each turn a player recruits either by drawing from the Lord deck (keeping one Lord, "
        "discarding the others face up onto their colour's pile) or by taking a whole discard "
        "pile. Per strategy: mean pile takes, draws and Lords placed from piles per seat-game, "
        "and the pooled shares of recruitment turns and of Lords that came from piles.",
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
    share = "share of recruitment turns from piles"
    _rates_by(sec, run, rates, "from piles", xlabel=share, name="pile_share", by=share)
    _pile_raider(sec, run)
    _pile_threshold(sec, run)


def _pile_raider(sec, run: ConspiracyRun) -> None:
    """`pile_raider` against the other heuristics, when the run has them."""
    h2h = pile_raider_head_to_head(run)
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


def _pile_threshold(sec, run: ConspiracyRun) -> None:
    """Where the causal effect of the pile threshold is (or would be) measured."""
    causal = pile_min_pairs(run.strategies)
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
    sec = report.section(
        "Game length and end reasons",
        "Player turns per game (all players' turns together; rounds = turns / players) and what "
        "ended the games. A game ends when a player completes their Chamber and each opponent "
        "has played one last turn; the turn limit is a safety stop of the simulator.",
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
