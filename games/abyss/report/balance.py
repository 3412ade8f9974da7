"""`abyss-mc report RUN_DIR`: the balance report of a run, as HTML, Markdown and PNG charts.

Reads what every run writes (`manifest.json`, `aggregates.npz`) and, when present, the per-game
tables (`seats.parquet`, `games.parquet`; a tournament's carry `block`, `table` and `win`). Every
section says what it shows and how sure we are of it: intervals are 95%, Wilson for rates and
Student t for means; a tournament's strategy comparisons treat the block (one deal, every
seating) as the unit (`reports.stats.blocks`).
"""

from __future__ import annotations

import copy
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from games.abyss.report.summary_text import SCORE_SOURCES
from reports.render.charts import figure, legend_outside
from reports.sections.seat_tables import (
    CONF,
    chart_cards,
    chart_matrix,
    chart_rates,
    chart_seats,
    chart_seats_by_count,
    chart_sources,
    seat_advantage_blocks,
    seat_rates,
)
from reports.stats.intervals import wilson_interval
from sim.core.errors import UserError
from sim.core.runs import read_table

SOURCE_LABELS = {
    "score_lords": "Lords",
    "score_locations": "Locations",
    "score_allies": "Allies",
    "score_monsters": "Monsters",
    "score_wounds": "Wounds",
    "score_scourge": "Scourge",
}
class RunData:
    """A run directory, read."""

    def __init__(self, run_dir: Path) -> None:
        from games.abyss.engine.aggregate import Aggregates

        run_dir = Path(run_dir)
        if not run_dir.is_dir():
            raise UserError(f"run directory {run_dir} does not exist")
        manifest = run_dir / "manifest.json"
        files = [run_dir / "aggregates.npz"]
        if not files[0].is_file():  # a tournament of several player counts
            files = sorted(run_dir.glob("aggregates-*p.npz"))
        if not manifest.is_file() or not files or not files[0].is_file():
            raise UserError(
                f"{run_dir} is not a run directory (no manifest.json or aggregates.npz); "
                "give the directory written by `abyss-mc simulate` or `abyss-mc tournament`"
            )
        try:
            self.manifest = json.loads(manifest.read_text())
            aggs = sorted((Aggregates.load(f) for f in files), key=lambda a: a.n_players)
        except (ValueError, KeyError, OSError, EOFError, zipfile.BadZipFile) as exc:
            raise UserError(f"{run_dir}: unreadable run files, damaged or truncated "
                            f"({' '.join(str(exc).split())})") from None  # fmt: skip
        self.dir = run_dir
        self.config = self.manifest.get("config", {})
        self.seats = self._parquet("seats.parquet")
        self.games = self._parquet("games.parquet")
        self.agg = aggs[0]
        self.suffix = ""  # added to section titles and figure names of one player count
        self.parts = [self] if len(aggs) == 1 else [self._part(a) for a in aggs]

    def _part(self, agg) -> RunData:
        """The same run restricted to the games of `agg`'s player count."""
        part = copy.copy(self)
        n = agg.n_players
        part.agg, part.suffix, part.parts = agg, f" ({n} players)", [part]
        if self.seats is not None:
            part.seats = self.seats[self.seats["n_players"] == n]
        if self.games is not None:
            part.games = self.games[self.games["n_players"] == n]
        return part

    def _parquet(self, name: str):
        path = self.dir / name
        return read_table(path) if path.is_file() else None

    @property
    def is_tournament(self) -> bool:
        return self.config.get("command") == "tournament"

    def tables(self):
        """The card tables the run played with (names of Lords and Locations)."""
        from sim import games

        return games.get("abyss").load_run_cards(self.config)


def _tables_or_none(run):
    """The run's card tables, or None where they no longer load (the sections that need them
    are left out; the card values section says why)."""
    try:
        return run.tables()
    except Exception:  # noqa: BLE001  (moved or edited card files)
        return None


# ------------------------------------------------------------------------------ tables
def seat_advantage(agg, conf: float = CONF) -> pd.DataFrame:
    """Win rate of each seat (all strategies together), with Wilson intervals."""
    return seat_rates(agg.seats.sum(axis=0), agg.wins.sum(axis=0), conf)


