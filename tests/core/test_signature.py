"""The behavioural signature (`reports.sections.signature`): what a strategy does in its games,
counted
from the reference engine's event log and decisions (issue 28: "show by a behavioural signature
(what it recruits, how often it fights, what it plots with) that each tuned preset still plays
its archetype").

Known answers from parameters whose effect the policy documents (`abyss-mc strategies`), planted
effects, and the null case: two names of one policy sign the same, game for game.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from games.abyss.report.signature import GUILDS
from games.conspiracy.report.signature import COLUMNS as CONSPIRACY_COLUMNS
from reports.sections.signature import archetype_table, signature, signature_games
from sim import games

FIELD = ["heuristic", "greedy", "leviathan_hunter"]
#: games a signature counts: Abyss's reference engine plays about 25 a second, and every planted
#: count below is far from its bound at 20 (e.g. all of ~30 Lords recruited Farmers, of ~45
#: chances to fight all taken); Conspiracy's engine is ten times as fast
N_GAMES = {"abyss": 20, "conspiracy": 40}


@cache
def _tables(game: str, expansions: tuple[str, ...]):
    return games.get(game).load_cards(None, [], expansions)


def _sign(strategy: str, expansions=("leviathan",), field=FIELD, game="abyss"):
    return dict(_signed(strategy, expansions, tuple(field), game))


@cache
def _signed(strategy: str, expansions: tuple[str, ...], field: tuple[str, ...], game: str):
    """A signature is a pure function of its arguments: each is played once per module (the
    plain heuristic's serves two tests)."""
    return signature(game, _tables(game, expansions), strategy, list(field),
                     n_games=N_GAMES[game], seed=11)  # fmt: skip


def test_two_names_of_one_policy_sign_the_same_game_for_game() -> None:
    """The null case: `heuristic` and `heuristic:buy_min=4` (its default) make the same
    decisions on the same deals, so every count of every game is the same."""
    t = _tables("abyss", ("leviathan",))
    a = signature_games("abyss", t, "heuristic", FIELD, n_games=N_GAMES["abyss"], seed=11)
    b = signature_games("abyss", t, "heuristic:buy_min=4", FIELD, n_games=N_GAMES["abyss"],
                        seed=11)  # fmt: skip
    assert a == b
    assert len({r["IP"] for r in a}) > 5  # the games differ from one another


def test_what_it_recruits_is_what_it_wants() -> None:
    """Planted: "Recruit only if the best affordable Lord is worth at least [recruit_min]" with
    the Farmers worth 50 more and recruit_min 50: every Lord it recruits is a Farmer, where the
    plain heuristic recruits every guild; the guilds add up to the Lords. The same with each Key
    worth 50: the Lords it recruits carry Keys."""
    planted = _sign("heuristic:guild=farmer:guild_bonus=50:recruit_min=50")
    plain = _sign("heuristic")
    assert planted["lords"] > 1 and planted["farmer"] / planted["lords"] > 0.9
    assert plain["farmer"] / plain["lords"] < 0.4
    for sig in (planted, plain):
        assert sum(sig[g] for g in GUILDS) == pytest.approx(sig["lords"])
    keys = _sign("heuristic:key_weight=50:recruit_min=50")  # only Lords with a Key are worth it
    assert keys["lords"] > 1 and keys["key_lords"] / keys["lords"] > 0.9
    assert plain["key_lords"] / plain["lords"] < 0.8


@pytest.mark.parametrize("expansions", [("leviathan",), ()])
def test_how_often_it_fights_is_its_fighting_rule(expansions) -> None:
    """Known answers: fight_p 0 ("fights whenever the rules allow") and fight_threat 0 ("always
    fights") fight every Monster they may; in the base game fight_threat above the last space
    ("never") fights none it may decline."""
    always = _sign("heuristic:fight_p=0:fight_threat=0", expansions)
    assert always["chances"] > 1 and always["fight_share"] == 1.0
    if expansions:
        rare = _sign("heuristic:fight_p=0.9", expansions)
        assert rare["fight_share"] < 0.6 and rare["attacks"] < always["attacks"]
    else:
        never = _sign("heuristic:fight_threat=9", expansions)
        assert never["chances"] > 1 and never["fight_share"] == 0.0
        assert always["attacks"] == 0 and always["kills"] == 0  # no Leviathans


def test_buying_and_plotting_are_counted_with_their_pearls() -> None:
    """Known answers: buy_min 10 "never buys" (an Ally is worth 1-9): no Ally bought, no Pearl
    spent on one; plot_pearls 0 "plots whenever it can", and pays a Pearl each time."""
    never = _sign("heuristic:buy_min=10")
    assert never["bought"] == 0 and never["ally_pearls"] == 0 and never["taken"] > 0
    plots = _sign("heuristic:plot_pearls=0")
    assert plots["plot_pearls"] > 3 * max(_sign("heuristic")["plot_pearls"], 0.1)


def test_conspiracy_piles_and_keys() -> None:
    """Planted: pile_min 0 ("takes a pile whenever there is one") takes more discard piles than
    pile_min 999 ("hardly ever"), each pile at least one Lord; key_weight 100 places more Lords
    with Keys than key_weight 0 ("ignores Keys"). Null: draw 3 is the default."""
    field = ["key_hunter", "pile_raider"]

    def sign(strategy):
        return _sign(strategy, (), field, "conspiracy")

    takes, hardly = sign("heuristic:pile_min=0"), sign("heuristic:pile_min=999")
    assert takes["piles"] > hardly["piles"] + 2 and takes["pile_lords"] >= takes["piles"]
    assert sign("heuristic:key_weight=100")["key_lords"] > sign("heuristic:key_weight=0")[
        "key_lords"] + 1  # fmt: skip
    assert sign("heuristic:draw=3") == sign("heuristic")
    assert 0 <= takes["pearl_master"] <= 1 and takes["lords"] > 5


def test_the_table_signs_each_preset_its_tuned_and_open_versions(monkeypatch, tmp_path) -> None:
    """One row per hand-written preset and version that exists, against the field its tune's
    recorded command names (a tuned file of one preset, here)."""
    import reports.sections.signature as S

    registry = games.get("conspiracy").strategies()
    hand, _, open_ = registry.builtin
    tuned = tmp_path / "tuned.toml"
    tuned.write_text("# Made by: abyss-mc tune --game conspiracy --strategy key_hunter --players 2 "
                     "--against pile_raider --seed 3\n[key_hunter_tuned_2p]\npolicy = "
                     '"heuristic"\nkey_weight = 50\n')  # fmt: skip
    monkeypatch.setattr(registry, "_presets", registry._presets)  # restored afterwards
    monkeypatch.setattr(registry, "builtin", (hand, tuned, open_))
    calls = []

    def fake(jobs, workers=None):
        calls.extend(jobs)
        return [dict.fromkeys(CONSPIRACY_COLUMNS, np.nan) for _ in jobs]

    monkeypatch.setattr(S, "signatures", fake)
    text = archetype_table("conspiracy", 2, n_games=3, seed=1)
    assert [j["strategy"] for j in calls] == ["key_hunter", "key_hunter_tuned_2p",
                                              "key_hunter_open_2p"]  # fmt: skip
    assert all(j["field"] == ["pile_raider"] and j["n_games"] == 3 for j in calls)
    assert text.count("\n") == len(calls) + 1 and "`key_hunter_tuned_2p`" in text
