"""Fight or explore? Forked rollouts of the decision, their statistics, and the rule they teach.

`run_rollouts` samples decision points (a Monster revealed with a fightable Leviathan on the
Border) from games of a line-up, one per game, and plays each both ways to the end of the game,
`replicates` times, on the fast path with common random numbers (`games.abyss.engine.fork`). The
unit of every interval is the decision point: points come from different games and are independent;
the replicates of a point are averaged first.

`learn_threshold` fits the simplest rule that uses the numbers: fight when the best chance of
damage is at least t. It picks t on half of the points and measures it on the other half, so the
gain it reports is not the maximum of noisy estimates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from games.abyss.engine.fork import INFO_COLUMNS, Forker, pick_points
from reports.stats.intervals import mean_halfwidth
from sim.core.runs import read_table

#: Situations the report breaks the differences down by: column -> (bin edges, labels).
SITUATIONS: dict[str, tuple[list[float], list[str]]] = {
    "best_ally_value": ([0, 1, 2, 3, 4, 5, 99], ["1", "2", "3", "4", "5", "6+"]),
    "resistance": ([0, 4, 5, 6, 7, 8, 99], ["3-4", "5", "6", "7", "8", "9+"]),
    "pearls": ([-1, 0, 1, 2, 4, 6, 999], ["0", "1", "2", "3-4", "5-6", "7+"]),
    "n_border": ([0, 1, 2, 3, 99], ["1", "2", "3", "4+"]),
    "round": ([0, 3, 6, 9, 12, 999], ["1-3", "4-6", "7-9", "10-12", "13+"]),
    "chance": (
        [-0.01, 0.0, 1 / 3, 1 / 2, 2 / 3, 5 / 6, 1.0],
        ["0", "(0, 1/3]", "(1/3, 1/2]", "(1/2, 2/3]", "(2/3, 5/6]", "(5/6, 1]"],
    ),
}
SITUATION_NAMES = {
    "best_ally_value": "best eligible Ally value",
    "resistance": "target's Resistance",
    "pearls": "Pearls",
    "n_border": "Leviathans on the Border",
    "round": "round",
    "chance": "best chance of damage",
}
STRATEGY_CHOICE = {0: "continue", 1: "fight", 2: "ignore"}


@dataclass
class Rollouts:
    """One row per decision point (`points`) and how they were made (`meta`)."""

    points: pd.DataFrame
    meta: dict = field(default_factory=dict)
    rules: pd.DataFrame | None = None  # rule rollouts (`rule_rows`), when run
    verify: dict | None = None  # the learnt rule's tournament check (`verify_rule`), when run

    @property
    def n_points(self) -> int:
        return len(self.points)


def run_rollouts(
    tables,
    *,
    n_players: int,
    strategies: list[str],
    seed: int,
    n_points: int,
    replicates: int,
    paired: bool = True,
    unpaired_check: bool = False,
    rule_points: int = 0,
    rule_replicates: int = 8,
    progress: bool = False,
    chunk_points: int | None = None,
) -> Rollouts:
    """Sample `n_points` decision points from games 0, 1, ... of `seed` (one per game that meets
    any) and fork each `replicates` times each way.

    With `unpaired_check`, the continue branch is also played on keys of its own, for the
    comparison of paired and unpaired intervals (columns `continue_*_unpaired`).

    With `rule_points`, the first `rule_points` games also get rule rollouts: from the game's
    first decision point, the deciding seat keeps its strategy or switches to each of
    `rule_candidates()` for the rest of the game, `rule_replicates` times, for `learn_rule`.
    """
    import time

    from games.abyss.engine.fast import lineup_arrays
    from games.abyss.strategies import REGISTRY
    from sim.core.batch import run_chunks

    t0 = time.perf_counter()
    kinds, params = lineup_arrays(REGISTRY.table_policies(list(strategies), n_players))
    forker = Forker(tables, seed, kinds, params, n_players)
    games, ks = sample_points(forker, n_points)
    parts: list[pd.DataFrame] = []

    def play(first: int, n: int) -> None:
        g, k = games[first : first + n], ks[first : first + n]
        out = forker.play(g, k, replicates, paired=paired)
        part = point_rows(g, k, out, forker.seatings(g), strategies)
        if unpaired_check:
            alone = forker.play_continue_unpaired(g, k, replicates)
            part["continue_ip_unpaired"] = alone["continue_ip"].mean(axis=1)
            part["continue_win_unpaired"] = alone["continue_win"].mean(axis=1)
            d = out["fight_ip"] - alone["continue_ip"]
            part["var_d_ip_unpaired"] = d.var(axis=1, ddof=1) if replicates > 1 else np.nan
        parts.append(part)

    chunk = chunk_points or max(16, 4096 // max(1, replicates))
    run_chunks(len(games), play, chunk_size=chunk, progress=progress, label="decision points")
    points = pd.concat(parts, ignore_index=True)
    candidates = rule_candidates()
    rule_parts: list[pd.DataFrame] = []

    def play_rules(rule_games: np.ndarray, played: list[int], label: str) -> None:
        # from each game's first decision point: the rule is played for the whole game
        def play(first: int, n: int) -> None:
            g, k = rule_games[first : first + n], np.ones(n, dtype=np.int64)
            info, ip, win = forker.play_rules(g, k, rule_replicates,
                                              [candidates[c][1] for c in played])  # fmt: skip
            names = np.array(strategies, dtype=object)[forker.seatings(g)]
            rule_parts.append(rule_rows(g, k, info, ip, win, [candidates[c][0] for c in played],
                                        names))  # fmt: skip

        chunk = chunk_points or max(16, 4096 // (len(played) * rule_replicates))
        run_chunks(len(rule_games), play, chunk_size=chunk, progress=progress, label=label)

    rule_games = sample_points(forker, rule_points)[0] if rule_points else games[:0]
    choose, test = rule_games[rule_games % 2 == 0], rule_games[rule_games % 2 == 1]
    n_rule = rule_points if len(choose) else 0  # (no game to choose on: no rule rollouts)
    if n_rule:
        # every candidate on the even-numbered games, which choose the rule; on the odd ones,
        # which test it, only the chosen rule and the strategies' own (`learn_rule`); none when
        # the own rules were chosen (nothing to test)
        play_rules(choose, list(range(len(candidates))), "rule points")
        chosen = learn_rule(pd.concat(rule_parts, ignore_index=True))["rule"]
        if chosen != "own":
            at = [c[0] for c in candidates].index(chosen)
            play_rules(test, [0, at], "rule test points")
    rules = pd.concat(rule_parts, ignore_index=True) if rule_parts else None
    meta = {
        "seed": seed,
        "players": n_players,
        "strategies": list(strategies),
        "points": int(len(points)),
        "replicates": replicates,
        "paired": paired,
        "rule_points": n_rule,
        "rule_replicates": rule_replicates if n_rule else 0,
        "rule_candidates": [c[0] for c in candidates] if n_rule else [],
        # the odd-numbered games play only the chosen rule and the own (`learn_rule`)
        "rule_test": "chosen" if n_rule else None,
        "games_played": int(
            len(points) * replicates * (3 if unpaired_check else 2)
            + (len(rules) * rule_replicates if rules is not None else 0)
        ),
        "seconds": time.perf_counter() - t0,
    }
    return Rollouts(points, meta, rules)


def sample_points(forker: Forker, n_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Games 0, 1, ... and the decision point picked in each, until `n_points` are found."""
    games: list[np.ndarray] = []
    ks: list[np.ndarray] = []
    found, first = 0, 0
    while found < n_points:
        batch = np.arange(first, first + max(64, n_points - found + 16), dtype=np.int64)
        k = pick_points(forker.seed, batch, forker.count(batch))
        keep = k > 0
        games.append(batch[keep])
        ks.append(k[keep])
        found += int(keep.sum())
        first += len(batch)
        if first > 100 * n_points + 10_000:
            raise RuntimeError("the games meet no decision point: is the Leviathan expansion on?")
    return np.concatenate(games)[:n_points], np.concatenate(ks)[:n_points]


