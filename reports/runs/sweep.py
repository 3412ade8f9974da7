"""`abyss-mc sweep`: what if a rule or card value were different?

Each `--set KEY=V1,V2,...` lists values of one card-data or rules key; the sweep plays every point
of their grid (every combination) and the default (the card data as given), each on the same
games 0 .. n-1 of the same seed: common random numbers, so a difference between two points is
the change of rule, not the luck of other deals. Per point: strategy win rates, seat advantage,
game length and points by source, with 95% intervals. Each point's differences from the default
are paired by game (the same seed and game index) and tested with Student t over games; the
p-values of all comparisons of the sweep are adjusted together with Holm's method.
"""

from __future__ import annotations

import itertools
import math
import sys
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reports.run_dir import Run, card_digest, data_options, data_paths, run_digests
from reports.runs.setup import (
    Output,
    check_backend,
    check_seed,
    game_expansions,
    game_lineup,
    game_spec,
    mixed_lineup,
    start_or_resume,
)
from sim.core.errors import UserError


def score_sources(seats: pd.DataFrame) -> list[str]:
    """What `point_metrics` summarises besides the score, unless told: the seat columns that
    split it by source (named ``score_*`` in every game's results)."""
    return [c for c in seats.columns if c.startswith("score_")]


def parse_sweep(items: list[str]) -> list[tuple[str, list[str]]]:
    """`["a.b=1,2", "c.d=x"]` -> [("a.b", ["1", "2"]), ("c.d", ["x"])] (values as typed)."""
    out: list[tuple[str, list[str]]] = []
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        values = [v.strip() for v in text.split(",")]
        if not sep or not key or not text.strip() or any(v == "" for v in values):
            raise UserError(f"--set {item!r}: expected KEY=VALUE[,VALUE...], e.g. game.x=1,2,3")
        if key in dict(out):
            raise UserError(f"--set {key} is given twice; list its values in one --set")
        if len(set(values)) != len(values):
            raise UserError(f"--set {key}: a value is listed twice")
        out.append((key, values))
    if not out:
        raise UserError("give at least one --set KEY=V1,V2,... to sweep")
    return out


def grid(axes: list[tuple[str, list[str]]]) -> list[dict[str, str]]:
    """Every combination of the axes' values, in order (the first key varies slowest)."""
    keys = [k for k, _ in axes]
    return [
        dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(v for _, v in axes))
    ]


@dataclass
class SweepResult:
    points: pd.DataFrame  # one row per point: its settings
    seats: pd.DataFrame  # long form: point, game, seat, strategy, win, score, sources...
    games: pd.DataFrame  # point, game, turns
    sources: list[str]  # the seat columns summarised besides the score


def run_sweep(
    load,
    run,
    axes: list[tuple[str, list[str]]],
    *,
    progress=None,
    store=None,
    sources: list[str] | None = None,
) -> SweepResult:
    """Play the default and every grid point. `load(overrides) -> tables` (validates; raises
    a user error), `run(tables) -> (seat columns, game columns)` (same seed and games).

    With a `store` (`sim.core.chunks.ChunkStore`; chunk i = point i), each finished point is
    stored, and points already stored are read back instead of played: an interrupted sweep
    resumes with the same results."""
    settings = [{}] + grid(axes)
    tables = [load(s) for s in settings]  # every point validated before any game is played
    done = store.end() if store is not None else 0
    seat_parts, game_parts = [], []
    for i, (s, t) in enumerate(zip(settings, tables, strict=True)):
        if i < done:
            seats = pd.read_parquet(store.path(i, "seats.parquet"))
            games = pd.read_parquet(store.path(i, "games.parquet"))
        else:
            if progress is not None:
                progress(f"point {i}/{len(settings) - 1}: {label(s)}")
            seats, games = run(t)
            seats = pd.DataFrame(seats)
            games = pd.DataFrame(games)
            seats.insert(0, "point", i)
            games.insert(0, "point", i)
            if store is not None:
                from sim.core.runs import write_parquet

                store.save(
                    i,
                    1,
                    {
                        "seats.parquet": lambda path, df=seats: write_parquet(df, path),
                        "games.parquet": lambda path, df=games: write_parquet(df, path),
                    },
                )
        seat_parts.append(seats)
        game_parts.append(games)
    points = pd.DataFrame([{"point": i, "label": label(s), **s} for i, s in enumerate(settings)])
    seats = pd.concat(seat_parts, ignore_index=True)
    return SweepResult(points, seats, pd.concat(game_parts, ignore_index=True),
                       list(sources) if sources is not None else score_sources(seats))  # fmt: skip


