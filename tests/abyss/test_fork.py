"""Forked rollouts of the fight-or-explore decision (`games.abyss.engine.fork`,
`games.abyss.report.rollout`).

Leviathan: "During the Explore the Depths action, if the revealed card is a Monster, you still
have the choice to continue your Exploration or fight." A decision point is such a Monster with a
fightable Leviathan; a fork replays the game to the point, re-keys the random streams, reshuffles
the face-down decks and plays a forced choice (or a switched rule) to the end of the game.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from abyss_helpers import copy_data

from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.fast import lineup_arrays
from games.abyss.engine.fork import CONTINUE, FIGHT, Branch, Forker, pick_points, reference_fork
from games.abyss.engine.policy_params import G_FIGHT_P, G_FIGHT_RISK
from games.abyss.report import rollout as RO
from games.abyss.strategies import REGISTRY
from sim.core.batch import set_threads

MIXED = ["greedy", "random", "leviathan_hunter", "greedy:fight_risk=0.17"]


@pytest.fixture(scope="module")
def lev():
    return load_cards(expansions=("leviathan",))


def forker(tables, lineup, seed=3, n_players=None):
    kinds, params = lineup_arrays(REGISTRY.make_policies(lineup, len(lineup)))
    return Forker(tables, seed, kinds, params, n_players or len(lineup))


def points_of(f, n_games=8):
    games = np.arange(n_games, dtype=np.int64)
    ks = pick_points(f.seed, games, f.count(games))
    keep = ks > 0
    return games[keep], ks[keep]


def test_every_game_meets_decision_points_and_picks_are_stable(lev) -> None:
    """A point is picked uniformly among a game's points, from (seed, game) alone."""
    f = forker(lev, ["greedy"] * 4)
    games = np.arange(40, dtype=np.int64)
    counts = f.count(games)
    assert (counts > 0).mean() > 0.9
    ks = pick_points(3, games, counts)
    assert ((ks >= 1) & (ks <= counts))[counts > 0].all()
    again = pick_points(3, games[10:20], counts[10:20])
    assert (again == ks[10:20]).all(), "the pick must not depend on the chunk"


@pytest.mark.parametrize("lineup", [MIXED, ["random"] * 3], ids=["mixed-4p", "random-3p"])
def test_reference_engine_plays_the_same_forks(lev, lineup) -> None:
    """The reference engine (`Game.fork_here`) forks the same games: same final scores of every
    seat, for both choices and two replicates (the very same games, bit for bit)."""
    f = forker(lev, lineup)
    games, ks = points_of(f, 4)
    out_seats_fight = f.play(games, ks, 2)
    for j in range(len(games)):
        seat = int(out_seats_fight["info"][j, 0])
        for choice, name in ((FIGHT, "fight"), (CONTINUE, "continue")):
            for r in range(2):
                policies = REGISTRY.make_policies(lineup, len(lineup))
                g = reference_fork(lev, policies, len(lineup), 3, games[j], ks[j], choice, r)
                assert g.scores[seat].total == out_seats_fight[f"{name}_ip"][j, r]
                assert any(e["event"] == "fork" for e in g.events)


def test_reference_engine_plays_the_same_rule_rollouts(lev) -> None:
    """A rule rollout (the deciding seat's parameters switched at the point) is the same game on
    both engines."""
    lineup = ["greedy", "lord_rusher", "random"]
    f = forker(lev, lineup)
    games, _ = points_of(f, 3)
    ks = np.ones(len(games), dtype=np.int64)
    rule = {G_FIGHT_RISK: 166, G_FIGHT_P: 223}
    info, ip, _ = f.play_rules(games, ks, 2, [rule])
    for j in range(len(games)):
        for r in range(2):
            g = reference_fork(
                lev, REGISTRY.make_policies(lineup, 3), 3, 3, games[j], 1, -1, r, rule
            )
            assert g.scores[int(info[j, 0])].total == ip[0, j, r]


