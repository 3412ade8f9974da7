"""What every game's search player shares (docs/search.md): its budget, UCB1's constant, the
determinizations and the confidence of its rule, the parameter vector its kernel reads, and the
reference engine's call into the compiled search. A game's `SearchPolicy` adds `rollout_policy`
(the game's policies and presets) and names its package; the decisions are its kernel's
(`sim.core.search.search_decision_for`, with the game's rollout).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from sim.core.policy import S_CONFIDENCE, S_DETERMINIZATIONS, S_EXPLORATION, S_OPPONENTS, S_ROLLOUTS
from sim.core.search import CONFIDENCE_UNIT, OPPONENTS_OWN, OPPONENTS_ROLLOUT
from strategies.learned import NO_ARCHETYPE, hand_written_names
from strategies.registry import StrategyError, param

#: the `opponents` parameter's values, in the order of the kernel's codes
OPPONENT_MODELS = ("rollout", "own")
assert (OPPONENTS_ROLLOUT, OPPONENTS_OWN) == (0, 1)


def rollout_choices(directory: Path, policies: tuple[str, ...]) -> tuple[str, ...]:
    """What a game's rollouts may play: its built-in policies, then the presets of its
    `presets.toml`, `tuned.toml` and `open.toml` (hand-written, tuned and open)."""
    names = []
    for f in ("presets.toml", "tuned.toml", "open.toml"):
        with open(directory / f, "rb") as fh:
            names += [k for k, v in tomllib.load(fh).items() if isinstance(v, dict)]
    return (*policies, *names)


def rollout_policy_param(default: str, choices: tuple[str, ...], model_note: str = ""):
    """A game's `rollout_policy` parameter: which strategy its rollouts play (`default`, one of
    `choices`: `rollout_choices`), documented once; `model_note` says which model the game's
    default is."""
    return param(
        default,
        "The strategy every seat plays in the rollouts (a built-in policy or preset): the "
        "search's model of every player, itself included, after the decision; also its default, "
        f"played unless the rollouts show clearly better.{model_note}",
        "plays the rollouts with another model of every player (docs/search.md: a model close to "
        "the real opponents makes the search much stronger).",
        choices=choices,
        unit="built-in policies and presets",
        tune=False,
    )


def rollout_archetype_param(directory: Path):
    """A game's `rollout_archetype`: with `rollout_policy=learned`, the approach its rollouts play
    (one of the hand-written presets of `presets.toml` in `directory`, as the learned player's
    `archetype`), or none."""
    return param(
        NO_ARCHETYPE,
        "With rollout_policy=learned: the approach the rollouts play at the learned strength (a "
        "hand-written preset, as `learned:archetype=`); none: the learned player itself.",
        "models every player as that approach played well (the search tier's players: "
        "docs/learned.md, \"The search tier\").",
        choices=(NO_ARCHETYPE, *hand_written_names(directory)),
        unit="names: none or a hand-written preset",
        tune=False,
    )


@dataclass
class SearchPlayer:
    """Looks ahead: every option of every decision valued by rollouts to the end of the game."""

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
        0.95,
        "How sure the search must be that UCB1's choice (the most visited option) beats the "
        "rollout policy's own before playing it instead: the one-sided confidence of a paired "
        "sign-flip test on a quarter of the budget, pairs of rollouts of the two on fresh "
        "samples. A choice no better than the policy's is played at most 1 - confidence of "
        "the time. 0: always UCB1's choice (the whole budget to UCB1); 1: always the policy's.",
        "keeps to the model of good play unless the rollouts say clearly otherwise "
        "(docs/search.md, \"How it decides\"); lower plays more of the rollouts' favourites, "
        "noise included.",
        low=0.0,
        high=1.0,
        unit="probability",
        tune=False,
    )
    rollout_weights: str = param(
        "",
        "With rollout_policy=learned: its weights file (empty: the built-in weights).",
        "models the players by another learned player (`abyss-mc learn` iterates so).",
        unit="a .npz file of abyss-mc learn",
        tune=False,
        path=True,
    )
    opponents: str = param(
        "rollout",
        "The search's model of the opponents in its rollouts: `rollout`, every seat plays the "
        "rollout policy; `own`, each opponent plays its own strategy (known policies, as in a "
        "tournament of fixed presets: what `abyss-mc learn`'s expert knows; another search seat "
        "plays the rollout policy). Hidden cards stay hidden either way.",
        "models the opponents by what they really play: labels for a learned player that must "
        "answer many fields (docs/learned.md).",
        choices=OPPONENT_MODELS,
        unit="opponent models",
        tune=False,
    )
    #: the game's package (`games.<package>`)
    package: ClassVar[str]
    #: the game's policy slots: ROLLOUT_KIND (= a policy's slot count), ROLLOUT_PARAMS (the
    #: search's own, `sim.core.policy.S_*`, are the same in every game)
    slots: ClassVar[Any]
    #: it looks ahead (slow): not screened into `tune`'s default field
    LOOKS_AHEAD = True
    #: it decides from its turn's start: the reference engine keeps it (`Game.keep_turn_start`)
    REPLAYS_TURNS = True

    def rollout_spec(self) -> str:
        """The rollout policy's spec, with its weights file and archetype if given (a policy
        without them refuses them in one line)."""
        spec = self.rollout_policy
        if self.rollout_weights:  # a learned rollout policy's own weights
            spec = f"{spec}:weights={self.rollout_weights}"
        archetype = getattr(self, "rollout_archetype", NO_ARCHETYPE)
        if archetype != NO_ARCHETYPE:  # an approach played at the learned strength
            spec = f"{spec}:archetype={archetype}"
        return spec

    def at_table(self, n_players: int):
        """At a table of `n_players`: its rollout policy made for that table (a learned one plays
        that count's weights; a weights file of another count is refused in one line, as for
        `learned:weights=`)."""
        import dataclasses

        registry = import_module(f"games.{self.package}.strategies").REGISTRY
        try:
            rollout = registry.table_policies([self.rollout_spec()], n_players)[0]
        except StrategyError as exc:
            raise StrategyError(f"{self.name}: its rollout policy: {exc}") from None
        player = dataclasses.replace(self)
        player.rollout = rollout
        return player

    def params(self) -> np.ndarray:
        """The vector the kernel reads: the search's own slots (`sim.core.policy.S_*`), then its
        rollout policy's kind and parameters (`slots.ROLLOUT_KIND`, `slots.ROLLOUT_PARAMS`: a seat's
        vector holds a policy's slots, then the rollout's kind and slots)."""
        slots = self.slots
        n_slots = slots.ROLLOUT_KIND
        registry = import_module(f"games.{self.package}.strategies").REGISTRY
        vec = np.zeros(slots.ROLLOUT_PARAMS + n_slots, dtype=np.int32)
        vec[S_ROLLOUTS] = self.rollouts
        vec[S_EXPLORATION] = round(self.exploration * 1000)
        vec[S_DETERMINIZATIONS] = self.determinizations
        vec[S_CONFIDENCE] = round(self.confidence * CONFIDENCE_UNIT)
        vec[S_OPPONENTS] = OPPONENT_MODELS.index(self.opponents)
        rollout = getattr(self, "rollout", None)  # made for the table (`at_table`)
        if rollout is None:
            rollout = registry.make_policy(self.rollout_spec())
        vec[slots.ROLLOUT_KIND] = rollout.kind
        vec[slots.ROLLOUT_PARAMS : slots.ROLLOUT_PARAMS + n_slots] = rollout.params()[:n_slots]
        return vec

    def choose(self, game, seat: int, decision: int, options: list[int]) -> int:
        """The reference engine's call: the fast path's choice, computed by the compiled search
        from the turn's start that the game keeps (`Game.keep_turn_start`) and the search
        decisions taken since (its trace), so both engines play the same games. The replay
        must reach this very decision with these options, or the engines disagree on the rules.
        Nothing of the game is changed: its random streams are not drawn from."""
        engine = f"games.{self.package}.engine"
        lineup_arrays = import_module(f"{engine}.fast").lineup_arrays
        reference_choice = import_module(f"{engine}.kernel.search").reference_choice

        if getattr(game, "turn_start", None) is None:
            raise StrategyError("the search player decides in games played by `Game.play`")
        if any(getattr(p, "kind", None) is None for p in game.policies):
            raise StrategyError("the search player replays every seat: all must be built-in "
                                "strategies or presets")  # fmt: skip
        kinds, params = lineup_arrays(game.policies)
        state, counters, first = game.turn_start
        script = [o for q, _, o, _ in game.trace[first:] if kinds[q] == self.kind]
        option, asked = reference_choice(game.t, kinds, params, (state, counters), script,
                                         game.seed, game.game_index)  # fmt: skip
        if asked != (seat, int(decision), list(options)):
            raise RuntimeError(
                f"the search's replay of turn {game.turn} reached {asked}, the reference engine "
                f"asks {(seat, int(decision), list(options))}"
            )
        return option