def strategy_rates(agg) -> pd.DataFrame:
    """Win rate and mean IP per strategy, from the aggregates, with intervals that take the game
    as the unit (a strategy's seats in one game are not independent:
    `games.abyss.report.summary_text`)."""
    from games.abyss.report.summary_text import strategy_rate, strategy_score

    rows = []
    for i, name in enumerate(agg.strategies):
        n, w = int(agg.seats[i].sum()), int(agg.wins[i].sum())
        lo, hi = strategy_rate(agg, i, CONF)
        mean, half = strategy_score(agg, i, CONF)
        rows.append(
            {
                "strategy": name,
                "seat-games": n,
                "win rate": w / n if n else np.nan,
                "win lo": lo,
                "win hi": hi,
                "mean IP": mean,
                "IP lo": mean - half,
                "IP hi": mean + half,
            }
        )
    return pd.DataFrame(rows).set_index("strategy")


def points_by_source(agg) -> pd.DataFrame:
    """Mean IP per seat-game from each source, per strategy."""
    from games.abyss.engine.aggregate import VALUES

    names = [name for name, _ in VALUES]
    out = {}
    for i, strategy in enumerate(agg.strategies):
        n = agg.seats[i].sum()
        out[strategy] = {
            SOURCE_LABELS[c]: agg.sums[i, :, names.index(c)].sum() / n if n else np.nan
            for c in SCORE_SOURCES
        }
    frame = pd.DataFrame(out).T
    return frame.loc[:, (frame != 0).any(axis=0)]


def card_impact(held: np.ndarray, won: np.ndarray, seat_games: int, names) -> pd.DataFrame:
    """Pick rate (share of seat-games ending with the card) and win rate of those players."""
    rows = []
    for i, name in enumerate(names):
        h, w = int(held[i]), int(won[i])
        lo, hi = wilson_interval(w, h, CONF) if h else (np.nan, np.nan)
        rows.append(
            {
                "card": name,
                "held": h,
                "pick rate": h / seat_games if seat_games else 0.0,
                "win rate": w / h if h else np.nan,
                "lo": lo,
                "hi": hi,
            }
        )
    return pd.DataFrame(rows).set_index("card")


def end_reasons(agg) -> pd.DataFrame:
    from games.abyss.engine.aggregate import END_REASONS

    counts = pd.Series(agg.end_reasons, index=list(END_REASONS))
    counts = counts[counts > 0]
    return pd.DataFrame({"games": counts, "share": counts / max(agg.n_games, 1)})


def game_length(agg) -> pd.DataFrame:
    hist = agg.turns_histogram
    n = hist.sum()
    turns = np.arange(len(hist))
    mean = (hist * turns).sum() / n if n else np.nan
    cdf = np.cumsum(hist) / n if n else np.zeros(len(hist))
    q = {p: int(np.searchsorted(cdf, p)) for p in (0.05, 0.5, 0.95)}
    rounds = mean / agg.n_players
    return pd.DataFrame(
        {"value": [mean, rounds, q[0.05], q[0.5], q[0.95]]},
        index=["mean turns", "mean rounds", "5% quantile", "median", "95% quantile"],
    )


# ------------------------------------------------------------------------------ charts
def chart_turns(agg):
    hist = agg.turns_histogram
    nz = np.nonzero(hist)[0]
    fig = figure(figsize=(6, 3.2))
    ax = fig.add_subplot()
    if len(nz):
        lo, hi = nz[0], nz[-1] + 1
        ax.bar(np.arange(lo, hi), hist[lo:hi] / hist.sum(), width=1.0, color="#8172B2")
    ax.set_xlabel("player turns in the game")
    ax.set_ylabel("share of games")
    return fig


