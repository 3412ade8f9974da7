"""Invariants of whole games played by the baseline policies, checked after every turn.

`AuditedGame` runs `games.abyss.engine.audit.audit` after the set-up, after every turn and after
the final
tally: every card (Exploration card, Lord, Location, Monster token) is in exactly one place,
Pearls and Key tokens are never negative and are accounted for (Treasury ledger, pile of ten). It
also checks a few rules that must hold between turns, and records the order of the turns so that
the end of the game can be checked against the rulebook:

    "The game ends when any player recruits their 7th Lord, or when a Lord is recruited and the
    Court cannot be completely refilled from the deck. The active player finishes their turn, and
    every other player takes one last turn."

With the Leviathan expansion the same checks run, plus its own end triggers and scoring:

    "At the end of a player's turn, if the Leviathan deck OR any of the Monster token decks are
    empty, each opponent has one last turn" ... "subtract 1 Influence Point for each Wound token
    you possess. Finally, add 5 Influence Points to the total of the player who possesses the
    Scourge of the Abyss."

The fast tier (CI) plays a few hundred games; the `slow` tier plays 2,000 random games per player
count, with and without the expansion.
"""

from __future__ import annotations

import pytest

from games.abyss.engine.audit import audit
from games.abyss.engine.cards.constants import N_RACES
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.rules.game import Game
from games.abyss.strategies import REGISTRY

END_REASONS = {"seventh_lord", "court_empty"}
LEVIATHAN_END_REASONS = END_REASONS | {"leviathan_deck_empty", "monster_tokens_empty"}


class AuditedGame(Game):
    """A Game that audits its state after the set-up, every turn and the final tally."""

    def __init__(self, *args, **kwargs):
        self.turn_seats: list[int] = []
        self.trigger_turn: int | None = None  # index in turn_seats of the turn that ended the game
        super().__init__(*args, **kwargs)
        self.check("set-up")

    def check(self, when: str) -> None:
        problems = audit(self)
        assert not problems, f"seed {self.seed} game {self.game_index} {when}: {problems}"

    def take_turn(self, seat: int) -> None:
        super().take_turn(seat)
        self.turn_seats.append(seat)
        if self.end_reason is not None and self.trigger_turn is None:
            self.trigger_turn = len(self.turn_seats) - 1
            # Lords can be lost later (a Leviathan's attack), so count them when it triggers.
            self.most_lords_at_trigger = max(len(p.lords) for p in self.players)
        when = f"after turn {self.turn} (seat {seat})"
        self.check(when)
        locations_left = bool(self.location_deck or self.locations_available)
        for p in self.players:
            # "If you gain a third Key, you must immediately take control of a Location." Keys only
            # come during their owner's turn, and an Assassin only takes them away.
            assert self.n_keys(p) < 3 or not locations_left, f"{when}: seat {p.seat} kept 3 Keys"
            # A disabled Lord's Keys are dead, so it can never have been slid under a Location.
            assert not (p.under & p.disabled), f"{when}: seat {p.seat}"
            assert len(set(p.lords)) == len(p.lords)
        assert len(self.court) == len(set(self.court))

    def final_scoring(self) -> None:
        super().final_scoring()
        self.check("after the final tally")


def _dedup(seats: list[int]) -> list[int]:
    """Collapse consecutive repeats (an Invoker's extra turn repeats the same seat)."""
    out: list[int] = []
    for s in seats:
        if not out or out[-1] != s:
            out.append(s)
    return out


