"""Three powers checked against their printed texts (issue 28, "Card powers as printed"), on the
reference engine and, from the same state, on the fast path.

- The Slaver (#12, components.md 1.4: "semi-permanent, once per turn"): "During your turn, you can
  discard 1 Ally from your hand to gain 2 Pearls." A power without an arrow: "its owner chooses
  when during their turn to apply it". Offered before plotting at Court (decision
  POWER_BEFORE_PLOT, while a Lord can be plotted), before the action and after the Location step
  (POWER), at most once per turn.
- The Hunter (#7): "Steal a random Monster token from the opponent of your choice." With
  Leviathan, "Make a second deck with the new Monster tokens": the victim's face-down Leviathan
  tokens ("you have the option, after consulting them, to reveal them immediately or reveal them
  at the start of one of your next turns") are Monster tokens too; revealed ones are gone ("Once
  revealed, apply their effect and then discard them").
- Black Smokers (#10): "On acquisition you may immediately swap it for a Location of your choice
  from the deck", also when it is acquired through the Illusionist's exchange (#19: "You can
  exchange one of your Locations for a different available one").
"""

from __future__ import annotations

import numpy as np
import pytest
from abyss_helpers import (
    Race,
    Scripted,
    give_allies,
    give_location,
    give_lord,
    give_tokens,
    lev_tables,
    location_id,
    new_game,
    put_in_court,
    set_pearls,
    tables,
)

from games.abyss.engine import state as S
from games.abyss.engine.audit import audit
from games.abyss.engine.cards.constants import LeviathanToken, Power
from games.abyss.engine.fast import lineup_arrays
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import lords as KL
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.rules.base import DECLINE, Action
from games.abyss.engine.rules.base import Decision as D
from games.abyss.engine.rules.decode import decode
from games.abyss.engine.rules.game import Game
from games.abyss.engine.rules.leviathan import LevDecision as L
from games.abyss.strategies import REGISTRY
from sim.core.workspace import trace_of

J, C, SH, Q = Race.JELLYFISH, Race.CRAB, Race.SHELLFISH, Race.SQUID
SLAVER, ORACLE = int(Power.SLAVER), int(Power.ORACLE)


# ------------------------------------------------------------------------------- helpers
def make_game(*scripts: dict, n: int = 3, seed: int = 0, t=None):
    """A game whose seat i answers from `scripts[i]` (default: the first option)."""
    policies = [Scripted(dict(scripts[i]) if i < len(scripts) else {}) for i in range(n)]
    return new_game(n, seed, policies, t), policies


def court_with_space(g: Game, free: int = 2) -> None:
    """A Court with `free` empty spaces (its other Lords from the top of the Lord deck)."""
    put_in_court(g, clear=True)
    while len(g.court) < g.t.court_size - free:
        g.court.append(g.lord_deck.pop())


def council(g: Game, race: int) -> None:
    """One Ally of `race` on its Council stack, so that REQUEST_SUPPORT is an action."""
    card = next(c for c in g.exploration_deck if g.race(c) == race)
    g.exploration_deck.remove(card)
    g.council[race].append(card)


def decisions(policy: Scripted) -> list[D]:
    return [d for d, _, _ in policy.asked]


def offers(policy: Scripted, decision) -> list[list[int]]:
    return [options for d, options, _ in policy.asked if d == decision]


def events(g: Game, kind: str, **match) -> list[dict]:
    return [
        e for e in g.events if e["event"] == kind and all(e.get(k) == v for k, v in match.items())
    ]


def on_both_engines(g: Game, play_ref, play_fast) -> None:
    """From g's present state, `play_ref(g)` on the reference engine and `play_fast(s)` on the
    fast path (the state loaded into a kernel workspace): the same decisions, options counted,
    and the same state after. g's policies must be compiled strategies."""
    state, counters = S.encode(g)
    s = KN.new_workspace(W.template(g.t), *lineup_arrays(g.policies), trace_cap=2_000)
    KN.load_state(s, state, counters, g.seed, g.game_index)
    start = len(g.trace)
    play_ref(g)
    play_fast(s)
    assert trace_of(s, W.TRACE) == [tuple(int(x) for x in row) for row in g.trace[start:]]
    fast = decode(s[: S.STATE_SIZE], W.get_counters(s), g.t, g.policies, g.seed, g.game_index)
    ref_state, ref_counters = S.encode(g)
    fast_state, fast_counters = S.encode(fast)
    assert np.array_equal(ref_state, fast_state) and np.array_equal(ref_counters, fast_counters)