def short_label(text: str) -> str:
    """A point's label with each key cut to its last part: "hand_limit=8, cost=6"."""
    return ", ".join(part.split(".")[-1] for part in text.split(", "))


def label(setting: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in setting.items()) or "default"


# ----------------------------------------------------------------------------- statistics
def _t_half(values: np.ndarray, conf: float = 0.95) -> float:
    from scipy.stats import t

    n = len(values)
    if n < 2:
        return math.nan
    return float(t.ppf(0.5 + conf / 2, n - 1) * values.std(ddof=1) / math.sqrt(n))


def point_metrics(result: SweepResult) -> pd.DataFrame:
    """Long form: point, metric, group, mean, lo, hi. Metrics: `win` per strategy and per
    seat (Wilson for single strategies' seat-games), `score` and sources per strategy, `turns`.
    A strategy's intervals take the game as the unit (it may hold several seats of a game)."""
    from reports.stats.intervals import clustered_mean, clustered_rate, wilson_interval

    rows = []
    sources = result.sources
    for p, seats in result.seats.groupby("point"):
        for strategy, part in seats.groupby("strategy"):
            games = part["game"].to_numpy()
            _, n, wins, n2, n_wins, wins2 = sums_by_game(games, part["win"].to_numpy(float))
            lo, hi = clustered_rate(n, wins, n2, n_wins, wins2)
            rows.append((p, "win", f"strategy {strategy}", part["win"].mean(), lo, hi))
            for col in ["score", *sources]:
                mean, h = clustered_mean(*sums_by_game(games, part[col].to_numpy(float)))
                rows.append((p, col, f"strategy {strategy}", mean, mean - h, mean + h))
        for seat, part in seats.groupby("seat"):
            lo, hi = wilson_interval(float(part["win"].sum()), len(part))
            rows.append((p, "win", f"seat {seat + 1}", part["win"].mean(), lo, hi))
    for p, games in result.games.groupby("point"):
        v = games["turns"].to_numpy(dtype=float)
        h = _t_half(v)
        rows.append((p, "turns", "all games", v.mean(), v.mean() - h, v.mean() + h))
    return pd.DataFrame(rows, columns=["point", "metric", "group", "mean", "lo", "hi"])


def sums_by_game(games: np.ndarray, values: np.ndarray) -> tuple:
    """A strategy's per-seat values summed game by game: (G, sum M, sum Y, sum M^2, sum M Y,
    sum Y^2), with M its seats and Y its total in one game
    (`reports.stats.intervals.clustered_mean`)."""
    _, index, m = np.unique(games, return_inverse=True, return_counts=True)
    y = np.bincount(index, weights=values, minlength=len(m))
    return len(m), int(m.sum()), float(y.sum()), int(m @ m), float(m @ y), float(y @ y)


