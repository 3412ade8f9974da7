"""`abyss-mc plan`: games needed for a given precision, with and without common random numbers."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli.app import app
from reports.runs.plan import blocks_needed


def test_blocks_needed_is_the_normal_approximation() -> None:
    """blocks = ((z_{1-alpha/2} + z_power) * sd / effect)^2: 1.95996 + 0.84162 = 2.80158."""
    assert blocks_needed(1.0, 0.1, 0.05, 0.8) == 785  # 2.80158^2 * 100 = 784.9
    assert blocks_needed(2.0, 0.1, 0.05, 0.8) == 3140  # four times the variance
    assert blocks_needed(1.0, 0.1, 0.05, 0.9) > 785


def test_cli_plan_prints_both_modes() -> None:
    result = CliRunner().invoke(
        app, ["plan", "--effect", "0.02", "--pilot-blocks", "60", "--players", "3"]
    )
    assert result.exit_code == 0, result.output
    assert "yes (--crn block)" in result.output and "no (--crn none)" in result.output
    assert "games/s" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--effect", "0"], "--effect must be positive"),
        (["--strategies", "greedy"], "two different strategies"),
        (["--strategies", "greedy,bogus"], "unknown strategy 'bogus'"),
        (["--metric", "score"], "--metric must be win or ip"),
        (["--power", "1.5"], "between 0 and 1"),
        (["--pilot-blocks", "3"], "--pilot-blocks must be at least 10"),
    ],
)
def test_cli_plan_bad_input(args, message) -> None:
    result = CliRunner().invoke(app, ["plan", *args])
    assert result.exit_code == 2
    assert message in result.output
