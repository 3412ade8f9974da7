"""`abyss-mc plan`: how many games a comparison needs, with and without common random numbers,
and how long they take on this machine.

A pilot tournament of the two strategies (the same design as `abyss-mc tournament`) is played
twice, with every table of a block on one deal (`--crn block`) and with a deal per table
(`--crn none`); the variance of the per-block difference in win share (or IP) gives the blocks
needed for a two-sided test at `alpha` to detect a true difference `effect` with probability
`power`:

    blocks = ((z_{1-alpha/2} + z_{power}) * sd / effect) ** 2

and the half-width of the 95% interval the run will have. The time comes from this machine's
speed, measured in the same run on about 20,000 games of the design. The pilot's variances are
estimates: the plan adds nothing for their uncertainty, so take a margin for small pilots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass
class PlanRow:
    crn: str
    sd: float  # of the per-block difference
    blocks: int
    games: int
    halfwidth: float  # of the 95% interval of the difference with that many blocks
    seconds: float


def blocks_needed(sd: float, effect: float, alpha: float, power: float) -> int:
    """Blocks for a two-sided paired test at `alpha` with `power` against `effect`."""
    from scipy.stats import norm

    z = norm.ppf(1 - alpha / 2) + norm.ppf(power)
    return max(2, math.ceil((z * sd / effect) ** 2))


def make_plan(
    tables,
    strategies: list[str],
    *,
    n_players: int,
    effect: float,
    metric: str = "win",
    alpha: float = 0.05,
    power: float = 0.8,
    pilot_blocks: int = 400,
    seed: int = 1,
    game: str = "abyss",
) -> tuple[list[PlanRow], dict]:
    """The plan for comparing strategies[0] with strategies[1] (see the module docstring)."""
    from scipy.stats import norm

    from reports.play.tournament import run_tournament
    from reports.stats.blocks import block_differences

    a, b = strategies[0], strategies[1]
    rows = []
    pilot = {}
    rate = measure_speed(tables, strategies, n_players, seed, game)
    for crn in ("block", "none"):
        result = run_tournament(
            tables,
            list(strategies),
            n_players=n_players,
            n_blocks=pilot_blocks,
            seed=seed,
            crn=crn,
            game=game,
        )
        df = result.seats[["block", "strategy", metric]]
        diffs = block_differences(df, metric)
        d = diffs[(a, b)] if (a, b) in diffs else -diffs[(b, a)]
        sd = float(d.std(ddof=1))
        tables_per_block = result.design.n_tables
        blocks = blocks_needed(sd, effect, alpha, power)
        games = blocks * tables_per_block
        rows.append(
            PlanRow(
                crn=crn,
                sd=sd,
                blocks=blocks,
                games=games,
                halfwidth=norm.ppf(0.975) * sd / math.sqrt(blocks),
                seconds=games / rate if rate else math.nan,
            )
        )
        pilot[crn] = {
            "blocks": pilot_blocks,
            "games_per_second": rate,
            "mean_diff": float(d.mean()),
        }
    return rows, pilot


def measure_speed(tables, strategies, n_players: int, seed: int, game: str) -> float:
    """Games per second of the tournament's design on this machine, warm (a short run first
    loads the compiled kernels, then about 20,000 games are timed)."""
    from reports.play.tournament import make_design, run_tournament

    tables_per_block = make_design(list(strategies), n_players).n_tables
    kw = dict(n_players=n_players, seed=seed + 1, game=game)
    run_tournament(tables, list(strategies), n_blocks=2, **kw)
    blocks = max(10, 20_000 // tables_per_block)
    return run_tournament(tables, list(strategies), n_blocks=blocks, **kw).timings[
        "games_per_second"
    ]


def plan_text(rows: list[PlanRow], pilot: dict, *, a: str, b: str, effect: float, metric: str,
              alpha: float, power: float) -> str:  # fmt: skip
    unit = "win share" if metric == "win" else "IP"
    lines = [
        f"To tell {a} from {b} by {effect:g} in {unit} (two-sided test at {alpha:g}, power "
        f"{power:.0%}), from a pilot of {pilot['block']['blocks']} blocks per mode:",
        f"  {'common random numbers':<24} {'sd/block':>9} {'blocks':>9} {'games':>12} "
        f"{'95% half-width':>15} {'time':>10}",
    ]
    names = {"block": "yes (--crn block)", "none": "no (--crn none)"}
    for r in rows:
        lines.append(
            f"  {names[r.crn]:<24} {r.sd:>9.4f} {r.blocks:>9,} {r.games:>12,} "
            f"{r.halfwidth:>15.4f} {_duration(r.seconds):>10}"
        )
    by = {r.crn: r for r in rows}
    if by["none"].games:
        ratio = by["block"].games / by["none"].games
        lines.append(
            f"Common random numbers need {ratio:.2f}x the games of independent deals here; "
            f"times at this machine's speed, measured now: "
            f"{pilot['block']['games_per_second']:,.0f} games/s."
        )
    return "\n".join(lines) + "\n"


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def run(o):
    """`abyss-mc plan` (options `o`: `reports.runs.options.PlanOptions`): check the options,
    play the pilot; the plan as text and as a table (`frames["plan"]`, a row per mode)."""
    from dataclasses import asdict

    import pandas as pd

    from reports.runs import setup as S

    names = _checked(o)
    spec = S.game_spec(o.game)
    exp = S.game_expansions(spec, o.expansions, spec.tournament_expansions)
    tables = spec.load_cards(o.cards, o.set_, exp)
    spec.check_players(tables, o.players, exp)
    for name in names:
        spec.strategies().make_policy(name)
    rows, pilot = make_plan(
        tables, names, n_players=o.players, effect=o.effect,
        metric="win" if o.metric == "win" else "score", alpha=o.alpha, power=o.power,
        pilot_blocks=o.pilot_blocks, seed=o.seed, game=spec.name,
    )  # fmt: skip
    text = plan_text(rows, pilot, a=names[0], b=names[1], effect=o.effect, metric=o.metric,
                     alpha=o.alpha, power=o.power)  # fmt: skip
    return S.Output(text, frames={"plan": pd.DataFrame([asdict(r) for r in rows])})


def _checked(o) -> list[str]:
    """The two strategies compared, every option checked before any game."""
    from reports.runs import setup as S
    from sim.core.errors import UserError

    S.check_seed(o.seed)
    if o.effect <= 0:
        raise UserError(f"--effect must be positive; got {o.effect}")
    if not 0 < o.alpha < 1 or not 0 < o.power < 1:
        raise UserError("--alpha and --power must be between 0 and 1")
    if o.metric not in ("win", "ip"):
        raise UserError(f"--metric must be win or ip; got {o.metric!r}")
    if o.pilot_blocks < 10:
        raise UserError(f"--pilot-blocks must be at least 10; got {o.pilot_blocks}")
    spec = S.game_spec(o.game)
    spec.play()
    default = ",".join(spec.default_tournament.split(",")[:2])
    names = [s.strip() for s in (o.strategies or default).split(",") if s.strip()]
    if len(names) != 2 or names[0] == names[1]:
        raise UserError("--strategies must name two different strategies: A,B")
    spec.strategies().use_presets(o.presets)
    return names
