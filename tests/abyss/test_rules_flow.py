"""Rule tests for the base game flow: setup, Plot at Court, the three actions, Control Locations,
the end of the game and the final tally.

Every test quotes, in its docstring, the sentence of the rulebook it checks: the specification is
the seed text `shared/seeds/001_bc4781964399e738.txt` ("Rulebook"). Where the seed text is silent,
the quote comes from `shared/reference/components.md` and says so ("components 1.x").

The state is arranged with the helpers of `tests/abyss_helpers.py` and single `Game` methods are
driven with `Scripted` policies; every test that mutates the state ends with `audit(g) == []`.
"""

from __future__ import annotations

import pytest
from abyss_helpers import (
    Race,
    Scripted,
    ally_id,
    give_allies,
    give_location,
    give_lord,
    lord_id,
    new_game,
    put_in_court,
    set_keys,
    set_pearls,
    stack_deck,
    tables,
    take_ally,
)

from games.abyss.engine.audit import audit
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.rules.base import FINISH, LOCATION_DRAW, Action, Decision
from games.abyss.engine.rules.game import Game
from games.abyss.engine.rules.recruit import payment_options

CRAB, SQUID, SEAHORSE, JELLYFISH, SHELLFISH = (
    Race.CRAB,
    Race.SQUID,
    Race.SEAHORSE,
    Race.JELLYFISH,
    Race.SHELLFISH,
)
M = (None, 0)  # a Monster card for stack_deck


# ----------------------------------------------------------------------------------- helpers
def game(n_players: int = 3, seed: int = 0, **answers_by_seat) -> Game:
    """A new game; `s0=..., s1=...` give the answers dict of each seat's Scripted policy."""
    policies = [Scripted(answers_by_seat.get(f"s{s}")) for s in range(n_players)]
    return new_game(n_players, seed=seed, policies=policies)


def asked(g: Game, seat: int, decision: Decision) -> list[tuple[list[int], int]]:
    """(options, answer) of every question `decision` put to `seat`'s policy."""
    return [(opts, ans) for d, opts, ans in g.policies[seat].asked if d == decision]


def events(g: Game, kind: str) -> list[dict]:
    return [e for e in g.events if e["event"] == kind]


def recorder(log: list, answers: list | None = None, snapshot=None):
    """A Scripted callable: logs `snapshot(game, seat, options)`, answers from `answers` in order
    (then the first option)."""
    queue = list(answers or [])

    def answer(g, seat, options):
        log.append(snapshot(g, seat, options) if snapshot else (seat, list(options)))
        return queue.pop(0) if queue else options[0]

    return answer


def track_now(g, seat, options):
    return list(g.track)


def empty_lord_deck_to(g: Game, keep: int) -> None:
    """Move all but the top `keep` Lords of the deck to the Lord discard pile."""
    while len(g.lord_deck) > keep:
        g.lord_discard.append(g.lord_deck.pop(0))


# Lords no hand of these tests can pay (Seahorse required with 3 races, or 5 races): they keep
# three Lords in the Court after a recruitment, so no refill (and no 2 Pearls) interferes.
FILLERS = ("Aquaculturalist", "Elder", "Sage")


def court_with(g: Game, name: str) -> int:
    """Court = [the Lord `name`, *FILLERS]; returns the Lord's id."""
    lord, *_ = put_in_court(g, name, *FILLERS, clear=True)
    return lord


def turn_seats(g: Game) -> list[int]:
    return [e["who"] for e in events(g, "turn_start")]


# ------------------------------------------------------------------------------------- setup
def test_setup_court_location_pearls_keys_threat():
    """Rulebook, Preparation: "Turn over the top tile." (Locations) / "Turn over the top six cards
    and place them in the Court." / "Place the Threat token on the Threat Track as shown." /
    "Place the ten Key tokens in a pile near the board." / "Each player takes one Pearl from the
    supply". Components 1.1 (seed silent on the space): "Token starts on space 0"."""
    g = new_game(3)
    t = g.t
    assert len(g.court) == 6 and len(set(g.court)) == 6
    assert len(g.lord_deck) == t.n_lords - 6
    assert len(g.locations_available) == 1
    assert len(g.location_deck) == t.n_locations - 1
    assert all(p.pearls == 1 for p in g.players)
    assert g.key_pile == 10 and all(p.keys == 0 for p in g.players)
    assert g.threat == 0
    assert len(g.exploration_deck) == 71 and g.track == [] and g.exploration_discard == []
    assert all(stack == [] for stack in g.council)
    assert len(g.monster_tokens) == 20
    assert all(p.hand == [] and p.lords == [] and p.locations == [] for p in g.players)
    assert audit(g) == []


def _setup_state(g: Game) -> tuple:
    return (
        list(g.court),
        list(g.lord_deck),
        list(g.exploration_deck),
        list(g.location_deck),
        list(g.locations_available),
        list(g.monster_tokens),
    )


def test_setup_same_seed_same_state():
    """Rulebook, Preparation: "Shuffle the Exploration cards" / "Shuffle the Lord cards" /
    "Shuffle the Location tiles" / "Shuffle the Monster tokens": the shuffles are a pure function
    of (seed, game index), so the same seed gives the same decks."""
    a = Game(tables(), [Scripted() for _ in range(3)], seed=1234, game=7)
    b = Game(tables(), [Scripted() for _ in range(3)], seed=1234, game=7)
    assert _setup_state(a) == _setup_state(b)


def test_setup_different_game_index_different_decks():
    """Rulebook, Preparation: "Shuffle the Exploration cards and form a face-down deck" (and the
    Lords, Locations, Monster tokens): another game of the same run gets other shuffles, and the
    decks really are shuffled (not in card-id order)."""
    a = Game(tables(), [Scripted() for _ in range(3)], seed=1234, game=0)
    b = Game(tables(), [Scripted() for _ in range(3)], seed=1234, game=1)
    assert a.exploration_deck != b.exploration_deck
    assert a.court + a.lord_deck != b.court + b.lord_deck
    assert a.locations_available + a.location_deck != b.locations_available + b.location_deck
    assert a.monster_tokens != b.monster_tokens
    assert sorted(a.exploration_deck) == sorted(b.exploration_deck) == list(range(71))
    assert a.exploration_deck != list(range(71))