# ------------------------------------------------------------------------------ report
def build_report(run: RunData):
    """The balance report of a run (a `reports.render.report.Report`)."""
    from reports.render.report import Report

    cfg = run.config
    counts = [part.agg.n_players for part in run.parts]
    n_games = sum(part.agg.n_games for part in run.parts)
    strategies = run.parts[0].agg.strategies
    kind = "tournament" if run.is_tournament else "simulation"
    expansions = ", ".join(cfg.get("expansions") or []) or "none"
    players = ", ".join(str(n) for n in counts)
    report = Report(
        f"Abyss balance report: {n_games:,} games",
        f"{kind}, {players} players, expansions: {expansions}, seed {cfg.get('seed')}",
    )
    intro = report.section("About this run")
    intro.paragraph(
        f"{n_games:,} games of {players} players with the strategies "
        + ", ".join(f"`{s}`" for s in strategies)
        + ". Intervals are 95%: "
        + (
            "Student t intervals over blocks (a block: one deal, every table of the design)"
            if run.is_tournament
            else "Wilson intervals for rates, Student t intervals for means"
        )
        + ". A player who shares first place counts as a winner (in a tournament: shares the "
        "win)."
    )
    intro.paragraph("Command: `" + " ".join(run.manifest.get("command") or []) + "`")
    from reports.render.report import compute_soon
    from reports.sections import tiers as strength_report

    tiers = {d: compute_soon(_tier_verdicts, d)  # on the other core meanwhile (issue 54)
             for d in strength_report.tier_dirs(run).values() if d != run.dir}  # fmt: skip
    rule = _fight_section(report, run)  # the headline analysis, near the top
    strength_report.add_card_values(report, run)
    strength_report.add_strength_rankings(report, run)
    strength_report.add_approaches(report, run, "abyss", _tables_or_none(run))
    if len(run.parts) > 1:
        _seats_by_count(report, run)
    strength_report.add_tension(report, run, lambda d, main: tension_samples(run if main else
                                RunData(d)), TENSION_PROXY)  # fmt: skip
    from reports.sections.end_conditions import add_end_section

    add_end_section(report, run.seats, run.games)
    strength_report.add_head_to_head(report, run)
    for part in run.parts:
        _part_sections(report, part)
    strength_report.add_verdicts(report, run, lambda d, main: _verdicts(run, rule, True) if main
                                 else tiers[d]())  # fmt: skip
    return report


def _tier_verdicts(run_dir: Path) -> list:
    """The verdicts of a play strength's tier (`_verdicts`), from its own run directory."""
    return _verdicts(RunData(run_dir), None, False)


def _verdicts(run: RunData, rule: dict | None, main: bool) -> list:
    """The verdicts of one play strength's run; the fight rule is the report's own for the
    main run, else that strength's rollouts'."""
    from reports.sections.end_conditions import end_verdicts
    from reports.sections.skill import skill_verdict
    from reports.sections.tension import tension_verdicts

    skill = skill_verdict({part.agg.n_players: part.seats for part in run.parts})
    found = [*run_verdicts(run), *tension_verdicts(tension_samples(run)),
             *end_verdicts(run.seats, run.games, tension_samples(run)),
             *([skill] if skill else [])]  # fmt: skip
    rollouts = fight_rollouts(run.dir)
    rule = rule if main else fight_rule(run.dir, rollouts)
    fight = fight_verdict(rule, rollouts.points if rollouts is not None else None)
    return found + ([fight] if fight is not None else [])


#: what the tension metrics' running score is (`tension_samples`)
TENSION_PROXY = (
    "the IP a seat would score if the game ended after its turn, the final affiliation of its "
    "Allies in hand included (its Monster tokens counted, although the other players cannot "
    "see their values)"
)


def tension_samples(run: RunData) -> dict:
    """The run's sampled games by player count (`reports.metrics.tension.Sample`: every 16th
    game's running IP round by round; win shares from the ranks). A run made before the
    samples were kept has none."""
    out = {}
    for part in run.parts:
        sample = tension_sample(part.agg)
        if sample is not None:
            out[part.agg.n_players] = sample
    return out


def tension_sample(agg):
    """The sampled games of a tournament's aggregates (`reports.metrics.tension.Sample`), or
    None when it kept none."""
    from reports.metrics.tension import Sample
    from sim.core.results import win_shares

    if not len(agg.sample_game):
        return None
    return Sample(agg.sample_ip, win_shares(agg.sample_rank), agg.sample_final, agg.sample_game,
                  agg.sample_strategy)