# ============================================================================== The Slaver
def slaver_turn(g: Game, pearls: int, *hand: tuple) -> list[int]:
    """Seat 0 holds the Slaver, `hand` and `pearls`; the Council offers a stack to request."""
    give_lord(g, 0, "Slaver")
    council(g, C)
    set_pearls(g, 0, pearls)
    return give_allies(g, 0, *hand)


def test_slaver_before_plotting_its_pearls_pay_for_the_plot():
    """ "During your turn, you can discard 1 Ally from your hand to gain 2 Pearls" and "its owner
    chooses when during their turn to apply it": with no Pearl, the Slaver used before plotting
    pays for two Lords plotted ("You may pay one Pearl to the Treasury to add one Lord to an empty
    space in the Court"). Once used, it is not offered again that turn."""
    g, pols = make_game(
        {D.POWER_BEFORE_PLOT: [SLAVER], D.PLOT: [1, 1], D.ACTION: [Action.REQUEST_SUPPORT]}
    )
    court_with_space(g, free=2)
    j5, j1 = slaver_turn(g, 0, (J, 5), (J, 1))
    pols[0].answers[D.DISCARD_ALLY] = [j1]
    plotted = g.lord_deck[-2:][::-1]
    g.take_turn(0)
    assert decisions(pols[0])[:4] == [D.POWER_BEFORE_PLOT, D.DISCARD_ALLY, D.PLOT, D.PLOT]
    assert offers(pols[0], D.POWER_BEFORE_PLOT) == [[0, SLAVER]]
    assert D.POWER not in decisions(pols[0])  # used: not offered before or after the action
    assert [e["lord"] for e in events(g, "plot", who=0)] == plotted
    assert len(g.court) == g.t.court_size
    p0 = g.players[0]
    assert p0.pearls == 0 and j1 in g.exploration_discard and j5 in p0.hand
    assert [e["n"] for e in events(g, "pearls", who=0)] == [2, -1, -1]
    assert audit(g) == []


def test_slaver_needs_an_ally_in_hand():
    """ "discard 1 Ally from your hand": with an empty hand it is not offered before plotting nor
    before the action (and with no Pearl nothing can be plotted); once the Council's stack is in
    hand, after the action, it is."""
    g, pols = make_game({D.ACTION: [Action.REQUEST_SUPPORT]})
    court_with_space(g)
    slaver_turn(g, 0)
    g.take_turn(0)
    assert decisions(pols[0]) == [D.ACTION, D.POWER]
    assert offers(pols[0], D.POWER) == [[0, SLAVER]]
    assert g.players[0].pearls == 0 and audit(g) == []


def test_slaver_once_per_turn_across_the_three_windows():
    """Once per turn (components.md: "semi-permanent, once per turn"): used before plotting, it
    is no longer offered before the action nor after the Location step, while the Oracle ("During
    your turn, you may discard 1 stack of cards from the council"), unused, still is."""
    g, pols = make_game(
        {D.POWER_BEFORE_PLOT: [SLAVER, 0], D.POWER: [0, 0], D.ACTION: [Action.REQUEST_SUPPORT]}
    )
    court_with_space(g)
    give_lord(g, 0, "Oracle")
    slaver_turn(g, 0, (J, 5), (J, 1))
    council(g, Q)  # a stack left for the Oracle after the one requested
    g.take_turn(0)
    assert offers(pols[0], D.POWER_BEFORE_PLOT) == [[0, SLAVER, ORACLE], [0, ORACLE]]
    assert offers(pols[0], D.POWER) == [[0, ORACLE], [0, ORACLE]]
    assert len(events(g, "discard_ally", why="slaver")) == 1
    assert g.players[0].used_powers == {SLAVER}
    assert audit(g) == []


def test_slaver_declined_is_offered_at_every_point_of_the_turn():
    """ "During your turn": declined before plotting and before the action, it is offered again
    after the Location step, in that order around plotting and the action."""
    g, pols = make_game(
        {D.POWER_BEFORE_PLOT: [0], D.POWER: [0, SLAVER], D.ACTION: [Action.REQUEST_SUPPORT]}
    )
    court_with_space(g)
    slaver_turn(g, 1, (J, 5))
    pols[0].answers[D.PLOT] = [0]
    g.take_turn(0)
    asked = decisions(pols[0])
    order = [d for d in asked if d in (D.POWER_BEFORE_PLOT, D.PLOT, D.POWER, D.ACTION)]
    assert order == [D.POWER_BEFORE_PLOT, D.PLOT, D.POWER, D.ACTION, D.POWER]
    assert g.players[0].pearls == 3 and len(events(g, "discard_ally", why="slaver")) == 1
    assert audit(g) == []