# ------------------------------------------------------------------------------ plot at court
def test_plot_pays_one_pearl_per_lord_fills_furthest_space_and_repeats():
    """Rulebook, Plot at Court: "You may pay one Pearl to the Treasury to add one Lord to an empty
    space in the Court (filling the space furthest from the Lord deck). You may do this as many
    times as you wish, provided you can pay and there are empty spaces." (g.court index 0 is
    nearest the deck, so a plotted Lord is appended at the end.)"""
    g = game(s0={Decision.PLOT: [1, 1, 1, 1]})
    court = put_in_court(g, "Miller", "Seeker", "Keeper", "Reaper", clear=True)
    set_pearls(g, 0, 3)
    top, second = g.lord_deck[-1], g.lord_deck[-2]
    paid_before = g.pearls_to_treasury
    g.plot_at_court(g.players[0])
    assert g.court == [*court, top, second]
    assert g.players[0].pearls == 1
    assert g.pearls_to_treasury == paid_before + 2
    # Asked twice only: after the second Lord the Court is full.
    assert len(asked(g, 0, Decision.PLOT)) == 2
    assert audit(g) == []


def test_plot_stops_when_the_player_declines():
    """Rulebook, Plot at Court (Optional): "You may pay one Pearl ... as many times as you
    wish" -- the player may stop at any time."""
    g = game(s0={Decision.PLOT: [1, 0]})
    put_in_court(g, "Miller", "Seeker", "Keeper", clear=True)
    set_pearls(g, 0, 5)
    g.plot_at_court(g.players[0])
    assert len(g.court) == 4 and g.players[0].pearls == 4
    assert len(asked(g, 0, Decision.PLOT)) == 2
    assert audit(g) == []


@pytest.mark.parametrize("why", ["court_full", "deck_empty", "no_pearl", "deck_runs_out"])
def test_plot_not_offered(why):
    """Rulebook, Plot at Court: "provided you can pay and there are empty spaces. This is not
    possible if the Court is full or the Lord deck is empty." """
    g = game(s0={Decision.PLOT: [1, 1, 1, 1]})
    set_pearls(g, 0, 5)
    if why != "court_full":
        put_in_court(g, "Miller", "Seeker", "Keeper", clear=True)
    if why == "deck_empty":
        empty_lord_deck_to(g, 0)
    if why == "no_pearl":
        set_pearls(g, 0, 0)
    if why == "deck_runs_out":
        empty_lord_deck_to(g, 1)
    court_before, pearls_before = list(g.court), g.players[0].pearls
    g.plot_at_court(g.players[0])
    if why == "deck_runs_out":
        assert len(g.court) == len(court_before) + 1 and g.lord_deck == []
        assert len(asked(g, 0, Decision.PLOT)) == 1
        assert g.players[0].pearls == pearls_before - 1
    else:
        assert not g.can_plot(g.players[0])
        assert g.court == court_before and g.players[0].pearls == pearls_before
        assert asked(g, 0, Decision.PLOT) == []
    assert audit(g) == []


# ------------------------------------------------------------------------------------ explore
def test_explore_reveals_in_order_onto_the_track_and_continue_reveals_the_next():
    """Rulebook, Explore the Depths: "Reveal cards from the top of the Exploration deck one by one
    and place them on the Exploration Track (from the space closest to the deck moving right)." /
    "If no one buys it, you must either add it to your hand for free (which immediately ends your
    turn) or leave it on the board and reveal the next card." """
    snaps: list = []
    g = game(s0={Decision.TAKE_ALLY: recorder(snaps, [0, 0, 1], track_now)})
    c1, c2, c3 = stack_deck(g, (CRAB, 1), (SQUID, 1), (SEAHORSE, 2))
    g.explore(g.players[0])
    assert snaps == [[c1], [c1, c2], [c1, c2, c3]]
    reveals = events(g, "reveal")
    assert [(e["card"], e["slot"]) for e in reveals] == [(c1, 1), (c2, 2), (c3, 3)]
    assert g.players[0].hand == [c3]
    assert g.track == []
    assert audit(g) == []


@pytest.mark.parametrize("explorer", [0, 1, 2, 3])
def test_buy_offered_to_opponents_clockwise_from_the_left(explorer):
    """Rulebook: "If it is an Ally: You must first offer other players the chance to buy it
    (clockwise)." Components 1.3: "opponents are asked in clockwise order"; the first asked is the
    player on the explorer's left (the next seat)."""
    order: list = []
    buy = recorder(order, snapshot=lambda g, seat, options: seat)
    answers = {Decision.BUY: buy, Decision.TAKE_ALLY: [1]}
    g = new_game(4, policies=[Scripted(dict(answers)) for _ in range(4)])
    stack_deck(g, (CRAB, 1))
    g.explore(g.players[explorer])
    assert order == [(explorer + k) % 4 for k in (1, 2, 3)]
    assert audit(g) == []


def test_purchase_costs_1_2_3_pearls_paid_to_the_explorer():
    """Rulebook: "The first player to buy it pays the cost to you and adds the Ally to their hand.
    The cost increases during your turn: the first Ally costs 1 Pearl, the second 2 Pearls, and the
    third 3 Pearls." """
    always = {Decision.BUY: lambda g, s, o: 1}
    g = new_game(
        4,
        policies=[Scripted({Decision.TAKE_ALLY: [1]})] + [Scripted(dict(always)) for _ in range(3)],
    )
    set_pearls(g, 0, 0)
    for s in (1, 2, 3):
        set_pearls(g, s, 5)
    a1, a2, a3, a4 = stack_deck(g, (CRAB, 1), (SQUID, 2), (SEAHORSE, 3), (JELLYFISH, 1))
    g.explore(g.players[0])
    assert [e["cost"] for e in events(g, "buy")] == [1, 2, 3]
    assert [e["who"] for e in events(g, "buy")] == [1, 2, 3]
    assert [p.hand for p in g.players] == [[a4], [a1], [a2], [a3]]
    assert [p.pearls for p in g.players] == [0 + 1 + 2 + 3, 5 - 1, 5 - 2, 5 - 3]
    assert audit(g) == []


