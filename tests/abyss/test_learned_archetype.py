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


def _asked(registry, game_cls, tables, archetype: str, field: list[str], n_games: int = 4):
    """Every decision with a choice of the seat playing `learned:archetype=X` (seats rotated):
    (decision, its choice, the choice of the archetype's tuned version and of the plain learned
    player in the same state)."""
    n = len(field) + 1
    player, plain = registry.table_policies([f"learned:archetype={archetype}", "learned"], n)
    base = registry.table_policies([player.archetype_version()], n)[0]  # its tuned version
    out = []

    def look(policy, game, seat, decision, options):
        counters = game.rng.counters.copy()  # a look draws nothing from the game
        choice = policy.choose(game, seat, decision, options)
        game.rng.counters[:] = counters
        return choice

    class Watched(type(player)):
        def choose(self, game, seat, decision, options):
            others = (look(base, game, seat, decision, options),
                      look(plain, game, seat, decision, options))
            choice = super().choose(game, seat, decision, options)
            if len(options) > 1:
                out.append((int(decision), int(choice), *others))
            return choice

    watched = Watched.__new__(Watched)
    watched.__dict__.update(player.__dict__)
    others = registry.table_policies(field, n)
    for g in range(n_games):
        lineup = [watched, *others]
        game_cls(tables, [lineup[(s + g) % n] for s in range(n)], 11, g).play()
    return player, out


def _check_archetype(registry, steers, game_cls, tables, archetype, field, least=20):
    player, asked = _asked(registry, game_cls, tables, archetype, field)
    kept = set(player.archetype_decisions())
    own = registry.hand_written_presets()[archetype].params
    assert kept == {d for p in own if p in steers for d in steers[p]}
    scored = set(player.slots.LEARNED_DECISIONS)
    free = scored - kept - set(player.shifted_decisions())
    version = registry.table_policies([player.archetype_version()], len(field) + 1)[0]
    mine = [(c, b) for d, c, b, _ in asked if d in kept]
    rest = [(c, p) for d, c, _, p in asked if d in free]
    assert len(rest) >= least, len(rest)
    assert all(c == b for c, b in mine), "a kept decision is its tuned version's"
    assert all(c == p for c, p in rest), "a decision no carried parameter steers is learned's"
    return player, version, mine, rest


@pytest.mark.parametrize("archetype", list(REGISTRY.hand_written_presets()))
def test_an_archetype_decides_where_its_own_parameters_steer(tables, archetype):
    """At each decision its own parameters steer (`STEERS`) the choice is that of the base
    heuristic with every parameter steering those decisions at the tuned version's values: its
    tuned version's choice in the same state; at a scored decision no carried parameter steers,
    it is the plain learned player's. A kept row scored by the weights, or a parameter not
    carried, makes them depart."""
    player, version, mine, _ = _check_archetype(REGISTRY, STEERS, Game, tables, archetype, FIELD)
    assert len(mine) > 10
    base = player.base_policy()
    for p in player.carried_parameters():  # there, its tuned version's own values
        assert getattr(base, p) == getattr(version, p), p


def test_a_conspiracy_archetype_decides_where_its_own_parameters_steer():
    from games.conspiracy.engine.cards.loader import load_cards as conspiracy_cards
    from games.conspiracy.engine.rules.game import Game as ConspiracyGame
    from games.conspiracy.strategies import REGISTRY as CONSPIRACY
    from games.conspiracy.strategies.learned import STEERS as CONSPIRACY_STEERS

    tables = conspiracy_cards()
    for archetype in ("pile_raider", "coalition_builder"):
        _check_archetype(CONSPIRACY, CONSPIRACY_STEERS, ConspiracyGame, tables, archetype,
                         ["key_hunter_open_3p", "high_ip_open_3p"], least=5)


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


def test_the_fight_rollouts_take_a_tier_of_more_strategies_than_seats(tables):
    """The learned tier has as many strategies as the tuned tier (8 at 4 players): the fight
    rollouts of the report make each for a table of the count, not of 8 seats (the default
    report stopped with "no built-in weights for 8 players" before this was fixed)."""
    from games.abyss.report.rollout import run_rollouts

    lineup = [f"learned:archetype={a}" for a in REGISTRY.hand_written_presets()]
    out = run_rollouts(tables, n_players=4, strategies=lineup, seed=3, n_points=4, replicates=2)
    assert len(out.points) > 0


def test_steers_lists_every_decision_a_parameter_changes(tables):
    """`STEERS` read from the heuristic, checked against it: at every scored decision of a few
    games, each heuristic parameter is set to the ends and the middle of its range (each guild),
    and where the heuristic's choice changes the parameter steers that decision. Each such pair
    must be in `STEERS` (a missing one would let an archetype's own parameter act on a decision
    the weights decide), and each parameter of `STEERS` must be seen to steer."""
    import dataclasses

    from games.abyss.engine import policy_params as P
    from strategies.registry import parameters

    heuristic = REGISTRY.make_policy("heuristic")
    docs = parameters(type(heuristic))
    variants = []
    for k, start in enumerate((heuristic, REGISTRY.make_policy("pearl_economist"))):  # a guild
        for name in STEERS:
            doc = docs[name]
            values = doc.choices or (doc.low, (doc.low + doc.high) / 2, doc.high)
            for v in values:
                v = type(getattr(start, name))(v) if not doc.choices else v
                variants.append(((k, name), dataclasses.replace(start, **{name: v})))
    seen: set[tuple[str, int]] = set()

    class Watched(type(heuristic)):
        def choose(self, game, seat, decision, options):
            if len(options) > 1 and decision in P.LEARNED_DECISIONS:
                counters = game.rng.counters.copy()
                picks = {}
                for key, v in variants:  # key: (the start, the parameter varied)
                    picks.setdefault(key, set()).add(v.choose(game, seat, decision, options))
                    game.rng.counters[:] = counters
                seen.update((key[1], int(decision)) for key, p in picks.items() if len(p) > 1)
            return super().choose(game, seat, decision, options)

    watched = Watched(**{f.name: getattr(heuristic, f.name) for f in dataclasses.fields(heuristic)})
    field = REGISTRY.table_policies(FIELD, 4)
    for cards in (tables, load_cards()):  # with Leviathan, and the base game's Monsters
        for g in range(4):
            lineup = [watched, *field]
            Game(cards, [lineup[(s + g) % 4] for s in range(4)], 17, g).play()
    listed = {(p, d) for p, ds in STEERS.items() for d in ds}
    assert seen <= listed, sorted(seen - listed)
    assert {p for p, _ in seen} == set(STEERS), set(STEERS) - {p for p, _ in seen}