@pytest.mark.parametrize("why", ["court full", "Lord deck empty"])
def test_no_window_before_plotting_when_no_lord_can_be_plotted(why):
    """Plotting "is not possible if the Court is full or the Lord deck is empty": then there is no
    point before it, and the Slaver is first offered before the action."""
    g, pols = make_game({D.POWER: [0, 0], D.ACTION: [Action.REQUEST_SUPPORT]})
    court_with_space(g, free=0 if why == "court full" else 2)
    if why == "Lord deck empty":
        g.lord_discard.extend(g.lord_deck)
        g.lord_deck.clear()
    slaver_turn(g, 3, (J, 5))
    g.take_turn(0)
    assert D.POWER_BEFORE_PLOT not in decisions(pols[0]) and D.PLOT not in decisions(pols[0])
    assert offers(pols[0], D.POWER) == [[0, SLAVER], [0, SLAVER]]
    assert audit(g) == []


@pytest.mark.parametrize("how", ["disabled", "under a Location"])
def test_slaver_not_offered_when_not_free_or_disabled(how):
    """A power without an arrow is semi-permanent "until the Lord is used to control a Location";
    the Assassin's victim "counts only for points": no window offers it."""
    g, pols = make_game({D.ACTION: [Action.REQUEST_SUPPORT]})
    court_with_space(g)
    slaver_turn(g, 1, (J, 5))
    slaver = g.players[0].lords[-1]
    if how == "disabled":
        g.players[0].disabled.add(slaver)
    else:
        give_location(g, 0, "The Dockworks", [slaver])
    pols[0].answers[D.PLOT] = [0]
    g.take_turn(0)
    assert not {D.POWER_BEFORE_PLOT, D.POWER} & set(decisions(pols[0]))
    assert audit(g) == []


def _slaver_policy_game(spec: str, pearls: int, *hand: tuple, free: int = 2) -> Game:
    """Seat 0 plays `spec` (a compiled strategy) with the Slaver, `hand` and `pearls`."""
    policies = REGISTRY.make_policies([spec, "random", "random"], 3)
    g = Game(tables(), policies, seed=3, game=0)
    court_with_space(g, free=free)
    slaver_turn(g, pearls, *hand)
    return g


@pytest.mark.parametrize(
    ("pearls", "uses"),
    [(1, True), (2, True), (0, False), (3, False)],
    ids=["1 Pearl", "2 Pearls", "0: 2 more fall short", "3: plots anyway"],
)
def test_heuristic_uses_the_slaver_before_plotting_when_its_pearls_let_it_plot(pearls, uses):
    """The heuristic plots while it holds `plot_pearls` (3 here) Pearls: before plotting it trades
    its weakest Ally for the Slaver's 2 Pearls when they bring it there, and not when it plots
    anyway or would still fall short. Both engines decide the same."""
    g = _slaver_policy_game("heuristic:plot_pearls=3:recruit_min=99", pearls, (J, 5), (J, 1))
    asked: list[tuple] = []
    g.policies[0] = _Spy(g.policies[0], asked)
    on_both_engines(g, lambda g: g.take_turn(0), lambda s: KN.take_turn(s, np.int32(0)))
    early = [answer for decision, _, answer in asked if decision == D.POWER_BEFORE_PLOT]
    assert early == [SLAVER if uses else 0]
    plots = events(g, "plot", who=0)
    assert (len(plots) > 0) == (uses or pearls >= 3)