def test_each_opponent_buys_at_most_once_per_turn():
    """Rulebook: "Each opponent can only purchase one Ally during your turn." (It may buy again
    during the explorer's next turn.)"""
    g = game(
        s0={Decision.TAKE_ALLY: [0, 1, 1]},
        s1={Decision.BUY: lambda g, s, o: 1},
    )
    set_pearls(g, 1, 10)
    set_pearls(g, 2, 10)
    a1, a2, a3, a4, a5 = stack_deck(g, (CRAB, 1), (SQUID, 1), (SEAHORSE, 1), (CRAB, 2), (SQUID, 2))
    g.explore(g.players[0])
    # a1 bought by seat 1; seat 1 is not asked again: a2 and a3 are offered to seat 2 only.
    assert g.players[1].hand == [a1]
    assert len(asked(g, 1, Decision.BUY)) == 1
    assert len(asked(g, 2, Decision.BUY)) == 2
    assert g.players[0].hand == [a3]
    assert audit(g) == []
    # Next turn of seat 0 (take_turn resets the purchases): seat 1 may buy again.
    g.take_turn(0)
    assert g.players[1].hand == [a1, a4]
    assert g.players[0].hand == [a3, a5]
    assert audit(g) == []


def test_bought_ally_leaves_the_track_and_the_next_card_takes_its_space():
    """Rulebook: "The first player to buy it pays the cost to you and adds the Ally to their hand."
    The bought Ally leaves the Exploration Track, so the next card is placed on the space it freed
    (docs/rules-notes.md; publisher example "a 3rd card which is placed on the 2nd space")."""
    snaps: list = []
    g = game(
        s0={Decision.TAKE_ALLY: recorder(snaps, [0, 1], track_now)},
        s1={Decision.BUY: [1]},
    )
    a1, a2, a3 = stack_deck(g, (CRAB, 1), (SQUID, 1), (SEAHORSE, 1))
    g.explore(g.players[0])
    assert [(e["card"], e["slot"]) for e in events(g, "reveal")] == [(a1, 1), (a2, 1), (a3, 2)]
    assert snaps == [[a2], [a2, a3]]
    assert g.players[1].hand == [a1]
    assert audit(g) == []


def test_opponent_without_enough_pearls_is_not_asked():
    """Rulebook: "The first player to buy it pays the cost to you" / "the first Ally costs 1 Pearl,
    the second 2 Pearls" -- an opponent who cannot pay the current cost is not offered the Ally
    (docs/rules-notes.md: "An opponent who cannot pay is not asked")."""
    g = new_game(
        4,
        policies=[
            Scripted({Decision.TAKE_ALLY: [1]}),
            Scripted(),  # 0 Pearls: never asked
            Scripted(),  # 1 Pearl: asked for the 1-Pearl Ally only
            Scripted({Decision.BUY: [1]}),  # buys the first Ally
        ],
    )
    set_pearls(g, 1, 0)
    set_pearls(g, 2, 1)
    set_pearls(g, 3, 5)
    a1, a2 = stack_deck(g, (CRAB, 1), (SQUID, 1))
    g.explore(g.players[0])
    assert g.players[3].hand == [a1]
    assert asked(g, 1, Decision.BUY) == []
    assert len(asked(g, 2, Decision.BUY)) == 1  # the 2-Pearl Ally a2 is beyond its means
    assert g.players[0].hand == [a2]
    assert audit(g) == []


def test_take_ally_for_free_ends_the_exploration():
    """Rulebook: "you must either add it to your hand for free (which immediately ends your
    turn)" / "End of Exploration: Once you add an Ally to your hand or fight a Monster, your turn
    ends." """
    g = game(s0={Decision.TAKE_ALLY: [1]})
    pearls = g.players[0].pearls
    a1, a2 = stack_deck(g, (CRAB, 4), (SQUID, 5))
    g.explore(g.players[0])
    assert g.players[0].hand == [a1]
    assert g.players[0].pearls == pearls  # for free
    assert g.exploration_deck[-1] == a2  # never revealed
    assert len(events(g, "reveal")) == 1 and g.track == []
    assert audit(g) == []


def test_last_space_ally_is_taken_with_one_pearl():
    """Rulebook: "If all spaces on the Exploration Track are filled and no one buys the last Ally,
    you must add it to your hand and gain one Pearl." """
    g = game()  # the explorer always reveals the next card, nobody buys
    cards = stack_deck(g, (CRAB, 1), (SQUID, 1), (SEAHORSE, 1), (JELLYFISH, 1), (SHELLFISH, 1))
    pearls = g.players[0].pearls
    g.explore(g.players[0])
    assert len(asked(g, 0, Decision.TAKE_ALLY)) == 4  # not asked on the 5th space
    assert g.players[0].hand == [cards[4]]
    assert g.players[0].pearls == pearls + 1
    assert audit(g) == []


def test_track_holds_five_cards_even_after_purchases():
    """Rulebook: "If all spaces on the Exploration Track are filled and no one buys the last Ally,
    you must add it to your hand and gain one Pearl." -- bought Allies free their space, so with
    two purchases the 7th card is the one on the last space."""
    g = game(s1={Decision.BUY: [1]}, s2={Decision.BUY: [1]})
    set_pearls(g, 1, 5)
    set_pearls(g, 2, 5)
    cards = stack_deck(
        g,
        *[(race, 1) for race in (CRAB, SQUID, SEAHORSE, JELLYFISH, SHELLFISH)],
        (CRAB, 2),
        (SQUID, 2),
    )
    pearls = g.players[0].pearls
    g.explore(g.players[0])
    assert g.players[1].hand == [cards[0]] and g.players[2].hand == [cards[1]]
    assert g.players[0].hand == [cards[6]]
    assert g.players[0].pearls == pearls + 1 + 2 + 1  # purchases 1 + 2, last space 1
    assert len(asked(g, 0, Decision.TAKE_ALLY)) == 4
    assert audit(g) == []


# Components 1.2: (pearls, monster tokens, keys) of each option of each Threat Track space.
THREAT_TRACK = {
    0: [(1, 0, 0), (0, 1, 0)],
    1: [(2, 0, 0), (1, 1, 0), (0, 2, 0)],
    2: [(0, 0, 1)],
    3: [(1, 0, 1), (0, 1, 1)],
    4: [(2, 0, 1), (1, 1, 1), (0, 2, 1)],
    5: [(0, 0, 2)],
}


