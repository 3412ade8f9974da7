"""The search player for Abyss: Conspiracy (docs/search.md): it never peeks, it is deterministic
from the run's seed, it takes a planted winning move, it only plays legal moves, and the
reference engine plays the very same games by calling the same compiled search.

What a player cannot see, from the rulebook (shared/seeds/004_f62d138e7f50b9bc.txt): only the
order of the two face-down decks. "Draw 1, 2 or 3 cards at the same time from the top of the Lord
deck, and then place them on the table in plain view"; "The remaining cards are discarded faceup";
Locations: "Draw 1, 2 or 3 Location cards at the same time. Choose one of them, then discard the
rest faceup.-OR- take 1 of the available faceup Locations". Chambers, piles, Pearls and Keys are
in plain view.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from conspiracy_helpers import bonus_tables, tables
from search_helpers import check_seen, check_unseen, reorder

from games.conspiracy.engine import state as S
from games.conspiracy.engine.fast import lineup_arrays
from games.conspiracy.engine.kernel import game as KN
from games.conspiracy.engine.kernel import search as KS
from games.conspiracy.engine.policies import D_KEEP, D_LOCATION_SOURCE, D_PLACE, D_SOURCE
from games.conspiracy.engine.rules.game import Game
from sim import games
from sim.core.search import PROBE

SPEC = games.get("conspiracy")
THIS = sys.modules[__name__]  # its _probe, _asked, _decide: for search_helpers
SEARCH = "search:rollouts=24"


def _policies(specs, n):
    return SPEC.strategies().make_policies(specs, n)


def _workspace(t, specs):
    kinds, params = lineup_arrays(_policies(specs, len(specs)))
    s = S.cached_template(t).copy()
    s[S.POLICY_KIND : S.POLICY_KIND + len(specs)] = kinds
    s[S.POLICY_PARAMS : S.POLICY_PARAMS + len(specs) * S.N_PARAMS] = params.reshape(-1)
    return s


def _reach(s, seed, game, n_players, wanted):
    """Play game `game` turn by turn as the driver does (the search deciding on the way) up to
    the first search decision for which `wanted(s, the turn's start)` holds (s: the probe's
    workspace, at the turn's end); the active seat and the turn's start there (None: the game
    ended first)."""
    KN.new_game(s, seed, game, n_players)
    while not KN.turn_limit(s):
        seat = s[S.NEXT_SEAT]  # np.int32, the driver's seat type: no second compile of the turn
        start = s[: S.SEARCH_BEGIN].copy()
        s[S.SCRIPT] = 0
        while True:
            s[: S.SEARCH_BEGIN] = start
            s[S.SEARCH_MODE], s[S.SEARCH_COUNT], s[S.SEARCH_FOUND] = PROBE, 0, 0
            KN.take_turn(s, seat)
            if s[S.SEARCH_FOUND] == 0:
                break
            if wanted(s, start):
                return seat, start
            k = s[S.SCRIPT]
            s[S.SCRIPT + 1 + k] = _decide(s, start, seat)[0]
            s[S.SCRIPT] = k + 1
        s[S.SEARCH_MODE] = 0
        if KN.end_of_turn(s, seat):
            return None
    return None


def _decide(s, start, active):
    n = int(s[S.SEARCH_N])
    visits, total = np.zeros(n, np.int64), np.zeros(n)
    rows = np.zeros((S.MAX_PLAYERS, KN.N_SEAT_FIELDS), np.int32)
    option = KS.search_decision(s, start, s.copy(), rows, np.int32(active), visits, total)
    return int(option), visits, total


def _probe(s, start, active):
    """The turn from `start` replayed with s's script to the search decision past it (the
    probe): its workspace at the turn's end, the decision recorded (if it was met)."""
    p = s.copy()
    p[: S.SEARCH_BEGIN] = start
    p[S.SEARCH_MODE], p[S.SEARCH_COUNT], p[S.SEARCH_FOUND] = PROBE, 0, 0
    KN.take_turn(p, np.int32(active))
    return p


