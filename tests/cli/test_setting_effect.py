"""docs/reliability.md, "Settings that cannot take effect: the rule": a setting that can take
effect in no game of the run is refused; one that takes effect at some of its player counts
plays, and the run says so in one line (issue 53: "or warned in one line when it is harmless")."""

from __future__ import annotations

import pytest

from sim import games
from sim.core.errors import UserError


@pytest.fixture(scope="module")
def abyss():
    spec = games.get("abyss")
    return spec, spec.load_cards(None, [], ("leviathan",))


@pytest.mark.parametrize(("counts", "seat", "note"), [
    ((3, 4), 4, "changes the 4-player games only; the 3-player tables have no seat 4"),
    ((2, 3, 4, 5), 3, "changes the 3, 4, 5-player games only; the 2-player tables have no seat 3"),
])  # fmt: skip
def test_a_setting_of_some_counts_plays_with_one_line(abyss, capsys, counts, seat, note):
    spec, tables = abyss
    spec.check_effect(tables, counts, [f"rules.seat_{seat}_pearls=2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"note: --set rules.seat_{seat}_pearls {note}"]


@pytest.mark.parametrize("counts", [(4,), (4, 5), (5,)])
def test_a_setting_of_every_count_says_nothing(abyss, capsys, counts):
    spec, tables = abyss
    spec.check_effect(tables, counts, ["rules.seat_4_pearls=2", "game.court_size=5"])
    assert capsys.readouterr().err == ""


def test_a_setting_of_no_count_is_refused(abyss, capsys):
    spec, tables = abyss
    with pytest.raises(UserError, match="no table of this run has a seat 5"):
        spec.check_effect(tables, (2, 3, 4), ["rules.seat_5_pearls=2"])
    assert capsys.readouterr().err == ""