def point_rows(games, ks, out, seatings, strategies) -> pd.DataFrame:
    """The point-level frame: situation, strategy, and per-branch means over replicates."""
    info = pd.DataFrame(out["info"], columns=list(INFO_COLUMNS))
    df = pd.DataFrame({"game": games, "point": ks})
    df = pd.concat([df, info], axis=1)
    names = np.array(strategies, dtype=object)
    df["strategy"] = names[seatings[np.arange(len(games)), info["seat"].to_numpy()]]
    df["chance"] = df["chance_36"] / 36.0
    d_ip = out["fight_ip"] - out["continue_ip"]
    d_win = out["fight_win"] - out["continue_win"]
    df["fight_ip"] = out["fight_ip"].mean(axis=1)
    df["continue_ip"] = out["continue_ip"].mean(axis=1)
    df["fight_win"] = out["fight_win"].mean(axis=1)
    df["continue_win"] = out["continue_win"].mean(axis=1)
    df["d_ip"] = d_ip.mean(axis=1)
    df["d_win"] = d_win.mean(axis=1)
    df["var_d_ip"] = d_ip.var(axis=1, ddof=1) if d_ip.shape[1] > 1 else np.nan
    return df


# ----------------------------------------------------------------------------- statistics
def interval(values: np.ndarray, conf: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student t interval over independent decision points."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    half = mean_halfwidth(values, conf)
    return mean, mean - half, mean + half


def difference_row(df: pd.DataFrame, conf: float = 0.95) -> dict:
    """Points, P(fight) by the strategies, and the fight-minus-continue differences with
    intervals, in IP and in win probability."""
    ip, ip_lo, ip_hi = interval(df["d_ip"].to_numpy(), conf)
    win, win_lo, win_hi = interval(df["d_win"].to_numpy(), conf)
    return {
        "points": len(df),
        "strategies_fight": float((df["own_choice"] == 1).mean()) if len(df) else math.nan,
        "d_ip": ip,
        "d_ip_lo": ip_lo,
        "d_ip_hi": ip_hi,
        "d_win": win,
        "d_win_lo": win_lo,
        "d_win_hi": win_hi,
    }


def overall(points: pd.DataFrame, conf: float = 0.95) -> pd.DataFrame:
    """The differences over all points, and per strategy of the deciding seat."""
    rows = [{"group": "all points", **difference_row(points, conf)}]
    for name, part in points.groupby("strategy", sort=True):
        rows.append({"group": str(name), **difference_row(part, conf)})
    return pd.DataFrame(rows)


def by_situation(points: pd.DataFrame, column: str, conf: float = 0.95) -> pd.DataFrame:
    """The differences per bin of one situation column (`SITUATIONS`)."""
    edges, labels = SITUATIONS[column]
    bins = pd.cut(points[column], bins=edges, labels=labels)
    rows = []
    for label in labels:
        part = points[bins == label]
        if len(part):
            rows.append({"situation": column, "bin": label, **difference_row(part, conf)})
    return pd.DataFrame(rows)


def all_situations(points: pd.DataFrame, conf: float = 0.95) -> pd.DataFrame:
    return pd.concat([by_situation(points, c, conf) for c in SITUATIONS], ignore_index=True)


def heatmap_table(points: pd.DataFrame, rows: str, columns: str, metric: str = "d_win"):
    """Mean `metric` and point counts per (rows bin, columns bin), for a two-way heatmap."""
    r_edges, r_labels = SITUATIONS[rows]
    c_edges, c_labels = SITUATIONS[columns]
    frame = pd.DataFrame(
        {
            "r": pd.cut(points[rows], bins=r_edges, labels=r_labels),
            "c": pd.cut(points[columns], bins=c_edges, labels=c_labels),
            "v": points[metric],
        }
    )
    grouped = frame.groupby(["r", "c"], observed=False)["v"]
    means = grouped.mean().unstack("c").reindex(index=r_labels, columns=c_labels)
    counts = grouped.size().unstack("c").reindex(index=r_labels, columns=c_labels).fillna(0)
    return means, counts.astype(int)


def pairing_gain(points: pd.DataFrame, conf: float = 0.95) -> dict | None:
    """Paired against unpaired: interval half-widths of the mean IP difference and the
    within-point variance of one replicate's difference (needs `unpaired_check`)."""
    if "continue_ip_unpaired" not in points:
        return None
    paired = points["d_ip"].to_numpy()
    unpaired = (points["fight_ip"] - points["continue_ip_unpaired"]).to_numpy()
    var_p = float(points["var_d_ip"].mean())
    var_u = float(points["var_d_ip_unpaired"].mean())
    return {
        "points": len(points),
        "halfwidth_paired": mean_halfwidth(paired, conf),
        "halfwidth_unpaired": mean_halfwidth(unpaired, conf),
        "replicate_var_paired": var_p,
        "replicate_var_unpaired": var_u,
        "variance_ratio": var_p / var_u if var_u > 0 else math.nan,
    }


# ------------------------------------------------------------------------- the learnt rule
#: Candidate thresholds, in 36ths: on the best chance of damage (37: never fight) and on the
#: chance that continuing brings an attack (both are multiples of 1/36).
CHANCE_36 = tuple(range(0, 38))
RISK_36 = tuple(range(0, 37))


def risk_thousandths(risk_36: int) -> int:
    """`policies.arrival_risk`'s value for a risk of risk_36/36 (its unit: thousandths)."""
    return risk_36 * 1000 // 36


def rule_fights(points: pd.DataFrame, chance_36: int, risk_36: int = 0) -> np.ndarray:
    """Per point: does 'fight iff chance >= chance_36/36 and risk >= risk_36/36' fight?"""
    return (points["chance_36"].to_numpy() >= chance_36) & (
        points["arrival_risk"].to_numpy() >= risk_thousandths(risk_36)
    )


def outcome(points: pd.DataFrame, fight: np.ndarray, metric: str = "win") -> np.ndarray:
    """Per point: the mean outcome of the branch chosen."""
    return np.where(fight, points[f"fight_{metric}"], points[f"continue_{metric}"])


def strategy_fights(points: pd.DataFrame) -> np.ndarray:
    """Per point: did the deciding seat's own strategy fight?"""
    return points["own_choice"].to_numpy() == 1


def rule_grid(points: pd.DataFrame, metric: str = "win") -> np.ndarray:
    """Mean outcome of every rule: [risk_36, chance_36]."""
    chance = points["chance_36"].to_numpy()
    risk = points["arrival_risk"].to_numpy()
    fight_v = points[f"fight_{metric}"].to_numpy()
    cont_v = points[f"continue_{metric}"].to_numpy()
    grid = np.empty((len(RISK_36), len(CHANCE_36)))
    for i, w in enumerate(RISK_36):
        risky = risk >= risk_thousandths(w)
        for j, c in enumerate(CHANCE_36):
            grid[i, j] = np.where(risky & (chance >= c), fight_v, cont_v).mean()
    return grid


def best_risk(points: pd.DataFrame, metric: str = "win") -> int:
    """risk_36 (1..36) of the best rule the `fight_risk` parameter expresses: fight iff some
    Ally can damage (chance >= 1/36) and the risk is at least risk_36/36; ties go low."""
    grid = rule_grid(points, metric)
    return int(RISK_36[1 + int(np.argmax(grid[1:, 1]))])


def one_step_rule(points: pd.DataFrame, conf: float = 0.95, metric: str = "win") -> dict:
    """The rule the fight-or-continue forks alone suggest (one decision changed, the rest of
    the game played by the strategy's own rule). Fit the risk threshold on the even-numbered
    games' points (`fitted_on_half`: the rule `recommended_rule` names) and measure it on the
    odd ones; `risk_36` is the best on all points (in-sample: the grid's star).

    Returns the thresholds (36ths) and `fight_risk` parameter of `risk_36`, the held-out gain over
    each strategy's own rule, over 'always fight' and 'never fight', and over the best rule on
    the chance of damage alone, with intervals; and the grid of mean outcomes of the rules
    'fight iff chance >= c/36 and risk >= w/36' (all points; `grid[w, c]`).
    """
    train = points[points["game"] % 2 == 0]
    test = points[points["game"] % 2 == 1]
    risk = best_risk(train, metric)
    held = outcome(test, rule_fights(test, 1, risk), metric)
    chance_only = int(np.argmax(rule_grid(train, metric)[0]))

    def gain(other: np.ndarray) -> tuple[float, float, float]:
        return interval(held - outcome(test, other, metric), conf)

    final = best_risk(points, metric)
    return {
        "metric": metric,
        "risk_36": final,
        "fight_risk": risk_thousandths(final) / 1000,
        "fitted_on_half": risk,
        "held_out_points": len(test),
        "held_out_fight_share": float(rule_fights(test, 1, risk).mean()),
        "gain_vs_own": gain(strategy_fights(test)),
        "gain_vs_always_fight": gain(rule_fights(test, 1, 0)),
        "gain_vs_never_fight": gain(rule_fights(test, 37, 0)),
        "gain_vs_chance_only": gain(rule_fights(test, chance_only, 0)),
        "chance_only_36": chance_only,
        "grid": rule_grid(points, metric),
    }


def fight_p_of(chance_36: int) -> int:
    """The `fight_p` parameter (thousandths) of a threshold in 36ths (0..36): the smallest value
    that admits exactly the chances >= chance_36/36 (policies compare chance x 1000 >= fight_p x
    36; a certain chance is always admitted)."""
    if not 0 <= chance_36 <= 36:
        raise ValueError(f"a chance threshold is 0..36 36ths; got {chance_36}")
    if chance_36 == 0:
        return 0
    return math.floor((chance_36 - 1) * 1000 / 36) + 1


# ---------------------------------------------------------------------- rule rollouts
#: Candidate rules of the rule rollouts: (name, {parameter slot: value}). "own" keeps each
#: strategy's rule; `fight_risk` rules fight past a Monster when continuing risks an attack with
#: at least that chance (and some Ally can damage), optionally with a new `fight_p` for the
#: attacks; `fight_p` rules alone are thresholds on the chance of damage (attacks included).
RISK_CANDIDATES_36 = (3, 4, 5, 6, 8, 10)
CHANCE_CANDIDATES_36 = (1, 9, 12, 18, 24, 30)
ATTACK_CANDIDATES_36 = (9, 12)


def rule_candidates() -> list[tuple[str, dict[int, int]]]:
    from games.abyss.engine.policy_params import G_FIGHT_P, G_FIGHT_RISK

    rules: list[tuple[str, dict[int, int]]] = [("own", {})]
    for w in RISK_CANDIDATES_36:
        risk = {G_FIGHT_RISK: risk_thousandths(w)}
        rules.append((f"fight_risk={w}/36", risk))
        for c in ATTACK_CANDIDATES_36:
            rules.append((f"fight_risk={w}/36,fight_p={c}/36", {**risk, G_FIGHT_P: fight_p_of(c)}))
    rules += [(f"fight_p={c}/36", {G_FIGHT_P: fight_p_of(c)}) for c in CHANCE_CANDIDATES_36]
    return rules


def rule_rows(games, ks, info, ip, win, names, strategies_of_seat) -> pd.DataFrame:
    """Long frame of rule rollouts: one row per (point, rule), means over replicates, in point
    order (so that chunking cannot change it)."""
    m, v = len(games), len(names)
    seat = info[:, 0]
    return pd.DataFrame(
        {
            "game": np.repeat(games, v),
            "point": np.repeat(ks, v),
            "strategy": np.repeat(strategies_of_seat[np.arange(m), seat], v),
            "rule": np.tile(np.array(names, dtype=object), m),
            "win": win.mean(axis=2).T.ravel(),
            "ip": ip.mean(axis=2).T.ravel(),
        }
    )


def rule_table(rules: pd.DataFrame, conf: float = 0.95) -> pd.DataFrame:
    """Per candidate rule: mean win and IP, and the gain over each strategy's own rule with
    intervals over decision points (common random numbers: the same replicates per rule)."""
    wide_win = rules.pivot(index=["game", "point"], columns="rule", values="win")
    wide_ip = rules.pivot(index=["game", "point"], columns="rule", values="ip")
    rows = []
    for name in dict.fromkeys(rules["rule"]):
        w, w_lo, w_hi = interval((wide_win[name] - wide_win["own"]).to_numpy(), conf)
        i, i_lo, i_hi = interval((wide_ip[name] - wide_ip["own"]).to_numpy(), conf)
        rows.append(
            {
                "rule": name,
                "points": len(wide_win),
                "win": float(wide_win[name].mean()),
                "gain_win": w,
                "gain_win_lo": w_lo,
                "gain_win_hi": w_hi,
                "ip": float(wide_ip[name].mean()),
                "gain_ip": i,
                "gain_ip_lo": i_lo,
                "gain_ip_hi": i_hi,
            }
        )
    return pd.DataFrame(rows)


def learn_rule(rules: pd.DataFrame, conf: float = 0.95) -> dict:
    """The candidate rule with the highest win rate on the even-numbered games' points, and its
    gain over the strategies' own rules measured on the odd ones, which did not choose it (so
    the reported gain is not the maximum of noisy estimates). The rule recommended is the one
    measured; `run_rollouts` asks it which rule the odd games play.

    Returns the rule's name, strategy-parameter override, sentence, held-out gain (win and
    IP, with intervals; NaN, on 0 points, when the own rules were chosen or no odd-numbered
    game played the rule) and the table of every candidate on the games that chose it
    (in-sample).
    """
    table = rule_table(rules[rules["game"] % 2 == 0], conf)
    best = _best(table)
    test = rules[(rules["game"] % 2 == 1) & rules["rule"].isin(["own", best])]
    held = rule_table(test, conf).set_index("rule") if len(test) and best != "own" else None
    if held is None or best not in held.index or held.at[best, "points"] < 2:  # (no interval)
        nan = (math.nan, math.nan, math.nan)
        points, gain_win, gain_ip = 0, nan, nan
    else:
        row = held.loc[best]
        points = int(row["points"])
        gain_win = (row["gain_win"], row["gain_win_lo"], row["gain_win_hi"])
        gain_ip = (row["gain_ip"], row["gain_ip_lo"], row["gain_ip_hi"])
    return {
        "rule": best,
        "spec": rule_spec(best),
        "sentence": rule_sentence(best),
        "fitted_on_half": best,
        "held_out_points": points,
        "held_out_gain_win": gain_win,
        "held_out_gain_ip": gain_ip,
        "table": table,
    }


def _best(table: pd.DataFrame) -> str:
    """The rule with the highest mean win share (the first listed among equals)."""
    return str(table.loc[table["win"].idxmax(), "rule"])


def rule_terms(rule: str) -> dict[str, int]:
    """`"fight_risk=6/36,fight_p=12/36"` -> {"fight_risk": 6, "fight_p": 12} (36ths)."""
    if rule == "own":
        return {}
    terms = {}
    for part in rule.split(","):
        param, value = part.split("=")
        terms[param] = int(value.split("/")[0])
    return terms


def rule_spec(rule: str) -> str:
    """A candidate rule as strategy-parameter overrides, e.g. `fight_risk=0.166:fight_p=0.223`
    (append to a strategy name after a colon)."""
    terms = rule_terms(rule)
    specs = []
    if "fight_risk" in terms:
        specs.append(f"fight_risk={risk_thousandths(terms['fight_risk']) / 1000:g}")
    if "fight_p" in terms:
        specs.append(f"fight_p={fight_p_of(terms['fight_p']) / 1000:g}")
    return ":".join(specs)


def rule_sentence(rule: str) -> str:
    """A candidate rule in one sentence."""
    terms = rule_terms(rule)
    if not terms:
        return "Keep each strategy's own fight rule: no candidate rule did better."
    c = terms.get("fight_p")
    if "fight_risk" not in terms:
        return (
            f"Fight (and attack again) when your best Ally removes a Life Point with probability "
            f"{c}/36 ({c / 36:.0%}) or more; otherwise keep exploring."
        )
    w = terms["fight_risk"]
    attack = (
        f" Once fighting, attack again while an Ally has a {c}/36 ({c / 36:.0%}) chance or better."
        if c is not None
        else ""
    )
    return (
        f"When a Monster is revealed, fight if one of your Allies can damage a Leviathan and "
        f"continuing carries a {w}/36 ({w / 36:.0%}) or greater risk of a Leviathan's attack "
        f"(the 2d6 chance that a new Leviathan lands on an occupied zone); otherwise keep "
        f"exploring.{attack}"
    )


# --------------------------------------------------------------------------- files
POINTS_FILE = "points.parquet"
RULES_FILE = "rules.parquet"
SUMMARY_FILE = "rollout.json"


def summary(rollouts: Rollouts, conf: float = 0.95) -> dict:
    """What a rollout run found, as JSON-ready data."""
    one_step = one_step_rule(rollouts.points, conf)
    one_step.pop("grid")
    found = {
        "meta": rollouts.meta,
        "overall": overall(rollouts.points, conf).to_dict(orient="records"),
        "one_step_rule": one_step,
        "pairing": pairing_gain(rollouts.points, conf),
        "learnt_rule": None,
    }
    if rollouts.rules is not None:
        learnt = learn_rule(rollouts.rules, conf)
        learnt["table"] = learnt["table"].to_dict(orient="records")
        found["learnt_rule"] = learnt
    return found


def save_rollouts(rollouts: Rollouts, out_dir, conf: float = 0.95) -> dict:
    """Write points.parquet, rules.parquet and rollout.json (atomically) into `out_dir`;
    returns the summary."""
    import json
    from pathlib import Path

    from sim.core.runs import atomic_write_text, write_parquet

    out_dir = Path(out_dir)
    found = summary(rollouts, conf)
    write_parquet(rollouts.points, out_dir / POINTS_FILE)
    if rollouts.rules is not None:
        write_parquet(rollouts.rules, out_dir / RULES_FILE)
    if rollouts.verify is not None:
        atomic_write_text(out_dir / VERIFY_FILE, json.dumps(rollouts.verify, indent=2) + "\n")
    atomic_write_text(out_dir / SUMMARY_FILE, json.dumps(found, indent=2, default=float) + "\n")
    return found


def load_rollouts(run_dir) -> Rollouts:
    """A rollout run written by `save_rollouts` (`abyss-mc ev rollout --out DIR`)."""
    import json
    from pathlib import Path

    from sim.core.errors import UserError

    run_dir = Path(run_dir)
    points, found = run_dir / POINTS_FILE, run_dir / SUMMARY_FILE
    if not points.is_file() or not found.is_file():
        raise UserError(f"{run_dir} is not a rollout run (no {POINTS_FILE} and {SUMMARY_FILE})")
    meta = json.loads(found.read_text())["meta"]
    rules = run_dir / RULES_FILE
    verify = run_dir / VERIFY_FILE
    return Rollouts(
        read_table(points),
        meta,
        read_table(rules) if rules.is_file() else None,
        json.loads(verify.read_text()) if verify.is_file() else None,
    )


def run_tables(run_dir):
    """The card tables a rollout run played with (its manifest's --cards and --set)."""
    import json
    from pathlib import Path

    from sim import games

    config = json.loads((Path(run_dir) / "manifest.json").read_text()).get("config", {})
    return games.get("abyss").load_run_cards(config, expansions=("leviathan",))


def is_rollout_run(run_dir) -> bool:
    from pathlib import Path

    return (Path(run_dir) / SUMMARY_FILE).is_file()


def rollout_text(rollouts: Rollouts, found: dict) -> str:
    """The console summary of a rollout run."""
    meta = rollouts.meta
    lines = [
        f"Fight or explore: {meta['points']} decision points x {meta['replicates']} rollouts "
        f"of each choice ({meta['games_played']} games, {meta['seconds']:.1f} s), "
        f"{meta['players']} players, seed {meta['seed']}.",
        "Difference fight - continue, per decision point (95% t intervals over points):",
    ]
    for row in found["overall"]:
        lines.append(
            f"  {row['group']:<22} {row['points']:>6} points  fights {row['strategies_fight']:5.1%}"
            f"  IP {_ci(row['d_ip'], row['d_ip_lo'], row['d_ip_hi'], '+.2f')}"
            f"  win {_ci(row['d_win'], row['d_win_lo'], row['d_win_hi'], '+.2%')}"
        )
    lines.append("By situation (win probability):")
    table = all_situations(rollouts.points)
    for name, part in table.groupby("situation", sort=False):
        cells = [
            f"{b} {_ci(w, lo, hi, '+.1%')}"
            for b, w, lo, hi in part[["bin", "d_win", "d_win_lo", "d_win_hi"]].itertuples(
                index=False
            )
        ]
        lines.append(f"  {SITUATION_NAMES[name]}: " + "; ".join(cells))
    step = found["one_step_rule"]
    gain = (f"its gain over the strategies' own choices on the odd ones "
            f"{_ci(*step['gain_vs_own'], '+.2%')}" if step["held_out_points"] >= 2
            else "too few odd-numbered games to measure it")  # fmt: skip
    lines.append(
        f"One decision changed: the best rule 'fight iff the risk of continuing is at least "
        f"w/36' on the even-numbered games has w = {step['fitted_on_half']}; {gain}."
    )
    rule = found["learnt_rule"]
    if rule is not None:
        meta = rollouts.meta
        lines.append(
            f"Rule rollouts ({meta['rule_points']} games x {meta['rule_replicates']} "
            f"replicates; the rule played from the game's first decision point to its end), "
            f"win gain over the own rules on the even-numbered games, which chose the rule:"
        )
        for row in rule["table"]:
            if row["rule"] != "own":
                ci = _ci(row["gain_win"], row["gain_win_lo"], row["gain_win_hi"], "+.2%")
                lines.append(f"  {row['rule']:<16} {ci}")
        measured = (
            f"measured on the {rule['held_out_points']} points of the odd ones: win "
            f"{_ci(*rule['held_out_gain_win'], '+.2%')}, IP "
            f"{_ci(*rule['held_out_gain_ip'], '+.2f')} over the strategies' own rules."
            if rule["held_out_points"] else "not measured out of sample (no odd-numbered game "
            "played it)."
        )  # fmt: skip
        lines += [
            "Learnt rule: " + rule["sentence"],
            f"  strategy parameter: {rule['spec'] or '(none)'}; chosen on the even-numbered "
            f"games and " + measured,
        ]
    if rollouts.verify is not None:
        v = rollouts.verify
        lines.append(
            f"Tournament check ({v['games']:,} games, {v['players']} players, every combination "
            f"and seating, {v['blocks']} blocks): with the rule minus without, 95% intervals "
            f"over blocks (Holm-corrected significance):"
        )
        for row in v["differences"]:
            fmt = "+.2%" if row["metric"] == "win" else "+.2f"
            star = " *" if row["significant"] else ""
            lines.append(
                f"  {row['strategy']:<22} {row['metric']:<3} "
                f"{_ci(row['diff'], row['lo'], row['hi'], fmt)}{star}"
            )
    pairing = found["pairing"]
    if pairing:
        lines.append(
            f"Common random numbers: IP interval half-width {pairing['halfwidth_paired']:.3f} "
            f"paired vs {pairing['halfwidth_unpaired']:.3f} unpaired; variance of one "
            f"replicate's difference x{pairing['variance_ratio']:.2f}."
        )
    return "\n".join(lines) + "\n"


def _ci(mean: float, lo: float, hi: float, fmt: str) -> str:
    return f"{mean:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"


# ------------------------------------------------------------------ tournament check
VERIFY_FILE = "verify.json"


def verify_rule(
    tables,
    strategies: list[str],
    spec: str,
    *,
    n_players: int,
    seed: int,
    blocks: int,
    progress: bool = False,
    conf: float = 0.95,
) -> dict:
    """Play the learnt rule against the strategies' own rules in a tournament: every strategy
    `X` of the line-up and `X:spec` (its fight rule replaced), every combination of n_players of
    them in every cyclic order and seat (`--design all`, so every pair meets equally often),
    common random numbers. Returns the table and, per strategy, the paired difference (with
    the rule minus without) in win rate and IP with intervals over blocks, Holm-corrected."""
    from reports.play.tournament import run_tournament
    from reports.stats.blocks import pairwise

    bases = list(dict.fromkeys(strategies))
    with_rule = [f"{s}:{spec}" for s in bases]
    names = [n for pair in zip(bases, with_rule, strict=True) for n in pair]
    result = run_tournament(
        tables,
        names,
        n_players=n_players,
        n_blocks=blocks,
        seed=seed,
        design="all",
        progress=progress,
    )
    rows = []
    for metric in ("win", "score"):
        pairs = pairwise(result.seats, metric, conf).set_index(["a", "b"])
        for base, ruled in zip(bases, with_rule, strict=True):
            a, b = sorted((base, ruled))
            row = pairs.loc[(a, b)]
            sign = 1.0 if a == ruled else -1.0  # diff is a - b: make it rule minus own
            lo, hi = sorted((sign * row["lo"], sign * row["hi"]))
            rows.append(
                {
                    "strategy": base,
                    "metric": "win" if metric == "win" else "ip",
                    "diff": sign * row["diff"],
                    "lo": lo,
                    "hi": hi,
                    "p_adj": row["p_adj"],
                    "significant": bool(row["significant"]),
                }
            )
    means = result.seats.groupby("strategy")[["win", "score"]].mean()
    return {
        "spec": spec,
        "seed": seed,  # (the run's derived EV_VERIFY seed: deals no rule rollout played)
        "players": n_players,
        "blocks": result.n_blocks,
        "games": int(len(result.games)),
        "design": "all",
        "differences": rows,
        "means": means.reset_index().to_dict(orient="records"),
    }
