"""Issue 31's planted case for the tension metrics, on the engine: "A variant where early points
decide the game ... shows [an earlier] decisive point and lower comeback rate than the default,
significantly; the default against itself shows no difference."

The variant gives the first player 20 extra Pearls at the start (`--set
rules.first_player_pearls=20`, a balance experiment of the card data): that seat buys its Lords
sooner, leads from the first rounds and keeps the lead, so games are decided earlier and the
seat last after the first third of the game comes back less often. The null is the default
against itself on other deals. Both are checked on two seeds each (a few thousand games: every
16th game keeps its rounds).
"""

from __future__ import annotations

import pytest

from reports.metrics.tension import comeback_round, compare, measured
from sim import games

N_GAMES = 6400  # 400 sampled games
LINEUP = ["farmer", "pearl_economist", "key_hunter", "lord_rusher"]


def _tension(set_items, seed):
    from games.abyss.report.balance import tension_samples

    spec = games.get("abyss")
    tables = spec.load_cards(None, set_items)
    policies = spec.strategies().make_policies(LINEUP, 4)
    played = spec.play().run_games(tables, engine="fast", n_players=4, n_games=N_GAMES,
                                   seed=seed, policies=policies, per_game=False)  # fmt: skip

    class _Run:  # what tension_samples reads of a run
        parts = [type("Part", (), {"agg": played.aggregates})()]

    return tension_samples(_Run())[4]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_planted_early_lead_decides_games_earlier_and_cuts_comebacks(seed):
    default = _tension((), seed)
    planted = _tension(("rules.first_player_pearls=20",), seed)
    k = comeback_round(default)
    from reports.metrics.tension import tension

    a = tension(default.scores, default.win, default.final, ks=[k])
    b = tension(planted.scores, planted.win, planted.final, ks=[k])
    verdicts = compare(a, b).set_index("metric")["verdict"]
    assert verdicts["decisive_point"] == "lower"
    assert verdicts[f"comeback_{k}"] == "lower"


@pytest.mark.parametrize("seed", [1, 2])
def test_the_default_against_itself_shows_no_difference(seed):
    a, b = _tension((), seed), _tension((), seed + 100)
    verdicts = compare(measured(a), measured(b))["verdict"]
    assert (verdicts == "cannot tell").all(), verdicts
