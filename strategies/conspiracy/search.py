"""The search player for Abyss: Conspiracy (docs/search.md): determinized flat Monte Carlo on the
fast path, as Abyss's.

At each of its decisions with more than one option, the driver (`sim.conspiracy.kernel_search`)
replays the turn from its start in a copy of the game, samples what no player can see
(`kernel.determinize`: the Lord and Location decks in a canonical order, reshuffled), plays each
option and the game to its end with `rollout_policy` in every seat, and keeps the option that
UCB1 visited most. This class holds the documented parameters and the vector the kernel reads.

The reference engine plays the same games: it keeps every turn's start (`Game.keep_turn_start`:
the state encoded) and `choose` runs the same compiled search from there, with the turn's search
decisions so far (its trace) as the script (`kernel_search.reference_choice`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.conspiracy import policies as P
from sim.conspiracy import state as S
from strategies.conspiracy import CompiledPolicy
from strategies.registry import StrategyError, param


def _preset_names() -> tuple[str, ...]:
    names = []
    for f in ("presets.toml", "tuned.toml"):
        with open(Path(__file__).with_name(f), "rb") as fh:
            names += [k for k, v in tomllib.load(fh).items() if isinstance(v, dict)]
    return ("random", "heuristic", *names)


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
        "values the options more exactly and plays slower (docs/search.md).",
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
        "Samples of the face-down decks cycled: the j-th rollout of every option plays sample "
        "j modulo this (common random numbers between the options). 0: a new sample for every "
        "rollout.",
        "compares the options on fewer deals, each seen by several rollouts.",
        low=0,
        high=100_000,
        unit="samples",
        tune=False,
    )
    rollout_policy: str = param(
        "key_hunter_tuned_2p",
        "The strategy every seat plays in the rollouts (a built-in policy or preset): the "
        "search's model of every player, itself included, after the decision.",
        "plays the rollouts with another model of every player (docs/search.md).",
        choices=ROLLOUT_POLICIES,
        unit="built-in policies and presets",
        tune=False,
    )
    kind = P.SEARCH
    #: it looks ahead (slow): not screened into `tune`'s default field
    LOOKS_AHEAD = True
    #: it decides from its turn's start: the reference engine keeps it (`Game.keep_turn_start`)
    REPLAYS_TURNS = True

    def params(self) -> np.ndarray:
        from strategies.conspiracy import REGISTRY

        vec = np.zeros(S.N_PARAMS, dtype=np.int32)
        vec[P.S_ROLLOUTS] = self.rollouts
        vec[P.S_EXPLORATION] = round(self.exploration * 1000)
        vec[P.S_DETERMINIZATIONS] = self.determinizations
        rollout = REGISTRY.make_policy(self.rollout_policy)
        vec[P.ROLLOUT_KIND] = rollout.kind
        vec[P.ROLLOUT_PARAMS : P.ROLLOUT_PARAMS + S.N_SLOTS] = rollout.params()[: S.N_SLOTS]
        return vec

    def choose(self, game, seat: int, decision: int, options: list[int]) -> int:
        """The reference engine's call: the fast path's choice, computed by the compiled search
        from the turn's start that the game keeps (`Game.keep_turn_start`) and the search
        decisions taken since (its trace), so both engines play the same games. The replay
        must reach this very decision with these options, or the engines disagree on the rules.
        Nothing of the game is changed: its random streams are not drawn from."""
        from sim.conspiracy.fast import lineup_arrays
        from sim.conspiracy.kernel_search import reference_choice

        if getattr(game, "turn_start", None) is None:
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