def differences(result: SweepResult, conf: float = 0.95) -> pd.DataFrame:
    """Each point minus the default, paired by game: per strategy (win share and IP of its
    seats, averaged within the game), per seat (win share) and game length; Student t over
    games, p-values Holm-adjusted over every comparison of the sweep."""
    from scipy.stats import ttest_1samp

    from reports.stats.blocks import adjust_pvalues

    seats = result.seats
    per_game = {
        **{
            ("win", f"strategy {s}"): seats[seats["strategy"] == s]
            .groupby(["point", "game"])["win"]
            .mean()
            for s in sorted(seats["strategy"].unique())
        },
        **{
            ("score", f"strategy {s}"): seats[seats["strategy"] == s]
            .groupby(["point", "game"])["score"]
            .mean()
            for s in sorted(seats["strategy"].unique())
        },
        **{
            ("win", f"seat {seat + 1}"): seats[seats["seat"] == seat]
            .groupby(["point", "game"])["win"]
            .mean()
            for seat in sorted(seats["seat"].unique())
        },
        ("turns", "all games"): result.games.set_index(["point", "game"])["turns"].astype(float),
    }
    rows = []
    for (metric, group), series in per_game.items():
        base = series.xs(0, level="point")
        for p in result.points["point"][1:]:
            d = (series.xs(p, level="point") - base).dropna().to_numpy(dtype=float)
            h = _t_half(d, conf)
            mean = float(d.mean()) if len(d) else math.nan
            pval = float(ttest_1samp(d, 0.0).pvalue) if len(d) > 1 and np.ptp(d) > 0 else (
                1.0 if len(d) and mean == 0 else 0.0
            )  # fmt: skip
            rows.append((int(p), metric, group, mean, mean - h, mean + h, pval))
    out = pd.DataFrame(rows, columns=["point", "metric", "group", "diff", "lo", "hi", "p"])
    out["p_adj"] = adjust_pvalues(out["p"].to_numpy(), "holm") if len(out) else []
    out["significant"] = out["p_adj"] < 1 - conf
    return out


def sweep_text(result: SweepResult, diffs: pd.DataFrame) -> str:
    n_games = result.games["game"].nunique()
    lines = [
        f"{len(result.points) - 1} points and the default, {n_games:,} games each (the same "
        "seeds at every point)."
    ]
    for _, row in result.points.iterrows():
        p = int(row["point"])
        part = diffs[diffs["point"] == p]
        sig = part[part["significant"]]
        seats = result.seats[result.seats["point"] == p]
        rates = seats.groupby("strategy")["win"].mean()
        turns = result.games.loc[result.games["point"] == p, "turns"].mean()
        lines.append(
            f"  [{p}] {row['label']}: mean turns {turns:.1f}; win "
            + ", ".join(f"{s} {r:.1%}" for s, r in rates.items())
        )
        for _, d in sig.iterrows():
            fmt = ".2%" if d["metric"] == "win" else ".2f"
            lines.append(
                f"        differs from the default: {d['metric']} {d['group']} "
                f"{d['diff']:+{fmt}} [{d['lo']:+{fmt}}, {d['hi']:+{fmt}}] (Holm p {d['p_adj']:.2g})"
            )
    n_sig = int(diffs["significant"].sum())
    lines.append(
        f"{n_sig} of {len(diffs)} comparisons with the default are significant "
        "(paired by game, Holm-corrected, 5%)."
    )
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- report
def build_report(result: SweepResult, game: str, command: str):
    from reports.render.report import Report, new_figure

    metrics = point_metrics(result)
    diffs = differences(result)
    n_games = result.games["game"].nunique()
    report = Report(
        f"Sweep: {len(result.points) - 1} points and the default",
        f"{game}, {n_games:,} games per point, the same seeds at every point",
    )
    about = report.section("About this sweep")
    about.paragraph(
        "Every point plays the same games (seed and game indices) as the default card data, so "
        "differences are paired by game (common random numbers). Intervals are 95%: Wilson for "
        "win rates, Student t for means; differences from the default: Student t over games, "
        "p-values Holm-adjusted over every comparison of the sweep."
    )
    about.paragraph(f"Command: `{command}`")
    about.table(result.points, caption="The points")
    sig = diffs[diffs["significant"]].merge(result.points[["point", "label"]], on="point")
    sec = report.section("What differs from the default")
    sec.table(
        sig[["point", "label", "metric", "group", "diff", "lo", "hi", "p_adj"]]
        if len(sig)
        else pd.DataFrame({"result": ["no point differs significantly from the default"]}),
        caption="Significant differences from the default (paired by game, Holm-corrected, 5%)",
        float_format="{:.4f}",
    )
    sec.table(
        diffs.merge(result.points[["point", "label"]], on="point")[
            ["point", "label", "metric", "group", "diff", "lo", "hi", "p", "p_adj"]
        ],
        caption="Every comparison with the default",
        float_format="{:.4f}",
    )
    sens = report.section("Sensitivity")
    values = [short_label(s) for s in result.points["label"]]
    for metric, title in (("win", "win rate"), ("score", "mean IP"), ("turns", "turns")):
        part = metrics[metrics["metric"] == metric]
        if metric != "turns":
            part = part[part["group"].str.startswith("strategy")]
        fig = new_figure((7.0, 3.8))
        ax = fig.add_subplot()
        for group, g in part.groupby("group"):
            g = g.sort_values("point")
            yerr = np.clip(np.vstack([g["mean"] - g["lo"], g["hi"] - g["mean"]]), 0, None)
            ax.errorbar(np.arange(len(g)), g["mean"], yerr=yerr, marker="o", capsize=3,
                        label=group)  # fmt: skip
        ax.set_xticks(range(len(values)), values, rotation=30, ha="right", fontsize=7)
        ax.set_xlabel("point ('default': the card data as given)")
        ax.set_ylabel(title)
        ax.legend(fontsize=7)
        sens.figure(fig, f"sweep-{metric}", f"{title} at every point, 95% intervals")
    tbl = report.section("Per point")
    tbl.table(
        metrics.merge(result.points[["point", "label"]], on="point")[
            ["point", "label", "metric", "group", "mean", "lo", "hi"]
        ],
        caption="Every metric at every point, 95% intervals",
        float_format="{:.4f}",
    )
    return report, diffs


