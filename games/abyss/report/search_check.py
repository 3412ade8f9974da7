"""Fight or explore under search play (`abyss-mc ev search`, docs/fight-or-explore.md "Under
search play"): the learnt fight rule checked against the search player's choices.

`run_search_check` plays games with the search player on the fast path
(`games.abyss.engine.kernel.record`): at each fight-or-explore decision a search seat takes (a
Monster revealed with a fightable Leviathan), it records the situation (the fork's columns, so the
rule's inputs are the ones the rollouts learnt it from), the search's choice and its own value of
each option (mean reward of its rollouts), and plays extra paired rollouts of every option from
that state (common random numbers, keys of their own) to measure them independently.

`check_summary` compares the search with a rule (`games.abyss.report.rollout.rule_fights`, the rule
as the rollouts apply it): how often they agree, and where they differ, which choice does better. A
game holds several decisions, so the game is the unit of every interval
(`games.abyss.report.summary_text`'s clustered intervals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from games.abyss.engine.fork import INFO_COLUMNS, fork_seed_of, seatings_of
from sim.core.errors import UserError

#: The rule checked by default: the fight-or-explore part of the learnt rule
#: (docs/fight-or-explore.md; its `fight_p` part governs the attacks once fighting).
DEFAULT_RULE = "fight_risk=6/36"
RULE_TERMS = ("fight_risk", "fight_p")
CONTINUE, FIGHT, IGNORE = 0, 1, 2
OPTION_NAMES = ("continue", "fight", "ignore")
#: Decisions recorded per game at most (a game meets a few dozen).
MAX_POINTS_PER_GAME = 256
#: Distinguishes the extra rollouts' keys from the forks' (`fork_seed_of`).
EVAL_SALT = 0x2545F4914F6CDD1D


@dataclass
class SearchCheck:
    """One row per recorded decision (`points`) and how they were made (`meta`)."""

    points: pd.DataFrame
    meta: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------ the rule
def parse_rule(rule: str) -> dict[str, int]:
    """``fight_risk=W/36``, ``fight_p=C/36`` or both (comma-separated) -> their 36ths; a bad
    rule is a UserError."""
    from games.abyss.report.rollout import rule_terms

    example = f"e.g. {DEFAULT_RULE} or fight_risk=6/36,fight_p=9/36"
    try:
        terms = rule_terms(rule.strip())
    except ValueError:
        raise UserError(f"--rule {rule!r}: expected TERM=K/36 terms, {example}") from None
    if not terms or any(t not in RULE_TERMS for t in terms):
        raise UserError(f"--rule {rule!r}: terms are {' and '.join(RULE_TERMS)}, {example}")
    low = {"fight_risk": 1, "fight_p": 0}
    for name, value in terms.items():
        if not low[name] <= value <= 36 or not rule.count(f"{name}={value}/36"):
            raise UserError(f"--rule {rule!r}: {name} must be K/36 with K {low[name]}..36")
    return terms


def rule_fights_at(points: pd.DataFrame, terms: dict[str, int]) -> np.ndarray:
    """Per decision: does the rule fight? As the greedy policy applies its parameters past a
    Monster (`policies.greedy_leviathan`): with `fight_risk`, fight iff an Ally can damage and
    the risk is at least W/36 (`fight_p` then only governs the attacks); else fight iff the
    chance of damage is at least C/36."""
    from games.abyss.report.rollout import rule_fights

    if "fight_risk" in terms:
        return rule_fights(points, 1, terms["fight_risk"])
    return rule_fights(points, terms["fight_p"], 0)


# ------------------------------------------------------------------------------ playing
def run_search_check(
    tables,
    *,
    n_players: int,
    strategies: list[str],
    seed: int,
    n_games: int,
    replicates: int,
    progress: bool = False,
    chunk_games: int | None = None,
) -> SearchCheck:
    """Play games 0 .. n_games - 1 of `seed` (game g seats line-up entries g, g+1, ...), record
    every fight-or-explore decision of a search seat, and roll each option out `replicates`
    more times from there."""
    import time

    from games.abyss.engine import state as S
    from games.abyss.engine.fast import lineup_arrays
    from games.abyss.engine.kernel import record as KR
    from games.abyss.engine.kernel import workspace as W
    from games.abyss.engine.policy_params import SEARCH
    from games.abyss.strategies import REGISTRY
    from sim.core.batch import run_chunks

    t0 = time.perf_counter()
    if not 1 <= replicates < KR.MAX_EVAL_REPLICATES:
        raise ValueError(f"replicates must be 1..{KR.MAX_EVAL_REPLICATES - 1}")
    if n_games < 1:
        raise ValueError("n_games must be at least 1")
    kinds, params = lineup_arrays(REGISTRY.make_policies(list(strategies), len(strategies)))
    if SEARCH not in kinds.tolist():
        raise UserError("no search seat in --strategies: nothing to check (e.g. search,greedy)")
    template = W.cached_template(tables)
    eval_seed = fork_seed_of(seed) ^ EVAL_SALT
    parts: list[pd.DataFrame] = []
    totals = {"decisions": 0}

    def play(first: int, n: int) -> None:
        games = np.arange(first, first + n, dtype=np.int64)
        seatings = seatings_of(games, n_players, len(strategies))
        out_seats = np.zeros((n, n_players, S.N_SEAT_FIELDS), dtype=np.int32)
        out_info = np.zeros((n, MAX_POINTS_PER_GAME, W.N_FORK_INFO), dtype=np.int32)
        out_values = np.zeros((n, MAX_POINTS_PER_GAME, KR.N_VALUE_ROWS, KR.MAX_OPTIONS))
        out_count = np.zeros(n, dtype=np.int32)
        KR.record_tables(template, np.int64(seed), games, seatings, kinds, params,
                         np.int64(eval_seed), np.int64(replicates), out_seats, out_info,
                         out_values, out_count)  # fmt: skip
        if (out_count > MAX_POINTS_PER_GAME).any():
            raise RuntimeError(f"a game met more than {MAX_POINTS_PER_GAME} decisions")
        totals["decisions"] += int(out_count.sum())
        parts.append(point_rows(games, seatings, strategies, out_info, out_values, out_count,
                                replicates))  # fmt: skip

    run_chunks(n_games, play, chunk_size=chunk_games or 64, progress=progress, label="games")
    points = pd.concat(parts, ignore_index=True)
    if (points["seat"] < 0).any():
        raise RuntimeError("a recorded decision's situation was not met: the replay diverged")
    meta = {
        "seed": seed,
        "players": n_players,
        "strategies": list(strategies),
        "games": n_games,
        "decisions": totals["decisions"],
        "replicates": replicates,
        "seconds": time.perf_counter() - t0,
    }
    return SearchCheck(points, meta)


def point_rows(games, seatings, strategies, info, values, counts, replicates) -> pd.DataFrame:
    """One row per recorded decision: game, its rank in the game, the situation
    (`INFO_COLUMNS`; own_choice is the search's), the deciding seat's strategy, and per option
    the search's rollouts and mean reward (search_visits_*, search_mean_*) and the extra
    rollouts' mean reward and final IP (eval_reward_*, eval_ip_*); NaN for an absent option."""
    from games.abyss.engine.kernel import record as KR

    g_idx = np.repeat(np.arange(len(games)), counts)
    p_idx = np.concatenate([np.arange(c) for c in counts])
    frame = pd.DataFrame(info[g_idx, p_idx], columns=list(INFO_COLUMNS))
    frame.insert(0, "point", p_idx)
    frame.insert(0, "game", np.asarray(games)[g_idx])
    seat = frame["seat"].to_numpy().clip(0)
    frame["strategy"] = np.array(strategies, dtype=object)[seatings[g_idx, seat]]
    frame["search_choice"] = frame["own_choice"]
    v = values[g_idx, p_idx]
    options = v[:, KR.V_OPTION, :]
    frame["n_options"] = (options >= 0).sum(axis=1)
    for o, name in enumerate(OPTION_NAMES):
        at = _column_of(options, o)
        visits = _of_option(v, KR.V_VISITS, at)
        frame[f"search_visits_{name}"] = visits
        frame[f"search_mean_{name}"] = _of_option(v, KR.V_TOTAL, at) / visits
        frame[f"eval_reward_{name}"] = _of_option(v, KR.V_EVAL_REWARD, at) / replicates
        frame[f"eval_ip_{name}"] = _of_option(v, KR.V_EVAL_IP, at) / replicates
    frame["chance"] = frame["chance_36"] / 36.0
    return frame


def _of_option(values: np.ndarray, row: int, at: np.ndarray) -> np.ndarray:
    """Per decision: values[., row, at] (NaN where the option is not offered: at -1)."""
    taken = values[np.arange(len(values)), row, at.clip(0)]
    return np.where(at >= 0, taken, np.nan)


def _column_of(options: np.ndarray, option: int) -> np.ndarray:
    """Per row: the column holding `option` (-1: not offered)."""
    hit = options == option
    return np.where(hit.any(axis=1), hit.argmax(axis=1), -1)


# ------------------------------------------------------------------------------ statistics
def check_summary(points: pd.DataFrame, rule: str, conf: float = 0.95) -> dict:
    """The rule against the search on the decisions with fight and continue only (the
    Coward's ignore aside): agreement (Wilson, the game as the unit) and, where they differ,
    the search's choice minus the rule's in mean reward and IP (t intervals, the game as the
    unit): from the extra paired rollouts, and from the search's own rollouts."""
    terms = parse_rule(rule)
    both = points[points["n_options"] == 2]
    rule_fight = rule_fights_at(both, terms)
    search_fight = both["search_choice"].to_numpy() == FIGHT
    agree = rule_fight == search_fight
    found: dict = {
        "rule": rule,
        "decisions": int(len(points)),
        "with_ignore": int((points["n_options"] != 2).sum()),
        "compared": int(len(both)),
        "search_fights": float(search_fight.mean()) if len(both) else math.nan,
        "rule_fights": float(rule_fight.mean()) if len(both) else math.nan,
        "agree": int(agree.sum()),
        "agreement": _rate(both["game"].to_numpy(), agree, conf),
    }
    differ = both[~agree]
    fights = search_fight[~agree]
    found["differ"] = {
        "all": difference(differ, fights, conf),
        "search fights, rule continues": difference(differ[fights], fights[fights], conf),
        "search continues, rule fights": difference(differ[~fights], fights[~fights], conf),
    }
    found["verdict"] = verdict(found["differ"]["all"]["eval_reward"])
    found["by_risk"] = by_risk(both, search_fight, rule_fight)
    return found


#: Bins of the risk of continuing, in 36ths: (label, lowest, highest).
RISK_BINS = (("1-5/36", 1, 5), ("6-8/36", 6, 8), ("9-12/36", 9, 12), ("13-18/36", 13, 18),
             ("19+/36", 19, 36))  # fmt: skip


def by_risk(both: pd.DataFrame, search_fight: np.ndarray, rule_fight: np.ndarray) -> list[dict]:
    """Per bin of the risk of continuing (`RISK_BINS`, in 36ths as the rule reads it):
    decisions, and how often the search and the rule fight there."""
    risk_36 = np.rint(both["arrival_risk"].to_numpy() * 36 / 1000).astype(int)
    rows = []
    for label, low, high in RISK_BINS:
        at = (risk_36 >= low) & (risk_36 <= high)
        if at.any():
            rows.append({"risk": label, "decisions": int(at.sum()),
                         "search_fights": float(search_fight[at].mean()),
                         "rule_fights": float(rule_fight[at].mean())})  # fmt: skip
    return rows


def difference(differ: pd.DataFrame, search_fights: np.ndarray, conf: float) -> dict:
    """The search's choice minus the rule's (the other option), per decision: mean reward and
    IP of the extra rollouts, and mean reward of the search's own."""
    sign = np.where(search_fights, 1.0, -1.0)
    games = differ["game"].to_numpy()
    out = {"decisions": int(len(differ)), "games": int(len(np.unique(games)))}
    for key, prefix in (("eval_reward", "eval_reward"), ("eval_ip", "eval_ip"),
                        ("search_reward", "search_mean")):  # fmt: skip
        d = sign * (differ[f"{prefix}_fight"] - differ[f"{prefix}_continue"]).to_numpy()
        out[key] = _mean(games, d, conf)
    out["verdict"] = verdict(out["eval_reward"])
    return out


def verdict(diff: tuple[float, float, float]) -> str:
    """Which choice wins more, from the interval of the search's minus the rule's reward."""
    mean, lo, hi = diff
    if math.isnan(lo) or math.isnan(hi) or lo <= 0 <= hi:
        return "cannot tell"
    return "the search's choice" if lo > 0 else "the rule's choice"


def _cluster_sums(games: np.ndarray, y: np.ndarray) -> tuple[int, int, float, float, float]:
    """(G, n, sum M^2, sum M Y, sum Y^2) over games: M decisions and Y summed value per game."""
    _, index = np.unique(games, return_inverse=True)
    m = np.bincount(index).astype(np.float64)
    t = np.bincount(index, weights=y)
    return len(m), len(y), float((m * m).sum()), float((m * t).sum()), float((t * t).sum())


def _mean(games: np.ndarray, y: np.ndarray, conf: float) -> tuple[float, float, float]:
    """Mean and t interval, the game as the unit (`reports.stats.intervals.clustered_mean`)."""
    from reports.stats.intervals import clustered_mean

    if len(y) == 0:
        return math.nan, math.nan, math.nan
    g, n, m2, my, y2 = _cluster_sums(games, y)
    mean, half = clustered_mean(g, n, float(y.sum()), m2, my, y2, conf)
    return mean, mean - half, mean + half


def _rate(games: np.ndarray, hits: np.ndarray, conf: float) -> tuple[float, float, float]:
    """Rate and Wilson interval, the game as the unit
    (`reports.stats.intervals.clustered_rate`)."""
    from reports.stats.intervals import clustered_rate

    if len(hits) == 0:
        return math.nan, math.nan, math.nan
    h = hits.astype(np.int64)
    g, n, m2, mh, h2 = _cluster_sums(games, h.astype(np.float64))
    lo, hi = clustered_rate(n, int(h.sum()), int(m2), int(mh), int(h2), conf)
    return float(h.mean()), lo, hi


# ------------------------------------------------------------------------------ text and files
POINTS_FILE = "search_points.parquet"
SUMMARY_FILE = "search_check.json"


def check_text(check: SearchCheck, found: dict) -> str:
    """The console summary."""
    meta = check.meta
    rate, lo, hi = found["agreement"]
    lines = [
        f"Fight or explore under search play: {meta['games']} games of {meta['players']} "
        f"players ({', '.join(meta['strategies'])}), seed {meta['seed']}; "
        f"{found['decisions']} fight-or-explore decisions by the search "
        f"({found['with_ignore']} with the Coward's ignore set aside), "
        f"{meta['replicates']} extra paired rollouts of each option per decision "
        f"({meta['seconds']:.0f} s).",
        f"Rule {found['rule']}: fights at {found['rule_fights']:.1%} of the "
        f"{found['compared']} decisions; the search fights at {found['search_fights']:.1%}.",
        f"Agreement: {found['agree']} of {found['compared']} = {_pct(rate, lo, hi)} "
        f"(95% Wilson interval, the game as the unit).",
        "Where they differ, the search's choice minus the rule's (95% t intervals, the game as "
        "the unit; reward: the search's, a share of the win):",
    ]
    for label, d in found["differ"].items():
        if not d["decisions"]:
            lines.append(f"  {label}: no decision")
            continue
        lines.append(
            f"  {label}: {d['decisions']} decisions in {d['games']} games; extra rollouts: "
            f"reward {_ci(d['eval_reward'], '+.3f')}, IP {_ci(d['eval_ip'], '+.2f')}; "
            f"the search's own rollouts: reward {_ci(d['search_reward'], '+.3f')}; "
            f"wins more: {d['verdict']}"
        )
    lines.append("Who fights, by the risk of continuing (decisions: the search, the rule):")
    lines.append("  " + "; ".join(
        f"{r['risk']} ({r['decisions']}): {r['search_fights']:.0%}, {r['rule_fights']:.0%}"
        for r in found["by_risk"]))  # fmt: skip
    lines.append(
        f"Which wins more where they differ (extra paired rollouts, every seat then playing the "
        f"search's rollout policy): {found['verdict']}."
    )
    return "\n".join(lines) + "\n"


def _ci(values: tuple[float, float, float], fmt: str) -> str:
    mean, lo, hi = values
    if math.isnan(lo):
        return f"{mean:{fmt}} [-]"
    return f"{mean:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"


def _pct(rate: float, lo: float, hi: float) -> str:
    if math.isnan(rate):
        return "-"
    return f"{rate:.1%} [{lo:.1%}, {hi:.1%}]"


def save_check(check: SearchCheck, found: dict, out_dir) -> None:
    """search_points.parquet and search_check.json (atomically) into `out_dir`."""
    import json
    from pathlib import Path

    from sim.core.runs import atomic_write_text, write_parquet

    out_dir = Path(out_dir)
    write_parquet(check.points, out_dir / POINTS_FILE)
    doc = {"meta": check.meta, **found}
    atomic_write_text(out_dir / SUMMARY_FILE, json.dumps(doc, indent=2, default=float) + "\n")