def test_heuristic_and_greedy_use_the_slaver_when_its_pearls_pay_for_a_lord():
    """A Lord it cannot pay for now becomes affordable with 2 more Pearls for its weakest Ally:
    greedy ("recruit whenever possible") and the heuristic (a Lord worth `recruit_min`) use the
    Slaver before the action and recruit; with a Lord already affordable they do not."""
    for spec in ("greedy", "heuristic:recruit_min=0"):
        for pearls, uses in ((1, True), (3, False)):
            g = _slaver_policy_game(spec, pearls, (SH, 4), (SH, 1), (J, 1), free=0)
            # The Peddler (8, one race: Shellfish) is the only Lord the hand can pay for: with 3
            # Pearls, or with 1 and the Slaver's 2 for the Jellyfish 1 (its weakest Ally).
            peddler, *_ = put_in_court(
                g, "Peddler", "Traitor", "Landowner", "Aquaculturalist", "Sage", "Elder", clear=True
            )
            asked: list[tuple] = []
            g.policies[0] = _Spy(g.policies[0], asked)
            on_both_engines(g, lambda g: g.take_turn(0), lambda s: KN.take_turn(s, np.int32(0)))
            powers = [answer for decision, _, answer in asked if decision == D.POWER]
            assert powers[:1] == [SLAVER if uses else 0], (spec, pearls)
            assert peddler in g.players[0].lords, (spec, pearls)


def test_random_policy_randomises_the_slaver_before_plotting():
    """The random policy picks among the options: over seeds it both uses the Slaver before
    plotting and declines it."""
    answers = set()
    for seed in range(40):
        policies = REGISTRY.make_policies(["random"] * 3, 3)
        g = Game(tables(), policies, seed=seed, game=0)
        court_with_space(g)
        slaver_turn(g, 0, (J, 5))
        asked: list[tuple] = []
        g.policies[0] = _Spy(g.policies[0], asked)
        g.take_turn(0)
        answers |= {answer for decision, _, answer in asked if decision == D.POWER_BEFORE_PLOT}
    assert answers == {0, SLAVER}


class _Spy:
    """A compiled policy whose questions and answers are recorded."""

    def __init__(self, policy, asked: list):
        self.policy, self.asked = policy, asked
        self.name, self.kind = policy.name, policy.kind

    def params(self):
        return self.policy.params()

    def choose(self, game, seat, decision, options):
        answer = self.policy.choose(game, seat, decision, options)
        self.asked.append((decision, list(options), answer))
        return answer


# ============================================================================== The Hunter
def leviathan_game(*scripts: dict, n: int = 3, seed: int = 0):
    return make_game(*scripts, n=n, seed=seed, t=lev_tables())


def hold(g: Game, seat: int, *kinds: LeviathanToken) -> list[int]:
    """Move Leviathan Monster tokens of the given kinds from their deck to a player's hand of
    face-down (held) tokens."""
    moved = []
    for kind in kinds:
        token = next(
            x for x in g.leviathan_tokens if g.t.leviathan_token_kind[x] == kind and x not in moved
        )
        g.leviathan_tokens.remove(token)
        g.players[seat].held_tokens.append(token)
        moved.append(token)
    return moved


def hunt(g: Game) -> None:
    hunter = give_lord(g, 0, "Hunter")
    g.apply_recruit_power(g.players[0], hunter)


def test_hunter_robs_an_opponent_holding_only_leviathan_tokens():
    """ "Steal a random Monster token from the opponent of your choice": an opponent whose only
    Monster tokens are face-down Leviathan tokens can be chosen, and the token stolen is held by
    the Hunter's owner, who, having taken it, may "reveal them immediately or reveal them at the
    start of one of your next turns" (held here)."""
    g, pols = leviathan_game({L.REVEAL_TOKEN: [0]})
    (token,) = hold(g, 1, LeviathanToken.PEARLS)
    hunt(g)
    assert offers(pols[0], L.REVEAL_TOKEN) == [[0, 1]]
    p0, p1 = g.players[0], g.players[1]
    assert p0.held_tokens == [token] and p1.held_tokens == [] and p0.tokens == []
    assert events(g, "hunt", who=0, victim=1, leviathan_token=token)
    assert audit(g) == []


def test_hunter_stolen_leviathan_token_revealed_at_once_acts_for_the_thief():
    """The stolen token revealed at once: "Once revealed, apply their effect and then discard
    them": its Pearls go to the Hunter's owner."""
    g, pols = leviathan_game({L.REVEAL_TOKEN: [1]})
    (token,) = hold(g, 1, LeviathanToken.PEARLS)
    set_pearls(g, 0, 0)
    hunt(g)
    amount = int(g.t.leviathan_token_amount[token])
    assert g.players[0].pearls == amount and g.players[0].held_tokens == []
    assert g.leviathan_token_discard[-1] == token
    assert audit(g) == []