@pytest.mark.parametrize(
    "space,k", [(s, k) for s, opts in THREAT_TRACK.items() for k in range(len(opts))]
)
def test_fight_monster_gives_the_threat_track_reward_and_ends_the_turn(space, k):
    """Rulebook: "FIGHT THE MONSTER: Victory is automatic. The Monster is discarded, and you win the
    reward shown on the Threat Track (which may include Pearls, Influence Points from a random
    Monster token, or Keys). After this, the Threat token returns to the first space of the Threat
    Track and your turn ends." Rewards per space: components 1.2 (seed text silent)."""
    g = game(s0={Decision.FIGHT_MONSTER: [1], Decision.THREAT_REWARD: [k]})
    g.threat = space
    monster, nxt = stack_deck(g, M, (CRAB, 5))
    p = g.players[0]
    before = (p.pearls, len(p.tokens), p.keys)
    g.explore(p)
    pearls, tokens, keys = THREAT_TRACK[space][k]
    assert (p.pearls, len(p.tokens), p.keys) == (
        before[0] + pearls,
        before[1] + tokens,
        before[2] + keys,
    )
    offered = asked(g, 0, Decision.THREAT_REWARD)
    if len(THREAT_TRACK[space]) > 1:
        assert offered == [(list(range(len(THREAT_TRACK[space]))), k)]
    else:
        assert offered == []
    assert g.threat == 0
    assert g.exploration_discard[-1] == monster and g.track == []
    assert g.exploration_deck[-1] == nxt and p.hand == []
    assert audit(g) == []


def test_keep_exploring_moves_the_threat_token_up_one_space():
    """Rulebook: "KEEP EXPLORING: Move the Threat token one space up the track and continue
    revealing cards." """
    g = game(s0={Decision.FIGHT_MONSTER: [0, 0], Decision.TAKE_ALLY: [1]})
    m1, m2, a = stack_deck(g, M, M, (CRAB, 3))
    g.explore(g.players[0])
    assert [e["threat"] for e in events(g, "keep_exploring")] == [1, 2]
    assert g.threat == 2  # no fight: the token stays up
    assert g.players[0].hand == [a]
    assert g.exploration_discard[-2:] == [m1, m2]
    assert audit(g) == []


def test_threat_token_is_capped_at_the_last_space():
    """Components 1.2 (seed text silent on the cap): "6th (5) | KK (the token cannot move past this
    space)". Rulebook: "KEEP EXPLORING: Move the Threat token one space up the track"."""
    g = game(s0={Decision.FIGHT_MONSTER: [0, 0], Decision.TAKE_ALLY: [1]})
    g.threat = 4
    stack_deck(g, M, M, (CRAB, 3))
    g.explore(g.players[0])
    assert [e["threat"] for e in events(g, "keep_exploring")] == [5, 5]
    assert g.threat == 5
    assert audit(g) == []


def test_monster_on_the_last_space_must_be_fought_with_one_pearl():
    """Rulebook: "Note: If a Monster is revealed on the last space of the Exploration Track, you
    must fight it. You receive the Threat Track reward plus one Pearl." """
    g = game(s0={Decision.FIGHT_MONSTER: [0, 0]})
    cards = stack_deck(g, M, M, (CRAB, 1), (SQUID, 1), M)
    p = g.players[0]
    pearls, keys = p.pearls, p.keys
    g.explore(p)
    assert len(asked(g, 0, Decision.FIGHT_MONSTER)) == 2  # not asked on the 5th space
    assert [e["space"] for e in events(g, "fight_monster")] == [2]
    assert p.keys == keys + 1  # space 2: K
    assert p.pearls == pearls + 1  # the extra Pearl
    assert g.threat == 0
    assert set(g.exploration_discard[-3:]) == {cards[0], cards[1], cards[4]}
    assert g.council[CRAB][-1] == cards[2] and g.council[SQUID][-1] == cards[3]
    assert audit(g) == []


def _leave_tokens(g: Game, n: int) -> None:
    """Give all but `n` Monster tokens to seat 2 (kept consistent for the audit)."""
    while len(g.monster_tokens) > n:
        g.players[2].tokens.append(g.monster_tokens.pop(0))


def test_monster_token_options_need_enough_tokens():
    """Components 1.2 (seed text silent): ""M" options are offered only while enough Monster tokens
    remain in the supply." """
    g = game()
    _leave_tokens(g, 1)
    assert g.threat_options(0) == [0, 1]
    assert g.threat_options(1) == [0, 1]  # PP, PM; not MM
    assert g.threat_options(3) == [0, 1]
    assert g.threat_options(4) == [0, 1]  # KPP, KPM; not KMM
    _leave_tokens(g, 0)
    assert g.threat_options(0) == [0]
    assert g.threat_options(1) == [0]
    assert g.threat_options(3) == [0]
    assert g.threat_options(4) == [0]
    assert g.threat_options(2) == [0] and g.threat_options(5) == [0]
    assert audit(g) == []


def test_fight_with_one_token_left_offers_no_double_monster_reward():
    """Components 1.2 (seed text silent): ""M" options are offered only while enough Monster tokens
    remain in the supply." -- checked through a real fight on the 2nd space."""
    g = game(s0={Decision.FIGHT_MONSTER: [1], Decision.THREAT_REWARD: [1]})
    _leave_tokens(g, 1)
    g.threat = 1
    stack_deck(g, M)
    p = g.players[0]
    pearls = p.pearls
    g.explore(p)
    assert asked(g, 0, Decision.THREAT_REWARD) == [([0, 1], 1)]
    assert len(p.tokens) == 1 and p.pearls == pearls + 1 and g.monster_tokens == []
    assert audit(g) == []


def test_end_of_exploration_allies_to_council_by_race_monsters_to_discard():
    """Rulebook: "End of Exploration: ... Remaining Allies on the track are placed face down in the
    Council by Race. Monsters are placed in the Exploration discard pile." """
    g = game(s0={Decision.TAKE_ALLY: [0, 0, 0, 1], Decision.FIGHT_MONSTER: [0]})
    c1, m, c2, s1, taken = stack_deck(g, (CRAB, 1), M, (CRAB, 2), (SQUID, 1), (SEAHORSE, 4))
    g.explore(g.players[0])
    assert g.players[0].hand == [taken]
    assert g.council[CRAB] == [c1, c2]
    assert g.council[SQUID] == [s1]
    assert g.council[SEAHORSE] == [] and g.council[JELLYFISH] == []
    assert g.exploration_discard == [m]
    assert g.track == []
    assert audit(g) == []