def run_verdicts(run) -> list:
    """The verdicts of a run (`RunData`): per player count the best strategy and the seat
    advantage (the fight-or-explore rule: `_verdicts`)."""
    from reports.sections.verdicts import (
        best_strategy_blocks,
        best_strategy_rates,
        pair_conf,
        seat_verdict,
    )

    out = []
    for part in run.parts:
        n = part.agg.n_players
        blocked = part.seats is not None and "block" in part.seats.columns
        if blocked and len(part.agg.strategies) > 1:
            df = part.seats.rename(columns={"score": "ip"})
            df["strategy"] = df["strategy"].astype(str)
            out.append(best_strategy_blocks(df, n, pair_conf(run.config, n)))
        elif len(part.agg.strategies) > 1:
            out.append(best_strategy_rates(strategy_rates(part.agg), n))
        out.append(seat_verdict(_verdict_seat_table(part), n))
    return out


def _verdict_seat_table(part) -> pd.DataFrame:
    """Seat win rates of one player count of a run (`RunData`), with intervals
    at 1 - 0.05/n: over blocks for a tournament, Wilson over games for a simulation."""
    n = part.agg.n_players
    level = 1 - (1 - CONF) / n
    if part.seats is not None and "block" in part.seats.columns:
        return seat_advantage_blocks(part.seats, level, se=True)
    agg = part.agg
    return seat_rates(agg.seats.sum(axis=0), agg.wins.sum(axis=0), level, se=True)


def fight_verdict(rule: dict | None, points: pd.DataFrame | None = None):
    """Fight or explore, as a designer asks it: at the decision points where a Monster offers the
    choice, what fighting is worth over continuing (fight minus continue for the deciding player,
    win probability, from the forked rollouts `points`; t interval over decision points, one per
    game); and, as a second clause, whether a rule better than the strategies' own was found
    (`games.abyss.report.fight_rule.recommended_rule`: its out-of-sample gain above 0). Without
    rollout points, the rule alone."""
    from reports.sections.verdicts import Effect, Verdict
    from reports.sections.verdicts import pts as _pts
    from reports.stats.blocks import standard_error

    better = _better_rule(rule)
    if points is None or len(points) < 2:
        if rule is None:
            return None
        mean, lo, hi = rule["gain_win"]
        return Verdict("fight or explore", None, lo > 0, better, key="a better rule"
                       if lo > 0 else None)  # fmt: skip
    from games.abyss.report.rollout import interval

    d = points["d_win"].to_numpy(float)
    mean, lo, hi = interval(d)
    ip, ip_lo, ip_hi = interval(points["d_ip"].to_numpy(float))
    n = len(points)
    effect = (f"fighting {'gains' if mean >= 0 else 'loses'} {_pts(abs(mean))} points of win "
              f"probability [{_pts(lo)}, {_pts(hi)}] against continuing ({ip:+.1f} IP "
              f"[{ip_lo:+.1f}, {ip_hi:+.1f}]) at the {n:,} decision points where a Monster "
              "offered the choice (one per game, each played on both ways by the strategies as "
              "run; fight minus continue for the deciding player, t interval over decision "
              "points)")  # fmt: skip
    told = dict(effects={"fight − continue": Effect(float(mean), standard_error(d))},
                words=("continue", "fight"), deals=n)  # fmt: skip
    if lo > 0 or hi < 0:
        word = "fight" if lo > 0 else "continue"
        return Verdict("fight or explore", None, True, f"{effect[0].upper()}{effect[1:]}. "
                       f"{better}", key=word, short=f"{word} ({_pts(mean)} pts)",
                       **told)  # fmt: skip
    return Verdict("fight or explore", None, False, f"The data cannot tell whether fighting or "
                   f"continuing pays: {effect}. {better}", **told)  # fmt: skip


