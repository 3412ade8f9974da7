"""Exact Leviathan fight and explore odds (games/abyss/engine/odds.py) and ``abyss-mc ev``.

Specification: the Leviathan rules text /work/shared/seeds/000_e41d5a114fc236c8.txt, sections
"Continue your Exploration: Add a Leviathan" and "Fight a Leviathan"; each docstring quotes the
sentence its test checks. Expected values are computed by hand from
games/abyss/engine/data/expansions/leviathan.toml.
"""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from games.abyss.engine import odds
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.cards.tables import CardTables
from games.abyss.engine.rules.leviathan import life_points_removed

runner = CliRunner()
F = Fraction


@pytest.fixture(scope="module")
def tables() -> CardTables:
    return load_cards(None, {}, expansions=("leviathan",))


def card(tables: CardTables, number: int) -> int:
    """Card index of the Leviathan with printed number `number`."""
    return [int(n) for n in tables.leviathan_number].index(number)


# --- one attack ------------------------------------------------------------------------------


def test_plain_ally_3_against_resistance_7(tables: CardTables) -> None:
    """ "Your Attack Power = the die result + the value of the discarded Ally." "If your Attack
    Power is equal to or greater than the Leviathan's Resistance, it loses 1 Life Point."
    3 + die >= 7 for die 4, 5, 6."""
    lev = card(tables, 20)  # spaces [[7, 1]]
    out = odds.attack_outcomes(tables, lev, 0, 3, "plain")
    assert out.p_damage == F(1, 2)
    assert out.p_kill == F(1, 2)
    assert out.removed == {0: F(1, 2), 1: F(1, 2)}
    assert out.expected_tokens == F(1, 2)
    assert out.expected_pearls_spent == 0


def test_two_dice_ally_3_against_resistance_7(tables: CardTables) -> None:
    """ "To calculate your Attack Power, roll BOTH dice and only take into account the higher of
    the two values." The higher die is >= 4 unless both are <= 3: 1 - 9/36 = 3/4."""
    out = odds.attack_outcomes(tables, card(tables, 20), 0, 3, "two_dice")
    assert out.p_damage == F(3, 4)
    assert odds.die_weights("two_dice") == ((1, 1), (2, 3), (3, 5), (4, 7), (5, 9), (6, 11))


def test_add_pearls_ally_3_with_2_pearls_against_resistance_7(tables: CardTables) -> None:
    """ "After rolling the die, you can spend as many Pearls as you wish to add to your Attack
    Power: +1 per Pearl." Power 4 + 2 < 7 fails (0 spent); power 5 spends 2, power 6 spends 1,
    powers 7-9 spend 0: P = 5/6, E[Pearls spent] = (2 + 1) / 6 = 1/2."""
    lev = card(tables, 20)
    out = odds.attack_outcomes(tables, lev, 0, 3, "add_pearls", 2)
    assert out.p_damage == F(5, 6)
    assert out.expected_pearls_spent == F(1, 2)
    spends = [odds.pearls_to_spend(tables, lev, 0, 3 + die, 2) for die in range(1, 7)]
    assert spends == [0, 2, 1, 0, 0, 0]


def test_multi_space_leviathan_plain_5_at_full_health(tables: CardTables) -> None:
    """ "If your Attack Power is equal to or greater than the sum of multiple Leviathan Resistance
    levels, it loses as many Life Points as levels are surpassed." Card 1, spaces
    [[3,1],[7,2],[5,1]]: powers 6-9 pass 3 only (1 Life Point, 1 token), powers 10-11 pass 3+7
    (2 Life Points, 1+2 tokens), 15 is out of reach."""
    lev = card(tables, 1)
    out = odds.attack_outcomes(tables, lev, 0, 5, "plain")
    assert out.lives_left == 3
    assert out.removed == {0: 0, 1: F(2, 3), 2: F(1, 3), 3: 0}
    assert out.expected_life_removed == F(4, 3)
    assert out.expected_tokens == F(4, 6) * 1 + F(2, 6) * 3 == F(5, 3)
    assert out.p_kill == 0
    assert out.p_damage == 1


def test_multi_space_kill_with_pearls(tables: CardTables) -> None:
    """ "When a Leviathan loses its last Life Point, it is dead." Card 1 at full health: an
    add-Pearls 4 with 5 Pearls has power 5..10 after the roll. Dice 1-5 reach 3 + 7 = 10 at most
    (2 Life Points, 1 + 2 tokens), spending 5, 4, 3, 2, 1 Pearls; a 6 reaches 3 + 7 + 5 = 15
    with all 5 Pearls (3 Life Points, 4 tokens)."""
    out = odds.attack_outcomes(tables, card(tables, 1), 0, 4, "add_pearls", 5)
    assert out.removed == {0: 0, 1: 0, 2: F(5, 6), 3: F(1, 6)}
    assert out.p_kill == F(1, 6)
    assert out.expected_tokens == F(5, 6) * 3 + F(1, 6) * 4 == F(19, 6)
    assert out.expected_pearls_spent == F(5 + 4 + 3 + 2 + 1 + 5, 6)