def _asked(p):
    """The decision the probe recorded: seat, decision, options, the rollout policy's own
    (None: the turn met no decision past the script)."""
    if p[S.SEARCH_FOUND] != 1:
        return None
    n = int(p[S.SEARCH_N])
    options = [int(x) for x in p[S.SEARCH_OPTS : S.SEARCH_OPTS + n]]
    return int(p[S.SEARCH_SEAT]), int(p[S.SEARCH_DECISION]), options, int(p[S.SEARCH_DEFAULT])


def _piles(s):
    return any(s[S.PILES + c * S.PILE_STRIDE] > 0 for c in range(S.MAX_COLOURS))


def _first(s, start):
    """A turn's first decision, the recruitment's source, with a discard pile on the table:
    nothing drawn yet, both decks may be reordered whole."""
    return s[S.SCRIPT] == 0 and s[S.SEARCH_DECISION] == D_SOURCE and _piles(start)


def _later(s, start):
    """A decision after cards were drawn (keeping a Lord, placing, a Location), with a discard
    pile on the table."""
    return s[S.SCRIPT] >= 1 and s[S.SEARCH_DECISION] != D_SOURCE and _piles(start)


def _seen_changed(start):
    """A card in plain view changed: a discard pile's Lord for one of the Lord deck of the same
    colour and other IP (the pile stays one colour)."""
    seen = start.copy()
    colour = next(c for c in range(S.MAX_COLOURS) if seen[S.PILES + c * S.PILE_STRIDE] > 0)
    pile = S.PILES + colour * S.PILE_STRIDE
    deck = seen[S.LORD_DECK + 1 : S.LORD_DECK + 1 + seen[S.LORD_DECK]]
    i = next(i for i, lord in enumerate(deck) if seen[S.T_LORD_COLOUR + lord] == colour
             and seen[S.T_LORD_IP + lord] != seen[S.T_LORD_IP + seen[pile + 1]])  # fmt: skip
    seen[pile + 1], seen[S.LORD_DECK + 1 + i] = seen[S.LORD_DECK + 1 + i], seen[pile + 1]
    return seen


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_the_search_never_peeks_at_the_face_down_decks(n_players):
    """Both face-down decks' unseen cards in another order in the turn's start: the turn
    re-probed reaches the same decision (its options and the rollout policy's own option
    recomputed), and the search's rollouts are the same to the bit (every option's visits and
    summed reward, the option played), at a turn's first decision (both decks reordered whole)
    and at a later one (below every card the turn draws) of three games each, each changed
    twice. A card in plain view changed (`_seen_changed`) changes the decision's options or the
    summed reward of its default option."""
    t = tables()
    specs = [SEARCH] + ["key_hunter_open_2p"] * (n_players - 1)
    for wanted in (_first, _later):
        found = 0
        for game in range(40):
            s = _workspace(t, specs)
            reached = _reach(s, 3, game, n_players, wanted) if found < 3 else None
            if not reached:
                continue
            found += 1
            active, start = reached
            end = s[: S.SEARCH_BEGIN].copy()
            decided = _decide(s, start, active)
            rng = np.random.default_rng([n_players, game])
            for _ in range(2):
                changed = start.copy()
                reorder(changed, start, end, (S.LORD_DECK, S.LOC_DECK), rng, wanted is _first)
                assert not np.array_equal(changed, start)
                check_unseen(THIS, s, start, active, changed, decided)
            check_seen(THIS, s, active, _seen_changed(start), decided)
        assert found == 3, wanted.__name__


def _features(s, start, active):
    """The learned player's features of the decision's options, as the recording probe writes
    them (S.REC_FEATURES), with its weight row (-1: not scored)."""
    p = s.copy()
    p[: S.SEARCH_BEGIN] = start
    p[S.REC_ON], p[S.REC_ROW] = 1, -2  # (-2: not written)
    p[S.SEARCH_MODE], p[S.SEARCH_COUNT], p[S.SEARCH_FOUND] = PROBE, 0, 0
    KN.take_turn(p, np.int32(active))
    assert _asked(p) == _asked(s)
    n = int(p[S.SEARCH_N])
    return int(p[S.REC_ROW]), p[S.REC_FEATURES : S.REC_FEATURES + n * S.N_FEATURES].copy()


