"""`abyss-mc skill RUN_DIR`: skill against luck, from a tournament of a ladder of players."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c
from sim.core.errors import UserError


@c.user_errors
def skill(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A tournament directory.")],
    rungs: c.option(str, "--rungs", "The ladder, weakest first: strategies of the tournament "
                    "(e.g. random,greedy,farmer_tuned_2p,learned).", "A,B,...") = "",
) -> None:
    """Skill steps between the rungs of a ladder (a step: the stronger wins 75% head to head).

    Play the ladder first, every pair of rungs meeting: `abyss-mc tournament --players 2
    --design all --strategies random,greedy,...`; docs/metrics.md. `abyss-mc report RUN_DIR`
    then shows the ladder."""
    import pandas as pd

    from reports.metrics.skill import ladder
    from reports.render.report import render_png
    from reports.sections.skill import chart
    from sim.core.runs import atomic_write_bytes, atomic_write_text

    names = [r.strip() for r in rungs.split(",") if r.strip()]
    path = run_dir / "seats.parquet"
    if not path.is_file():
        raise UserError(f"{run_dir} holds no tournament (no seats.parquet)")
    seats = pd.read_parquet(path).astype({"strategy": str})
    if not {"block", "table", "win"} <= set(seats.columns):
        raise UserError(f"{run_dir} is not a tournament: play the ladder with `tournament`")
    missing = sorted(set(names) - set(seats["strategy"]))
    if len(names) < 2 or missing:
        raise UserError("--rungs needs two or more strategies of the tournament"
                        + (f"; not in it: {', '.join(missing)}" if missing else ""))  # fmt: skip
    out = run_dir / "skill"
    out.mkdir(exist_ok=True)
    for n, part in seats.groupby("n_players", sort=True):
        lad = ladder(part, names, int(n))
        apart = lad.steps[lad.steps["games"] == 0]
        if len(apart):
            a, b = apart.iloc[0]["weaker"], apart.iloc[0]["stronger"]
            raise UserError(f"`{a}` and `{b}` never met at {n} players: play the ladder with "
                            "`tournament --design all`")  # fmt: skip
        atomic_write_text(out / f"skill-{n}p.csv", lad.steps.to_csv(index=False))
        atomic_write_text(out / f"skill-{n}p-matrix.csv", lad.matrix.to_csv())
        atomic_write_bytes(out / f"skill-{n}p.png", render_png(chart(lad)))
        typer.echo(f"{n} players: {lad.verdict()}")
        typer.echo(lad.steps.to_string(index=False, float_format="{:.3f}".format))
    typer.echo(f"skill: {out}")
