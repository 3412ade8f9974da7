"""`abyss-mc skill RUN_DIR` as a run: skill steps between the rungs of a ladder of players, from
a tournament in which every pair of rungs met (`reports.metrics.skill`), written beside it
(`skill/`: each player count's steps, matrix and chart)."""

from __future__ import annotations

from reports.runs.options import SkillOptions
from reports.runs.setup import Output
from sim.core.errors import UserError
from sim.core.runs import read_table


def run(o: SkillOptions) -> Output:
    """Each player count's ladder: its verdict and steps as text, the steps as a table
    (`frames["<n>p"]`), the files in RUN_DIR/skill."""
    from reports.metrics.skill import ladder
    from reports.render.report import render_png
    from reports.sections.skill import chart
    from sim.core.runs import atomic_write_bytes, atomic_write_text

    names = [r.strip() for r in o.rungs.split(",") if r.strip()]
    seats = _seats(o.run_dir, names)
    out = o.run_dir / "skill"
    out.mkdir(exist_ok=True)
    lines, frames = [], {}
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
        lines += [f"{n} players: {lad.verdict()}",
                  lad.steps.to_string(index=False, float_format="{:.3f}".format)]  # fmt: skip
        frames[f"{n}p"] = lad.steps
    return Output("".join(line + "\n" for line in lines), o.run_dir, (f"skill: {out}",), frames)


def _seats(run_dir, names: list[str]):
    """The tournament's seats, the ladder's rungs checked against them."""

    path = run_dir / "seats.parquet"
    if not path.is_file():
        raise UserError(f"{run_dir} holds no tournament (no seats.parquet)")
    seats = read_table(path).astype({"strategy": str})
    if not {"block", "table", "win"} <= set(seats.columns):
        raise UserError(f"{run_dir} is not a tournament: play the ladder with `tournament`")
    missing = sorted(set(names) - set(seats["strategy"]))
    if len(names) < 2 or missing:
        raise UserError("--rungs needs two or more strategies of the tournament"
                        + (f"; not in it: {', '.join(missing)}" if missing else ""))  # fmt: skip
    return seats
