"""Conspiracy's learned player (docs/learned.md): a linear option scorer distilled from the search
player, over a base heuristic (`games.conspiracy.engine.policies.learned`). Its weights are data:
`learned_<n>p.npz` next to this module (made by `abyss-mc learn --game conspiracy`), or a user's
(`learned:weights=FILE`). Restricted play works on it as on the heuristic: its forbid_* slots are
its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from games.conspiracy.engine import policies as P
from games.conspiracy.engine import state as S
from games.conspiracy.strategies.baseline import CompiledPolicy, HeuristicPolicy
from strategies.learned import LearnedPlayer
from strategies.registry import copied_param


class _Slots:
    L_WEIGHTS, N_SLOTS = S.L_WEIGHTS, S.N_SLOTS
    LEARNED_DECISIONS, FEATURE_NAMES = P.LEARNED_DECISIONS, P.FEATURE_NAMES


@dataclass
class LearnedPolicy(LearnedPlayer, CompiledPolicy):
    """Scores each option by weights learned from the search's decisions (docs/learned.md)."""

    name: str = "learned"
    forbid_colour: int = copied_param(HeuristicPolicy, "forbid_colour")
    forbid_ip: int = copied_param(HeuristicPolicy, "forbid_ip")
    forbid_location: int = copied_param(HeuristicPolicy, "forbid_location")
    kind = P.LEARNED
    package = "conspiracy"
    slots = _Slots
    builtin_dir = Path(__file__).parent / "learned"
    default_players = 2
    FORBID = (("forbid_colour", P.H_FORBID_COLOUR), ("forbid_ip", P.H_FORBID_IP),
              ("forbid_location", P.H_FORBID_LOCATION))  # fmt: skip