def test_the_learned_players_features_never_peek():
    """The learned player sees what its seat sees (docs/learned.md): both face-down decks'
    unseen cards reordered in the turn's start, every option's features are the same; a card in
    plain view changed (an opponent's Pearls), some are not (the comparison can fail)."""
    t = tables()
    specs = [SEARCH, "key_hunter_open_2p"]
    found = seen = 0
    for wanted in (_first, _later):
        for game in range(40):
            s = _workspace(t, specs)
            reached = _reach(s, 3, game, 2, wanted)
            if not reached:
                continue
            active, start = reached
            end = s[: S.SEARCH_BEGIN].copy()
            row, features = _features(s, start, active)
            assert row >= -1
            rng = np.random.default_rng([2, game])
            for _ in range(2):
                changed = start.copy()
                reorder(changed, start, end, (S.LORD_DECK, S.LOC_DECK), rng, wanted is _first)
                again, same = _features(s, changed, active)
                assert again == row and np.array_equal(same, features), (game, row)
            if row >= 0 and wanted is _first:  # the opponent's Pearls, in plain view
                richer = start.copy()
                richer[S.pbase(1 - active) + S.P_PEARLS] += 5
                if _asked(_probe(s, richer, active)) == _asked(s):
                    seen += not np.array_equal(_features(s, richer, active)[1], features)
            found += 1
            if found % 3 == 0:
                break
    assert found == 6 and seen > 0


def test_search_games_are_deterministic_and_independent_of_the_batch_and_threads():
    t = tables()
    policies = _policies([SEARCH, "key_hunter_open_2p"], 2)
    run = SPEC.play().run_games
    both = run(t, engine="fast", n_players=2, n_games=3, seed=8, policies=policies, threads=2)
    again = run(t, engine="fast", n_players=2, n_games=3, seed=8, policies=policies, threads=1)
    pd.testing.assert_frame_equal(both.seats, again.seats)
    pd.testing.assert_frame_equal(both.games, again.games)
    one = run(t, engine="fast", n_players=2, n_games=1, seed=8, policies=policies, threads=1)
    pd.testing.assert_frame_equal(one.seats, both.seats[both.seats["game"] == 0])
    other = run(t, engine="fast", n_players=2, n_games=3, seed=9, policies=policies, threads=1)
    assert not other.seats["score"].equals(both.seats["score"])


@pytest.mark.parametrize("confidence", ["", ":confidence=1"])
def test_a_budget_too_small_to_confirm_plays_the_rollout_policys_games(confidence):
    """At 8 rollouts the confirmation keeps at most 2 pairs and never convinces (p >= 1/4), and
    with confidence 1 nothing does: the search plays its rollout policy's own option at every
    decision, so its games are the policy's, byte for byte, on 40 deals, seats rotated. (The
    rule once played UCB1's choice where the budget kept no pair, among 7 or more options:
    7 of 40 games the same, and the search won 39.5% of 200 where the policy wins 50%.)"""
    model = "key_hunter_open_2p"
    run = SPEC.play().run_games
    searched = _policies([f"search:rollouts=8:rollout_policy={model}{confidence}", model], 2)
    plain = _policies([model, model], 2)
    a = run(tables(), engine="fast", n_players=2, n_games=40, seed=21, policies=searched)
    b = run(tables(), engine="fast", n_players=2, n_games=40, seed=21, policies=plain)
    same = a.seats.columns.drop("strategy")
    pd.testing.assert_frame_equal(a.seats[same], b.seats[same])
    pd.testing.assert_frame_equal(a.games, b.games)