def _better_rule(rule: dict | None) -> str:
    """The second clause of the fight verdict: a rule better than the strategies' own."""
    from reports.sections.verdicts import pts as _pts

    if rule is None:
        return "No rule better than the strategies' own was searched for."
    if rule.get("rule") == "own":
        return ("No rule better than the strategies' own was found: no candidate beat them on "
                "the games that chose.")  # fmt: skip
    mean, lo, hi = rule["gain_win"]
    if not np.isfinite(lo):
        return (f"No rule better than the strategies' own is told apart: the best candidate, "
                f"{rule.get('rule', '?')}, was not measured out of sample.")  # fmt: skip
    gain = f"{_pts(mean)} points of win probability [{_pts(lo)}, {_pts(hi)}] out of sample"
    # a tier's rollouts change only the decision at the point (no rule rollouts: tournament_extras)
    one = rule.get("source") == "one decision"
    which = ("the best rule changing this one decision" if one
             else "the best candidate rule played to the game's end")  # fmt: skip
    if lo > 0:
        scope = ("; changing only this one decision, the rest of the game by the strategies' "
                 "own rules" if one else "")  # fmt: skip
        return f"A better rule than the strategies' own: {rule['sentence']} ({gain}{scope})."
    return (f"No rule better than the strategies' own is told apart: {which} changed the "
            f"result by {gain}.")  # fmt: skip


def fight_rollouts(run_dir):
    """The fight-or-explore rollouts played beside a run (`--fight-points`), or None."""
    from games.abyss.report.rollout import is_rollout_run, load_rollouts

    sub = run_dir / FIGHT_DIR
    return load_rollouts(sub) if is_rollout_run(sub) else None


def fight_rule(run_dir, rollouts=None):
    """The learnt fight-or-explore rule of a run's rollouts (`games.abyss.report.fight_rule`), or
    None."""
    from games.abyss.report.fight_rule import recommended_rule

    rollouts = fight_rollouts(run_dir) if rollouts is None else rollouts
    return recommended_rule(rollouts) if rollouts is not None and rollouts.n_points else None


#: Subdirectory of a tournament run holding its fight-or-explore rollouts (`--fight-points`).
FIGHT_DIR = "fight_or_explore"


def _fight_section(report, run: RunData) -> dict | None:
    """With the Leviathan expansion: "Fight or explore?", with the run's rollouts if any; the
    learnt rule (`games.abyss.report.fight_rule.recommended_rule`) or None."""
    if "leviathan" not in (run.config.get("expansions") or []):
        return None
    from games.abyss.report.fight_report import add_fight_section

    rollouts = fight_rollouts(run.dir)
    rule = fight_rule(run.dir, rollouts)
    add_fight_section(report, run.tables(), rollouts, rule=rule)
    return rule


def _seats_by_count(report, run: RunData) -> None:
    frames = []
    for part in run.parts:
        frame = seat_advantage_blocks(part.seats).reset_index()
        frame.insert(0, "players", part.agg.n_players)
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True).set_index(["players", "seat"])
    sec = report.section("Seat advantage by player count")
    sec.paragraph(
        "Win share of each seat (1 = first player) at each player count, with intervals over "
        "blocks; a fair game gives every seat 1/n. Strategies rotate through the seats."
    )
    sec.table(table, float_format="{:.3f}")
    sec.figure(chart_seats_by_count(table), "seat_advantage_by_count", "Win share by seat")


