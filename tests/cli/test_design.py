"""`abyss-mc design` (issues 32 and 50): the planted cases on real games, the answers "no change
needed" and "unreachable", a target its interval straddles, resume, and one-line errors."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()
#: (the re-tune of the line-up under a recommended change, read by no test here, on 2 candidates)
BUDGET = ["--candidates", "16", "--blocks", "150", "--reeval-blocks", "600",
          "--retune-candidates", "2"]  # fmt: skip


def _design(tmp_path, name, *args) -> tuple[pd.DataFrame, str]:
    out = tmp_path / name
    result = runner.invoke(app, ["design", *args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    for part in ("candidates.parquet", "candidates.csv", "tradeoff.png", "summary.txt",
                 "manifest.json", "report/report.html", "report/report.md"):  # fmt: skip
        assert (out / part).is_file(), part
    return pd.read_parquet(out / "candidates.parquet"), result.output


#: the equivalence margin of the Lords' `card_value==0` targets: 3 points of win rate, which
#: the budget's 600 deals can show (the default, 1 point, cannot: the Peddler's half-width was
#: 0.0125 on them)
MARGIN = 0.03


def _given(df: pd.DataFrame) -> pd.Series:
    """The data as given on the first round's deals (which no target chooses)."""
    return df[(df["candidate"] == 0) & (df["stage"] == "finalists 1")].iloc[0]


#: a cell of the summary: the value, its 95% interval and the word (`reports.sections.design`)
CELL = re.compile(r"(-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\] (meets|misses|cannot tell)")


def _row(text: str, target: str) -> list[str]:
    """The words of the target's row of the summary's table, one per column with a number."""
    row = next(line for line in text.splitlines() if line.strip().startswith(target + " "))
    return [m[3] for m in CELL.findall(row)]


def _due(lo: float, hi: float, target: str) -> str:
    """What a cell of a `<=` or `>=` target must say (docs/design.md): met when its interval
    lies on the side the target asks, missed when on the other, "cannot tell" across it."""
    _, op, text = re.fullmatch(r"(.+?)(<=|>=)(-?[\d.]+)", target).groups()
    bound = float(text)
    if op == "<=":
        return "meets" if hi <= bound else "misses" if lo > bound else "cannot tell"
    return "meets" if lo >= bound else "misses" if hi < bound else "cannot tell"


def _says_what_its_intervals_do(text: str, target: str) -> None:
    """Every cell of a run of one target (its row of the table, the closest candidates listed
    below it) says what its printed interval says."""
    cells = CELL.findall(text)
    assert cells, text
    for _value, lo, hi, word in cells:
        assert word == _due(float(lo), float(hi), target), (target, lo, hi, word)


@pytest.mark.parametrize("players, lord, printed, strategy, within", [
    (3, "shopkeeper", 9, "farmer", 4), (2, "peddler", 9, "farmer", 5)])  # fmt: skip
def test_a_lord_raised_to_30_ip_is_brought_back_near_its_printed_ip(
        tmp_path, players, lord, printed, strategy, within) -> None:  # fmt: skip
    """Issue 32: "A Lord raised to 30 IP with `--set`: a design search over its IP with the target
    'its restricted-play value is 0' recommends a value near its printed one (within a few IP)".
    Issue 50: 'is 0' is an equivalence test, `==0±M`: the recommendation's interval on the
    confirmation's deals lies inside ±M. The printed Peddler is itself worth about 3 points to a
    farmer at 2 players (+2.9 [+0.1, +5.7] on 200 deals), at the margin itself, so the nearest
    value shown within ±3 points lies 4 or 5 IP below it."""
    key, margin = f"lord.{lord}", MARGIN
    df, text = _design(tmp_path, lord, "--players", str(players), "--expansions", "",
                       "--set", f"{key}.ip=30", "--vary", f"{key}.ip=0..30",
                       "--target", f"card_value:{key}==0±{margin}", "--strategies", strategy,
                       "--card-strategy", strategy, *BUDGET)  # fmt: skip
    rec = df[df["recommended"]]
    assert len(rec) == 1
    row = rec.iloc[0]
    assert abs(int(row[f"{key}.ip"]) - printed) <= within
    assert bool(row["meets"]) and row["stage"] == "confirmation"
    assert -margin <= row[f"card_value:{key}_lo"] and row[f"card_value:{key}_hi"] <= margin
    given = _given(df)  # 30 IP: the card is told to be worth more than the margin
    assert given[f"card_value:{key}_lo"] > margin and not given["meets"]
    assert f"Change {key}.ip=30 to {key}.ip={int(row[f'{key}.ip'])}" in text


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_planted_seat_handicap_is_removed_by_starting_pearls_by_seat(tmp_path, seed) -> None:
    """Issue 32: "A seat handicap planted with `--set` (for example one seat starting with many
    extra Pearls) is removed by a search over starting Pearls by seat." Seat 3 given 8 extra
    Pearls wins about 45% at 4 players (55% among greedy and farmer); the search brings it back
    to 0 or 1, below 30% on the confirmation's 600 deals (among greedy and farmer seat 3 wins
    about 25% with no extra Pearl: 0.252 [0.221, 0.282] on them, too close to 28% to tell)."""
    lineup = ["--strategies", "greedy,farmer"] if seed == 3 else []  # a strategy in two seats
    df, text = _design(tmp_path, f"seat{seed}", "--players", "4", "--expansions", "",
                       "--set", "rules.seat_3_pearls=8", "--vary", "rules.seat_3_pearls=0..10",
                       "--target", "seat_share:3<=0.3", "--seed", str(seed), *lineup,
                       *BUDGET)  # fmt: skip
    row = df[df["recommended"]].iloc[0]
    assert int(row["rules.seat_3_pearls"]) <= 1 and row["stage"] == "confirmation"
    assert row["seat_share:3_hi"] <= 0.3 and bool(row["meets"])
    assert _given(df)["seat_share:3_lo"] > 0.3


