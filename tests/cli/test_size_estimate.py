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


def test_a_search_seat_costs_its_rollouts(abyss):
    spec, greedy, search, search128 = abyss
    heuristic = seat_seconds(spec, 4, [greedy] * 4)
    one_search = seat_seconds(spec, 4, [search, greedy, greedy, greedy])
    assert one_search > 100 * heuristic  # each of its decisions plays 64 games to their end
    looks = one_search - heuristic
    assert seat_seconds(spec, 4, [search128, greedy, greedy, greedy]) - heuristic == (
        pytest.approx(2 * looks))  # twice the rollouts, twice the look-ahead
    assert seat_seconds(spec, 5, [search] * 5) - heuristic == pytest.approx(5 * looks)


def test_the_reference_engine_is_counted_at_its_own_rate(abyss):
    spec, greedy, *_ = abyss
    assert seat_seconds(spec, 4, [greedy], "reference") > 100 * seat_seconds(spec, 4, [greedy])


# 0.24 CPU s a game with one search seat (docs/search.md), 2 cores: 100 and 40 minutes
@pytest.mark.parametrize(("n_games", "asks"), [(50_000, True), (20_000, False)])
def test_a_long_search_run_asks_where_the_heuristics_would_not(abyss, tmp_path, n_games, asks):
    spec, greedy, search, _ = abyss
    size = {"per_game": False, "out": tmp_path, "yes": False, "threads": 2, "n_players": 4}
    check_size(spec, "simulation", n_games * 4, policies=[greedy] * 4, **size)  # goes on
    lineup = [search, greedy, greedy, greedy]
    if asks:
        with pytest.raises(UserError, match=r"would take about 100 minutes on 2 core.*add --yes"):
            check_size(spec, "simulation", n_games * 4, policies=lineup, **size)
    else:
        check_size(spec, "simulation", n_games * 4, policies=lineup, **size)


def test_yes_goes_on_with_the_line(abyss, tmp_path, capsys):
    spec, greedy, search, _ = abyss
    check_size(spec, "simulation", 200_000, per_game=False, out=tmp_path, yes=True, threads=2,
               n_players=4, policies=[search, greedy, greedy, greedy])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "going on (--yes)" in err