def _part_sections(report, run: RunData) -> None:
    """Every section for the games of one player count."""
    agg, n, tag = run.agg, run.agg.n_players, run.suffix
    name = tag.strip(" ()").replace(" ", "-")
    fig = (lambda base: f"{base}-{name}") if name else (lambda base: base)
    blocked = run.seats is not None and "block" in run.seats.columns
    seats = seat_advantage_blocks(run.seats) if blocked else seat_advantage(agg)
    sec = report.section("Seat advantage" + tag)
    sec.paragraph(
        f"How often each seat wins, whatever strategy sits there; a fair game gives every "
        f"seat 1/{n} = {1 / n:.1%}. Strategies rotate through the seats, so the seats differ "
        "only by their place in turn order."
    )
    if blocked:
        sec.paragraph(
            "Win share per seat (a shared first place is split), with intervals over blocks: "
            "the tables of a block are not independent."
        )
    sec.table(seats, float_format="{:.3f}")
    sec.figure(chart_seats(seats, n), fig("seat_advantage"), "Win rate by seat")

    if blocked and len(agg.strategies) > 1:
        _tournament_sections(report, run)
    else:
        sec = report.section("Strategies" + tag)
        rates = strategy_rates(agg)
        sec.paragraph(
            "Win rate and mean final IP of each strategy over all its seat-games (from the "
            "run's aggregates; every game is an independent deal)."
        )
        sec.table(rates, float_format="{:.3f}")
        sec.figure(chart_rates(rates, n), fig("strategy_win_rates"), "Win rate per strategy")

    sec = report.section("Where the points come from" + tag)
    sources = points_by_source(agg)
    sec.paragraph("Mean IP per player from each source, by strategy.")
    sec.table(sources, float_format="{:.2f}")
    sec.figure(chart_sources(sources), fig("points_by_source"), "Mean IP by source")

    sec = report.section("Game length" + tag)
    sec.paragraph("Player turns per game (all players' turns together).")
    sec.table(game_length(agg), float_format="{:.1f}")
    sec.figure(chart_turns(agg), fig("game_length"), "Distribution of game length")

    _trajectory_section(report, run)

    _card_sections(report, run)

    sec = report.section("End reasons" + tag)
    sec.paragraph("What ended the games.")
    sec.table(end_reasons(agg), float_format="{:.3f}")


def _tag(run: RunData) -> str:
    """Figure-name suffix of one player count's sections ("" for a single count)."""
    return "-" + run.suffix.strip(" ()").replace(" ", "-") if run.suffix else ""


def _tournament_sections(report, run: RunData) -> None:
    from reports.stats import blocks as stats
    from reports.stats import rating

    df = run.seats.rename(columns={"score": "ip"})
    df["strategy"] = df["strategy"].astype(str)
    summary = stats.strategy_summary(df, conf=CONF)
    pairs = stats.pairwise(df, metric="win", conf=CONF, correction="holm")
    crn = run.config.get("crn", "block")
    deal = {
        "block": "every line-up and seating of a block plays the same deal (common random numbers)",
        "lineup": "the rotations of each line-up play the same deal (common random numbers "
        "within line-ups)",
        "none": "every table plays a deal of its own",
    }.get(crn, "")
    sec = report.section("Strategy comparison" + run.suffix)
    sec.paragraph(
        f"{run.seats['block'].nunique():,} blocks of "
        f"{run.seats['table'].nunique()} tables; {deal}. Each line-up plays in every rotation "
        "of its seats. Intervals treat the block as the unit, so they hold whatever the "
        "correlation between the tables of a block."
    )
    sec.table(summary.drop(columns="win_se"), float_format="{:.3f}")
    rates = summary.rename(columns={"win_rate": "win rate", "win_lo": "win lo", "win_hi": "win hi"})
    sec.figure(
        chart_rates(rates, run.agg.n_players),
        "strategy_win_rates" + _tag(run),
        "Win rate per strategy (95% intervals over blocks)",
    )
    order = list(summary.index)  # the strongest first
    matrix = stats.pairwise_matrix(pairs, "diff").reindex(index=order, columns=order)
    significant = stats.pairwise_matrix(pairs, "significant").reindex(index=order, columns=order)
    significant = significant.fillna(False).astype(bool)
    sec.paragraph(
        "Row minus column, the strategies ordered by win rate (the strongest first): the "
        "difference in win share per seat-game, paired within blocks. "
        "A star marks differences significant after Holm's correction for the number of "
        "comparisons."
    )
    sec.figure(
        chart_matrix(matrix, significant, "win rate difference (row - column)"),
        "strategy_matrix" + _tag(run),
        "Pairwise win-rate differences",
    )
    sec.table(pairs.set_index(["a", "b"]), float_format="{:.4f}")
    try:
        ratings = rating.plackett_luce(df, conf=CONF)
    except Exception as exc:  # a rating needs enough varied finishes
        sec.note(f"No Plackett-Luce rating: {exc}")
    else:
        sec.paragraph(
            "A Plackett-Luce rating from the finishing order of every table, on the Elo scale "
            "(centred at 0), with 95% intervals clustered by block (the tables of a block are "
            "correlated). The rating adjusts for the opponents each strategy met."
        )
        sec.table(ratings, float_format="{:.2f}")