# ----------------------------------------------------------------------------- the run
def run(o) -> Output:
    """`abyss-mc sweep` (options `o`: `reports.runs.options.SweepOptions`): check the options,
    play the default and every point into a new (or the resumed) run directory, write the
    tables, the summary, the report and the manifest."""
    run, o = start_or_resume("sweep", o)
    check_backend(o.backend, o.scheduler)
    check_seed(o.seed)
    if o.games < 2:
        raise UserError(f"--games must be at least 2; got {o.games}")
    axes = parse_sweep(list(o.set_ or []))
    base = list(o.fixed or [])
    load, play_point, sources, o, exp = _points(o, base, lambda: run)
    if run is None:  # every point and the base, each a simulation of --games
        from reports.runs.setup import check_size

        points, spec = 1 + len(grid(axes)), game_spec(o.game)
        policies, seats = (), 1  # (Wilds: no line-up, one climber)
        if spec.play_module is not None:
            policies, seats = spec.strategies().make_policies(o.strategies.split(","),
                                                              o.players), o.players
        check_size(spec, "sweep", points * o.games * seats, per_game=True, out=o.out,
                   yes=o.yes, threads=o.threads, n_players=o.players, policies=policies,
                   expansions=exp, memory_rate="SWEEP_SEAT_GAME_MEMORY")  # fmt: skip
    if run is None:
        run = Run.start("sweep", o.out, o.seed, {
            **data_paths(o.cards, [], o.presets),
            "set": list(o.set_ or []),  # the axes (the fixed overrides are `fixed`)
            "fixed": base, "players": o.players, "games": o.games, "seed": o.seed,
            "strategies": o.strategies, "expansions": ",".join(exp), "game": o.game,
        })  # fmt: skip
    with run:
        run.seal(load({}), o.presets)
        result = run_sweep(load, play_point, axes, store=run.store(), sources=sources,
                           progress=lambda text: print(text, file=sys.stderr))  # fmt: skip
        text = _write(result, o, run)
        run.write_manifest(
            o.seed,
            {"command": "sweep", "game": o.game, "axes": {k: list(v) for k, v in axes},
             "fixed": base, "n_players": o.players, "n_games": o.games,
             "strategies": o.strategies, "expansions": list(exp),
             **data_options(o.cards, base, o.presets, run.out)},
            card_digest=card_digest(load({}), o.cards, base),
            timings={},
            extra={"digests": run_digests(load({}), o.presets)},
        )  # fmt: skip
        run.finish()
    return Output(text, run.out, (f"results: {run.out}",))


