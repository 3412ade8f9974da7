"""The search player (issue 21, docs/search.md): determinized flat Monte Carlo on the fast path.

At each of its decisions with more than one option, the kernel's driver (`sim.abyss.kernel`,
`play_searched`) replays the turn from its start in a copy of the game, samples what the seat
cannot see (`kernel_base.determinize`: the face-down decks in a canonical order, reshuffled; the
opponents' face-down Monster tokens redealt), plays each option and the game to its end with
`rollout_policy` in every seat, and keeps the option that UCB1 visited most. This class holds the
documented parameters and the vector the kernel reads; the decisions are the kernel's, on the
reference engine too (`choose`, `sim.abyss.kernel_search`: the same choices, the same games).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.abyss import policy_params as P
from strategies.abyss.baseline import CompiledPolicy
from strategies.registry import StrategyError, param


def _preset_names() -> tuple[str, ...]:
    here = Path(__file__).parent
    names = []
    for f in ("presets.toml", "tuned.toml"):
        with open(here / f, "rb") as fh:
            names += [k for k, v in tomllib.load(fh).items() if isinstance(v, dict)]
    return ("random", "greedy", "heuristic", *names)


#: What the rollouts may play: the built-in policies and presets (hand-written and tuned).
ROLLOUT_POLICIES = _preset_names()


@dataclass
class SearchPolicy(CompiledPolicy):
    """Looks ahead: every option of every decision valued by rollouts to the end of the game."""

    name: str = "search"
    rollouts: int = param(
        64,
        "Rollouts per decision (the budget), shared among the options by UCB1; every option "
        "gets at least one.",
        "values the options more exactly and plays slower (docs/search.md: the budget-strength "
        "curve).",
        low=1,
        high=100_000,
        unit="rollouts",
        tune=False,
    )
    exploration: float = param(
        0.7,
        "UCB1's exploration constant: the next rollout goes to the option with the highest "
        "mean reward + exploration x sqrt(ln rollouts / the option's rollouts).",
        "spreads the rollouts more evenly over the options; 0: always the best so far.",
        low=0.0,
        high=5.0,
        unit="reward",
        tune=False,
    )
    determinizations: int = param(
        0,
        "Samples of the hidden cards cycled: the j-th rollout of every option plays sample j "
        "modulo this (common random numbers between the options). 0: a new sample for every "
        "rollout.",
        "compares the options on fewer deals, each seen by several rollouts.",
        low=0,
        high=100_000,
        unit="samples",
        tune=False,
    )
    confidence: float = param(
        1.0,
        "How many standard errors of the difference the best option's mean reward must beat "
        "the rollout policy's own option by to be played instead (0: always the best).",
        "keeps to the model of good play unless the rollouts say clearly otherwise "
        "(docs/search.md: without it the search played noise at 4 players with Leviathan).",
        low=0.0,
        high=5.0,
        unit="standard errors",
        tune=False,
    )
    rollout_policy: str = param(
        "pearl_economist_tuned_4p",
        "The strategy every seat plays in the rollouts (a built-in policy or preset): the "
        "search's model of every player, itself included, after the decision; also its "
        "default, played unless the rollouts show clearly better. The default is the strongest "
        "preset at 4 players with Leviathan; at other tables that count's best preset is a "
        "better model.",
        "plays the rollouts with another model of every player (docs/search.md: a model close "
        "to the real opponents makes the search much stronger).",
        choices=ROLLOUT_POLICIES,
        unit="built-in policies and presets",
        tune=False,
    )
    kind = P.SEARCH
    #: it looks ahead (slow): not screened into `tune`'s default field
    LOOKS_AHEAD = True
    #: the reference engine keeps each turn's start for it (`Game.keep_turn_start`)
    REPLAYS_TURNS = True

    def params(self) -> np.ndarray:
        from strategies.abyss import REGISTRY

        vec = np.zeros(P.N_PARAMS, dtype=np.int32)
        vec[P.S_ROLLOUTS] = self.rollouts
        vec[P.S_EXPLORATION] = round(self.exploration * 1000)
        vec[P.S_DETERMINIZATIONS] = self.determinizations
        vec[P.S_CONFIDENCE] = round(self.confidence * 1000)
        rollout = REGISTRY.make_policy(self.rollout_policy)
        vec[P.ROLLOUT_KIND] = rollout.kind
        vec[P.ROLLOUT_PARAMS : P.ROLLOUT_PARAMS + P.N_SLOTS] = rollout.params()[: P.N_SLOTS]
        return vec

    def choose(self, game, seat: int, decision: int, options: list[int]) -> int:
        """The reference engine's call: the fast path's choice, computed by the compiled search
        from the turn's start that the game keeps (`Game.keep_turn_start`) and the search
        decisions taken since (its trace), so both engines play the same games. The replay
        must reach this very decision with these options, or the engines disagree on the rules.
        Nothing of the game is changed: its random streams are not drawn from."""
        from sim.abyss.fast import lineup_arrays
        from sim.abyss.kernel_search import reference_choice

        if game.turn_start is None:
            raise StrategyError("the search player decides in games played by `Game.play`")
        if any(getattr(p, "kind", None) is None for p in game.policies):
            raise StrategyError("the search player replays every seat: all must be built-in "
                                "strategies or presets")  # fmt: skip
        kinds, params = lineup_arrays(game.policies)
        state, counters, first = game.turn_start
        script = [o for q, _, o, _ in game.trace[first:] if kinds[q] == P.SEARCH]
        option, asked = reference_choice(game.t, kinds, params, (state, counters), script,
                                         game.seed, game.game_index)  # fmt: skip
        if asked != (seat, int(decision), list(options)):
            raise RuntimeError(
                f"the search's replay of turn {game.turn} reached {asked}, the reference engine "
                f"asks {(seat, int(decision), list(options))}"
            )
        return option