def test_empty_exploration_deck_is_rebuilt_from_the_discard():
    """Components 1.3 (seed text silent): "When exploration ends, Allies left on the track go face
    down onto their race's Council stack and Monsters go to the discard. An empty deck is rebuilt by
    reshuffling the discard." """
    g = game(s0={Decision.TAKE_ALLY: [1], Decision.FIGHT_MONSTER: [1]})
    old_discard = list(g.exploration_deck)
    g.exploration_discard = g.exploration_deck
    g.exploration_deck = []
    g.explore(g.players[0])
    assert len(events(g, "reshuffle")) == 1
    revealed = [e["card"] for e in events(g, "reveal")]
    assert revealed and set(revealed) <= set(old_discard)
    # Every card is still somewhere; the rebuilt deck is a reordering of the old discard.
    in_play = g.exploration_deck + g.exploration_discard + g.players[0].hand
    in_play += [c for stack in g.council for c in stack]
    assert sorted(in_play) == sorted(old_discard)
    assert g.exploration_deck != [c for c in old_discard if c not in revealed]
    assert audit(g) == []


# --------------------------------------------------------------------------- request support
def test_request_support_takes_a_whole_council_stack():
    """Rulebook, Request Support From the Council: "Take all cards from one stack in the Council
    (without looking at them) and add them to your hand." Only non-empty stacks can be taken."""
    offered: list = []
    g = game(s0={Decision.COUNCIL_STACK: recorder(offered, [SQUID])})
    crabs = [ally_id(g, CRAB, v) for v in (5, 3, 1)]
    squids = [ally_id(g, SQUID, v) for v in (4, 2)]
    for a in crabs:
        g.council[CRAB].append(take_ally(g, a))
    for a in squids:
        g.council[SQUID].append(take_ally(g, a))
    g.request_support(g.players[0])
    assert offered == [(0, [CRAB, SQUID])]
    assert g.players[0].hand == squids
    assert g.council[SQUID] == [] and g.council[CRAB] == crabs
    assert audit(g) == []


def test_request_support_offered_only_with_a_nonempty_stack():
    """Rulebook: "Take all cards from one stack in the Council" -- with an empty Council there is
    nothing to take, so the action is not offered."""
    g = game()
    assert Action.REQUEST_SUPPORT not in g.legal_actions(g.players[0])
    g.council[SEAHORSE].append(take_ally(g, ally_id(g, SEAHORSE, 2)))
    assert Action.REQUEST_SUPPORT in g.legal_actions(g.players[0])
    assert audit(g) == []


# ------------------------------------------------------------------------------------ recruit
def test_guild_race_is_required():
    """Rulebook, Recruit a Lord: "You must play the exact number of different Races required."
    Components 1.3: "If the Lord has a guild race, that race must be among them." (The Seeker is a
    Soldier: Crab.)"""
    g = game()
    (seeker,) = put_in_court(g, "Seeker", clear=True)
    give_allies(g, 0, (SQUID, 5), (SEAHORSE, 4))
    set_pearls(g, 0, 10)
    p = g.players[0]
    assert g.affordable_lords(p) == []
    assert payment_options(g.t, p.hand, [], p.pearls, g.payment_rule(p, seeker)) == []
    (crab,) = give_allies(g, 0, (CRAB, 1))
    assert g.affordable_lords(p) == [seeker]
    assert crab in payment_options(g.t, p.hand, [], p.pearls, g.payment_rule(p, seeker))
    assert audit(g) == []


def test_exact_number_of_different_races():
    """Rulebook: "Costs: You must play the exact number of different Races required." (The Seeker
    needs 2 races; the Assassin needs 1.)"""
    g = game()
    seeker, assassin = put_in_court(g, "Seeker", "Assassin", clear=True)
    crab5, squid4, sea4 = give_allies(g, 0, (CRAB, 5), (SQUID, 4), (SEAHORSE, 4))
    p = g.players[0]
    rule = g.payment_rule(p, seeker)
    # 1 race so far: no FINISH; either second race may follow.
    assert payment_options(g.t, [squid4, sea4], [crab5], 0, rule) == sorted([squid4, sea4])
    assert payment_options(g.t, [sea4], [crab5, squid4], 0, rule) == [FINISH]  # no 3rd race
    # The 1-race Assassin (cost 10): a second race is never offered.
    set_pearls(g, 0, 1)
    (crab4,) = give_allies(g, 0, (CRAB, 4))
    rule = g.payment_rule(p, assassin)
    assert payment_options(g.t, p.hand, [], 1, rule) == sorted([crab5, crab4])
    assert g.affordable_lords(p) == [seeker, assassin]
    assert audit(g) == []


def test_one_ally_of_each_required_race_even_when_pearls_could_pay_all():
    """Rulebook: "You may spend one Pearl for each missing point, but you must still play at least
    one Ally from each required Race." """
    g = game()
    (seeker,) = put_in_court(g, "Seeker", clear=True)
    set_pearls(g, 0, 20)
    p = g.players[0]
    rule = g.payment_rule(p, seeker)
    assert g.affordable_lords(p) == []  # no Ally at all
    (crab1,) = give_allies(g, 0, (CRAB, 1))
    assert g.affordable_lords(p) == []  # one race only
    assert payment_options(g.t, p.hand, [], 20, rule) == []
    (squid1,) = give_allies(g, 0, (SQUID, 1))
    assert g.affordable_lords(p) == [seeker]
    assert FINISH not in payment_options(g.t, [squid1], [crab1], 20, rule)
    assert payment_options(g.t, [], [crab1, squid1], 20, rule) == [FINISH]
    assert audit(g) == []


def test_pearls_pay_the_missing_points():
    """Rulebook: "You may spend one Pearl for each missing point" -- and a Lord the Allies plus
    Pearls cannot pay is not offered."""
    g = game()
    seeker = court_with(g, "Seeker")  # cost 7, 2 races
    give_allies(g, 0, (CRAB, 3), (SQUID, 2))
    p = g.players[0]
    set_pearls(g, 0, 1)
    assert g.affordable_lords(p) == []
    assert Action.RECRUIT not in g.legal_actions(p)
    set_pearls(g, 0, 2)
    assert g.affordable_lords(p) == [seeker]
    g.recruit(p)
    assert p.lords == [seeker] and p.pearls == 0 and p.hand == []
    paid = [e["n"] for e in events(g, "pearls") if e["who"] == 0 and e["why"] == "recruit"]
    assert paid == [-2]  # to the Treasury
    assert events(g, "recruit")[-1]["pearls"] == 2
    assert audit(g) == []