def _points(o, base: list[str], the_run):
    """`(load, play_point, sources, o, expansions)` of a sweep: `load(setting) -> tables` and
    `play_point(tables) -> (seats, games)` (on the cluster of `the_run()`, once it exists); the
    options with the game's name and the line-up as played."""
    from dataclasses import replace

    spec = game_spec(o.game)
    if spec.analysis_module is not None:
        load, play_point, sources = spec.analysis().sweep_run(
            games=o.games, seed=o.seed, cards=o.cards, base=base, backend=o.backend
        )
        return load, play_point, sources, replace(o, game=spec.name), ()
    spec.strategies().use_presets(o.presets)
    exp = game_expansions(spec, o.expansions, spec.tournament_expansions)

    def load(setting):
        return spec.load_cards(o.cards, base + [f"{k}={v}" for k, v in setting.items()], exp)

    spec.check_players(load({}), o.players, exp)
    lineup, policies = game_lineup(spec, o.strategies or mixed_lineup(spec, o.players), o.players)
    swept = parse_sweep(list(o.set_ or []))
    for key, values in swept:  # an unknown key is named (with its nearest keys) first
        load({key: values[0]})
    keys = [k for k, _ in swept]  # the swept keys, then the fixed
    settings = [f"{k}=0" for k in keys] + [item for item in base if "=" in item]
    spec.check_effect(load({}), [o.players], settings, policies)
    play_point = _point_runner(spec, policies, o, exp,
                               lambda: the_run().cluster(o.backend, o.scheduler, o.threads))
    return load, play_point, None, replace(o, game=spec.name, strategies=",".join(lineup)), exp


def _write(result: SweepResult, o, run) -> str:
    """The sweep's tables, summary and report; returns the summary."""
    from sim.core.runs import atomic_write_text, write_parquet

    command = " ".join(["abyss-mc", *sys.argv[1:]])
    rep, diffs = build_report(result, o.game, command)
    write_parquet(result.points.astype(str), run.dir / "points.parquet")
    write_parquet(result.seats, run.dir / "seats.parquet")
    write_parquet(result.games, run.dir / "games.parquet")
    write_parquet(diffs, run.dir / "differences.parquet")
    text = sweep_text(result, diffs)
    atomic_write_text(run.dir / "summary.txt", text)
    if o.report:
        rep.write(run.dir / "report")
    return text


def _point_runner(spec, policies, o, exp, cluster):
    """`run(tables) -> (seats, games)` of a sweep point: the line-up's games on the fast path
    (or the Dask cluster: `cluster()`, the run's client or None), the seats with their share of
    the win."""

    def play(tables):
        from sim.core.results import win_shares

        played = spec.play().run_games(
            tables, engine=spec.engines[0], n_players=o.players, n_games=o.games, seed=o.seed,
            policies=policies, expansions=exp, threads=o.threads, client=cluster(),
        )  # fmt: skip
        seats = played.seats
        if "win" not in seats:
            seats["win"] = win_shares(seats["rank"].to_numpy().reshape(-1, o.players)).ravel()
        return seats, played.games

    return play