def test_leviathan_at_its_last_space(tables: CardTables) -> None:
    """ "When a Leviathan loses its last Life Point, it is dead." Card 1 with its Life token on
    the last space (Resistance 5, 1 token): a plain 1 needs a die >= 4."""
    lev = card(tables, 1)
    out = odds.attack_outcomes(tables, lev, 2, 1, "plain")
    assert out.lives_left == 1
    assert out.p_damage == out.p_kill == F(1, 2)
    assert out.expected_tokens == F(1, 2)
    assert odds.attack_outcomes(tables, lev, 2, 1, "two_dice").p_kill == F(3, 4)
    with pytest.raises(ValueError):
        odds.attack_outcomes(tables, lev, 3, 1, "plain")


def test_pearl_rule_never_spends_a_useless_pearl(tables: CardTables) -> None:
    """ "you can spend as many Pearls as you wish to add to your Attack Power: +1 per Pearl."
    The stated rule spends the fewest Pearls that reach the most Life Points all Pearls reach:
    one Pearl fewer always removes fewer Life Points, and it equals kcore.pearls_to_spend."""
    from games.abyss.engine.kernel import core as kcore
    from games.abyss.engine.kernel import workspace

    w = workspace.template(tables)
    for lev in range(tables.n_leviathans):
        for life in range(int(tables.leviathan_n_spaces[lev])):
            for power in range(2, 12):
                for pearls in range(odds.MAX_PEARLS + 1):
                    spend = odds.pearls_to_spend(tables, lev, life, power, pearls)
                    removed = life_points_removed(tables, lev, life, power + spend)
                    assert 0 <= spend <= pearls
                    assert removed == life_points_removed(tables, lev, life, power + pearls)
                    if spend:
                        assert life_points_removed(tables, lev, life, power + spend - 1) < removed
                    assert spend == kcore.pearls_to_spend(w, lev, life, power, pearls)


def test_every_row_matches_the_compiled_damage_chance(tables: CardTables) -> None:
    """ "If your Attack Power is less than the Leviathan's Resistance, your attack has no effect
    on it." For every row, 36 x p_damage = kcore.damage_chance_36 of the fast engine."""
    from games.abyss.engine.kernel import core as kcore
    from games.abyss.engine.kernel import workspace

    w = workspace.template(tables)
    numbers = [int(n) for n in tables.leviathan_number]
    rows = odds.fight_rows(tables)
    assert rows
    for r in rows:
        effect = int(odds.EFFECT_OF_KIND[r.ally_kind])
        lev = numbers.index(r.leviathan)
        n36 = kcore.damage_chance_36(w, lev, r.life_index, r.ally_value, effect, r.pearls_available)
        assert 36 * r.p_damage == n36, r


def test_rows_are_consistent(tables: CardTables) -> None:
    """ "Your Ally is discarded, but you still gain 1 Pearl": p_fail_pearl = 1 - p_damage; the
    tokens are worth the base Monster token deck's mean IP; an add-Pearls Ally without Pearls is
    a plain Ally."""
    ip = odds.token_ip_mean(tables)
    assert ip == F(53, 20)
    rows = odds.fight_rows(tables)
    plain = {(r.leviathan, r.life_index, r.ally_value): r for r in rows if r.ally_kind == "plain"}
    for r in rows:
        assert r.p_fail_pearl == 1 - r.p_damage
        assert r.expected_ip == r.expected_tokens * ip
        assert r.p_kill <= r.p_damage
        assert r.lives_left == int(tables.leviathan_n_spaces[card(tables, r.leviathan)]) - (
            r.life_index
        )
        if r.ally_kind == "add_pearls" and r.pearls_available == 0:
            p = plain[(r.leviathan, r.life_index, r.ally_value)]
            assert (r.p_damage, r.expected_tokens) == (p.p_damage, p.expected_tokens)


