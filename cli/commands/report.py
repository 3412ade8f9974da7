"""`abyss-mc report`: the balance report of a run directory (`reports.runs.describe`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c
from reports.runs.options import ReportOptions as O

RunDir = Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run directory.")]
Out = c.option(Path | None, "--out", "Where to write (default: RUN_DIR/report).", "DIR")


@c.command(O, run_dir=c.Required(RunDir), out=Out)
def report_(**flags) -> None:
    """Write the balance report of a run: report.html (self-contained), report.md, PNGs.

    For a rollout run (`abyss-mc ev rollout`), the "Fight or explore?" page."""
    c.run(O, flags)
