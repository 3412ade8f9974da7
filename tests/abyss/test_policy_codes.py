"""The compiled policies restate the reference engine's integers as plain module constants (numba
compiles them in): each is tied here to the enum or constant it stands for, so renumbering a
decision or an option fails here instead of quietly playing another game."""

from __future__ import annotations

import pytest

from games.abyss.engine import policies as P
from games.abyss.engine.cards.constants import AllyEffect, Stream
from games.abyss.engine.rules import base
from games.abyss.engine.rules.base import Action, Decision
from games.abyss.engine.rules.leviathan import LevDecision, MonsterChoice


def codes(module, prefix: str) -> dict[str, int]:
    """The module's int constants named `prefix` + a member's name, by that name."""
    return {name.removeprefix(prefix): value for name, value in vars(module).items()
            if name.startswith(prefix) and type(value) is int}  # fmt: skip


def members(*enums) -> dict[str, int]:
    return {m.name: int(m) for enum in enums for m in enum}


@pytest.mark.parametrize(
    "prefix, enums",
    [("D_", (Decision, LevDecision)), ("A_", (Action,)), ("M_", (MonsterChoice,))],
)
def test_every_decision_and_option_code_is_its_enums(prefix: str, enums) -> None:
    assert codes(P, prefix) == members(*enums)


def test_the_option_constants_are_the_rules() -> None:
    assert P.DECLINE == base.DECLINE == base.FINISH == base.KEY_TOKEN
    assert P.LOCATION_DRAW == base.LOCATION_DRAW
    assert P.ADD_PEARLS == AllyEffect.ADD_PEARLS
    assert P.POLICY_STREAM == Stream.POLICY