def test_identical_branches_differ_by_exactly_zero(lev) -> None:
    """Common random numbers, rigged case with a known answer: the same choice twice, or a rule
    switch to the strategy's own parameters, gives a difference of exactly 0 in every replicate;
    a different salt gives different games."""
    f = forker(lev, ["greedy"] * 4)
    games, ks = points_of(f, 6)
    _, ip, win = f.branches(games, ks, 4, [Branch(FIGHT), Branch(FIGHT), Branch(FIGHT, 4)])
    assert (ip[0] == ip[1]).all() and (win[0] == win[1]).all()
    assert (ip[0] != ip[2]).any(), "another salt must give other games"
    own_fight_p = 500  # greedy's fight_p in thousandths
    _, ip, _ = f.play_rules(games, np.ones_like(ks), 4, [{}, {G_FIGHT_P: own_fight_p}])
    assert (ip[0] == ip[1]).all()


def rigged_cards(tmp_path):
    """Card data where a fight is a certain kill worth a fortune: every Leviathan has one Life
    space of Resistance 2 (any Ally and any die reach it) with 3 Monster tokens, and every base
    Monster token is worth 10 IP (the most the card data allow)."""
    data = copy_data(tmp_path)
    lev_file = data / "expansions" / "leviathan.toml"
    text = re.sub(r"spaces = \[\[.*\]\]", "spaces = [[2, 3]]", lev_file.read_text())
    lev_file.write_text(text)
    game = data / "game.toml"
    text = re.sub(r"ip = \[[^\]]*\]", "ip = [" + ", ".join(["10"] * 20) + "]", game.read_text())
    game.write_text(text)
    return load_cards(data, expansions=("leviathan",))


def test_rigged_certain_kill_is_worth_its_token(tmp_path) -> None:
    """Rigged case with a known answer: "When a Leviathan loses one of its Life Points, gain as a
    reward the number of Monster tokens indicated" and "The player who possesses the statue at
    the end of the game gains 5 Influence Points". With certain kills worth three 10-IP tokens,
    fighting when the others never fight is worth 30 IP plus the Scourge (+5) give or take
    the rest of the game, and wins far more often."""
    tables = rigged_cards(tmp_path)
    # no one fights voluntarily until all nine zones are occupied (fight_risk = 1)
    lineup = ["greedy:fight_risk=1"] * 3
    f = forker(tables, lineup)
    games, ks = points_of(f, 30)
    out = f.play(games, ks, 4)
    d_ip = (out["fight_ip"] - out["continue_ip"]).mean()
    assert 30 <= d_ip <= 45, d_ip
    assert (out["fight_win"] - out["continue_win"]).mean() > 0.2


def test_paired_interval_is_tighter_than_unpaired(lev) -> None:
    """Common random numbers pay: with both choices of a replicate on the same streams, the
    variance of one replicate's difference and the interval of the mean are smaller than with
    the continue branch on streams of its own (the same fight branch in both)."""
    tables = lev
    r = RO.run_rollouts(
        tables,
        n_players=4,
        strategies=["greedy", "leviathan_hunter", "cautious_explorer", "lord_rusher"],
        seed=11,
        n_points=200,
        replicates=16,
        unpaired_check=True,
    )
    gain = RO.pairing_gain(r.points)
    assert gain["replicate_var_paired"] < gain["replicate_var_unpaired"]
    assert gain["halfwidth_paired"] < gain["halfwidth_unpaired"]


def test_results_do_not_depend_on_threads_or_chunks(lev) -> None:
    """Determinism: the same seed gives the same rollouts on 1 or 2 threads, in any chunking."""
    kw = dict(
        n_players=3, strategies=["greedy", "random", "lord_rusher"], seed=5, n_points=24,
        replicates=3, rule_points=8, rule_replicates=2,
    )  # fmt: skip
    try:
        set_threads(1)
        a = RO.run_rollouts(lev, chunk_points=5, **kw)
        set_threads(2 if set_threads(None) >= 2 else 1)
        b = RO.run_rollouts(lev, chunk_points=7, **kw)
    finally:
        set_threads(None)
    pd.testing.assert_frame_equal(a.points, b.points)
    pd.testing.assert_frame_equal(a.rules, b.rules)