#: the middle seat of three, no change given (the cap is met, then straddled)
MIDDLE = ["--players", "3", "--expansions", "", "--vary", "lord.shopkeeper.ip=0..20", *BUDGET]


@pytest.fixture(scope="module")
def met(tmp_path_factory) -> tuple[pd.DataFrame, str]:
    """The run of `seat_share:2<=0.4`, a cap the game already meets (two tests read it)."""
    return _design(tmp_path_factory.mktemp("design"), "met", *MIDDLE,
                   "--target", "seat_share:2<=0.4")  # fmt: skip


def test_a_target_the_game_already_meets_needs_no_change(met) -> None:
    """Issue 32: "A target the game already meets gives 'no change needed', with the evidence".
    The middle seat of three wins about a third (0.346 [0.326, 0.366] on the fresh deals of
    seed 1 when written): a cap of 0.4 is met, its interval below the cap on the first round's
    deals and again on the confirmation's; the table says so for both, and candidates.csv
    agrees."""
    target = "seat_share:2<=0.4"
    df, text = met
    assert "No change needed" in text
    row = df[df["recommended"]].iloc[0]
    assert row["candidate"] == 0 and row["distance"] == 0 and bool(row["meets"])
    assert row["stage"] == "confirmation" and row["seat_share:2_hi"] <= 0.4  # the evidence
    assert _row(text, target) == ["meets", "meets"]  # as given, recommended
    _says_what_its_intervals_do(text, target)


def test_a_target_the_interval_straddles_is_not_said_to_be_met(tmp_path, met) -> None:
    """The same game with a cap between the data's estimate and its interval's upper end (the
    fresh deals of the data as given do not depend on the target, so the run of the met cap
    shows them): the data cannot tell whether the cap is met, so the data as given is not "no
    change needed", and no cell says "meets" without its interval below the cap."""
    given = _given(met[0])
    cap = round((given["seat_share:2"] + given["seat_share:2_hi"]) / 2, 3)
    assert given["seat_share:2"] < cap < given["seat_share:2_hi"]
    target = f"seat_share:2<={cap:g}"
    straddled, text = _design(tmp_path, "straddled", *MIDDLE, "--target", target)
    assert _given(straddled)["seat_share:2_hi"] == given["seat_share:2_hi"]  # the same deals
    _says_what_its_intervals_do(text, target)
    assert "No change needed" not in text


def test_a_target_no_candidate_can_meet_is_unreachable_with_the_closest(tmp_path) -> None:
    """Issue 32: "A target no candidate can meet is reported as unreachable, with the closest
    candidates"."""
    df, text = _design(tmp_path, "never", "--players", "2", "--expansions", "",
                       "--vary", "lord.shopkeeper.ip=0..20", "--target", "rounds<=2",
                       *BUDGET)  # fmt: skip
    assert "Unreachable" in text and "The closest candidates" in text
    assert not df["recommended"].any() and not df["meets"].any()
    assert _row(text, "rounds<=2") == ["misses"] and "meets" not in text  # the data as given
    _says_what_its_intervals_do(text, "rounds<=2")
    assert df["stage"].str.startswith("finalists").sum() >= 2


def test_an_interrupted_design_resumes_to_the_same_candidates(tmp_path, monkeypatch) -> None:
    args = ["--players", "2", "--expansions", "", "--set", "rules.first_player_pearls=4",
            "--vary", "rules.first_player_pearls=0..6", "--target", "seat_share:1<=0.55",
            "--candidates", "24", "--blocks", "60", "--reeval-blocks", "200",
            "--retune-candidates", "2"]  # fmt: skip
    whole, _ = _design(tmp_path, "whole", *args)
    from reports.runs import design as design_run

    saved, calls = design_run._save_json, {"n": 0}

    def killed(store, first, name, value):
        saved(store, first, name, value)
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(design_run, "_save_json", killed)
    cut = runner.invoke(app, ["design", *args, "--out", str(tmp_path / "cut")])
    assert cut.exit_code == 130 and "design --resume" in cut.output
    monkeypatch.setattr(design_run, "_save_json", saved)
    resumed = runner.invoke(app, ["design", "--resume", str(tmp_path / "cut")])
    assert resumed.exit_code == 0, resumed.output
    pd.testing.assert_frame_equal(whole, pd.read_parquet(tmp_path / "cut" / "candidates.parquet"))