def trajectories(agg) -> dict[str, pd.DataFrame]:
    """Mean IP, Pearls and Keys after each round, per strategy (rounds x strategies)."""
    counts = getattr(agg, "trajectory_counts", None)
    if counts is None or not counts.any():
        return {}
    hist = agg.turns_histogram
    cdf = np.cumsum(hist) / max(hist.sum(), 1)
    long_game = int(np.searchsorted(cdf, 0.99))  # turns of all but the longest 1% of games
    used = min(counts.shape[1], -(-long_game // agg.n_players) + 1)
    out = {}
    for i, label in enumerate(("IP", "Pearls", "Keys")):
        with np.errstate(invalid="ignore", divide="ignore"):
            means = agg.trajectory_sums[:, :used, i] / counts[:, :used]
        frame = pd.DataFrame(means.T, columns=agg.strategies, index=np.arange(1, used + 1))
        frame.index.name = "round"
        out[label] = frame
    return out


def chart_trajectories(series: dict[str, pd.DataFrame]):
    fig = figure(figsize=(10, 3.4))
    axes = fig.subplots(1, len(series))
    for ax, (label, frame) in zip(axes, series.items(), strict=True):
        for strategy in frame.columns:
            ax.plot(frame.index, frame[strategy], label=str(strategy), linewidth=1.2)
        ax.set_xlabel("round")
        ax.set_title(f"mean {label}", fontsize=9)
    legend_outside(axes[-1])
    return fig


def _trajectory_section(report, run: RunData) -> None:
    series = trajectories(run.agg)
    if not series:
        return
    from games.abyss.engine.fast import TRAJECTORY_EVERY

    sec = report.section("Round by round: IP, Pearls and Keys" + run.suffix)
    games = int(run.agg.trajectory_counts[:, 0].sum() // run.agg.n_players)
    sec.paragraph(
        f"Each player's running score (IP as if the game ended then), Pearls and Keys after "
        f"each of their turns, averaged per strategy over the {games:,} games whose index is a "
        f"multiple of {TRAJECTORY_EVERY} (a fixed sample). A game that has ended counts with "
        "its last values, so every round averages over the same games."
    )
    sec.figure(
        chart_trajectories(series), "trajectories" + _tag(run), "Mean IP, Pearls and Keys by round"
    )
    ip = series["IP"]
    rounds = [r for r in (5, 10, 15, 20, 25) if r in ip.index]
    if rounds:
        table = ip.loc[rounds].T
        table.columns = [f"IP after round {r}" for r in rounds]
        sec.table(table, float_format="{:.1f}")


def _card_sections(report, run: RunData) -> None:
    agg = run.agg
    if getattr(agg, "lords_held", None) is None or not agg.lords_held.any():
        return
    tables = run.tables()
    seat_games = int(agg.seats.sum())
    overall = agg.wins.sum() / seat_games
    for kind, held, won, names, who in (
        ("Lords", agg.lords_held, agg.lords_won, tables.lord_name, "recruited it"),
        (
            "Locations",
            agg.locations_held,
            agg.locations_won,
            tables.location_name,
            "controlled it at the end",
        ),
    ):
        frame = card_impact(held.sum(axis=0), won.sum(axis=0), seat_games, names)
        sec = report.section(f"{kind}: pick rate and win rate" + run.suffix)
        sec.paragraph(
            f"For each of the {kind}: the share of players who {who} (pick rate), and how "
            f"often those players won (all players: {overall:.1%}). A high win rate shows a "
            "card strong players get, or a card that makes players strong; the strategy "
            "comparison separates the two."
        )
        sec.figure(
            chart_cards(frame, overall, f"{kind}: win rate of the players who {who}"),
            f"{kind.lower()}_impact" + _tag(run),
            f"{kind}: pick rate and the win rate of the players who {who}",
        )
        sec.table(frame.sort_values("win rate", ascending=False), float_format="{:.3f}")


def write_report(run_dir: Path, out_dir: Path | None = None) -> dict:
    run = RunData(run_dir)
    report = build_report(run)
    return report.write(out_dir if out_dir is not None else Path(run_dir) / "report")
