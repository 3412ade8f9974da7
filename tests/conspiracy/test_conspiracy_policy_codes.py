"""Conspiracy's compiled policies restate the reference engine's integers as plain module
constants (numba compiles them in): each is tied here to the enum or constant it stands for, so
renumbering a decision or an option fails here instead of quietly playing another game."""

from __future__ import annotations

from games.conspiracy.engine import policies as P
from games.conspiracy.engine.rules import game as rules
from games.conspiracy.engine.rules.game import Decision, Stream


def test_every_decision_code_is_its_enums() -> None:
    codes = {name.removeprefix("D_"): value for name, value in vars(P).items()
             if name.startswith("D_") and type(value) is int}  # fmt: skip
    assert codes == {m.name: int(m) for m in Decision}


def test_the_option_constants_are_the_rules() -> None:
    assert (P.PILE, P.NO_SWAP, P.LOCATION_DRAW) == (rules.PILE, rules.NO_SWAP, rules.LOCATION_DRAW)
    assert P.POLICY_STREAM == Stream.POLICY