def test_multiple_allies_of_one_race_and_lowest_value_is_affiliated():
    """Rulebook: "You may play multiple Allies of the same Race." / "Affiliation: All Allies used
    to recruit are discarded except for the one with the lowest value, which becomes affiliated
    (placed face up in front of you)." """
    g = game()
    seeker = court_with(g, "Seeker")
    crab3, crab2, squid3 = give_allies(g, 0, (CRAB, 3), (CRAB, 2), (SQUID, 3))
    g.policies[0].answers[Decision.PAY_ALLY] = [crab3, squid3, crab2, FINISH]
    p = g.players[0]
    set_pearls(g, 0, 0)
    g.recruit(p)
    assert events(g, "recruit")[-1]["allies"] == [crab3, squid3, crab2]
    assert p.lords == [seeker] and p.pearls == 0
    assert p.affiliated == [crab2]
    assert asked(g, 0, Decision.AFFILIATE) == []  # a single lowest Ally: no choice
    assert set(g.exploration_discard) == {crab3, squid3}
    assert audit(g) == []


def test_extra_points_are_lost():
    """Rulebook: "The total value must meet the required number; extra points are lost." """
    g = game()
    seeker = court_with(g, "Seeker")  # cost 7
    crab5, squid4 = give_allies(g, 0, (CRAB, 5), (SQUID, 4))
    set_pearls(g, 0, 3)
    p = g.players[0]
    g.recruit(p)
    assert p.lords == [seeker]
    assert p.pearls == 3  # no Pearl paid, no change given
    assert events(g, "recruit")[-1]["pearls"] == 0
    assert p.affiliated == [squid4] and g.exploration_discard == [crab5]
    assert audit(g) == []


@pytest.mark.parametrize("keep", ["crab", "squid"])
def test_tie_for_lowest_value_lets_the_player_choose(keep):
    """Rulebook: "If there is a tie for the lowest value, you choose which one to keep." """
    g = game()
    jailer = court_with(g, "Jailer")  # Soldier, cost 6, 3 races
    crab2, squid2, jelly4 = give_allies(g, 0, (CRAB, 2), (SQUID, 2), (JELLYFISH, 4))
    kept = crab2 if keep == "crab" else squid2
    g.policies[0].answers[Decision.AFFILIATE] = [kept]
    p = g.players[0]
    set_pearls(g, 0, 0)
    g.recruit(p)
    assert p.lords == [jailer]
    assert asked(g, 0, Decision.AFFILIATE) == [(sorted([crab2, squid2]), kept)]
    assert p.affiliated == [kept]
    assert set(g.exploration_discard) == {crab2, squid2, jelly4} - {kept}
    assert audit(g) == []


def test_court_slides_after_recruitment():
    """Rulebook: "Refill the Court: Slide remaining Lords to the right." -- the other Lords keep
    their order, nothing is refilled while more than two remain."""
    g = game()
    court = put_in_court(
        g, "Miller", "Keeper", "Seeker", "Reaper", "Shepherd", "Landowner", clear=True
    )
    give_allies(g, 0, (CRAB, 5), (SQUID, 4))
    deck = list(g.lord_deck)
    p = g.players[0]
    pearls = p.pearls
    g.recruit(p)  # only the Seeker is affordable
    assert p.lords == [court[2]]
    assert g.court == [court[0], court[1], court[3], court[4], court[5]]
    assert g.lord_deck == deck and p.pearls == pearls
    assert audit(g) == []


def test_two_lords_left_gives_two_pearls_and_refills_the_court():
    """Rulebook: "If only two Lords remain, you gain two Pearls and must refill the Court from the
    deck." """
    g = game()
    miller, seeker, landowner = put_in_court(g, "Miller", "Seeker", "Landowner", clear=True)
    give_allies(g, 0, (CRAB, 5), (SQUID, 4))
    top4 = g.lord_deck[-4:][::-1]
    p = g.players[0]
    pearls = p.pearls
    g.recruit(p)
    assert p.lords == [seeker]
    assert p.pearls == pearls + 2
    assert g.court == [miller, landowner, *top4]
    assert g.end_reason is None
    assert audit(g) == []


def test_lords_not_affordable_are_not_offered():
    """Rulebook: "Choose one Lord available at Court and pay the costs shown on the card" -- only
    Lords the player can pay are offered."""
    offered: list = []
    g = game(s0={Decision.RECRUIT_LORD: recorder(offered)})
    seeker, landowner, jailer, hunter = put_in_court(
        g, "Seeker", "Landowner", "Jailer", "Hunter", clear=True
    )
    give_allies(g, 0, (CRAB, 5), (SQUID, 3))  # 8: Seeker (7, 2 races), Hunter (8, 2 races)
    set_pearls(g, 0, 0)
    p = g.players[0]
    assert g.affordable_lords(p) == [seeker, hunter]
    g.recruit(p)
    assert offered == [(0, [seeker, hunter])]
    assert p.lords == [seeker]
    assert audit(g) == []


# -------------------------------------------------------------------------- control locations
def test_fewer_than_three_keys_takes_no_location():
    """Rulebook, Control Locations: "When you have three Keys (from Monster fights or Lord symbols),
    you must take a Location." -- not before."""
    g = game()
    set_keys(g, 0, 2)
    g.control_locations(g.players[0])
    assert g.players[0].locations == [] and g.players[0].keys == 2
    assert audit(g) == []


def test_three_key_tokens_must_take_a_location_and_return_to_the_pile():
    """Rulebook: "If you gain a third Key, you must immediately take control of a Location." /
    "You may take a face-up Location or draw 1-4 Locations and choose one". Components 1.3 (seed
    text silent): "Key tokens used are discarded" (back to the pile of ten)."""
    offered: list = []
    g = game(s0={Decision.LOCATION_SOURCE: recorder(offered)})
    face_up = g.locations_available[0]
    set_keys(g, 0, 3)
    p = g.players[0]
    g.control_locations(p)
    assert offered == [(0, [face_up] + [LOCATION_DRAW + n for n in (1, 2, 3, 4)])]
    assert p.locations == [face_up] and g.locations_available == []
    assert p.keys == 0 and g.key_pile == 10
    assert audit(g) == []


