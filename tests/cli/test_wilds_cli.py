"""`--game wilds`: the warped-crystal analyses from the command line (PLACEHOLDER data)."""

from __future__ import annotations

import pandas as pd
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()


def test_simulate_wilds_writes_the_analyses_and_report(tmp_path) -> None:
    out = tmp_path / "w"
    result = runner.invoke(
        app, ["simulate", "--game", "wilds", "--games", "300", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "PLACEHOLDER" in result.output
    frame = pd.read_parquet(out / "crystals.parquet")
    assert set(frame["setting"]) == {"mix", "strike 1", "strike 2", "strike 3", "strike 4"}
    assert {"diagrams only", "no diagrams", "climber diagrams"} <= set(frame["deck"])
    assert "climber diagrams" in (out / "report" / "report.md").read_text()
    # the strike cap: against a warped crystal, strikes of 2, 3 and 4 are the same game
    by = frame[frame["deck"] == "as given"].groupby(["setting", "warped"])["strikes"].mean()
    assert by[("strike 2", True)] == by[("strike 3", True)] == by[("strike 4", True)]
    assert by[("strike 4", False)] < by[("strike 2", False)]
    report = (out / "report" / "report.md").read_text()
    assert "PLACEHOLDER" in report and "Where warped crystals end up" in report
    again = runner.invoke(app, ["report", str(out), "--out", str(tmp_path / "r")])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "r" / "report.html").is_file()


def test_cards_wilds_and_bad_data() -> None:
    result = runner.invoke(app, ["cards", "--game", "wilds"])
    assert result.exit_code == 0 and "PLACEHOLDER" in result.output
    result = runner.invoke(app, ["cards", "--game", "wilds", "--set", "rules.snap_tie=random"])
    assert result.exit_code == 2 and result.output.startswith("error: ")
    cards = "warp.cards=[{ climber = [0, -2] }, { move = [0, 2] }]"
    result = runner.invoke(app, ["cards", "--game", "wilds", "--set", cards])
    assert result.exit_code == 0 and "2 diagrams (1 moving the climber)" in result.output
    bad = "warp.cards=[{ climber = 1 }]"
    result = runner.invoke(app, ["cards", "--game", "wilds", "--set", bad])
    assert result.exit_code == 2 and "climber" in result.output


def test_replay_and_bench_wilds() -> None:
    result = runner.invoke(app, ["replay", "--game", "wilds", "--index", "2"])
    assert result.exit_code == 0 and "strike" in result.output
    cards = "warp.cards=[{ climber = [0, -1] }, { climber = [1, 0] }]"
    result = runner.invoke(app, ["replay", "--game", "wilds", "--index", "2", "--set", cards])
    assert result.exit_code == 0 and "warp_climber" in result.output
    result = runner.invoke(
        app, ["bench", "--game", "wilds", "--games", "2000", "--reference-games", "20"]
    )
    assert result.exit_code == 0 and "episodes/s" in result.output
