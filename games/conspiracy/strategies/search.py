"""The search player for Abyss: Conspiracy (docs/search.md): determinized flat Monte Carlo on the
fast path, as Abyss's.

At each of its decisions with more than one option, the driver
(`games.conspiracy.engine.kernel.search`)
replays the turn from its start in a copy of the game, samples what no player can see
(`kernel.determinize`: the Lord and Location decks in a canonical order, reshuffled), plays each
option and the game to its end with `rollout_policy` in every seat, and plays the option UCB1
visited most if paired rollouts on fresh samples confirm it beats the rollout policy's own
(`sim.core.search.search_decision_for`, as Abyss's). This class holds the documented parameters
and the vector the kernel reads.

The reference engine plays the same games: it keeps every turn's start (`Game.keep_turn_start`:
the state encoded) and `choose` runs the same compiled search from there, with the turn's search
decisions so far (its trace) as the script (`kernel_search.reference_choice`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from games.conspiracy.engine import policies as P
from games.conspiracy.strategies.baseline import CompiledPolicy
from strategies.search import (
    SearchPlayer,
    rollout_archetype_param,
    rollout_choices,
    rollout_policy_param,
)

#: What the rollouts may play: the built-in policies and presets (hand-written and tuned).
ROLLOUT_POLICIES = rollout_choices(Path(__file__).parent, ("random", "heuristic", "learned"))


@dataclass
class SearchPolicy(SearchPlayer, CompiledPolicy):
    """Looks ahead: every option of every decision valued by rollouts to the end of the game."""

    name: str = "search"
    rollout_policy: str = rollout_policy_param("key_hunter_open_2p", ROLLOUT_POLICIES)
    rollout_archetype: str = rollout_archetype_param(Path(__file__).parent)
    kind = P.SEARCH
    slots = P
    package = "conspiracy"
