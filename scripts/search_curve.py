"""The search player's strength and cost (docs/search.md): `search` at one or several budgets in
one seat against a field, the seats rotated game by game (every strategy in every seat), on the
fast path. Each point's win share has a Wilson interval over games (a shared first place counts
its share), its cost in CPU seconds per game (the process's CPU time, every thread's, while the
games play) and games per wall-clock second.

The games are those of `abyss-mc simulate` with the same line-up, players, expansions and seed
(the script prints that command too). The timing is not that command's: the compiled kernels are
loaded, and compiled if this cache has never compiled them, by one game played before any point
is timed, and nothing else (process start, imports, writing results) is counted. (The first
version timed whole `abyss-mc simulate` processes of 40 games: about 3 s of process start, imports
and loading the kernels in each, more than the games at small budgets, which is why its 32 and
64 rollouts cost the same.)

    # (a) a small budget against three copies of its own rollout policy
    python scripts/search_curve.py --budgets 8 --games 400 --field model --out /tmp/a
    # (b) the default budget against a field that is not its model
    python scripts/search_curve.py --budgets 64 --games 400 --field farmer_open_4p --out /tmp/b
    python scripts/search_curve.py --budgets 64 --games 400 \\
        --field farmer_open_4p,leviathan_hunter_open_4p,key_hunter --out /tmp/b2
    # (c) the budget-strength curve, with its chart
    python scripts/search_curve.py --budgets 8,16,32,64,128,256 --games 200 --field model \\
        --out /tmp/c --chart docs/search-budget.png

`--model` is the search's rollout policy (default: the search's own default); `--field` the
other seats: `model` (copies of the model), one strategy (copies of it) or one per seat.
Each row of `curve.csv` (and of the output) holds the command that reproduces it.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import pandas as pd


def arguments(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games per point")
    ap.add_argument("--budgets", default="8,16,32,64,128,256", help="rollouts per decision")
    ap.add_argument("--model", default=None,
                    help="the search's rollout policy (default: the search's own default)")
    ap.add_argument("--field", default="model",
                    help="the other seats: 'model', one strategy, or one per seat (commas)")
    ap.add_argument("--game", default="abyss")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--expansions", default="leviathan", help='"" for none')
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--extra", default="", help="more search parameters, e.g. :confidence=0.9")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", type=Path, required=True, help="a directory for curve.csv")
    ap.add_argument("--chart", type=Path, help="also draw the curve into this PNG")
    return ap.parse_args(argv)


def default_model(game: str) -> str:
    """The search player's default rollout policy (`strategies.<game>.search`)."""
    from importlib import import_module

    return import_module(f"games.{game}.strategies.search").SearchPolicy().rollout_policy


def lineup(a, budget: int) -> list[str]:
    """The search's spec, then the field's, one per seat."""
    model = a.model or default_model(a.game)
    search = f"search:rollouts={budget}:rollout_policy={model}{a.extra}"
    field = [model if f == "model" else f for f in a.field.split(",")]
    if len(field) == 1:
        field *= a.players - 1
    if len(field) != a.players - 1:
        raise SystemExit(f"--field: {a.players - 1} strategies or one; got {len(field)}")
    return [search, *field]


def commands(a, budget: int, specs: list[str]) -> tuple[str, str]:
    """This point alone: the script's command, and `abyss-mc simulate`'s (the same games)."""
    extra = f" --extra {shlex.quote(a.extra)}" if a.extra else ""
    threads = f" --threads {a.threads}" if a.threads else ""
    model = a.model or default_model(a.game)
    script = (f"python scripts/search_curve.py --game {a.game} --budgets {budget} "
              f"--games {a.games} --model {model} "
              f"--field {shlex.quote(a.field)} --players {a.players} --expansions "
              f"{shlex.quote(a.expansions)} --seed {a.seed}{extra}{threads} --out DIR")  # fmt: skip
    simulate = (f"abyss-mc simulate --game {a.game} --engine fast --players {a.players} "
                f"--games {a.games} --seed {a.seed} --expansions {shlex.quote(a.expansions)} "
                f"--strategies {shlex.quote(','.join(specs))}")  # fmt: skip
    return script, simulate


def main(argv=None) -> None:
    a = arguments(argv)
    from reports.stats.intervals import wilson_interval
    from sim import games

    spec = games.get(a.game)
    exp = tuple(x for x in a.expansions.split(",") if x)
    tables = spec.load_cards(None, [], exp)
    run = spec.play().run_games
    budgets = [int(b) for b in a.budgets.split(",")]
    a.out.mkdir(parents=True, exist_ok=True)

    def play(specs, n_games, seed):
        policies = spec.strategies().make_policies(specs, a.players)
        return run(tables, engine="fast", n_players=a.players, n_games=n_games, seed=seed,
                   policies=policies, expansions=exp, threads=a.threads)  # fmt: skip

    play(lineup(a, budgets[0]), 1, a.seed + 1)  # load (or compile) the kernels: not timed
    rows = []
    for budget in budgets:
        specs = lineup(a, budget)
        cpu, wall = time.process_time(), time.perf_counter()
        played = play(specs, a.games, a.seed)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        seats = played.seats
        share = seats["winner"].astype(float) / seats.groupby("game")["winner"].transform("sum")
        mine = share[seats["strategy"].astype(str) == specs[0]]
        lo, hi = wilson_interval(round(float(mine.sum())), len(mine))
        script, simulate = commands(a, budget, specs)
        rows.append({
            "rollouts": budget, "games": len(mine), "win_rate": mine.mean(), "lo": lo, "hi": hi,
            "cpu_seconds_per_game": cpu / a.games, "games_per_second": a.games / wall,
            "threads": played.timings.get("threads"), "field": ",".join(specs[1:]),
            "command": script, "simulate": simulate,
        })  # fmt: skip
        print(json.dumps(rows[-1]), flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(a.out / "curve.csv", index=False)
    (a.out / "command.txt").write_text(shlex.join([sys.executable, *sys.argv]) + "\n")
    if a.chart:
        chart(df, a).savefig(a.chart, dpi=110, bbox_inches="tight")


def chart(df: pd.DataFrame, a):
    """Win rate with its interval against rollouts per decision (log scale), parity marked."""
    from reports.render.charts import error_bars, figure

    fig = figure(figsize=(6, 3.6))
    ax = fig.add_subplot()
    ax.errorbar(df["rollouts"], df["win_rate"], yerr=error_bars(df["win_rate"], df["lo"], df["hi"]),
                marker="o", capsize=3, label="search")  # fmt: skip
    ax.axhline(1 / a.players, color="grey", linestyle="--", label=f"parity (1/{a.players})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("rollouts per decision")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(f"search against {df['field'].iloc[0]}", fontsize=9)
    ax.legend(fontsize=8, frameon=False)
    return fig


if __name__ == "__main__":
    main()
