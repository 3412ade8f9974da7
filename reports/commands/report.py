"""`abyss-mc report`: the balance report of a run directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from reports.commands.common import (
    run_game,
    user_errors,
    wilds_tables,
)


@user_errors
def report_(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run directory.")],
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help="Where to write (default: RUN_DIR/report)."),
    ] = None,
) -> None:
    """Write the balance report of a run: report.html (self-contained), report.md, PNGs.

    For a rollout run (`abyss-mc ev rollout`), the "Fight or explore?" page."""
    from reports.conspiracy_cli import is_conspiracy_run
    from reports.rollout import is_rollout_run

    if run_game(run_dir) == "wilds":
        import pandas as pd

        from reports.wilds import build_report as wilds_report

        manifest = json.loads((Path(run_dir) / "manifest.json").read_text())
        config = manifest.get("config", {})
        tables = wilds_tables(
            Path(config["cards"]) if config.get("cards") else None, config.get("set")
        )
        frame = pd.read_parquet(Path(run_dir) / "crystals.parquet")
        command = " ".join(manifest.get("command") or [])
        paths = wilds_report(frame, tables, command).write(
            out if out is not None else Path(run_dir) / "report"
        )
    elif is_conspiracy_run(run_dir):
        from reports.conspiracy_report import write_report as write_conspiracy

        paths = write_conspiracy(run_dir, out)
    elif is_rollout_run(run_dir):
        from reports.fight_report import write_fight_page
        from reports.rollout import run_tables

        paths = write_fight_page(run_dir, out, run_tables(run_dir))
    else:
        from reports.balance import write_report

        paths = write_report(run_dir, out)
    typer.echo(f"report: {paths['html']}")
    typer.echo(f"markdown: {paths['markdown']}")