def test_fight_table_shape_and_columns(tables: CardTables) -> None:
    """ "choose a Leviathan from those present on the Border": one row per card, Life space, Ally
    value 1..5 and kind (Pearls 0..5 for the add-Pearls kind)."""
    df = odds.fight_table(tables)
    assert list(df.columns) == list(odds.FIGHT_COLUMNS)
    spaces = int(tables.leviathan_n_spaces.sum())
    assert len(df) == spaces * 5 * (1 + 6 + 1) == 1400
    assert df["p_damage"].dtype == float
    assert set(df["race"]) == {"jellyfish", "shellfish", "squid", "seahorse", "none"}


def test_leviathan_token_deck(tables: CardTables) -> None:
    """ "Depending on the token, gain 2 to 3 Pearls, a Key, or a Council stack." 20 tokens:
    8 x 2 Pearls (the 20th a placeholder), 4 x 3 Pearls, 4 Keys, 4 Council stacks."""
    deck = odds.leviathan_token_means(tables)
    assert deck == {
        "tokens": 20,
        "pearls": F(8 * 2 + 4 * 3, 20),
        "keys": F(4, 20),
        "council_stacks": F(4, 20),
    }


# --- exploring -------------------------------------------------------------------------------


def test_one_occupied_zone_is_its_2d6_weight(tables: CardTables) -> None:
    """ "roll the 2 dice. The sum of the results obtained indicates the Border zone where the
    Leviathan will position itself." The zone of sum 7 is hit 6 times in 36; its Leviathan 13
    gives 3 Wound tokens ("each Wound token in your possession costs 1 Influence Point")."""
    zone = int(tables.border_zone_of_sum[7])
    risk = odds.explore_risk(tables, {zone: card(tables, 13)})
    assert risk.p_attacked == F(6, 36)
    assert risk.expected_loss == {"wounds": F(6, 36) * 3, "pearls": 0, "allies": 0, "free_lords": 0}
    assert risk.zones[zone].sums == (7,)
    assert risk.zones[zone].penalty == "wounds" and risk.zones[zone].amount == 3
    two_sums = odds.explore_risk(tables, {0: None})  # zone 1: sums 2 and 3
    assert two_sums.zones[0].sums == (2, 3) and two_sums.p_attacked == F(3, 36)


def test_every_zone_occupied_means_certain_attack(tables: CardTables) -> None:
    """ "If the zone is occupied: The Leviathan already present in the zone attacks you before
    being removed by the newcomer; you cannot avoid this attack." """
    full = {z: None for z in range(tables.n_border_zones)}
    risk = odds.explore_risk(tables, full)
    assert risk.p_attacked == 1
    assert sum(z.p_land for z in risk.zones) == 1
    # unknown Leviathans: the penalty averaged over the 20 cards (37 Wound tokens in all)
    assert risk.expected_loss["wounds"] == F(37, 20)
    assert odds.explore_risk(tables, {}).p_attacked == 0


def test_the_attack_chance_of_every_border_counts_the_dice(tables: CardTables) -> None:
    """ "The sum of the results obtained indicates the Border zone where the Leviathan will
    position itself. If the zone is occupied: The Leviathan already present in the zone attacks
    you": for every set of occupied zones, the chance of an attack is the share of the 36 rolls
    whose sum points at one of them (the fight page's table of every set uses it)."""
    import itertools

    rolls = [a + b for a in range(1, 7) for b in range(1, 7)]
    zones = range(int(tables.n_border_zones))
    for k in range(len(zones) + 1):
        for occupied in itertools.combinations(zones, k):
            hits = sum(int(tables.border_zone_of_sum[s]) in occupied for s in rolls)
            assert odds.attack_chance(tables, occupied) == F(hits, 36)
            if k in (1, 4):
                risk = odds.explore_risk(tables, dict.fromkeys(occupied))
                assert risk.p_attacked == F(hits, 36)
                assert sum(z.p_land for z in risk.zones if z.occupied) == F(hits, 36)


def test_losses_are_capped_by_holdings(tables: CardTables) -> None:
    """ "Discard three Pearls. If you have fewer than three Pearls, discard all you have. If you
    possess no Pearls, this attack has no effect on you." (likewise Allies and free Lords)"""
    zone = int(tables.border_zone_of_sum[7])

    def loss(number: int, holdings: dict[str, int] | None) -> dict[str, Fraction]:
        risk = odds.explore_risk(tables, {zone: card(tables, number)}, holdings)
        return {k: v / F(6, 36) for k, v in risk.expected_loss.items()}

    assert loss(5, None)["pearls"] == 3  # card 5: pearls 3
    assert loss(5, {"pearls": 1})["pearls"] == 1
    assert loss(5, {"pearls": 0})["pearls"] == 0
    assert loss(5, {"allies": 0})["pearls"] == 3  # another holding does not cap it
    assert loss(1, {"allies": 2})["allies"] == 2  # card 1: allies 3
    assert loss(9, {"free_lords": 0})["free_lords"] == 0  # card 9: lord 1
    assert loss(13, {"pearls": 0, "allies": 0, "free_lords": 0})["wounds"] == 3
    with pytest.raises(ValueError):
        odds.explore_risk(tables, {zone: None}, {"pearls": -1})
    with pytest.raises(ValueError):
        odds.explore_risk(tables, {tables.n_border_zones: None})