def check_finished_game(g: AuditedGame) -> None:
    """Every game ends by a rule, with the last round, scores and ranks as the rules say."""
    t, n = g.t, g.n_players
    where = f"seed {g.seed} game {g.game_index} ({n} players)"
    assert g.over, where
    reasons = LEVIATHAN_END_REASONS if g.leviathan else END_REASONS
    assert g.end_reason in reasons, f"{where}: ended by {g.end_reason!r}"
    assert g.turn < g.rules.turn_limit, where
    assert g.turn == len(g.turn_seats)

    # The end trigger is real.
    if g.end_reason == "seventh_lord":
        assert g.most_lords_at_trigger >= 7, where
    elif g.end_reason == "court_empty":
        assert not g.lord_deck and len(g.court) < t.court_size, where
    elif g.end_reason == "leviathan_deck_empty":
        assert not g.leviathan_deck, where  # nothing ever returns to the Leviathan deck
    else:
        assert not g.monster_tokens or not g.leviathan_tokens, where

    # Turn order: clockwise from seat 0 up to the trigger, then each other player once more.
    trigger = g.trigger_turn
    assert trigger is not None, where
    before = _dedup(g.turn_seats[: trigger + 1])
    assert before == [i % n for i in range(len(before))], f"{where}: turn order {before}"
    trigger_seat = g.turn_seats[trigger]
    after = _dedup(g.turn_seats[trigger:])
    assert after == [(trigger_seat + i) % n for i in range(n)], f"{where}: last round {after}"

    # The final score is the sum of its parts.
    assert len(g.scores) == n and len(g.ranks) == n
    for p, s in zip(g.players, g.scores, strict=True):
        assert p.hand == [], where
        best = [0] * N_RACES
        for a in p.affiliated:
            r = int(t.ally_race[a])
            best[r] = max(best[r], int(t.ally_value[a]))
        assert s.lords == sum(int(t.lord_ip[lord]) for lord in p.lords), where
        assert s.locations == sum(g.location_score(p, loc) for loc in p.locations), where
        assert s.allies == sum(best), where
        assert s.monsters == sum(int(t.monster_token_ip[tok]) for tok in p.tokens), where
        if g.leviathan:
            assert s.wounds == -p.wounds <= 0, where
            assert s.scourge == (5 if g.scourge == p.seat else 0), where
        else:
            assert s.wounds == s.scourge == 0, where
        parts = s.lords + s.locations + s.allies + s.monsters + s.wounds + s.scourge
        assert s.total == parts, where
        assert p.pearls >= 0 and p.keys >= 0, where
        assert s.total >= 0 or g.leviathan, where  # only Wounds can make a score negative
    if g.leviathan and g.n_kills:
        # The Scourge holder has the most kills, and every kill is someone's Leviathan card.
        most = max(len(p.killed) for p in g.players)
        assert g.scourge >= 0 and len(g.players[g.scourge].killed) == most, where
        assert sum(len(p.killed) for p in g.players) == g.n_kills, where

    # Ranks follow the tie-break key: score, then Pearls, then the highest-IP Lord.
    keys = [
        (s.total, p.pearls, max((int(t.lord_ip[lord]) for lord in p.lords), default=0))
        for p, s in zip(g.players, g.scores, strict=True)
    ]
    assert keys == [g.tiebreak_key(seat) for seat in range(n)], where
    for a in range(n):
        assert g.ranks[a] == 1 + sum(1 for b in range(n) if keys[b] > keys[a]), where
        for b in range(n):
            if keys[a] == keys[b]:
                assert g.ranks[a] == g.ranks[b], where
            elif keys[a] > keys[b]:
                assert g.ranks[a] < g.ranks[b], where
    assert min(g.ranks) == 1, where
    winners = [s for s in range(n) if g.ranks[s] == 1]
    assert all(keys[w] == max(keys) for w in winners), where


def play_audited(
    tables, specs: list[str], n_players: int, seed: int, game: int, record: bool = False
) -> AuditedGame:
    g = AuditedGame(
        tables, REGISTRY.make_policies(specs, n_players), seed=seed, game=game, record=record
    )
    g.play()
    check_finished_game(g)
    return g


@pytest.fixture(scope="module")
def tables():
    return load_cards()


@pytest.fixture(scope="module")
def lev_tables():
    return load_cards(expansions=("leviathan",))


# ------------------------------------------------------------------------------ fast tier


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_random_games_keep_invariants(tables, n_players):
    reasons = set()
    for game in range(150):
        g = play_audited(tables, ["random"], n_players, seed=20240601 + n_players, game=game)
        reasons.add(g.end_reason)
    assert "seventh_lord" in reasons


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_greedy_vs_random_games_keep_invariants(tables, n_players):
    for game in range(40):
        line_up = ["greedy", "random"] if game % 2 == 0 else ["random", "greedy"]
        play_audited(tables, line_up, n_players, seed=99, game=game, record=game < 5)


def test_greedy_games_keep_invariants(tables):
    for game in range(30):
        play_audited(tables, ["greedy"], 2 + game % 3, seed=5, game=game)


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_leviathan_random_games_keep_invariants(lev_tables, n_players):
    kills = 0
    for game in range(60):
        g = play_audited(lev_tables, ["random"], n_players, seed=77 + n_players, game=game)
        kills += g.n_kills
    assert kills > 0


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_leviathan_greedy_games_keep_invariants(lev_tables, n_players):
    for game in range(25):
        line_up = ["greedy", "random"] if game % 2 == 0 else ["random", "greedy"]
        play_audited(lev_tables, line_up, n_players, seed=123, game=game, record=game < 3)


