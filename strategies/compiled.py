"""What the built-in strategies of every game share: a dataclass whose fields are the parameters
of the game's compiled policy (`sim/<game>/policies.py`), so that both engines play it alike.

The fast engine reads a policy's `kind` and `params()` (`sim.core.policy.lineup_arrays`). The
reference engine calls `choose`, which writes the game's state, the options and the seat's
strategy into a kernel workspace and runs the same compiled `choose` on it. A policy only reads
the game; its randomness comes from the game's POLICY stream, whose counters `choose` writes back.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from sim.core.rng import N_STREAMS
from sim.core.workspace import PerTables
from strategies.registry import check_parameters, param

#: The compiled policies hold probabilities in thousandths (`CompiledPolicy.param_value`).
THOUSANDTHS = 1000


def probability(default: float, meaning: str, effect: str) -> Any:
    """A probability parameter (`registry.param`): 0 to 1, in steps of 0.001, since the compiled
    policy reads it in thousandths."""
    return param(
        default, meaning, effect, low=0.0, high=1.0, step=1 / THOUSANDTHS, unit="probability"
    )


class CompiledPolicy:
    """Base of a game's built-in strategies (dataclasses: the fields are the parameters, each
    declared with its documentation and range, `registry.param` or `probability`, and checked
    against them when the policy is made).

    A game's base class sets `policies_module` (the name of the game's module of compiled
    policies, with `choose`: imported, and so compiled, at the first decision, so that listing
    or checking strategies compiles nothing), `layout` (the module of its workspace offsets:
    OPT, POLICY_KIND, POLICY_PARAMS, N_PARAMS, RNG_KEYS, RNG_COUNTERS), `state` (the module
    whose `encode(game)` gives the state vector) and `workspaces` (a `PerTables` of workspaces
    holding the card tables); each strategy sets `kind`, its number in the compiled policies.
    """

    kind: ClassVar[int]
    policies_module: ClassVar[str]
    layout: ClassVar[ModuleType]
    state: ClassVar[ModuleType]
    workspaces: ClassVar[PerTables]
    #: Parameter slots that do not follow field order (see `slots`).
    PARAM_SLOTS: ClassVar[dict[str, int]] = {}

    def __post_init__(self) -> None:
        # each field's documented range (`registry.param`); probabilities on the grid of
        # thousandths the compiled policy holds: refused, never rounded silently
        check_parameters(self)

    def at_table(self, n_players: int):
        """This strategy at a table of `n_players` (`Registry.make_policies`): itself, unless it
        has data per player count (the learned player's built-in weights)."""
        return self

    def workspace(self, game) -> np.ndarray:
        """A kernel workspace holding the card tables and the state of `game`."""
        w = self.workspaces(game.t)
        state, _ = self.state.encode(game)
        w[: len(state)] = state
        return w

    def params(self) -> np.ndarray:
        """The int32 parameter vector the compiled policy reads, in `slots` order."""
        vec = np.zeros(self.layout.N_PARAMS, dtype=np.int32)
        for name, slot in self.slots().items():
            vec[slot] = self.param_value(name, getattr(self, name))
        return vec

    @classmethod
    def slots(cls) -> dict[str, int]:
        """Each parameter's slot in the vector: field order, except `PARAM_SLOTS`."""
        fields = [f.name for f in dataclasses.fields(cls) if f.name != "name"]
        in_order = [f for f in fields if f not in cls.PARAM_SLOTS]
        return {
            f: cls.PARAM_SLOTS[f] if f in cls.PARAM_SLOTS else in_order.index(f) for f in fields
        }

    def param_value(self, name: str, value) -> int:
        """A parameter as the compiled policy reads it: probabilities in thousandths."""
        return round(value * THOUSANDTHS) if isinstance(value, float) else int(value)

    def choose(self, game, seat: int, decision: int, options: list[int]) -> int:
        """The compiled policy's choice among `options` (the reference engine's call)."""
        w = self.workspace(game)
        at = self.layout
        n = len(options)
        w[at.OPT : at.OPT + n] = options
        params = getattr(self, "_params", None)
        if params is None:
            params = self._params = self.params()
        w[at.POLICY_KIND + seat] = self.kind
        first = at.POLICY_PARAMS + seat * at.N_PARAMS
        w[first : first + at.N_PARAMS] = params
        # the stream keys (uint64) and counters (int64) as int32 halves, as the kernel keeps them
        keys = slice(at.RNG_KEYS, at.RNG_KEYS + 2 * N_STREAMS)
        counters = slice(at.RNG_COUNTERS, at.RNG_COUNTERS + 2 * N_STREAMS)
        w[keys] = game.rng.keys.astype(np.uint64).view(np.int32)
        w[counters] = game.rng.counters.astype(np.int64).view(np.int32)
        module = compiled_module(self.policies_module)
        # the kind's own entry where the game has one: compiles only the policies played
        choose = getattr(module, "ENTRIES", {}).get(self.kind, module.choose)
        option = int(choose(w, np.int64(seat), np.int64(decision), np.int64(n)))
        game.rng.counters[:] = w[counters].view(np.int64)
        return option


_MODULES: dict[str, ModuleType] = {}


def compiled_module(name: str) -> ModuleType:
    """A module of compiled code, imported once (the reference engine asks at every decision)."""
    module = _MODULES.get(name)
    if module is None:
        module = _MODULES[name] = import_module(name)
    return module


@dataclass
class UniformChoice:
    """Uniformly random among the legal options: the compiled random policy's draw, taken
    without encoding the state. Every game's `random` strategy."""

    name: str = "random"

    def choose(self, game, seat: int, decision: int, options: list[int]) -> int:
        return options[game.policy_below(len(options))]
