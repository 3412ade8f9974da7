"""Play strengths (issue 22): "Every headline verdict ... is computed with at least two play
strengths: the hand-written presets and the tuned presets ... The report says, per verdict,
whether it holds across them, with the figures side by side." And card values by restricted
play in the report, ordered by value with intervals."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from reports.runs import tournament as tournament_command

runner = CliRunner()
ARGS = ["tournament", "--players", "2", "--blocks", "30", "--card-blocks", "12",
        "--fight-points", "0", "--expansions", "", "--seed", "4",
        "--strategies", "greedy,key_hunter,farmer,random", "--report"]  # fmt: skip


def _verdicts(run_dir) -> str:
    md = (run_dir / "report" / "report.md").read_text()
    start = md.index("## Verdicts")
    return md[start:md.index("\n## ", start + 5)]


def test_a_custom_line_up_plays_its_tuned_versions_and_card_values_and_the_report_compares_them(
        tmp_path):  # fmt: skip
    """Issue 28: "A custom line-up (`tournament --strategies ... --report`) says nothing about
    play strength: where the named presets have tuned versions for the player count, play them
    as the second strength, as the default line-up does; where they do not, say so in one
    line." `key_hunter` and `farmer` have tuned versions at 2 players, `greedy` (a policy) and
    `random` do not."""
    from reports.restrict import NEVER, play_restricted
    from reports.strengths import best_of
    from reports.tune import Problem
    from sim import games

    out = tmp_path / "run"
    result = runner.invoke(app, [*ARGS, "--strengths", "tuned", "--out", str(out)])
    assert result.exit_code == 0, result.output
    tier = out / "strengths" / "tuned"
    seats = pd.read_parquet(tier / "seats.parquet")
    assert set(seats["strategy"].astype(str)) == {"key_hunter_tuned_2p", "farmer_tuned_2p"}
    manifest = json.loads((out / "manifest.json").read_text())["config"]
    assert manifest["strengths"] == ["hand-written", "tuned"] and manifest["card_blocks"] == 12
    assert manifest["tuned_versions"] == {"2": {
        "greedy": None, "key_hunter": "key_hunter_tuned_2p", "farmer": "farmer_tuned_2p",
        "random": None}}  # fmt: skip
    spec = games.get("abyss")
    tables = spec.load_cards(None, [], ())
    cardlist = spec.report().restrictions(tables)
    for label, played in (("hand-written", pd.read_parquet(out / "seats.parquet")),
                          ("tuned", seats)):  # fmt: skip
        impact = pd.read_parquet(out / "card_values" / label / "impact.parquet")
        meta = json.loads((out / "card_values" / label / "meta.json").read_text())
        assert len(impact) == 35 + 20 and meta["players"] == 2 and meta["blocks"] == 12
        assert meta["strategy"] == best_of(played, 2)  # the tier's own best strategy
        # each interval excludes 0 exactly where the Holm-corrected finding says so
        rows = impact[impact["finding"] != NEVER]
        told = np.where(rows["lo"] > 0, "worth something",
                        np.where(rows["hi"] < 0, "better without", "cannot tell"))  # fmt: skip
        assert (told == rows["finding"]).all()
        assert ((impact["p_holm"] < 0.05) == impact["finding"].isin(
            ["worth something", "better without"])).all()
        # the values are that strategy's restricted play, played again on deals of its own (not
        # those of the tournament that chose the strategy: `reports.play.seeds.card_seed`)
        from reports.play.seeds import card_seed

        best, seed = meta["strategy"], card_seed(4, label)
        problem = Problem("abyss", tables, 2, best, "", {}, {}, [best], seed, spec.strategies())
        again = play_restricted(problem, cardlist[:3], blocks=12, seed=seed)
        for i, (_, name, _) in enumerate(cardlist[:3]):
            value = impact.loc[impact["card"] == name, "value"].item()
            assert value == pytest.approx((again[0] - again[1 + i]).mean(), abs=1e-12)
    verdicts = _verdicts(out)
    assert "Hand-written presets:" in verdicts and "Tuned presets:" in verdicts
    assert "**Best strategy at 2 players: " in verdicts
    assert "**Seat advantage at 2 players: " in verdicts
    assert "**Most valuable card: " in verdicts and "**Cards too weak to matter: " in verdicts
    assert ("Without a tuned version (`<preset>_tuned_<N>p`), so not in the tuned presets' "
            "tournament: `greedy`, `random`.") in verdicts
    md = (out / "report" / "report.md").read_text()
    assert md.index("## What each card is worth (restricted play)") < md.index(
        "## Strategy comparison")
    assert "## Tuned presets: rankings" in md


def test_a_line_up_without_tuned_versions_says_so_and_strengths_are_off_unless_reported(tmp_path):
    """The null case: no strategy of `greedy,random` has a tuned version, so no second strength
    is played and the report says so in one line; without `--report` none is played."""
    out = tmp_path / "run"
    result = runner.invoke(app, [*ARGS[:3], "--blocks", "5", "--expansions", "", "--fight-points",
                                 "0", "--strategies", "greedy,random", "--report", "--out",
                                 str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert not (out / "strengths").exists() and not (out / "card_values").exists()
    verdicts = _verdicts(out)
    assert "Hand-written presets:" not in verdicts
    assert ("tournament: `greedy`, `random`. At 2 players fewer than two strategies have one: no "
            "tuned tournament there") in verdicts
    quiet = tmp_path / "quiet"
    result = runner.invoke(app, [*ARGS[:-1], "--card-blocks", "0", "--blocks", "3", "--out",
                                 str(quiet)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert not (quiet / "strengths").exists()
    config = json.loads((quiet / "manifest.json").read_text())["config"]
    assert config["strengths"] == ["hand-written"] and "tuned_versions" not in config


@pytest.mark.slow  # a tournament resume of the fast tier covers the chunks; this adds strengths
def test_an_interrupted_strengths_run_resumes_to_the_same_results(tmp_path, monkeypatch):
    whole = tmp_path / "whole"
    assert runner.invoke(app, [*ARGS, "--out", str(whole)]).exit_code == 0
    saved, calls = tournament_command.save_array, {"n": 0}

    def killed(store, first, n, array, name="shares.npy"):
        saved(store, first, n, array, name)
        calls["n"] += 1
        if calls["n"] == 9:  # inside the tuned tier's card values
            raise KeyboardInterrupt

    monkeypatch.setattr(tournament_command, "save_array", killed)
    cut = tmp_path / "cut"
    result = runner.invoke(app, [*ARGS, "--out", str(cut)])
    assert result.exit_code == 130 and "--resume" in result.output
    monkeypatch.setattr(tournament_command, "save_array", saved)
    resumed = runner.invoke(app, ["tournament", "--resume", str(cut)])
    assert resumed.exit_code == 0, resumed.output
    for path in ("strengths/tuned/seats.parquet", "card_values/hand-written/impact.parquet",
                 "card_values/tuned/impact.parquet", "seats.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(whole / path), pd.read_parquet(cut / path))


def test_bad_strength_options_are_one_line(tmp_path):
    for args, message in ((["--strengths", "strong"],
                           "--strengths must be auto, tuned, learned, search or none"),
                          (["--card-blocks", "1"], "--card-blocks must be 0 or at least 2"),
                          (["--strengths", "search", "--search-blocks", "0"],
                           "--search-blocks and --search-rollouts must be at least 1")):
        out = tmp_path / "run"
        result = runner.invoke(app, ["tournament", *args, "--out", str(out)])
        assert result.exit_code == 2, result.output
        assert message in result.output and len(result.output.strip().splitlines()) == 1
        assert not out.exists()


def test_the_learned_tier_is_played_by_default_where_it_has_weights(tmp_path):
    """Issue 30: "The default `tournament --report` plays the learned player as a play strength
    beside the hand-written and tuned presets, and the verdicts say whether each holds across
    the three." Issue 52: "In the learned column, 'best strategy' ranks the same approaches as
    the other columns ... each played at the learned strength". At each count with built-in
    weights the tuned tier's archetypes play, each at the learned strength (the learned player
    itself is the strength, not a contestant); the same archetypes as the tuned tier."""
    from games.abyss.strategies.learned import builtin_weights
    from reports.strengths import family

    out = tmp_path / "run"
    result = runner.invoke(app, ["tournament", "--players", "3,4", "--blocks", "4",
                                 "--card-blocks", "0", "--fight-points", "0", "--seed", "5",
                                 "--strategies", "key_hunter,farmer,pearl_economist,lord_rusher",
                                 "--report", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    tuned = pd.read_parquet(out / "strengths" / "tuned" / "seats.parquet")
    seats = pd.read_parquet(out / "strengths" / "learned" / "seats.parquet")
    counts = {n for n in (3, 4) if builtin_weights(n).is_file()}
    assert 4 in counts and set(seats["n_players"]) == counts
    for n in counts:
        at = seats[seats["n_players"] == n]["strategy"].astype(str).unique()
        theirs = tuned[tuned["n_players"] == n]["strategy"].astype(str).unique()
        assert sorted(family(s) for s in at) == sorted(family(s) for s in theirs)
        assert "learned" not in at and any(s.startswith("learned:archetype=") for s in at)
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["strengths"] == ["hand-written", "tuned", "learned"]
    verdicts = _verdicts(out)
    assert "the hand-written presets, the tuned presets and the learned archetypes" in verdicts
    assert "Learned archetypes: At 4 players" in verdicts
    md = (out / "report" / "report.md").read_text()
    assert "## Learned archetypes: rankings" in md
    assert "## Each approach at each strength" in md


def test_the_search_tier_models_the_best_learned_archetypes_and_joins_the_verdicts(tmp_path):
    """"... the hand-written presets and the tuned presets, and the search player where it
    exists": search players whose rollouts model the best approaches, played at the learned
    strength (issue 52: "the search with learned rollouts as the top strength"), play a fourth
    tournament; each verdict is then read across the four."""
    from reports.strengths import CONTENDERS, family, ranked, rollout_model

    out = tmp_path / "run"
    result = runner.invoke(app, ["tournament", "--players", "2", "--blocks", "10", "--strengths",
                                 "search", "--search-blocks", "2", "--search-rollouts", "4",
                                 "--card-blocks", "0", "--fight-points", "0", "--expansions", "",
                                 "--seed", "5", "--strategies",
                                 "key_hunter,farmer,pearl_economist,random",
                                 "--report", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    learned = pd.read_parquet(out / "strengths" / "learned" / "seats.parquet")
    rates = learned.groupby(learned["strategy"].astype(str))["win"].mean()
    rates = rates[[family(s) != "random" for s in rates.index]]
    best = ranked(learned, 2)[:CONTENDERS]
    # the contenders hold the best win shares (by value: equal shares may come in any order)
    assert sorted(rates[best], reverse=True) == sorted(rates, reverse=True)[:CONTENDERS]
    seats = pd.read_parquet(out / "strengths" / "search" / "seats.parquet")
    assert sorted(seats["strategy"].astype(str).unique()) == sorted(
        f"search:rollout_policy={rollout_model(p)}:rollouts=4" for p in best)
    assert any(":rollout_archetype=" in s for s in seats["strategy"].astype(str).unique())
    assert {family(s) for s in seats["strategy"].astype(str)} == {family(p) for p in best}
    assert len(seats) == 2 * 6 * 2  # 2 blocks x 6 tables (3 line-ups, 2 rotations) x 2 seats
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["strengths"] == ["hand-written", "tuned", "learned", "search"]
    verdicts = _verdicts(out)
    assert ("the hand-written presets, the tuned presets, the learned archetypes and the search "
            "player") in verdicts
    assert "Search player: At 2 players" in verdicts
    assert "4 rollouts per decision, 2 blocks" in verdicts
    md = (out / "report" / "report.md").read_text()
    assert "## Search player: rankings" in md
    # the report's note on the tier says what its rollouts play (it said "tuned presets")
    assert "modelling every player by that approach, played at the learned strength" in md
    assert "best tuned presets" not in md


def test_the_search_tiers_rollouts_play_the_archetypes_at_the_learned_strength():
    """A search player of the tier models an archetype by what plays it at the learned strength
    (`learned:archetype=X` -> `rollout_policy=learned:rollout_archetype=X`, whose rollout vector
    is that very player's; a tuned version as it is), and is of its family; at a count the
    learned tier did not play, the best tuned presets, as before."""
    import numpy as np

    from games.abyss.strategies import REGISTRY
    from reports.strengths import family, rollout_model, search_lineup
    from strategies.registry import StrategyError

    assert rollout_model("learned:archetype=farmer") == "learned:rollout_archetype=farmer"
    assert rollout_model("pearl_economist_tuned_4p") == "pearl_economist_tuned_4p"
    name = "search:rollout_policy=learned:rollout_archetype=farmer:rollouts=8"
    assert family(name) == "farmer"
    assert family("search:rollout_policy=learned:rollouts=8") == "learned"
    search = REGISTRY.make_policies([name, "greedy", "greedy", "greedy"], 4)[0]
    archetype = REGISTRY.make_policies(["learned:archetype=farmer", "greedy"], 4)[0]
    plain = REGISTRY.make_policies(["learned", "greedy"], 4)[0]
    tail = search.params()[search.slots.ROLLOUT_KIND:]
    assert tail[0] == archetype.kind
    n = search.slots.ROLLOUT_KIND
    assert np.array_equal(tail[1:], archetype.params()[:n])
    assert not np.array_equal(tail[1:], plain.params()[:n])  # (the archetype changes the vector)
    with pytest.raises(StrategyError, match="its rollout policy.*unknown parameter 'archetype'"):
        REGISTRY.make_policies(["search:rollout_policy=greedy:rollout_archetype=farmer",
                                "greedy"], 2)  # fmt: skip

    def seats(wins: dict, n_players: int) -> pd.DataFrame:
        return pd.DataFrame([{"strategy": s, "win": w, "n_players": n_players}
                             for s, w in wins.items()])  # fmt: skip

    tuned = seats({"farmer_tuned_4p": 0.4, "key_hunter_tuned_4p": 0.3, "lord_rusher_tuned_4p": 0.2,
                   "auction_buyer_tuned_4p": 0.1}, 4)  # fmt: skip
    learned = seats({"learned:archetype=auction_buyer": 0.5, "pearl_economist_tuned_4p": 0.3,
                     "learned:archetype=farmer": 0.2, "learned:archetype=key_hunter": 0.0}, 4)
    assert search_lineup(tuned, 4, 8, learned) == [
        "search:rollout_policy=learned:rollout_archetype=auction_buyer:rollouts=8",
        "search:rollout_policy=pearl_economist_tuned_4p:rollouts=8",
        "search:rollout_policy=learned:rollout_archetype=farmer:rollouts=8"]
    assert search_lineup(tuned, 4, 8, seats({"learned:archetype=farmer": 1.0}, 3)) == \
        search_lineup(tuned, 4, 8) == [f"search:rollout_policy={p}:rollouts=8" for p in
                                       ("farmer_tuned_4p", "key_hunter_tuned_4p",
                                        "lord_rusher_tuned_4p")]  # fmt: skip


def test_the_conspiracy_report_opens_with_verdicts_across_strengths(tmp_path):
    out = tmp_path / "run"
    result = runner.invoke(app, ["tournament", "--game", "conspiracy", "--players", "2",
                                 "--blocks", "12", "--strengths", "tuned", "--card-blocks", "4",
                                 "--report", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    md = (out / "report" / "report.md").read_text()
    assert md.index("## Verdicts") < md.index("## Contents")
    verdicts = _verdicts(out)
    assert "**Best strategy at 2 players: " in verdicts and "Tuned presets:" in verdicts
    assert "**Seat advantage at 2 players: " in verdicts
    assert "**Most valuable card: " in verdicts
    impact = pd.read_parquet(out / "card_values" / "tuned" / "impact.parquet")
    assert len(impact) == 30 + 24


def test_the_quick_start_report_plays_three_strengths_and_opens_with_its_verdicts(tmp_path):
    """The README's quick start is `abyss-mc tournament --report` (built-in line-up): its page
    opens with the Verdicts, computed with the hand-written and the tuned presets and the
    learned player (issue 30: "The default `tournament --report` plays the learned player as a
    play strength")."""
    out = tmp_path / "run"
    result = runner.invoke(app, ["tournament", "--report", "--players", "4", "--blocks", "3",
                                 "--fight-points", "0", "--card-blocks", "2", "--out",
                                 str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["strengths"] == ["hand-written", "tuned", "learned"]
    assert config["card_blocks"] == 2
    md = (out / "report" / "report.md").read_text()
    assert md.startswith("# ") and md.index("## Verdicts") < md.index("## Contents")
    assert "Tuned presets:" in _verdicts(out) and "Learned archetypes:" in _verdicts(out)
    assert "--strengths search` adds them" in _verdicts(out)  # the search, on request
    assert (out / "card_values" / "learned" / "impact.parquet").is_file()
    # where its time went (issue 54): every phase, in the order played, the report's included
    timings = json.loads((out / "manifest.json").read_text())["timings"]
    phases = timings["phases"]
    assert list(phases) == [
        "4p tournament", "writing the tables", "extras (fight rollouts)",
        "tuned: 4p tournament", "tuned: tables and extras", "learned: 4p tournament",
        "learned: tables and extras", "hand-written: card values", "tuned: card values",
        "learned: card values", "the report"]  # fmt: skip
    assert all(seconds >= 0 for seconds in phases.values())  # (0 where nothing was done)
    # the phases are parts of the run (its total, which now includes the report's build)
    assert phases["the report"] < sum(phases.values()) <= timings["total"]


def test_a_time_budget_plays_the_card_values_sequentially(tmp_path):
    """Issue 30: "`--minutes M` spends games where a verdict is still undecided ... and stops
    deals for those already told apart" (the procedure's error rates: tests/core/
    test_sequential.py). Here: the card values of both strengths are played in looks within the
    budget, each card on its own number of deals, and the report says how they were played."""
    from reports.budget import look_conf

    out = tmp_path / "run"
    result = runner.invoke(app, ["tournament", "--players", "2", "--blocks", "4", "--strengths",
                                 "tuned", "--minutes", "0.1", "--fight-points", "0", "--seed",
                                 "5", "--strategies", "key_hunter,farmer", "--report", "--out",
                                 str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    for tier in ("hand-written", "tuned"):
        meta = json.loads((out / "card_values" / tier / "meta.json").read_text())
        impact = pd.read_parquet(out / "card_values" / tier / "impact.parquet")
        assert meta["looks"] >= 1 and meta["stopped_by"] in ("decided", "looks", "budget")
        assert impact["games"].max() == meta["blocks"] * 2
        found = impact[impact["finding"].isin(["worth something", "better without"])]
        assert (found["look"] >= 0).all() and found["fresh"].all()  # confirmed on fresh deals
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["card_minutes"] == 0.1
    budget = config["budget"]  # what the looks and the card values took of the 6 seconds
    tier = json.loads((out / "strengths" / "tuned" / "manifest.json").read_text())["config"]
    looks = [x["pair_looks"][n]["seconds"] for x in (config, tier) for n in x["pair_looks"]]
    assert budget["seconds"] == 6 and abs(budget["looks"] - sum(looks)) < 0.2
    phases = json.loads((out / "manifest.json").read_text())["timings"]["phases"]
    cards = sum(v for k, v in phases.items() if k.endswith("card values"))
    assert abs(budget["card values"] - cards) < 0.2 and budget["card values"] > 0
    assert budget["spent"] == round(budget["looks"] + budget["card values"], 1)
    assert "on a time budget" in (out / "report" / "report.md").read_text()
    # and the best strategy's pair: blocks in looks while it is not told apart
    tier = json.loads((out / "strengths" / "tuned" / "manifest.json").read_text())["config"]
    for looks, blocks in ((config["pair_looks"]["2"], config["blocks"]),
                          (tier["pair_looks"]["2"], tier["n_games"] // 2)):  # fmt: skip
        assert looks["blocks"] == 4 * 2 ** (looks["looks"] - 1) == blocks
        assert looks["decided"] == (looks["stopped_by"] == "decided")
        assert looks["conf"] == look_conf(looks["looks"] - 1)
    if tier["pair_looks"]["2"]["decided"]:  # the verdict says how it was tested
        md = (out / "report" / "report.md").read_text()
        assert "blocks played in looks on a time budget" in md