def test_hunter_chooses_among_opponents_with_either_kind_of_token():
    """ "the opponent of your choice": every opponent holding a Monster token of either kind is
    offered (clockwise), one without any is not, nor one whose Leviathan tokens were revealed
    (they were discarded)."""
    g, pols = leviathan_game({D.TARGET_OPPONENT: [3]}, n=5)
    give_tokens(g, 1, 1)
    hold(g, 3, LeviathanToken.KEY)
    (revealed,) = hold(g, 4, LeviathanToken.PEARLS)
    g.reveal_token(g.players[4], 0)  # revealed: discarded, no longer held
    hunt(g)
    assert offers(pols[0], D.TARGET_OPPONENT) == [[1, 3]]
    assert revealed in g.leviathan_token_discard
    assert audit(g) == []


def test_hunter_against_nobody_holding_tokens_does_nothing():
    """No opponent holds a Monster token of either kind: nothing is asked or stolen."""
    g, pols = leviathan_game()
    hunt(g)
    assert pols[0].asked == [] and events(g, "hunt") == []
    assert audit(g) == []


def test_shaman_protects_leviathan_tokens_from_the_hunter():
    """The Shaman: "You are protected against the Powers of Military Lords": the Shaman's owner
    is not offered even when holding only Leviathan tokens."""
    g, pols = leviathan_game()
    shielded = hold(g, 1, LeviathanToken.PEARLS)
    give_lord(g, 1, "Shaman")
    hunt(g)
    assert g.players[1].held_tokens == shielded and pols[0].asked == []
    other = hold(g, 2, LeviathanToken.COUNCIL)
    hunt(g)
    assert offers(pols[0], D.TARGET_OPPONENT) == []  # a single victim: not asked
    assert g.players[0].held_tokens == other and g.players[1].held_tokens == shielded
    assert audit(g) == []


def _steal_from_mixed(seed: int) -> str:
    """Which kind of token a Hunter steals from a victim holding 1 base and 3 Leviathan tokens."""
    g, _ = leviathan_game({L.REVEAL_TOKEN: [0]}, seed=seed)
    give_tokens(g, 1, 1)
    hold(g, 1, LeviathanToken.PEARLS, LeviathanToken.KEY, LeviathanToken.COUNCIL)
    hunt(g)
    assert len(g.players[1].tokens) + len(g.players[1].held_tokens) == 3
    assert audit(g) == []
    return "base" if g.players[0].tokens else "leviathan"


def test_hunter_token_is_random_over_both_kinds():
    """ "a random Monster token": uniform over all the victim's tokens, so with 1 base and 3
    Leviathan tokens a base one is stolen a quarter of the time (400 seeds: 100 expected,
    standard deviation 8.7: within 4 of them, 65-135); the same seed steals the same token."""
    kinds = [_steal_from_mixed(seed) for seed in range(400)]
    assert 65 <= kinds.count("base") <= 135
    assert kinds[:20] == [_steal_from_mixed(seed) for seed in range(20)]


def test_hunter_with_leviathan_tokens_on_both_engines():
    """The fast path steals the same token from the same state (a random strategy everywhere:
    its victim, the token, whether it is revealed)."""
    stolen = set()
    for seed in range(12):
        policies = REGISTRY.make_policies(["random"] * 3, 3)
        g = Game(lev_tables(), policies, seed=seed, game=0)
        give_tokens(g, 1, 1)
        hold(g, 1, LeviathanToken.PEARLS, LeviathanToken.KEY)
        hold(g, 2, LeviathanToken.COUNCIL)
        hunter = give_lord(g, 0, "Hunter")
        on_both_engines(
            g,
            lambda g, h=hunter: g.apply_recruit_power(g.players[0], h),
            lambda s, h=hunter: KL.apply_recruit_power(s, np.int32(0), np.int32(h)),
        )
        stolen.add("base" if g.players[0].tokens else "leviathan")
    assert stolen == {"base", "leviathan"}


# ====================================================================== Black Smokers
def illusionist_to_black_smokers(g: Game) -> tuple[int, int, list[int]]:
    """Seat 0 holds The Jail (a Keeper under it); Black Smokers is the only available Location.
    Returns (the Jail, Black Smokers, the Lords under the Jail)."""
    keeper = give_lord(g, 0, "Keeper")
    jail = give_location(g, 0, "The Jail", [keeper])
    bs = location_id(g, "Black Smokers")
    g.location_deck.extend(x for x in g.locations_available if x != bs)
    g.locations_available.clear()
    if bs in g.location_deck:
        g.location_deck.remove(bs)
    g.locations_available.append(bs)
    return jail, bs, [keeper]