def test_situation_columns_describe_the_point(lev) -> None:
    """The recorded situation is the deciding seat's: a Leviathan on the Border, an Ally that
    may attack it ("A Crab Ally always allows you to fight"), chances in 36ths."""
    r = RO.run_rollouts(lev, n_players=4, strategies=["greedy"], seed=2, n_points=40, replicates=2)
    p = r.points
    assert (p["n_border"] >= 1).all()
    assert p["best_ally_value"].between(1, 9).all()
    assert p["chance_36"].between(0, 36).all()
    assert p["own_choice"].isin([0, 1, 2]).all()  # 2: the Coward ignores the Monster
    assert (p["arrival_risk"] >= 1000 * 2 // 36).all()
    assert p["lives_left"].between(1, 3).all()


# ------------------------------------------------------------------ the statistics layer
def synthetic_points(n=4000, seed=0):
    """Decision points whose fight value is known by construction: fighting adds 4% to the win
    probability when the risk of continuing is at least 6/36, and costs 2% below it."""
    rng = np.random.default_rng(seed)
    w = rng.integers(3, 20, n)
    risk = w * 1000 // 36
    effect = np.where(w >= 6, 0.04, -0.02)
    cont = rng.uniform(0.1, 0.4, n)
    return pd.DataFrame(
        {
            "game": np.arange(n),
            "chance_36": rng.integers(1, 37, n),
            "arrival_risk": risk,
            "own_choice": rng.integers(0, 2, n),
            "fight_win": cont + effect + rng.normal(0, 0.01, n),
            "continue_win": cont,
            "fight_ip": 0.0,
            "continue_ip": 0.0,
            "d_win": effect,
            "d_ip": 0.0,
        }
    )


def test_one_step_rule_finds_the_known_threshold() -> None:
    """On points with a known answer, the one-decision rule is 'fight from a 6/36 risk'."""
    learnt = RO.one_step_rule(synthetic_points())
    assert learnt["risk_36"] == 6
    mean, lo, hi = learnt["gain_vs_never_fight"]
    assert lo > 0


def test_learn_rule_picks_the_best_candidate_and_reports_held_out_gain() -> None:
    """Rule rollouts with a known best rule: `learn_rule` picks it, its held-out interval
    covers the true gain, and the spec is a valid strategy override."""
    rng = np.random.default_rng(1)
    n = 3000
    base = rng.uniform(0.1, 0.4, n)
    rows = []
    true_gain = {"own": 0.0, "fight_risk=6/36": 0.01, "fight_p=9/36": 0.004}
    for rule, gain in true_gain.items():
        rows.append(
            pd.DataFrame(
                {
                    "game": np.arange(n),
                    "point": 1,
                    "strategy": "greedy",
                    "rule": rule,
                    "win": base + gain + rng.normal(0, 0.002, n),
                    "ip": 60 + 100 * gain,
                }
            )
        )
    learnt = RO.learn_rule(pd.concat(rows, ignore_index=True))
    assert learnt["rule"] == "fight_risk=6/36"
    mean, lo, hi = learnt["held_out_gain_win"]
    assert abs(mean - 0.01) < 2 * (hi - lo)
    from games.abyss.strategies import REGISTRY

    assert REGISTRY.make_policy("greedy:" + learnt["spec"]).params()[G_FIGHT_RISK] == 166


def test_the_recommended_rule_is_the_one_measured_out_of_sample() -> None:
    """`learn_rule` recommends the best rule on the even-numbered games and reports that rule's
    gain on the odd ones: where another rule is best on all points (it leads only on the odd
    games, which must not choose), the recommendation and its gain are still the even games'
    choice's, so no figure belongs to a rule other than the one named."""
    rng = np.random.default_rng(2)
    n = 2000
    game = np.arange(n)
    base = rng.uniform(0.1, 0.4, n)
    odd = game % 2 == 1
    true_gain = {"own": 0 * base, "fight_risk=6/36": np.where(odd, 0.0, 0.01),
                 "fight_p=9/36": np.where(odd, 0.03, 0.0)}  # fmt: skip
    rows = [pd.DataFrame({"game": game, "point": 1, "strategy": "greedy", "rule": rule,
                          "win": base + gain + rng.normal(0, 0.002, n), "ip": 60.0})
            for rule, gain in true_gain.items()]  # fmt: skip
    learnt = RO.learn_rule(pd.concat(rows, ignore_index=True))
    assert learnt["rule"] == learnt["fitted_on_half"] == "fight_risk=6/36"
    mean, lo, hi = learnt["held_out_gain_win"]
    assert abs(mean) < 0.003 and hi - lo < 0.003  # its own gain there (none), not the 3 points
    assert learnt["held_out_points"] == n // 2
    assert list(learnt["table"]["points"].unique()) == [n // 2]  # the table: the even games


def test_a_rule_search_with_nothing_to_choose_on_or_to_test(lev) -> None:
    """Edge cases of the rule rollouts: no even-numbered game to choose on gives no rule
    rollouts (the one-decision rule instead); the own rules chosen leave nothing to measure on
    the odd games, and `learn_rule` reports no held-out gain rather than a 0 it never tested."""
    from games.abyss.report.fight_rule import recommended_rule

    none = RO.run_rollouts(lev, n_players=2, strategies=["greedy", "farmer"], seed=3, n_points=2,
                           replicates=2, rule_points=1, rule_replicates=1)  # fmt: skip
    forker = Forker(lev, 3, *lineup_arrays(REGISTRY.table_policies(["greedy", "farmer"], 2)), 2)
    assert RO.sample_points(forker, 1)[0][0] % 2 == 1  # (seed 3: the first point's game is odd)
    assert none.rules is None and none.meta["rule_points"] == 0
    assert recommended_rule(none)["source"] == "one decision"
    n = 40
    own_best = pd.concat([pd.DataFrame({"game": np.arange(n), "point": 1, "strategy": "greedy",
                                        "rule": rule, "win": 0.3 - gain, "ip": 60.0})
                          for rule, gain in (("own", 0.0), ("fight_p=9/36", 0.05))],
                         ignore_index=True)  # fmt: skip
    learnt = RO.learn_rule(own_best[(own_best["game"] % 2 == 0) | (own_best["rule"] == "own")])
    assert learnt["rule"] == "own" and learnt["held_out_points"] == 0
    assert np.isnan(learnt["held_out_gain_win"][0])
    one_odd = own_best.assign(win=np.where(own_best["rule"] == "own", 0.2, 0.3))
    one_odd = one_odd[(one_odd["game"] % 2 == 0) | (one_odd["game"] == 1)]
    learnt = RO.learn_rule(one_odd)  # one held-out point: no interval, so not measured
    assert learnt["rule"] == "fight_p=9/36" and learnt["held_out_points"] == 0


def test_the_odd_games_play_only_the_chosen_rule_and_the_own(lev) -> None:
    """The rule rollouts play every candidate on the even-numbered games, which choose, and
    only the chosen rule and the strategies' own on the odd ones, which measure it (a
    candidate's results do not depend on which others are played: common random numbers)."""
    kw = dict(n_players=3, strategies=["greedy", "leviathan_hunter", "farmer"], seed=11,
              n_points=4, replicates=2, rule_points=10, rule_replicates=2)  # fmt: skip
    r = RO.run_rollouts(lev, **kw)
    rules, candidates = r.rules, RO.rule_candidates()
    even, odd = rules[rules["game"] % 2 == 0], rules[rules["game"] % 2 == 1]
    chosen = RO.learn_rule(rules)["rule"]
    assert len(even) and len(odd)
    assert sorted(set(even["rule"])) == sorted(name for name, _ in candidates)
    assert set(odd["rule"]) == {"own", chosen}
    assert RO.learn_rule(rules)["held_out_points"] == odd["game"].nunique()
    assert r.meta["games_played"] == 4 * 2 * 2 + len(rules) * 2
    # the odd games' figures are what playing every candidate there gives
    forker = Forker(lev, 11, *lineup_arrays(REGISTRY.table_policies(kw["strategies"], 3)), 3)
    games = np.sort(odd["game"].unique())
    _, ip, win = forker.play_rules(games, np.ones(len(games), dtype=np.int64), 2,
                                   [rule for _, rule in candidates])  # fmt: skip
    at = [name for name, _ in candidates].index(chosen)
    mine = odd[odd["rule"] == chosen].sort_values("game")
    np.testing.assert_array_equal(mine["win"].to_numpy(), win[at].mean(axis=1))


@pytest.mark.parametrize("chance", range(0, 37))
def test_fight_p_parameter_admits_exactly_the_threshold(chance) -> None:
    """`fight_p_of(c)` is the parameter with which the policies' test `chance x 1000 >=
    fight_p x 36` admits exactly the chances c/36 and above."""
    fp = RO.fight_p_of(chance)
    admitted = [c for c in range(37) if c * 1000 >= fp * 36]
    assert admitted == list(range(chance, 37))


# ------------------------------------------------------------------------------- the CLI
def invoke(*args):
    from typer.testing import CliRunner

    from cli.app import app

    return CliRunner().invoke(app, [str(a) for a in args])


SMALL = ["--points", 24, "--replicates", 2, "--rule-points", 12, "--rule-replicates", 2]


def test_cli_rollout_writes_results_report_and_check(tmp_path, monkeypatch) -> None:
    """`abyss-mc ev rollout` writes the points, the rule rollouts, the tournament check, the
    summary and the standalone page; `abyss-mc report` rebuilds the page from the run. The
    check plays deals of its own, not the rule rollouts' (which chose the rule)."""
    from reports.play.seeds import EV_VERIFY, derived_seed

    seeds = []
    verify = RO.verify_rule
    monkeypatch.setattr(RO, "verify_rule", lambda *a, **kw: seeds.append(kw["seed"]) or verify(
        *a, **kw))  # fmt: skip
    out = tmp_path / "run"
    result = invoke("ev", "rollout", *SMALL, "--verify-blocks", 2, "--out", out)
    assert result.exit_code == 0, result.output
    seed = json.loads((out / "manifest.json").read_text())["seed"]
    assert seeds == [derived_seed(seed, EV_VERIFY)] and seeds[0] != seed
    for name in (
        "points.parquet",
        "rules.parquet",
        "rollout.json",
        "verify.json",
        "summary.txt",
        "manifest.json",
        "report/report.html",
        "report/report.md",
    ):
        assert (out / name).is_file(), name
    assert "Learnt rule:" in result.output and "Tournament check" in result.output
    assert "Fight or explore?" in (out / "report" / "report.md").read_text()
    again = invoke("report", out, "--out", tmp_path / "page")
    assert again.exit_code == 0, again.output
    assert (tmp_path / "page" / "report.html").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--points", 1], "--points must be at least 2"),
        (["--replicates", 0], "--replicates must be between 2"),
        (["--rule-points", -1], "--rule-points must be at least 0"),
        (["--rule-replicates", 0], "--rule-replicates must be between 1"),
        (["--verify-blocks", -5], "--verify-blocks must be at least 0"),
        (["--players", 6], "--players must be 2-5 for Abyss"),
        (["--strategies", "greedy,bogus"], "unknown strategy 'bogus'"),
        (["--strategies", "greedy:fight_risk=2"], "fight_risk is a probability"),
        (["--seed", -1], "--seed must be between"),
    ],
)
def test_cli_rollout_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message) -> None:
    out = tmp_path / "run"
    result = invoke("ev", "rollout", *args, "--out", out)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert not out.exists()


