"""An archetype played at the learned strength (`learned:archetype=X`, docs/learned.md
"Archetypes played well", issue 52): wherever the archetype's own parameters steer a decision its
tuned version decides; the learned player's weights decide the rest. The learned tier of the
report plays these, so that "best strategy" ranks the same approaches in every column.

Every check here can fail: each names the defect it guards against.
"""

from __future__ import annotations

import numpy as np
import pytest

from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.rules.game import Game
from games.abyss.strategies import REGISTRY
from games.abyss.strategies.learned import STEERS
from strategies.registry import StrategyError

EXP = ("leviathan",)
FIELD = ["farmer_open_4p", "leviathan_hunter_open_4p", "pearl_economist_open_4p"]


@pytest.fixture(scope="module")
def tables():
    return load_cards(expansions=EXP)


def _asked(tables, archetype: str, n_games: int = 6):
    """Every decision with a choice of the seat playing `learned:archetype=X` (seats rotated):
    (decision, its choice, the tuned version's choice in the same state)."""
    player, tuned = REGISTRY.table_policies(
        [f"learned:archetype={archetype}", f"{archetype}_tuned_4p"], 4)
    out = []

    class Watched(type(player)):
        def choose(self, game, seat, decision, options):
            counters = game.rng.counters.copy()  # the tuned version's look draws nothing here
            other = tuned.choose(game, seat, decision, options)
            game.rng.counters[:] = counters
            choice = super().choose(game, seat, decision, options)
            if len(options) > 1:
                out.append((int(decision), int(choice), int(other)))
            return choice

    watched = Watched.__new__(Watched)
    watched.__dict__.update(player.__dict__)
    field = REGISTRY.table_policies(FIELD, 4)
    for g in range(n_games):
        lineup = [watched, *field]
        policies = [lineup[(s + g) % 4] for s in range(4)]
        Game(tables, policies, 11, g).play()
    return player, out


@pytest.mark.parametrize("archetype", ["key_hunter", "leviathan_hunter", "auction_buyer"])
def test_an_archetype_decides_where_its_own_parameters_steer(tables, archetype):
    """At each decision its own parameters steer (`STEERS`), the choice is its tuned version's
    in the same state (a player whose base kept the learned base's values there, or scored
    those decisions with the weights, would depart); elsewhere the weights decide, and part from
    the tuned version somewhere (an archetype that ignored the weights would not)."""
    player, asked = _asked(tables, archetype)
    kept = set(player.archetype_decisions())
    own = REGISTRY.hand_written_presets()[archetype].params
    assert kept == {d for p in own for d in STEERS[p]} and kept
    mine = [(c, o) for d, c, o in asked if d in kept]
    rest = [(c, o) for d, c, o in asked if d not in kept]
    assert len(mine) > 30 and len(rest) > 30
    assert all(c == o for c, o in mine)
    assert any(c != o for c, o in rest)


def test_the_learned_player_itself_keeps_no_decision():
    from games.abyss.engine import policy_params as P

    player = REGISTRY.table_policies(["learned"], 4)[0]
    assert player.archetype_decisions() == ()
    base = REGISTRY.make_policy(player.loaded.meta["base"]).params()
    assert np.array_equal(player.params()[: P.L_WEIGHTS], base[: P.L_WEIGHTS])
    weights = player.params()[P.L_WEIGHTS : P.N_SLOTS]
    assert np.array_equal(weights, player.loaded.weights.reshape(-1))


def test_an_archetype_plays_its_tuned_version_for_the_table():
    for n in (2, 3, 4, 5):
        player = REGISTRY.table_policies(["learned:archetype=farmer"], n)[0]
        assert player.archetype_version() == f"farmer_tuned_{n}p"
        assert player.loaded.meta["players"] in (n, None) or n == 5


def test_an_unknown_archetype_is_refused_in_one_line():
    with pytest.raises(StrategyError, match="archetype must be one of") as err:
        REGISTRY.make_policy("learned:archetype=farmer_tuned_4p")
    assert "\n" not in str(err.value)


def test_every_steered_decision_is_one_the_weights_score():
    """A STEERS entry naming a decision the weights never score would keep nothing."""
    from games.abyss.engine import policy_params as P

    fields = set(REGISTRY.defaults("heuristic"))
    assert set(STEERS) <= fields
    assert {d for ds in STEERS.values() for d in ds} <= set(P.LEARNED_DECISIONS)


def test_the_learned_tier_plays_every_archetype_of_the_tuned_line_up():
    """`learned_lineup`: the tuned tier's archetypes, each at the learned strength as chosen
    (`archetypes.toml`), in the tuned line-up's order; "best strategy" then names an approach."""
    from reports.strengths import family, learned_lineup, tuned_lineup

    for n in (2, 3, 4, 5):
        tuned = tuned_lineup(REGISTRY, list(REGISTRY.hand_written_presets()), n)
        lineup = learned_lineup(REGISTRY, tuned, n)
        assert [family(s) for s in lineup] == [family(s) for s in tuned]
        assert any(s.startswith("learned:archetype=") for s in lineup)
        assert "learned" not in lineup
