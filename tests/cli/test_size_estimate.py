"""The estimate before a long run (issue 53: "Before a run that would take more than an hour or
more than a tenth of the free disk: one line with the estimate"): it counts what a seat costs,
the search's rollouts and the reference engine included, not only the heuristics' rate."""

from __future__ import annotations

import pytest

from reports.runs.setup import check_size, seat_seconds
from sim import games
from sim.core.errors import UserError


@pytest.fixture(scope="module")
def abyss():
    spec = games.get("abyss")
    make = spec.strategies().make_policy
    return spec, make("greedy"), make("search"), make("search:rollouts=128")


LEVIATHAN = ("leviathan",)


def test_a_search_seat_costs_its_rollouts(abyss):
    spec, greedy, search, search128 = abyss
    heuristic = seat_seconds(spec, 4, [greedy] * 4)
    one_search = seat_seconds(spec, 4, [search, greedy, greedy, greedy], expansions=LEVIATHAN)
    assert one_search > 100 * heuristic  # each of its decisions plays 64 games to their end
    looks = one_search - heuristic
    assert seat_seconds(spec, 4, [search128, greedy, greedy, greedy], expansions=LEVIATHAN) - (
        heuristic) == pytest.approx(2 * looks)  # twice the rollouts, twice the look-ahead
    assert seat_seconds(spec, 5, [search] * 5, expansions=LEVIATHAN) - heuristic == (
        pytest.approx(5 * looks))


def test_the_base_games_rollouts_are_the_longer(abyss):
    """Measured (docs/reliability.md): 64 rollouts cost about 1.0 CPU s a four-player game of
    the base game, 0.26 s with Leviathan; an expansion set not measured takes the slowest."""
    spec, greedy, search, _ = abyss
    lineup = [search, greedy, greedy, greedy]
    base, leviathan = (seat_seconds(spec, 4, lineup, expansions=e) for e in ((), LEVIATHAN))
    assert base > 3 * leviathan
    assert seat_seconds(spec, 4, lineup, expansions=("another",)) == base


def test_the_reference_engine_is_counted_at_its_own_rate(abyss):
    spec, greedy, *_ = abyss
    assert seat_seconds(spec, 4, [greedy], "reference") > 100 * seat_seconds(spec, 4, [greedy])


# with Leviathan 0.26 CPU s a game with one search seat, 2 cores: 110 and 43 minutes; the base
# game's 1.0 s: 2.8 hours
@pytest.mark.parametrize(("n_games", "expansions", "asks"), [
    (50_000, LEVIATHAN, "110 minutes"), (20_000, LEVIATHAN, None), (20_000, (), "2.8 hours")])
def test_a_long_search_run_asks_where_the_heuristics_would_not(abyss, tmp_path, n_games,
                                                               expansions, asks):  # fmt: skip
    spec, greedy, search, _ = abyss
    size = {"per_game": False, "out": tmp_path, "yes": False, "threads": 2, "n_players": 4,
            "expansions": expansions}  # fmt: skip
    check_size(spec, "simulation", n_games * 4, policies=[greedy] * 4, **size)  # goes on
    lineup = [search, greedy, greedy, greedy]
    if asks:
        with pytest.raises(UserError, match=rf"would take about {asks} on 2 core.*add --yes"):
            check_size(spec, "simulation", n_games * 4, policies=lineup, **size)
    else:
        check_size(spec, "simulation", n_games * 4, policies=lineup, **size)


def test_yes_goes_on_with_the_line(abyss, tmp_path, capsys):
    spec, greedy, search, _ = abyss
    check_size(spec, "simulation", 200_000, per_game=False, out=tmp_path, yes=True, threads=2,
               n_players=4, policies=[search, greedy, greedy, greedy])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "going on (--yes)" in err
