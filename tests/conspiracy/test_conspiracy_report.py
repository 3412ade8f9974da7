"""The Conspiracy balance report (games/conspiracy/report/) on small real runs written into
tmp directories: a simulate-like run (`games.conspiracy.engine.play.run_games`) and a CRN
tournament of two player counts (reports.play.tournament's design played with
games.conspiracy.engine.fast.run_tables)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from games.conspiracy.engine.cards.loader import load_cards
from games.conspiracy.report import balance as CR
from games.conspiracy.report import piles as CP
from games.conspiracy.report import run as CRun
from games.conspiracy.report import stats as CS
from sim.core.errors import UserError
from sim.core.runs import write_parquet

LINEUP = ["coalition_builder", "key_hunter", "pearl_master", "pile_raider"]
N_GAMES = 2000
SECTIONS = [
    "About this run",
    "Seat advantage per player count",
    "Strategy comparison",
    "Points by source",
    "Coalition sizes",
    "Location impact",
    "Discard pile versus drawing",
    "Game length and end reasons",
    "How games end",  # issue 31: end triggers and whether the trigger's player wins
]


def _write_run(directory: Path, seats, games, config: dict, digest: str) -> Path:
    directory.mkdir(parents=True)
    write_parquet(pd.DataFrame(seats), directory / "seats.parquet")
    write_parquet(pd.DataFrame(games), directory / "games.parquet")
    manifest = {
        "command": ["abyss-mc", config["command"], "--game", "conspiracy"],
        "seed": config["seed"],
        "config": {"game": "conspiracy", "cards": None, "set": [], **config},
        "card_digest": digest,
    }
    (directory / "manifest.json").write_text(json.dumps(manifest))
    return directory


@pytest.fixture(scope="module")
def tables():
    return load_cards()


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory, tables) -> Path:
    from games.conspiracy.engine.play import run_games
    from games.conspiracy.strategies import REGISTRY

    policies = REGISTRY.make_policies(LINEUP, 4)
    played = run_games(tables, engine="fast", n_players=4, n_games=N_GAMES, seed=3,
                       policies=policies)  # fmt: skip
    seats, games = played.seats, played.games
    config = {"command": "simulate", "strategies": LINEUP, "seed": 3, "n_players": 4}
    return _write_run(tmp_path_factory.mktemp("sim") / "run", seats, games, config, tables.digest)


@pytest.fixture(scope="module")
def tournament_run(tmp_path_factory, tables) -> Path:
    from reports.play.tournament import game_policies, make_design, play_blocks

    names = ["heuristic", "heuristic:pile_min=15", "pile_raider"]
    seat_parts, game_parts = [], []
    for n in (3, 4):
        plan = make_design(names, n)
        policies = game_policies("conspiracy", plan.strategies, plan.n_players)
        s, g, _ = play_blocks(0, 60, tables, plan, policies, 5, "block", "conspiracy")
        seat_parts.append(s)
        game_parts.append(g)
    config = {
        "command": "tournament",
        "strategies": names,
        "seed": 5,
        "n_players": [3, 4],
        "crn": "block",
        "design": "balanced",
    }
    return _write_run(
        tmp_path_factory.mktemp("tournament") / "run",
        pd.concat(seat_parts, ignore_index=True),
        pd.concat(game_parts, ignore_index=True),
        config,
        tables.digest,
    )


@pytest.fixture(scope="module")
def sim_written(sim_run):
    return CR.write_report(sim_run)


# ------------------------------------------------------------------------------ files
def test_writes_html_markdown_and_pngs(sim_run, sim_written):
    out = sim_run / "report"
    assert sim_written["html"] == out / "report.html"
    assert sim_written["markdown"] == out / "report.md"
    assert sim_written["figures"], "no figures"
    for path in sim_written["figures"]:
        assert path.parent == out / "figures"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    names = {p.stem for p in sim_written["figures"]}
    for name in (
        "seat_advantage",
        "strategy_win_rates",
        "points_by_source",
        "coalition_sizes",
        "win_by_coalition_size",
        "location_impact",
        "pile_share",
        "game_length",
    ):
        assert name in names
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == len(sim_written["figures"])
    assert "http://" not in html and "https://" not in html
    md = (out / "report.md").read_text()
    headings = re.findall(r"^## (.+)$", md, flags=re.M)
    assert headings == ["Verdicts", "Contents", *SECTIONS]  # issue 22: the verdicts first
    assert f"{N_GAMES:,} games" in md


def test_out_dir_argument(sim_run, tmp_path):
    paths = CR.write_report(sim_run, tmp_path / "elsewhere")
    assert paths["html"] == tmp_path / "elsewhere" / "report.html"
    assert paths["html"].is_file()


# ------------------------------------------------------------------------------ numbers
def _seats(run_dir: Path) -> pd.DataFrame:
    return pd.read_parquet(run_dir / "seats.parquet")


def test_seat_win_rates_sum_to_one(sim_run, sim_written):
    run = CRun.load_run(sim_run)
    table = CS.seat_advantage(run)
    assert list(table.index.get_level_values("seat")) == [1, 2, 3, 4]
    assert (table["games"] == N_GAMES).all()
    assert table.groupby(level="players")["win rate"].sum().to_numpy() == pytest.approx([1.0])
    assert ((table["lo"] <= table["win rate"]) & (table["win rate"] <= table["hi"])).all()
    # the rendered table too, within rounding of its 3 decimals
    md = sim_written["markdown"].read_text()
    rows = re.findall(r"^\| 4 \| [1-4] \| \d+ \| ([0-9.]+) \|", md, flags=re.M)
    assert len(rows) == 4
    assert sum(float(r) for r in rows) == pytest.approx(1.0, abs=0.003)


def test_strategy_rates_match_the_seats(sim_run):
    seats = _seats(sim_run)
    rates = CS.strategy_rates(CRun.load_run(sim_run), 4)
    assert sorted(rates.index) == sorted(LINEUP)
    assert (rates["seat-games"] == N_GAMES).all()
    direct = seats.groupby("strategy")["win"].mean()
    assert rates["win rate"].to_numpy() == pytest.approx(direct[rates.index].to_numpy())
    assert rates["win rate"].sum() == pytest.approx(1.0)
    mean_ip = seats.groupby("strategy")["score"].mean()
    assert rates["mean IP"].to_numpy() == pytest.approx(mean_ip[rates.index].to_numpy())
    assert (rates["win lo"] <= rates["win rate"]).all()
    assert (rates["IP lo"] < rates["mean IP"]).all() and (rates["mean IP"] < rates["IP hi"]).all()


def test_points_by_source_add_up(sim_run):
    frame = CS.points_by_source(CRun.load_run(sim_run))
    parts = frame[["Lords", "Locations", "Coalition", "Pearl Master"]].sum(axis=1)
    assert parts.to_numpy() == pytest.approx(frame["total"].to_numpy())


def test_location_impact_has_a_row_per_location(sim_run, tables):
    run = CRun.load_run(sim_run)
    frame, overall = CS.location_impact(run, 4)
    assert len(frame) == tables.n_locations
    assert list(frame.index) == list(tables.location_names)
    assert overall == pytest.approx(0.25)
    seats = _seats(sim_run)
    # every Location held at the end is counted once
    assert frame["held"].sum() == seats["n_locations"].sum()
    assert frame["pick rate"].sum() == pytest.approx(seats["n_locations"].mean())
    # the win rate of the holders of one Location, directly
    i = int(np.argmax(frame["held"].to_numpy()))
    held = (seats["location_set"].to_numpy().astype(np.int64) >> i) & 1 == 1
    assert frame["win rate"].iloc[i] == pytest.approx(seats.loc[held, "win"].mean())
    ok = frame["held"] > 0
    inside = (frame["lo"] <= frame["win rate"]) & (frame["win rate"] <= frame["hi"])
    assert inside[ok].all()
    assert frame.loc[~ok, "win rate"].isna().all()


def test_coalition_distribution_rows_sum_to_one(sim_run):
    dist = CS.coalition_distribution(CRun.load_run(sim_run))
    sizes = [c for c in dist.columns if c != "mean"]
    assert dist[sizes].sum(axis=1).to_numpy() == pytest.approx(np.ones(len(LINEUP)))
    seats = _seats(sim_run)
    mean = seats.groupby("strategy")["coalition_size"].mean()
    assert dist["mean"].to_numpy() == pytest.approx(mean[dist.index].to_numpy())


def test_pile_tables(sim_run, sim_written):
    run = CRun.load_run(sim_run)
    seats = _seats(sim_run)
    summary = CP.pile_summary(run)
    assert summary.loc["pile_raider", "pile takes"] == pytest.approx(
        seats.loc[seats["strategy"] == "pile_raider", "pile_takes"].mean()
    )
    rates = CP.pile_share_rates(run)
    assert rates["seat-games"].sum() == len(seats)
    assert rates["share"].sum() == pytest.approx(1.0)
    assert set(rates.index) <= set(CP.PILE_LABELS)
    h2h = CP.pile_raider_head_to_head(run)
    assert set(h2h.index) == {"coalition_builder", "key_hunter", "pearl_master"}
    # pile_raider minus key_hunter, paired by game
    per_game = seats.pivot_table(index="game", columns="strategy", values="win")
    diff = (per_game["pile_raider"] - per_game["key_hunter"]).mean()
    assert h2h.loc["key_hunter", "win diff"] == pytest.approx(diff)
    assert h2h.loc["key_hunter", "games"] == N_GAMES
    assert "pile_min" in h2h.loc["key_hunter", "differs in"]
    md = sim_written["markdown"].read_text()
    assert "Descriptive only" in md
    assert "tournament of strategies that differ only in `pile_min`" in md


def test_game_length_and_end_reasons(sim_run):
    run = CRun.load_run(sim_run)
    games = pd.read_parquet(sim_run / "games.parquet")
    length = CS.game_length(run)
    assert length.loc[4, "games"] == N_GAMES
    assert length.loc[4, "mean turns"] == pytest.approx(games["turns"].mean())
    reasons = CS.end_reasons(run)
    assert reasons["games"].sum() == N_GAMES
    assert reasons["share"].sum() == pytest.approx(1.0)


def test_cluster_interval_of_singletons_is_the_t_interval():
    """One seat-game per cluster: the cluster-robust interval of a mean is the t interval."""
    from reports.stats.intervals import mean_halfwidth

    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {"g": 0, "win": rng.integers(0, 2, 50).astype(float), "ip": rng.normal(40, 5, 50)}
    )
    df["block"] = np.arange(len(df))
    rates = CS.group_rates(df, "g", cluster="block").iloc[0]
    half = mean_halfwidth(df["ip"].to_numpy())
    assert rates["IP hi"] - rates["mean IP"] == pytest.approx(half)
    plain = CS.group_rates(df, "g").iloc[0]
    assert plain["IP hi"] - plain["mean IP"] == pytest.approx(half)
    assert rates["win lo"] <= plain["win lo"] + 1e-12  # never narrower than Wilson


# ------------------------------------------------------------------------------ tournaments
def test_tournament_report(tournament_run):
    run = CRun.load_run(tournament_run)
    assert run.is_tournament and run.counts == [3, 4]
    seats = CS.seat_advantage(run)
    sums = seats.groupby(level="players")["win rate"].sum()
    assert sums.to_numpy() == pytest.approx([1.0, 1.0])
    report = CR.build_report(run)
    assert [s.title for s in report.sections] == ["Verdicts", *SECTIONS,
                                                  "Who beats whom, head to head"]  # fmt: skip
    verdicts = report.sections[0]._markdown()
    assert "At 3 players" in verdicts and "At 4 players" in verdicts
    paths = report.write(tournament_run / "report")
    names = {p.stem for p in paths["figures"]}
    assert {"strategy_matrix-3p", "strategy_matrix-4p", "location_impact-3p"} <= names
    md = paths["markdown"].read_text()
    assert "intervals over blocks" in md
    assert "differ only in `pile_min`" in md  # heuristic vs heuristic:pile_min=15
    h2h = CP.pile_raider_head_to_head(run)
    assert set(h2h.index.get_level_values("players")) == {3, 4}
    assert "blocks" in h2h.columns


# ------------------------------------------------------------------------------ errors
def test_not_a_conspiracy_run(tmp_path, sim_run):
    with pytest.raises(UserError, match="does not exist"):
        CR.build_report(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match="no manifest.json"):
        CR.build_report(empty)
    abyss = tmp_path / "abyss"
    abyss.mkdir()
    (abyss / "manifest.json").write_text(json.dumps({"config": {"command": "simulate"}}))
    with pytest.raises(UserError, match="not an Abyss: Conspiracy run") as info:
        CR.write_report(abyss)
    assert "\n" not in str(info.value)
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "manifest.json").write_text((sim_run / "manifest.json").read_text())
    with pytest.raises(UserError, match="no seats.parquet"):
        CR.build_report(partial)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json")
    with pytest.raises(UserError, match="unreadable manifest"):
        CR.build_report(broken)
