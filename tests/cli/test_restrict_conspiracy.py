"""Restricted play of Abyss: Conspiracy (issue 22): "`abyss-mc restrict` measures, for every Lord
and every Location (Conspiracy: its Lords by colour and value, and its Locations), how much the
strategy's win rate drops when it is forbidden to take that card"."""

from __future__ import annotations

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from cli.app import app
from sim import games

runner = CliRunner()
BASE = ["restrict", "--game", "conspiracy", "--strategy", "key_hunter", "--players", "2",
        "--blocks", "200", "--seed", "3"]  # fmt: skip


def _run(args, out):
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return pd.read_parquet(out / "impact.parquet")


def test_planted_strong_lords_come_first_and_a_worthless_location_is_not_valuable(tmp_path):
    """The 6-IP Lord of every colour ("One 6") raised to 20 IP: the five `<colour> 20` are the
    five most valuable cards, each with an interval above 0. The Location "Seven" made worth 0
    IP is not called valuable."""
    df = _run([*BASE, "--set", "lord.6.ip=20", "--set", "location.seven.ip=0"],
              tmp_path / "run")  # fmt: skip
    assert len(df) == 5 * 6 + 24 and set(df["kind"]) == {"lord", "location"}
    top = df.head(5)
    assert sorted(top["card"]) == sorted(f"{c} 20" for c in
                                         ("yellow", "red", "green", "blue", "purple"))
    assert (top["lo"] > 0).all() and (top["finding"] == "worth something").all()
    seven = df[df["card"] == "Seven"].iloc[0]
    assert seven["lo"] <= 0 and seven["finding"] != "worth something"


def test_a_forbidden_location_is_taken_only_when_forced():
    """"You may take a face-up Location or draw": a Location is refused whenever another one
    can be taken, so the forbidden one is rare for the restricted seat, not absent (a single
    Location drawn, or the last one, leaves no choice)."""
    spec = games.get("conspiracy")
    tables = spec.load_cards(None, [], ())
    loc = tables.location_names.index("Seven")
    reg = spec.strategies()
    policies = reg.make_policies([f"key_hunter:forbid_location={loc}", "key_hunter"], 2)
    seats = spec.play().run_games(tables, engine="fast", n_players=2, n_games=600, seed=5,
                                  policies=policies).seats  # fmt: skip
    taken = ((seats["location_set"].to_numpy(np.int64) >> loc) & 1).astype(bool)
    mine = seats["strategy"].astype(str).str.contains("forbid").to_numpy()
    assert taken[mine].mean() < taken[~mine].mean() / 3


def test_restricted_conspiracy_play_is_the_same_on_both_engines() -> None:
    spec = games.get("conspiracy")
    tables = spec.load_cards(None, [], ())
    policies = spec.strategies().make_policies(
        ["key_hunter:forbid_colour=1:forbid_ip=1:forbid_location=3",
         "pearl_master:forbid_colour=2", "heuristic"], 3)  # fmt: skip
    runs = [spec.play().run_games(tables, engine=e, n_players=3, n_games=12, seed=9,
                                  policies=policies) for e in ("fast", "reference")]  # fmt: skip
    pd.testing.assert_frame_equal(runs[0].seats, runs[1].seats)
    pd.testing.assert_frame_equal(runs[0].games, runs[1].games)
    plain = spec.strategies().make_policies(["key_hunter", "pearl_master", "heuristic"], 3)
    other = spec.play().run_games(tables, engine="fast", n_players=3, n_games=12, seed=9,
                                  policies=plain)  # fmt: skip
    assert not other.seats["score"].equals(runs[0].seats["score"])  # the restriction plays
