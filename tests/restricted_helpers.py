"""What both games' tests of restricted play share (`test_restricted_routes.py`,
`test_conspiracy_restricted_routes.py`): a reference game that records every decision by which a
seat can gain a forbidden card, a seat that wants that card, and the check of a finished game.

A game's test supplies `route_gains(seat, decision, options)`: for each option, whether choosing
it gains the seat a forbidden card (None: the decision gains no card), read from its rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable


class RouteRecorder:
    """Mixed into a reference `Game`: logs (event `route`) every decision by which a seat can gain
    a forbidden card, with its options, which of them gain it and the answer (single options,
    which are not asked, too)."""

    gains_now: list[bool] | None = None  # the decision being asked, for the `Adversary`

    def route_gains(self, seat: int, decision, options: list[int]) -> list[bool] | None:
        raise NotImplementedError

    def choose(self, seat: int, decision, options: list[int]) -> int:
        gained = self.gains_now = self.route_gains(seat, decision, options)
        answer = super().choose(seat, decision, options)
        if gained is not None:
            self.log("route", who=seat, decision=int(decision), options=list(options),
                     answer=answer, gains=gained)  # fmt: skip
        return answer


class Adversary:
    """A restricted seat that wants its forbidden card: where a choice can gain it
    (`RouteRecorder.gains_now`), half the time an option gaining it if the filter leaves one
    (`kept(game, seat, decision, options, policy)`: the options the compiled filter leaves for
    `policy`, a built-in strategy with `forbid_*` parameters), else any option the filter leaves;
    elsewhere any option; all at random from the game's POLICY stream."""

    name = "adversary"

    def __init__(self, policy, kept: Callable):
        self.policy, self.kept = policy, kept

    def choose(self, game, seat: int, decision, options: list[int]) -> int:
        gained = game.gains_now
        if gained is None:
            return options[game.policy_below(len(options))]
        left = self.kept(game, seat, decision, options, self.policy)
        bait = [o for o, hit in zip(options, gained, strict=True) if hit and o in left]
        if bait and game.policy_below(2) == 0:
            return bait[game.policy_below(len(bait))]
        return left[game.policy_below(len(left))]


def audit_routes(
    events: list[dict], turn_event: str, gained: Callable, name: Callable, tally: Counter
) -> list[str]:
    """The problems of a finished game: a choice gaining the forbidden card while another option
    did not, or a gain (`gained(event, previous)`: "forced" if it must follow a forced choice,
    "unseen" if none is needed, None if the event is no gain) that follows no such choice of its
    seat within the turn. Counts the routes met (`name(decision)`) in `tally`."""
    problems = []
    committed: set[int] = set()
    previous = None
    for e in events:
        who = e.get("who")
        if e["event"] == turn_event:
            committed.clear()
        elif e["event"] == "route":
            chosen = e["gains"][e["options"].index(e["answer"])]
            if any(e["gains"]):
                tally[name(e["decision"]), "forced" if all(e["gains"]) else "avoided"] += 1
            if chosen:
                committed.add(who)
                if not all(e["gains"]):
                    problems.append(f"chose a forbidden card with other options: {e}")
        else:
            how = gained(e, previous)
            if how == "unseen":
                tally["gained", "unseen"] += 1
            elif how == "forced" and who in committed:
                committed.discard(who)
                tally["gained", "forced"] += 1
            elif how == "forced":
                problems.append(f"gained a forbidden card by no forced choice: {e}")
        previous = e
    return problems
