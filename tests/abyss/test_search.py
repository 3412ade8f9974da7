"""The search player (issue 21): "It never peeks: a test gives two states that differ only in
hidden cards the player has not seen and checks that the decision does not depend on them (same
decision for the same search seed)"; "Deterministic from the run's seed on any thread count; both
engines play the same games (the reference engine may call the compiled search)"; legal moves on
random states: every search decision is among the options the rules (the reference engine) give,
and the fast path ends those games in the same state."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from abyss_parity import TRACE_CAP, compare, decoded
from search_helpers import check_seen, check_unseen, redeal, reorder

from games.abyss.engine import state as S
from games.abyss.engine.fast import lineup_arrays
from games.abyss.engine.kernel import base as B
from games.abyss.engine.kernel import core as K
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import tables as T
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.policy_params import N_FEATURES, N_SLOTS
from games.abyss.engine.policy_params import SEARCH as SEARCH_KIND
from games.abyss.engine.rules.decode import decode
from games.abyss.engine.rules.game import Game
from sim import games
from sim.core.search import PROBE
from sim.core.workspace import trace_of

SPEC = games.get("abyss")
THIS = sys.modules[__name__]  # its _probe, _asked, _decide: for search_helpers
SEARCH = "search:rollouts=24"


def _policies(specs, n):
    return SPEC.strategies().make_policies(specs, n)


def _workspace(tables, specs):
    kinds, params = lineup_arrays(_policies(specs, len(specs)))
    s = KN.new_workspace(W.cached_template(tables), kinds, params)
    return s


def _reach(s, seed, game, n_players, wanted):
    """Play game `game` turn by turn as the driver does (the search deciding on the way) up to
    the first decision of a search seat for which `wanted(s, active seat)` holds (s: the probe's
    workspace, at the turn's end); the active seat and the turn's start there (None: the game
    ended first)."""
    KN.new_game(s, seed, game, n_players)
    while True:
        seat = s[S.NEXT_SEAT]  # np.int32, the driver's seat type: no second compile of the turn
        start = s[: W.SEARCH_BEGIN].copy()
        s[W.SCRIPT] = 0
        while True:
            s[: W.SEARCH_BEGIN] = start
            s[W.SEARCH_MODE], s[W.SEARCH_COUNT], s[W.SEARCH_FOUND] = PROBE, 0, 0
            KN.take_turn(s, seat)
            if s[W.SEARCH_FOUND] == 0:
                break
            if wanted(s, seat):
                return seat, start
            k = s[W.SCRIPT]
            s[W.SCRIPT + 1 + k] = _decide(s, start, seat)[0]
            s[W.SCRIPT] = k + 1
        s[W.SEARCH_MODE] = 0
        if KN.end_of_turn(s, seat):
            return None


def _decide(s, start, active):
    n = int(s[W.SEARCH_N])
    visits, total = np.zeros(n, np.int64), np.zeros(n)
    rows = np.zeros((S.MAX_PLAYERS, S.N_SEAT_FIELDS), np.int32)
    option = KN.search_decision(s, start, s.copy(), rows, np.int32(active), visits, total)
    return int(option), visits, total


def _probe(s, start, active):
    """The turn from `start` replayed with s's script to the search decision past it (the
    probe, as the driver's): its workspace at the turn's end, the decision recorded."""
    p = s.copy()
    p[: W.SEARCH_BEGIN] = start
    p[W.SEARCH_MODE], p[W.SEARCH_COUNT], p[W.SEARCH_FOUND] = PROBE, 0, 0
    KN.take_turn(p, np.int32(active))
    assert p[W.SEARCH_FOUND] == 1
    return p


def _asked(p):
    """The decision the probe recorded: seat, decision, options, the rollout policy's own."""
    n = int(p[W.SEARCH_N])
    options = [int(x) for x in p[W.SEARCH_OPTS : W.SEARCH_OPTS + n]]
    return int(p[W.SEARCH_SEAT]), int(p[W.SEARCH_DECISION]), options, int(p[W.SEARCH_DEFAULT])


#: the face-down stacks: "Shuffle the Location tiles and form a face-down stack", "Shuffle the
#: Exploration cards and form a face-down deck", "Shuffle the Lord cards and form a face-down
#: deck", "Shuffle the Monster tokens and place them face down"; with Leviathan "Place this deck
#: face down" and "a second deck with the new Monster tokens, which you will place face down"
HIDDEN = (S.EXP_DECK, S.LORD_DECK, S.LOC_DECK, S.MONSTER_TOKENS, S.LEV_DECK, S.LEV_TOKENS)
#: a player's face-down tokens ("Drawn at random and kept face down"; Leviathan's: "you have
#: the option, after consulting them, to reveal them immediately or reveal them at the start of
#: one of your next turns"), each with the deck it comes from
TOKENS = ((S.MONSTER_TOKENS, S.P_TOKENS), (S.LEV_TOKENS, S.P_HELD))


def _unseen_changed(start, end, searching, n_players, rng, whole):
    """The turn's start with what `searching` cannot see at the decision changed: every
    face-down stack's unseen cards reordered, the opponents' face-down tokens redealt
    (`search_helpers`); and how many of the opponents' tokens of each kind were redealt."""
    changed = start.copy()
    reorder(changed, start, end, HIDDEN, rng, whole)
    redealt = np.zeros(len(TOKENS), np.int64)
    for kind, (pool, field) in enumerate(TOKENS):
        hands = [K.pbase(q) + field for q in range(n_players) if q != searching]
        if redeal(changed, start, end, pool, hands, rng, whole):
            redealt[kind] = sum(int(start[h]) for h in hands)
    return changed, redealt


def _opponents_hold(s, field):
    """Whether an opponent of the searching seat holds face-down tokens (P_TOKENS, P_HELD)."""
    seat = s[W.SEARCH_SEAT]
    return any(s[K.pbase(q) + field] > 0 for q in range(s[S.N_PLAYERS]) if q != seat)


def _seen_changed(start, searching):
    """The turn's start with a card the searching seat has seen changed: one of its own
    Monster tokens (it consulted them) for one of another worth from the deck, else the
    Court's first Lord for the Lord deck's bottom card."""
    seen = start.copy()
    own, pool = K.pbase(searching) + S.P_TOKENS, S.MONSTER_TOKENS
    worth = lambda token: start[T.MONSTER_TOKEN_IP + token]  # noqa: E731
    other = [i for i in range(start[pool]) if start[own] and
             worth(start[pool + 1 + i]) != worth(start[own + 1])]  # fmt: skip
    if other:
        seen[own + 1], seen[pool + 1 + other[0]] = start[pool + 1 + other[0]], start[own + 1]
    else:
        seen[S.COURT + 1], seen[S.LORD_DECK + 1] = start[S.LORD_DECK + 1], start[S.COURT + 1]
    return seen


def _first(s, active):
    """The first search decision of the searching seat's own turn, an opponent holding
    Monster tokens: nothing drawn in the turn yet, every face-down stack may be reordered
    whole."""
    return s[W.SCRIPT] == 0 and s[W.SEARCH_SEAT] == active and _opponents_hold(s, S.P_TOKENS)


def _later(s, active):
    """A search decision after the turn's first (cards may have been drawn), an opponent
    holding Monster tokens."""
    return (s[W.SCRIPT] >= 1 or s[W.SEARCH_SEAT] != active) and _opponents_hold(s, S.P_TOKENS)


def _held(s, active):
    """A search decision with an opponent holding Leviathan's tokens face down."""
    return _opponents_hold(s, S.P_HELD)


def _places(tables, specs, wants, n=3, seed=3):
    """For each predicate of `wants`, the first n games of `seed` that reach such a decision:
    (predicate, game, the workspace there, the active seat, the turn's start)."""
    for wanted in wants:
        found = 0
        for game in range(40):
            s = _workspace(tables, specs)
            reached = _reach(s, seed, game, len(specs), wanted) if found < n else None
            if reached:
                found += 1
                yield wanted, game, s, *reached
        assert found == n, wanted.__name__


#: (expansions, the opponents): `random` keeps Leviathan's tokens face down for a while (the
#: presets reveal them at once)
PEEK_CONFIGS = [((), ["leviathan_hunter"]), (("leviathan",), ["random", "leviathan_hunter"]),
                (("leviathan",), ["leviathan_hunter", "random", "greedy"])]  # fmt: skip


@pytest.mark.parametrize(("expansions", "opponents"), PEEK_CONFIGS,
                         ids=["base-2p", "leviathan-3p", "leviathan-4p"])  # fmt: skip
def test_the_search_never_peeks_at_the_hidden_cards(expansions, opponents):
    """What the searching seat cannot see, changed in the turn's start: every face-down stack's
    unseen cards in another order, the opponents' face-down tokens redealt. The turn re-probed
    reaches the same decision (its options and the rollout policy's own option recomputed),
    and the search's rollouts are the same to the bit (every option's visits and summed reward,
    the option played): at the first and at a later decision of three games with opponents
    holding Monster tokens (with Leviathan, also one with an opponent holding its tokens), each
    changed twice. A card the seat has seen changed (`_seen_changed`) changes the decision's
    options or the summed reward of its default option."""
    tables = SPEC.load_cards(None, [], expansions)
    n_players = 1 + len(opponents)
    redealt = np.zeros(len(TOKENS), np.int64)
    wants = (_first, _later, _held) if expansions else (_first, _later)
    for wanted, game, s, active, start in _places(tables, [SEARCH, *opponents], wants):
        searching, end = int(s[W.SEARCH_SEAT]), s[: W.SEARCH_BEGIN].copy()
        decided = _decide(s, start, active)
        rng = np.random.default_rng([n_players, game])
        for _ in range(2):
            changed, n = _unseen_changed(start, end, searching, n_players, rng, wanted is _first)
            assert not np.array_equal(changed, start)
            redealt += n
            check_unseen(THIS, s, start, active, changed, decided)
        check_seen(THIS, s, active, _seen_changed(start, searching), decided)
    assert redealt[0] > 0 and (redealt[1] > 0 or not expansions)  # tokens were redealt


def _features(s, start, active):
    """The learned player's features of the decision's options, as the recording probe writes
    them (W.REC_FEATURES; its weight row first, -1: not a decision it scores)."""
    p = s.copy()
    p[: W.SEARCH_BEGIN] = start
    p[W.REC_ON], p[W.REC_ROW] = 1, -2  # (-2: not written)
    p[W.SEARCH_MODE], p[W.SEARCH_COUNT], p[W.SEARCH_FOUND] = PROBE, 0, 0
    KN.take_turn(p, np.int32(active))
    if p[W.SEARCH_FOUND] != 1 or _asked(p)[:2] != _asked(s)[:2]:
        return None, None  # the change took the turn elsewhere (an opponent's choice changed)
    n = int(p[W.SEARCH_N])
    return int(p[W.REC_ROW]), p[W.REC_FEATURES : W.REC_FEATURES + n * N_FEATURES].copy()


def test_the_learned_players_features_never_peek():
    """The learned player sees only what its seat sees (docs/learned.md): with every face-down
    stack reordered and the opponents' face-down tokens redealt in the turn's start, the
    features of every option at the decision are the same; an opponent's Pearls (public)
    changed, they are not (the comparison can fail)."""
    tables = SPEC.load_cards(None, [], ("leviathan",))
    opponents = ["leviathan_hunter", "random", "greedy"]
    scored = public_seen = 0
    for wanted, game, s, active, start in _places(tables, [SEARCH, *opponents],
                                                  (_first, _later, _held)):  # fmt: skip
        searching = int(s[W.SEARCH_SEAT])
        row, features = _features(s, start, active)
        assert row is not None and row >= -1  # the probe wrote its record
        rng = np.random.default_rng([4, game])
        for _ in range(2):
            changed, _ = _unseen_changed(start, s[: W.SEARCH_BEGIN], searching, 4, rng,
                                         wanted is _first)  # fmt: skip
            again, seen = _features(s, changed, active)
            assert again == row and np.array_equal(seen, features), (game, row)
        if row >= 0:
            scored += 1
            for q in range(1, 4):
                richer = start.copy()
                richer[K.pbase((searching + q) % 4) + S.P_PEARLS] += 50
                seen = _features(s, richer, active)[1]
                public_seen += seen is not None and not np.array_equal(seen, features)
    assert scored > 0 and public_seen > 0


def test_search_games_are_deterministic_and_independent_of_the_batch():
    tables = SPEC.load_cards(None, [], ())
    policies = _policies([SEARCH, "leviathan_hunter"], 2)
    run = SPEC.play().run_games
    both = run(tables, engine="fast", n_players=2, n_games=2, seed=8, policies=policies)
    again = run(tables, engine="fast", n_players=2, n_games=2, seed=8, policies=policies)
    pd.testing.assert_frame_equal(both.seats, again.seats)
    one = run(tables, engine="fast", n_players=2, n_games=1, seed=8, policies=policies)
    pd.testing.assert_frame_equal(one.seats, both.seats[both.seats["game"] == 0])


def test_a_planted_winning_move_is_found():
    """Recruiting a Lord worth 60 IP wins the game outright: offered it among other Lords, the
    search takes it, whichever Lord that is, unless the option it plays wins every one of its
    rollouts too (the Lord stays in the Court: recruited next turn, it wins as well). Over
    three recruitments; at least once the planted Lord is taken against the rollout policy's
    own choice (the rule departs for it)."""
    from games.abyss.engine.policies import D_RECRUIT_LORD

    tables = SPEC.load_cards(None, [], ())
    def recruiting(s, _):
        return s[W.SEARCH_DECISION] == D_RECRUIT_LORD and s[W.SEARCH_N] >= 2

    departed = 0
    for _, game, s, active, start in _places(tables, [SEARCH, "leviathan_hunter"], [recruiting],
                                             seed=4):  # fmt: skip
        _, _, options, default = _asked(s)
        for lord in options:
            planted = start.copy()
            planted[T.LORD_IP + lord] = 60
            option, visits, total = _decide(s, planted, active)
            i = options.index(option)
            assert option == lord or total[i] >= visits[i], (game, lord, option, visits, total)
            departed += option == lord != default
    assert departed > 0


# ------------------------------------------------------------ both engines, the same games
SMALL = "search:rollouts=8"
#: (expansions, line-up): against presets, two search seats (one with other rollouts), random
PARITY_LINEUPS = [
    ((), [SMALL, "leviathan_hunter"]),
    (("leviathan",), [SMALL, "pearl_economist_open_3p", "farmer"]),
    (("leviathan",), ["random", SMALL, "greedy", "search:rollouts=8:rollout_policy=farmer"]),
    (("leviathan",), [f"{SMALL}:opponents=own", "random", "farmer", SMALL]),
]
PARITY_IDS = ["base-2p", "leviathan-3p", "leviathan-4p-two-searches", "leviathan-4p-own-opponents"]


@pytest.mark.parametrize("model", ["rollout", "own"])
def test_the_rollouts_model_the_opponents_as_asked(all_tables, model):
    """`opponents=rollout`: every seat plays the search's rollout policy in its rollouts.
    `opponents=own`: the opponents keep their own strategies (their kind and parameters), but
    another search seat plays the rollout policy (a search inside a rollout would never end)."""
    lineup = [f"search:rollout_policy=farmer:opponents={model}", "random", "key_hunter",
              "search:rollout_policy=greedy"]  # fmt: skip
    s = _workspace(all_tables[("leviathan",)], lineup)
    KN.new_game(s, 1, 0, 4)
    kinds, params = lineup_arrays(_policies(lineup, 4))
    farmer = _policies(["farmer"], 1)[0]
    n = N_SLOTS
    B.rollout_policy(s, 0)
    for q in range(4):
        kind = s[W.POLICY_KIND + q]
        vec = s[W.POLICY_PARAMS + q * W.N_PARAMS:][:n]
        if model == "own" and q in (1, 2):
            assert kind == kinds[q] and np.array_equal(vec, params[q][:n])
        else:
            assert kind == farmer.kind and np.array_equal(vec, farmer.params()[:n]), q


@pytest.fixture(scope="module")
def all_tables():
    return {exp: SPEC.load_cards(None, [], exp) for exp in ((), ("leviathan",))}


def _parity(t, lineup, seed, games):
    base = W.template(t)
    n_searched = 0
    for game in games:
        ref = compare(t, base, lineup, seed, game, play=KN.play_game)
        kinds = [p.kind for p in ref.policies]
        n_searched += sum(1 for q, _, _, _ in ref.trace if kinds[q] == SEARCH_KIND)
    assert n_searched > 0  # the search did decide


@pytest.mark.parametrize(("expansions", "lineup"), PARITY_LINEUPS, ids=PARITY_IDS)
def test_both_engines_play_the_same_search_games(all_tables, expansions, lineup):
    """The reference engine calls the compiled search (`games.abyss.engine.kernel.search`): the fast
    path's games, decision by decision, to the same final state and stream counters."""
    _parity(all_tables[expansions], lineup, seed=20251201, games=range(2))


@pytest.mark.slow
@pytest.mark.parametrize(("expansions", "lineup"), PARITY_LINEUPS, ids=PARITY_IDS)
def test_both_engines_play_the_same_search_games_many_seeds(all_tables, expansions, lineup):
    for seed in range(100):
        _parity(all_tables[expansions], lineup, seed=seed, games=[seed % 7])


def test_both_runners_play_the_same_search_games(all_tables):
    """`--engine reference` and `--engine fast` on 1 or 2 threads (seats rotated game by game)
    give the same results with a search seat."""
    run = SPEC.play().run_games
    policies = _policies([SMALL, "leviathan_hunter"], 2)
    games = dict(n_players=2, n_games=3, seed=5, policies=policies)
    ref = run(all_tables[()], engine="reference", **games)
    for threads in (1, 2):
        fast = run(all_tables[()], engine="fast", threads=threads, **games)
        pd.testing.assert_frame_equal(fast.seats, ref.seats)
        pd.testing.assert_frame_equal(fast.games, ref.games)


# ------------------------------------------------------ legal moves on random states
class Logged:
    """A search seat's policy, every decision it is asked logged: (seat, decision, the options
    the rules give, the option chosen, whether the game's random streams moved meanwhile)."""

    def __init__(self, policy, log: list):
        self.policy, self.log = policy, log

    def __getattr__(self, name):
        return getattr(self.policy, name)

    def choose(self, game, seat, decision, options):
        counters = game.rng.counters.copy()
        option = self.policy.choose(game, seat, decision, options)
        drew = not np.array_equal(counters, game.rng.counters)
        self.log.append((seat, int(decision), list(options), option, drew))
        return option


class Recorder(Game):
    """Encodes the state before every turn."""

    def take_turn(self, seat: int) -> None:
        self.__dict__.setdefault("snapshots", []).append(S.encode(self))
        super().take_turn(seat)


ROLLOUT_POLICIES = ["random", "greedy", "leviathan_hunter", "farmer"]
OTHERS = ["random", "greedy", "leviathan_hunter", "pearl_economist"]


def _random_state(t, n_players, seed, game, rng):
    """The state (and stream counters) before a random turn of a game of random players."""
    random_players = _policies(["random"] * n_players, n_players)
    snapshots = Recorder(t, random_players, seed, game, record=False).play().snapshots
    return snapshots[rng.integers(len(snapshots))]


def _random_lineup(n_players, rng):
    """One or two search seats (a small budget, random rollout policies) among presets."""
    specs = [str(rng.choice(OTHERS)) for _ in range(n_players)]
    for seat in rng.choice(n_players, size=int(rng.integers(1, 3)), replace=False):
        specs[seat] = f"search:rollouts=4:rollout_policy={rng.choice(ROLLOUT_POLICIES)}"
    return specs


CONFIGS = [((), n) for n in (2, 3, 4)] + [(("leviathan",), n) for n in (2, 3, 4)]
CONFIG_IDS = [f"{'leviathan' if exp else 'base'}-{n}p" for exp, n in CONFIGS]


@pytest.mark.parametrize(("expansions", "n_players"), CONFIGS, ids=CONFIG_IDS)
def test_search_decisions_are_legal_on_random_states(all_tables, expansions, n_players):
    """From the state before a random turn of a random game, one or two search seats play on to
    the end on the reference engine: each search decision's option is among the options the
    rules give (the search computes its own on the fast path, and its replay must reach this
    decision with these options), and deciding draws nothing from the game's random streams.
    The fast path, from the same state, plays the same decisions to the same final state."""
    n_searched = _legal_on_random_states(all_tables[expansions], n_players, range(2))
    assert n_searched >= 5


@pytest.mark.slow
@pytest.mark.parametrize(("expansions", "n_players"), CONFIGS, ids=CONFIG_IDS)
def test_search_decisions_are_legal_on_many_random_states(all_tables, expansions, n_players):
    assert _legal_on_random_states(all_tables[expansions], n_players, range(2, 42)) >= 100


def _legal_on_random_states(t, n_players, games) -> int:
    """Games `games` from random states (`test_search_decisions_are_legal_on_random_states`);
    returns the number of search decisions."""
    rng = np.random.default_rng([n_players, len(t.expansions), games[0]])
    n_searched = 0
    for game in games:
        seed = int(rng.integers(1 << 30))
        state, counters = _random_state(t, n_players, seed, game, rng)
        specs = _random_lineup(n_players, rng)
        log: list = []
        policies = [Logged(p, log) if p.kind == SEARCH_KIND else p
                    for p in _policies(specs, n_players)]  # fmt: skip
        ref = decode(state, counters, t, policies, seed, game).play()
        for seat, decision, options, option, drew in log:
            assert option in options, (specs, seat, decision, options, option)
            assert not drew, "the search drew from the game's random streams"
        n_searched += len(log)
        s = KN.new_workspace(W.template(t), *lineup_arrays(policies), trace_cap=TRACE_CAP)
        KN.load_state(s, state, counters, seed, game)
        KN.play_game(s)
        assert trace_of(s, W.TRACE) == [tuple(int(x) for x in r) for r in ref.trace], specs
        fast_state, fast_counters = S.encode(decoded(s, t, policies, seed, game))
        ref_state, ref_counters = S.encode(ref)
        np.testing.assert_array_equal(fast_state, ref_state)
        np.testing.assert_array_equal(fast_counters, ref_counters)
    return n_searched


def test_the_reference_engine_needs_every_seat_compiled_to_replay_a_turn(all_tables):
    """The search replays the turn on the kernel, every seat included: a seat the kernel cannot
    play (a Python policy) is a clear error, not another game."""
    from strategies.registry import StrategyError

    class First:
        name = "first"

        def choose(self, game, seat, decision, options):
            return options[0]

    policies = [*_policies([SMALL], 1), First()]
    with pytest.raises(StrategyError, match="built-in strategies"):
        Game(all_tables[()], policies, seed=1, game=0, record=False).play()