def test_draw_locations_keep_one_the_others_become_face_up():
    """Rulebook: "You may take a face-up Location or draw 1-4 Locations and choose one (placing the
    rest face up)." """
    kept: list = []
    g = game(s0={Decision.LOCATION_SOURCE: [LOCATION_DRAW + 3]})
    top3 = g.location_deck[-3:][::-1]
    g.policies[0].answers[Decision.LOCATION_KEEP] = recorder(
        kept, [top3[1]], lambda g, s, o: list(o)
    )
    face_up = g.locations_available[0]
    n_deck = len(g.location_deck)
    set_keys(g, 0, 3)
    p = g.players[0]
    g.control_locations(p)
    assert kept == [top3]
    assert p.locations == [top3[1]]
    assert sorted(g.locations_available) == sorted([face_up, top3[0], top3[2]])
    assert len(g.location_deck) == n_deck - 3
    assert audit(g) == []


def test_keys_of_free_lords_count_and_those_lords_slide_under():
    """Rulebook: "When you have three Keys (from Monster fights or Lord symbols), you must take a
    Location." / "Any Lords used to control it are slid underneath, hiding their Powers and using
    their Keys. These Lords are no longer "free." " """
    g = game()
    keeper = give_lord(g, 0, "Keeper")
    reaper = give_lord(g, 0, "Reaper")
    set_keys(g, 0, 1)
    p = g.players[0]
    assert g.n_keys(p) == 3
    g.control_locations(p)
    assert len(p.locations) == 1
    loc = p.locations[0]
    assert sorted(p.location_lords[loc]) == sorted([keeper, reaper])
    assert p.under == {keeper, reaper} and p.free_lords() == []
    assert p.keys == 0 and g.key_pile == 10 and g.n_keys(p) == 0
    assert audit(g) == []


def test_lords_under_a_location_no_longer_give_keys():
    """Rulebook: "Any Lords used to control it are slid underneath ... using their Keys. These Lords
    are no longer "free." " -- a Key already used does not count again."""
    g = game()
    keeper = give_lord(g, 0, "Keeper")
    give_location(g, 0, "Jail", lords=[keeper])
    set_keys(g, 0, 2)
    p = g.players[0]
    assert g.n_keys(p) == 2
    g.control_locations(p)
    assert len(p.locations) == 1 and p.keys == 2
    assert audit(g) == []


def test_treasurer_under_a_location_no_longer_reduces_the_cost():
    """Rulebook: "Powers without an arrow are semi-permanent until the Lord is used to control a
    Location." / "Any Lords used to control it are slid underneath, hiding their Powers". The
    Treasurer (components 1.4): "For you, the cost of recruiting Lords is reduced by 2." """
    g = game()
    treasurer = give_lord(g, 0, "Treasurer")
    (seeker,) = put_in_court(g, "Seeker", clear=True)  # cost 7
    give_allies(g, 0, (CRAB, 3), (SQUID, 2))
    set_pearls(g, 0, 0)
    set_keys(g, 0, 2)
    p = g.players[0]
    assert g.lord_cost(p, seeker) == 5 and g.affordable_lords(p) == [seeker]
    g.policies[0].answers[Decision.KEY_SOURCE] = [treasurer]
    g.control_locations(p)
    assert treasurer in p.under and p.keys == 0
    assert g.lord_cost(p, seeker) == 7 and g.affordable_lords(p) == []
    assert audit(g) == []


def test_six_keys_take_two_locations():
    """Rulebook: "When you have three Keys ... you must take a Location." -- with six Keys, twice
    (components 1.3: "As soon as Key tokens plus Keys on free Lords reach ≥3")."""
    g = game()
    set_keys(g, 0, 6)
    p = g.players[0]
    g.control_locations(p)
    assert len(p.locations) == 2
    assert p.keys == 0 and g.key_pile == 10
    assert audit(g) == []


# -------------------------------------------------------------------------------- end of game
SIX_LORDS = ("Miller", "Aquaculturalist", "Landowner", "Peddler", "Trader", "Shopkeeper")


def _seventh_lord_game(n_players: int, trigger: int) -> tuple[Game, int]:
    """Seat `trigger` owns six Lords and recruits the Shepherd (Farmer, cost 8, 1 race, 1 Key)
    on its first turn; everyone else explores with the first-option policy."""
    answers = {
        Decision.ACTION: [Action.RECRUIT],
        Decision.RECRUIT_LORD: lambda g, s, o: lord_id(g, "Shepherd"),
    }
    policies = [Scripted(dict(answers) if s == trigger else None) for s in range(n_players)]
    g = new_game(n_players, seed=3, policies=policies)
    for name in SIX_LORDS:
        give_lord(g, trigger, name)
    put_in_court(g, "Shepherd", "Keeper", "Reaper", "Seeker", "Jailer", "Hunter", clear=True)
    give_allies(g, trigger, (SEAHORSE, 5), (SEAHORSE, 3))
    set_keys(g, trigger, 2)  # + the Shepherd's Key: a Location in the same turn
    return g, lord_id(g, "Shepherd")


def test_seventh_lord_triggers_the_end_then_one_last_turn_each():
    """Rulebook, End of Game: "The game ends when any player recruits their 7th Lord" / "The
    active player finishes their turn, and every other player takes one last turn." """
    g, shepherd = _seventh_lord_game(3, trigger=1)
    g.play()
    assert g.end_reason == "seventh_lord"
    assert turn_seats(g) == [0, 1, 2, 0]
    assert shepherd in g.players[1].lords and len(g.players[1].lords) == 7
    # The trigger's turn went on: its Control Locations step took a Location after the trigger.
    trig = events(g, "end_triggered")[0]
    ctrl = [e for e in events(g, "control_location") if e["who"] == 1]
    assert ctrl and ctrl[0]["turn"] == trig["turn"] == 2
    assert g.over and len(g.scores) == 3 and len(g.ranks) == 3
    assert audit(g) == []


def test_last_round_in_a_four_player_game():
    """Rulebook: "The active player finishes their turn, and every other player takes one last
    turn." -- each other player exactly once, clockwise, then the game ends."""
    g, _ = _seventh_lord_game(4, trigger=2)
    g.play()
    assert turn_seats(g) == [0, 1, 2, 3, 0, 1]
    assert events(g, "last_round")[0]["trigger"] == 2
    assert audit(g) == []


