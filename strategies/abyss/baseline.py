"""The two baseline policies of the base game: uniformly random, and a simple greedy player.

A policy sees the whole game (`Game`) but must only read it. Randomness comes from the game's POLICY
stream (`game.policy_below`), never from a global generator, so every game can be replayed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.abyss.constants import Power
from sim.abyss.rules import (
    DECLINE,
    FINISH,
    KEY_TOKEN,
    LOCATION_DRAW,
    Action,
    Decision,
    Game,
    location_formula,
)


@dataclass
class RandomPolicy:
    """Picks uniformly among the legal options: reaches every rule path; the default opponent."""

    name: str = "random"

    def choose(self, game: Game, seat: int, decision: Decision, options: list[int]) -> int:
        return options[game.policy_below(len(options))]


@dataclass
class GreedyPolicy:
    """A simple baseline: recruit whenever possible, buy and take strong Allies, fight for Keys.

    Parameters:
        buy_min: buy an offered Ally of at least this value.
        take_min: take a revealed Ally of at least this value for free.
        take_slot: take any Ally revealed on this track space or later.
        fight_threat: fight a Monster when the Threat token is at least on this space (0-based).
        council_min: request support when a Council stack holds at least this many cards.
        pearl_shortfall: finish a payment with Pearls when at most this many points are missing.
    """

    name: str = "greedy"
    buy_min: int = 4
    take_min: int = 4
    take_slot: int = 4
    fight_threat: int = 2
    council_min: int = 3
    pearl_shortfall: int = 1

    def choose(self, game: Game, seat: int, decision: Decision, options: list[int]) -> int:
        g, t = game, game.t
        p = g.players[seat]
        if decision == Decision.ACTION:
            if Action.RECRUIT in options:
                return Action.RECRUIT
            biggest = max(len(stack) for stack in g.council)
            if Action.REQUEST_SUPPORT in options and biggest >= self.council_min:
                return Action.REQUEST_SUPPORT
            return Action.EXPLORE if Action.EXPLORE in options else options[0]
        if decision == Decision.BUY:
            return int(g.value(g.track[-1]) >= self.buy_min)
        if decision == Decision.TAKE_ALLY:
            return int(g.value(g.track[-1]) >= self.take_min or len(g.track) >= self.take_slot)
        if decision == Decision.FIGHT_MONSTER:
            return int(g.threat >= self.fight_threat)
        if decision == Decision.THREAT_REWARD:
            space_options = t.threat_options[_reward_space(g, seat)]
            return _argmax(
                options,
                lambda k: (
                    2 * space_options[k][0] + 5 * space_options[k][1] + 6 * space_options[k][2]
                ),
            )
        if decision in (Decision.COUNCIL_STACK, Decision.COUNCIL_DISCARD):
            return _argmax(options, lambda race: len(g.council[race]))
        if decision in (Decision.RECRUIT_LORD, Decision.COURT_LORD):
            return _argmax(options, lambda lord: -1 if lord == DECLINE else int(t.lord_ip[lord]))
        if decision == Decision.PAY_ALLY:
            return self._pay(g, seat, options)
        if decision == Decision.AFFILIATE:
            return _argmax(options, g.value)
        if decision == Decision.DISCARD_ALLY:
            return _argmax(options, lambda a: -g.value(a))
        if decision == Decision.KEY_SOURCE:
            return (
                KEY_TOKEN
                if KEY_TOKEN in options
                else _argmax(options, lambda lord: -int(t.lord_ip[lord]))
            )
        if decision == Decision.LOCATION_SOURCE:
            face_up = [o for o in options if o < LOCATION_DRAW]
            draws = [o for o in options if o >= LOCATION_DRAW]
            if face_up:
                best = _argmax(face_up, lambda loc: location_formula(t, p, loc))
                if not draws or location_formula(t, p, best) >= 8:
                    return best
            return draws[-1]
        if decision in (Decision.LOCATION_KEEP, Decision.ILLUSIONIST_TAKE):
            return _argmax(options, lambda loc: location_formula(t, p, loc))
        if decision == Decision.BLACK_SMOKERS:
            return _argmax(
                options, lambda loc: 0 if loc == DECLINE else location_formula(t, p, loc)
            )
        if decision == Decision.TARGET_OPPONENT:
            return _argmax(options, lambda s: len(g.players[s].tokens))
        if decision == Decision.ASSASSIN_TARGET:
            return _argmax(options, lambda lord: int(t.lord_keys[lord]))
        if decision == Decision.POWER:
            # The Slaver turns a surplus Ally into 2 Pearls; other once-per-turn powers are skipped.
            return Power.SLAVER if Power.SLAVER in options and len(p.hand) >= 8 else 0
        # PLOT, OWN_LORD, ILLUSIONIST_GIVE: decline / stop.
        return DECLINE if DECLINE in options else options[0]

    def _pay(self, g: Game, seat: int, options: list[int]) -> int:
        """Cover the required races with the strongest Allies, then let Pearls pay a small rest."""
        rule_cost = _current_cost(g, seat)
        used_value = _payment_so_far(g, seat)
        allies = [o for o in options if o != FINISH]
        if FINISH in options and (not allies or rule_cost - used_value <= self.pearl_shortfall):
            return FINISH
        return _argmax(allies, g.value)


def _argmax(options: list[int], key) -> int:
    """The first option with the largest key: deterministic, so both engines agree."""
    best, best_key = options[0], key(options[0])
    for o in options[1:]:
        k = key(o)
        if k > best_key:
            best, best_key = o, k
    return best


def _reward_space(g: Game, seat: int) -> int:
    return g.pending_reward_space


def _current_cost(g: Game, seat: int) -> int:
    return g.pending_payment[0]


def _payment_so_far(g: Game, seat: int) -> int:
    return sum(g.value(a) for a in g.pending_payment[1])