# --- the CLI ---------------------------------------------------------------------------------


def _one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert "Traceback" not in text
    assert len(text.splitlines()) == 1, text
    assert text.startswith("error:"), text
    return text


def test_cli_fight_csv_has_the_columns_and_rows() -> None:
    """ "On your turn, you can fight ONLY ONE Leviathan. However, you can attack it multiple
    times": the table gives the odds of each attack."""
    result = runner.invoke(app, ["ev", "fight", "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert list(rows[0]) == list(odds.FIGHT_COLUMNS)
    assert len(rows) == 1400
    one = runner.invoke(
        app, ["ev", "fight", "--format", "csv", "--leviathan", "1", "--kind", "plain"]
    )
    assert len(list(csv.DictReader(io.StringIO(one.output)))) == 3 * 5


def test_cli_fight_json_and_table() -> None:
    """ "After rolling the die, you can spend as many Pearls as you wish": the output states the
    spending rule and the mean IP of a Monster token."""
    result = runner.invoke(app, ["ev", "fight", "--format", "json", "--leviathan", "20"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["spending_rule"] == odds.SPENDING_RULE
    assert doc["token_ip_mean"] == 2.65
    assert len(doc["rows"]) == 1 * 5 * 8
    plain3 = [r for r in doc["rows"] if r["ally_kind"] == "plain" and r["ally_value"] == 3]
    assert plain3[0]["p_damage"] == 0.5
    text = runner.invoke(app, ["ev", "fight", "--leviathan", "20", "--kind", "two_dice"]).output
    assert odds.SPENDING_RULE in text and "53/20" in text
    assert "27/36" in text  # two dice, value 3, against 7


def test_cli_fight_out_writes_the_file(tmp_path: Path) -> None:
    """ "Discard from your hand ONE Ally of the requested Race. Then, roll ONE die." """
    out = tmp_path / "fight.csv"
    result = runner.invoke(app, ["ev", "fight", "--format", "csv", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("leviathan,race,life_index")


def test_cli_explore() -> None:
    """ "The sum of the results obtained indicates the Border zone where the Leviathan will
    position itself." Zone 5 (sum 7) holds Leviathan 13, zone 7 (sum 9) an unknown one."""
    result = runner.invoke(app, ["ev", "explore", "--border", "5:13,7", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["p_attacked_exact"] == "5/18"  # (6 + 4) / 36
    assert doc["zones"][4]["resident"] == 13 and doc["zones"][6]["penalty"] == "average"
    text = runner.invoke(app, ["ev", "explore", "--border", "5:13", "--pearls", "2"]).output
    assert "6/36" in text
    empty = runner.invoke(app, ["ev", "explore"])
    assert empty.exit_code == 0 and "0/36" in empty.output


@pytest.mark.parametrize(
    "args",
    [
        ["fight", "--format", "xml"],
        ["fight", "--kind", "three_dice"],
        ["fight", "--leviathan", "99"],
        ["explore", "--format", "csv"],
        ["explore", "--border", "10"],
        ["explore", "--border", "0:1"],
        ["explore", "--border", "5:99"],
        ["explore", "--border", "5,5:13"],
        ["explore", "--border", "5:13,6:13"],
        ["explore", "--border", "five"],
        ["explore", "--pearls", "-1"],
        ["explore", "--allies", "-3"],
        ["explore", "--free-lords", "-1"],
    ],
)
def test_cli_bad_input_is_one_line(args: list[str]) -> None:
    """Errors the user can fix are one line, ``error: ...``, exit code 2."""
    _one_line_error(runner.invoke(app, ["ev", *args]))


def test_cli_bad_out_leaves_no_file(tmp_path: Path) -> None:
    """A bad --out is refused before any work, and nothing is written."""
    out = tmp_path / "missing" / "fight.csv"
    _one_line_error(runner.invoke(app, ["ev", "fight", "--out", str(out)]))
    assert not out.parent.exists()
    _one_line_error(runner.invoke(app, ["ev", "fight", "--out", str(tmp_path)]))
    bad = tmp_path / "bad.csv"
    _one_line_error(runner.invoke(app, ["ev", "fight", "--format", "xml", "--out", str(bad)]))
    assert not bad.exists()