def test_cli_rollout_refuses_an_existing_directory(tmp_path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    result = invoke("ev", "rollout", *SMALL, "--out", out)
    assert result.exit_code == 2 and "exists" in result.output


def test_a_strength_tier_asks_fight_or_explore_without_the_rule_search(lev, tmp_path) -> None:
    """Issue 54: the report's own line-up searches for a better rule (rule rollouts, on half
    the points: three quarters of the time was theirs); a play strength's tier (`headline_only`)
    plays fight or continue on the same points, on TIER_REPLICATES forks each way (not 16),
    and takes its rule from the forks of the one decision."""
    from games.abyss.report import TIER_REPLICATES, tournament_extras
    from games.abyss.report.balance import FIGHT_DIR
    from games.abyss.report.fight_rule import recommended_rule

    found = {}
    for headline_only in (False, True):
        d = tmp_path / str(headline_only)
        d.mkdir()
        tournament_extras(lev, names=["greedy", "leviathan_hunter"], counts=[4], seed=3,
                          expansions=("leviathan",), fight_points=6, run_dir=d,
                          headline_only=headline_only)  # fmt: skip
        found[headline_only] = RO.load_rollouts(d / FIGHT_DIR)
    outcome = [c for c in found[False].points if c.startswith(("fight_", "continue_", "d_",
                                                                  "var_"))]  # fmt: skip
    pd.testing.assert_frame_equal(found[False].points.drop(columns=outcome),
                                  found[True].points.drop(columns=outcome))  # fmt: skip
    assert (found[False].meta["replicates"], found[True].meta["replicates"]) == (
        16, TIER_REPLICATES)
    assert found[False].n_points == 6  # fight or explore on every point; the rule search on half
    assert found[False].meta["rule_points"] == 3 and len(found[False].rules)
    assert found[True].meta["rule_points"] == 0
    assert found[True].rules is None or not len(found[True].rules)
    assert recommended_rule(found[False])["source"] == "rule rollouts"
    assert recommended_rule(found[True])["source"] == "one decision"
