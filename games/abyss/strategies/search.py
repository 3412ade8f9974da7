"""The search player (issue 21, docs/search.md): determinized flat Monte Carlo on the fast path.

At each of its decisions with more than one option, the kernel's driver
(`games.abyss.engine.kernel.game`,
`play_searched`) replays the turn from its start in a copy of the game, samples what the seat
cannot see (`kernel_base.determinize`: the face-down decks in a canonical order, reshuffled; the
opponents' face-down tokens redealt), plays each option and the game to its end with
`rollout_policy` in every seat, and plays the option UCB1 visited most if paired rollouts on
fresh samples confirm it beats the rollout policy's own (`sim.core.search.search_decision_for`).
This class holds the documented parameters and the vector the kernel reads; the decisions are
the kernel's, on the reference engine too (`choose`, `games.abyss.engine.kernel.search`: the same
choices, the same games).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from games.abyss.engine import policy_params as P
from games.abyss.strategies.baseline import CompiledPolicy
from strategies.search import (
    SearchPlayer,
    rollout_archetype_param,
    rollout_choices,
    rollout_policy_param,
)

#: What the rollouts may play: the built-in policies and presets (hand-written and tuned).
ROLLOUT_POLICIES = rollout_choices(Path(__file__).parent,
                                   ("random", "greedy", "heuristic", "learned"))


@dataclass
class SearchPolicy(SearchPlayer, CompiledPolicy):
    """Looks ahead: every option of every decision valued by rollouts to the end of the game."""

    name: str = "search"
    rollout_policy: str = rollout_policy_param(
        "pearl_economist_open_4p", ROLLOUT_POLICIES, " The default is the strongest preset at 4 "
        "players with Leviathan; at other tables that count's best preset is a better model.")
    rollout_archetype: str = rollout_archetype_param(Path(__file__).parent)
    kind = P.SEARCH
    slots = P
    package = "abyss"
