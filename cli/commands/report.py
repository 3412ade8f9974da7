"""`abyss-mc report`: the balance report of a run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c


@c.user_errors
def report_(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A run directory.")],
    out: c.option(Path | None, "--out", "Where to write (default: RUN_DIR/report).", "DIR") = None,
) -> None:
    """Write the balance report of a run: report.html (self-contained), report.md, PNGs.

    For a rollout run (`abyss-mc ev rollout`), the "Fight or explore?" page."""
    spec = c.game_spec(c.run_game(run_dir))
    module = spec.analysis() or spec.report()
    paths = module.write_report(run_dir, out)
    typer.echo(f"report: {paths['html']}")
    typer.echo(f"markdown: {paths['markdown']}")