@pytest.mark.parametrize("args, message", [
    (["--vary", "lord.shopkeeper.ip", "--target", "rounds<=9"], "expected KEY=LO..HI"),
    (["--vary", "lord.shopkeeper.ip=9..1", "--target", "rounds<=9"], "LO must be below HI"),
    (["--vary", "lord.shopkeepr.ip=0..9", "--target", "rounds<=9"], "lord.shopkeeper.ip"),
    (["--vary", "lord.shopkeeper.ip=0..99", "--target", "rounds<=9"], "ip: must be in"),
    (["--vary", "rules.court_end=1..3", "--target", "rounds<=9"], "not a number"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "fun>=1"], "unknown metric 'fun'"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "card_value<=0.1"], "needs an argument"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "rounds<=lots"], "not a number"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "rounds=9"], "expected METRIC<=X"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "card_value:lord.nobody==0"],
     "no such card"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "seat_share:7<=0.3"], "seats are 1..4"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "seat_share:4>=24.5"],
     "reads as a percent: write 0.245 or 24.5%"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "rounds<=nan"], "not a finite number"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "seat_share:1>=0.3",
      "--target", "seat_share:1<=0.2"], "cannot both hold"),
    (["--vary", "lord.shopkeeper.ip=0..9", "--target", "rounds==9±-1"], "margin must be 0"),
    (["--vary", "lord.shopkeeper.ip=0..9"], "give at least one --target"),
    (["--target", "rounds<=9"], "give at least one --vary"),
    (["--game", "wilds", "--vary", "a.b=0..1", "--target", "rounds<=9"], "no design search"),
])  # fmt: skip
def test_bad_design_input_is_one_line_on_stderr(tmp_path, args, message) -> None:
    result = runner.invoke(app, ["design", "--candidates", "2", "--blocks", "3",
                                 "--out", str(tmp_path / "bad"), *args])  # fmt: skip
    assert result.exit_code != 0
    assert message in result.output, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "bad").exists()


def test_a_design_on_dask_gives_the_same_candidates(tmp_path) -> None:
    args = ["--players", "2", "--expansions", "", "--set", "rules.first_player_pearls=4",
            "--vary", "rules.first_player_pearls=0..6", "--target", "seat_share:1<=0.55",
            "--candidates", "8", "--blocks", "60", "--reeval-blocks", "200",
            "--retune-candidates", "2"]  # fmt: skip
    local, _ = _design(tmp_path, "local", *args)
    dask, _ = _design(tmp_path, "dask", *args, "--backend", "dask", "--threads", "2")
    pd.testing.assert_frame_equal(local, dask)


def test_design_runs_on_conspiracy_with_its_tension_metrics(tmp_path) -> None:
    """Every game: Conspiracy's tension comes from the games its tournament replays
    (`ReportModule.tension_sample`); a target its games meet needs no change. (A small budget:
    the decisive point is about 0.64 [0.46, 0.78] and the seat spread 0.07 [0.02, 0.15] on the
    confirmation's 150 deals, far from both caps.)"""
    df, text = _design(tmp_path, "conspiracy", "--game", "conspiracy", "--players", "3",
                       "--vary", "game.coalition_ip=0..8", "--target", "decisive_point>=0.05",
                       "--target", "seat_spread<=0.5", "--candidates", "4", "--blocks", "40",
                       "--reeval-blocks", "150")  # fmt: skip
    assert "No change needed" in text
    row = df[df["recommended"]].iloc[0]
    assert row["candidate"] == 0 and 0.05 < row["decisive_point"] < 1
    assert row["decisive_point_lo"] < row["decisive_point"] < row["decisive_point_hi"]


def test_the_largest_card_value_is_measured_over_every_card(tmp_path) -> None:
    """`max_card_value`: with the Shopkeeper at 30 IP it is the Shopkeeper's value (about 16
    points for a farmer at 3 players, the most valuable card by far); lowering it meets a cap
    that the 120 deals of a finalist can show (the others' largest is about 6 points)."""
    df, text = _design(tmp_path, "max", "--players", "3", "--expansions", "",
                       "--set", "lord.shopkeeper.ip=30", "--vary", "lord.shopkeeper.ip=0..30",
                       "--target", "max_card_value<=0.15", "--strategies", "farmer",
                       "--candidates", "6", "--blocks", "40", "--reeval-blocks", "120",
                       "--retune-candidates", "2")  # fmt: skip
    given = _given(df)
    assert given["max_card_value"] > 0.12 and not given["meets"]
    row = df[df["recommended"]].iloc[0]
    assert int(row["lord.shopkeeper.ip"]) < 30 and row["max_card_value_hi"] <= 0.15