def test_leviathan_end_triggers_are_reached(lev_tables):
    """The Leviathan end triggers and the 7th Lord all occur in 5-player games: random players
    empty the Leviathan deck, greedy fighters empty a Monster token deck."""
    reasons: set[str] = set()
    for game in range(400):
        specs = ["random"] if game % 2 else ["greedy"]
        g = Game(
            lev_tables, REGISTRY.make_policies(specs, 5), seed=11, game=game, record=False
        ).play()
        reasons.add(g.end_reason)
        if reasons >= LEVIATHAN_END_REASONS - {"court_empty"}:
            break
    assert reasons >= {"seventh_lord", "leviathan_deck_empty", "monster_tokens_empty"}


def test_both_end_triggers_are_reached(tables):
    """Both ends of the rulebook occur in random 4-player games."""
    reasons = set()
    for game in range(200):
        g = Game(
            tables, REGISTRY.make_policies(["random"], 4), seed=3, game=game, record=False
        ).play()
        reasons.add(g.end_reason)
        if reasons == END_REASONS:
            break
    assert reasons == END_REASONS


def test_the_audit_wrapper_catches_a_broken_state(tables):
    """The harness is not a no-op: a card lost mid-game fails the check after that turn."""

    class Leaky(AuditedGame):
        def take_turn(self, seat: int) -> None:
            if self.turn == 5:
                self.lord_deck.pop()  # a Lord vanishes during the 6th turn
            super().take_turn(seat)

    g = Leaky(tables, REGISTRY.make_policies(["random"], 3), seed=1, game=0, record=False)
    with pytest.raises(AssertionError, match=r"after turn 6 .*Lords missing"):
        g.play()


# --------------------------------------------------------------------------- determinism


def _log(tables, specs, n_players, seed, game):
    g = Game(tables, REGISTRY.make_policies(specs, n_players), seed=seed, game=game).play()
    return g.events, g.trace, [s.total for s in g.scores]


@pytest.mark.parametrize("specs", [["random"], ["greedy", "random"]])
def test_same_seed_and_game_give_the_same_event_log(tables, specs):
    for n_players in (2, 3, 4):
        for game in (0, 1, 17):
            first = _log(tables, specs, n_players, 42, game)
            second = _log(tables, specs, n_players, 42, game)
            assert first == second
            assert first[0], "the event log is recorded"


def test_different_game_or_seed_gives_a_different_event_log(tables):
    base = _log(tables, ["random"], 3, 42, 0)
    assert _log(tables, ["random"], 3, 42, 1)[0] != base[0]
    assert _log(tables, ["random"], 3, 43, 0)[0] != base[0]
    # Common random numbers: the set-up (decks) of a game does not depend on the policies.
    setup = [e for e in base[0] if e["event"] == "setup"]
    greedy = _log(tables, ["greedy"], 3, 42, 0)[0]
    assert [e for e in greedy if e["event"] == "setup"] == setup
    setups = {
        str([e for e in _log(tables, ["random"], 3, 42, g)[0] if e["event"] == "setup"])
        for g in range(5)
    }
    assert len(setups) == 5


def test_recording_does_not_change_the_game(tables):
    for game in range(5):
        on = Game(
            tables, REGISTRY.make_policies(["random"], 3), seed=1, game=game, record=True
        ).play()
        off = Game(
            tables, REGISTRY.make_policies(["random"], 3), seed=1, game=game, record=False
        ).play()
        assert off.events == []
        assert on.trace == off.trace
        assert on.scores == off.scores and on.ranks == off.ranks


# ------------------------------------------------------------------------------ slow tier


@pytest.mark.slow
@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_many_random_games_keep_invariants(tables, n_players):
    reasons: dict[str, int] = {}
    for game in range(2000):
        g = play_audited(tables, ["random"], n_players, seed=1_000_003 * n_players, game=game)
        reasons[g.end_reason] = reasons.get(g.end_reason, 0) + 1
    assert set(reasons) <= END_REASONS
    assert reasons.get("seventh_lord", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_many_random_leviathan_games_keep_invariants(lev_tables, n_players):
    reasons: dict[str, int] = {}
    for game in range(2000):
        g = play_audited(lev_tables, ["random"], n_players, seed=2_000_003 * n_players, game=game)
        reasons[g.end_reason] = reasons.get(g.end_reason, 0) + 1
    assert set(reasons) <= LEVIATHAN_END_REASONS
    assert reasons.get("seventh_lord", 0) > 0