def test_a_planted_winning_lord_is_always_kept():
    """"Choose ONE CARD ONLY to add to your Senate Chamber. The remaining cards are discarded
    faceup": offered three Lords, one of them made worth 60 IP (the card table's IP; a colour's
    most influential Lord scores), the search keeps it, whichever it is. Left in a discard
    pile, the opponent would take it."""
    t = tables()
    for game in range(2, 40):
        s = _workspace(t, [SEARCH, "key_hunter_open_2p"])
        reached = _reach(s, 4, game, 2, lambda s, _: s[S.SEARCH_DECISION] == D_KEEP
                         and s[S.SEARCH_N] >= 3)  # fmt: skip
        if reached:
            break
    active, start = reached
    options = s[S.SEARCH_OPTS : S.SEARCH_OPTS + s[S.SEARCH_N]].copy()
    plain = _decide(s, start.copy(), active)[0]
    for lord in options:
        planted = start.copy()
        planted[S.T_LORD_IP + lord] = 60
        assert _decide(s, planted, active)[0] == lord, (lord, plain)


class Checked:
    """A seat that plays `random` until turn `from_turn`, then searches; every option it
    picks is recorded with the legal options the rules gave (`rules.Game.choose`)."""

    REPLAYS_TURNS = True

    def __init__(self, search, random, from_turn):
        self.search, self.random, self.from_turn = search, random, from_turn
        self.name, self.kind = "checked", search.kind
        self.picked: list[tuple[int, list[int], int]] = []

    def params(self):
        return self.search.params()

    def choose(self, game, seat, decision, options):
        if game.turn < self.from_turn:
            return self.random.choose(game, seat, decision, options)
        option = self.search.choose(game, seat, decision, options)
        self.picked.append((int(decision), list(options), option))
        return option


@pytest.mark.parametrize("cards", ["seed", "bonus"])
def test_the_search_plays_only_legal_moves_from_random_states(cards, n_games=40):
    """Random games to a random turn, then the search in one seat: each of its options is one
    the rules offered (rules.Game lists them: sources, kept and placed Lords, swaps,
    Locations)."""
    t = tables() if cards == "seed" else bonus_tables()
    rng = np.random.default_rng(5)
    decisions, picked = set(), 0
    for game in range(n_games):
        n_players = int(rng.integers(2, 5))
        search, random = _policies(["search:rollouts=6", "random"], 2)
        seat = Checked(search, random, from_turn=int(rng.integers(1, 12 * n_players)))
        lineup = [seat] + _policies(["random"], n_players - 1)
        Game(t, lineup, seed=31, game=game, record=False).play()
        for decision, options, option in seat.picked:
            assert option in options, (decision, options, option)
            decisions.add(decision)
        picked += len(seat.picked)
    assert picked >= 5 * n_games  # (a game may end before its random turn)
    assert {D_SOURCE, D_KEEP, D_PLACE, D_LOCATION_SOURCE} <= decisions


def test_the_reference_engine_plays_the_same_search_games():
    t = tables()
    policies = _policies(["search:rollouts=8", "key_hunter_open_2p"], 2)
    play = SPEC.play().run_games
    fast = play(t, engine="fast", n_players=2, n_games=3, seed=4, policies=policies)
    reference = play(t, engine="reference", n_players=2, n_games=3, seed=4, policies=policies)
    pd.testing.assert_frame_equal(fast.seats, reference.seats)
    pd.testing.assert_frame_equal(fast.games, reference.games)


def test_a_search_the_reference_engine_cannot_replay_is_one_clear_error():
    from conspiracy_helpers import Scripted

    from strategies.registry import StrategyError

    search = _policies(["search"], 1)[0]
    with pytest.raises(StrategyError, match="games played by `Game.play`") as info:
        search.choose(Game(tables(), [search, search], 1), 0, D_SOURCE, [1, 2, 3])
    assert "\n" not in str(info.value)
    with pytest.raises(StrategyError, match="all must be built-in strategies or presets"):
        Game(tables(), [search, Scripted()], 1).play()