def test_black_smokers_via_the_illusionist_can_be_swapped():
    """The Illusionist takes Black Smokers: "On acquisition you may immediately swap it for a
    Location of your choice from the deck" is offered (every Location of the deck); the Location
    chosen takes Black Smokers' place with the Lords that were under the Location given, Black
    Smokers goes into the deck, the Location given is available."""
    g, pols = make_game()
    jail, bs, under = illusionist_to_black_smokers(g)
    pols[0].answers[D.ILLUSIONIST_GIVE] = [jail]
    parliament = location_id(g, "Parliament")
    pols[0].answers[D.BLACK_SMOKERS] = [parliament]
    deck = sorted(g.location_deck)
    illusionist = give_lord(g, 0, "Illusionist")
    g.apply_recruit_power(g.players[0], illusionist)
    p0 = g.players[0]
    assert offers(pols[0], D.BLACK_SMOKERS) == [[bs, *deck]]
    assert p0.locations == [parliament] and p0.location_lords == {parliament: under}
    assert bs in g.location_deck and parliament not in g.location_deck
    assert g.locations_available == [jail]
    assert audit(g) == []


def test_black_smokers_via_the_illusionist_may_be_kept():
    """ "you may": keeping Black Smokers (the option that is Black Smokers itself) leaves the deck
    untouched, not even reshuffled."""
    g, pols = make_game()
    jail, bs, under = illusionist_to_black_smokers(g)
    pols[0].answers[D.ILLUSIONIST_GIVE] = [jail]
    pols[0].answers[D.BLACK_SMOKERS] = [bs]
    deck = list(g.location_deck)
    illusionist = give_lord(g, 0, "Illusionist")
    g.apply_recruit_power(g.players[0], illusionist)
    assert g.players[0].locations == [bs] and g.players[0].location_lords == {bs: under}
    assert g.location_deck == deck and g.locations_available == [jail]
    assert audit(g) == []


def test_black_smokers_via_the_illusionist_with_an_empty_deck_is_kept():
    """ "a Location of your choice from the deck": with no Location in the deck nothing is
    offered and Black Smokers is kept."""
    g, pols = make_game()
    jail, bs, under = illusionist_to_black_smokers(g)
    pols[0].answers[D.ILLUSIONIST_GIVE] = [jail]
    g.locations_available.extend(g.location_deck)
    g.location_deck.clear()
    illusionist = give_lord(g, 0, "Illusionist")
    g.apply_recruit_power(g.players[0], illusionist)
    assert offers(pols[0], D.BLACK_SMOKERS) == []
    assert g.players[0].locations == [bs] and jail in g.locations_available
    assert audit(g) == []


def test_illusionist_declined_offers_no_swap():
    """Declining the exchange acquires nothing: no Black Smokers swap is offered."""
    g, pols = make_game({D.ILLUSIONIST_GIVE: [DECLINE]})
    jail, bs, _ = illusionist_to_black_smokers(g)
    illusionist = give_lord(g, 0, "Illusionist")
    g.apply_recruit_power(g.players[0], illusionist)
    assert offers(pols[0], D.BLACK_SMOKERS) == [] and g.players[0].locations == [jail]
    assert g.locations_available == [bs] and audit(g) == []


def test_black_smokers_via_the_illusionist_on_both_engines():
    """The fast path offers the same swap and ends in the same state (random strategies, over
    seeds until both a swap and a kept Black Smokers were seen; one Location left in the deck,
    the others held by seat 2)."""
    seen = set()
    for seed in range(40):
        policies = REGISTRY.make_policies(["random"] * 3, 3)
        g = Game(tables(), policies, seed=seed, game=0)
        illusionist_to_black_smokers(g)
        while len(g.location_deck) > 1:
            g.players[2].locations.append(g.location_deck.pop())
            g.players[2].location_lords[g.players[2].locations[-1]] = []
        illusionist = give_lord(g, 0, "Illusionist")
        on_both_engines(
            g,
            lambda g, x=illusionist: g.apply_recruit_power(g.players[0], x),
            lambda s, x=illusionist: KL.apply_recruit_power(s, np.int32(0), np.int32(x)),
        )
        if any(row[1] == D.BLACK_SMOKERS for row in g.trace):
            seen.add(bool(events(g, "black_smokers")))
        if seen == {True, False}:
            break
    assert seen == {True, False}