def test_court_that_cannot_be_refilled_triggers_the_end():
    """Rulebook: "The game ends ... when a Lord is recruited and the Court cannot be completely
    refilled from the deck." (rules option court_end = "refill", the default)"""
    assert tables().rules.court_end == "refill"
    answers = {
        Decision.ACTION: [Action.RECRUIT],
        Decision.RECRUIT_LORD: lambda g, s, o: lord_id(g, "Seeker"),
    }
    g = new_game(3, seed=5, policies=[Scripted(), Scripted(answers), Scripted()])
    put_in_court(g, "Miller", "Seeker", "Landowner", clear=True)
    empty_lord_deck_to(g, 2)
    give_allies(g, 1, (CRAB, 5), (SQUID, 4))
    g.play()
    assert g.end_reason == "court_empty"
    assert turn_seats(g) == [0, 1, 2, 0]
    refill = events(g, "court_refill")[0]
    assert refill["seat"] == 1 and len(refill["court"]) == 4
    assert audit(g) == []


def test_court_refilled_completely_does_not_end_the_game():
    """Rulebook: "when a Lord is recruited and the Court cannot be completely refilled from the
    deck" -- a complete refill does not trigger the end."""
    g = game()
    put_in_court(g, "Miller", "Seeker", "Landowner", clear=True)
    empty_lord_deck_to(g, 4)
    give_allies(g, 0, (CRAB, 5), (SQUID, 4))
    g.recruit(g.players[0])
    assert len(g.court) == 6 and g.lord_deck == []
    assert g.end_reason is None
    assert audit(g) == []


def test_court_end_bga_option_triggers_at_the_end_of_the_turn():
    """Rules option court_end = "bga" (components 1.3, seed text reads otherwise): "the Court cannot
    be refilled to 6 ([BGA-A] states.php stNextPlayer: `Lord deck = 0 and Court < 6`)". The default
    "refill" reading does not end the game when no refill was required."""
    for mode, expected in (("bga", "court_empty"), ("refill", None)):
        t = load_cards(overrides={"rules.court_end": mode})
        answers = {Decision.ACTION: [Action.RECRUIT]}
        g = new_game(3, policies=[Scripted(answers), Scripted(), Scripted()], t=t)
        put_in_court(g, "Miller", "Keeper", "Seeker", "Reaper", "Shepherd", "Landowner", clear=True)
        empty_lord_deck_to(g, 0)
        give_allies(g, 0, (CRAB, 5), (SQUID, 4))
        g.take_turn(0)
        assert len(g.court) == 5
        assert g.end_reason == expected, mode
        assert audit(g) == []


# ------------------------------------------------------------------------------- final tally
def test_final_tally_affiliates_the_lowest_ally_of_each_race():
    """Rulebook, Final Tally: "Players affiliate the lowest-value Ally of each Race remaining in
    their hand; others are discarded." """
    g = game()
    crab4, crab1, squid3, squid5, sea2 = give_allies(
        g, 0, (CRAB, 4), (CRAB, 1), (SQUID, 3), (SQUID, 5), (SEAHORSE, 2)
    )
    g.final_scoring()
    p = g.players[0]
    assert sorted(p.affiliated) == sorted([crab1, squid3, sea2])
    assert p.hand == []
    assert {crab4, squid5} <= set(g.exploration_discard)
    assert audit(g) == []


def test_score_is_lords_locations_strongest_affiliated_per_race_and_monster_tokens():
    """Rulebook: "Total Influence Points are calculated from: Locations you control. Lords you have
    recruited. The strongest affiliated Ally from each Race. Monster tokens you hold." Components
    1.3: "Lords' IP (all Lords, free or not)"; a disabled Lord "counts only for IP"."""
    g = game()
    p = g.players[0]
    miller = give_lord(g, 0, "Miller")  # 10 IP, under the Jail
    seeker = give_lord(g, 0, "Seeker")  # 7 IP, disabled
    p.disabled.add(seeker)
    give_location(g, 0, "Jail", lords=[miller])  # 15 - 2 Lords = 13
    give_allies(g, 0, (CRAB, 2), affiliated=True)
    give_allies(g, 0, (CRAB, 4), (CRAB, 1), (SQUID, 3), (SQUID, 5))  # tally: Crab 1, Squid 3
    four = g.t.monster_token_ip.tolist().index(4)
    two = g.t.monster_token_ip.tolist().index(2)
    for tok in (four, two):
        g.monster_tokens.remove(tok)
        p.tokens.append(tok)
    g.final_scoring()
    s = g.scores[0]
    assert (s.lords, s.locations, s.allies, s.monsters) == (17, 13, 2 + 3, 6)
    assert s.total == s.lords + s.locations + s.allies + s.monsters == 41
    logged = [e for e in events(g, "score") if e["who"] == 0][0]
    assert logged["total"] == 41
    assert audit(g) == []


def test_only_the_strongest_affiliated_ally_of_each_race_scores():
    """Rulebook: "The strongest affiliated Ally from each Race." -- one card per race."""
    g = game()
    give_allies(g, 0, (CRAB, 1), (CRAB, 4), (SQUID, 2), affiliated=True)
    g.final_scoring()
    assert g.scores[0].allies == 4 + 2
    assert audit(g) == []


def test_ties_broken_by_most_pearls():
    """Rulebook: "The player with the highest Influence Point total wins. Ties are broken by the
    most Pearls, then by the highest value Lord." """
    g = game()
    for seat, pearls in enumerate((1, 3, 2)):
        set_pearls(g, seat, pearls)
    g.final_scoring()
    assert [s.total for s in g.scores] == [0, 0, 0]
    assert g.ranks == [3, 1, 2]
    assert audit(g) == []


def test_ties_then_broken_by_the_highest_value_lord():
    """Rulebook: "Ties are broken by the most Pearls, then by the highest value Lord." """
    g = game()
    give_lord(g, 0, "Jailer")  # 7 IP
    give_lord(g, 1, "Recruiter")  # 4 IP
    give_lord(g, 1, "Elder")  # 3 IP
    g.final_scoring()
    assert [s.total for s in g.scores] == [7, 7, 0]
    assert g.ranks == [1, 2, 3]
    assert audit(g) == []


def test_players_equal_on_everything_share_the_rank():
    """Rulebook: "Ties are broken by the most Pearls, then by the highest value Lord." -- players
    still equal share the rank (docs/rules-notes.md: "players still tied share the rank")."""
    g = game()
    g.final_scoring()
    assert g.ranks == [1, 1, 1]
    g = game()
    give_lord(g, 0, "Jailer")
    give_lord(g, 1, "Seeker")  # also 7 IP
    g.final_scoring()
    assert g.ranks == [1, 1, 3]
    assert audit(g) == []
