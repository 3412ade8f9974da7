"""The built-in policies: uniformly random, a simple greedy player, and the parametrised
heuristic behind the named presets (`presets.toml`).

The decision logic lives in compiled form in `sim.abyss.policies`, shared by both engines (the
kinds and parameter slots in `sim.abyss.policy_params`, so that listing the strategies compiles
nothing).
The classes here are the reference engine's side: they hold the documented parameters and, when
asked, encode the game (`sim.abyss.state.encode`) and call the compiled policy on it. A policy must
only read the game; its randomness comes from the game's POLICY stream.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from sim.abyss import policy_params as P
from sim.core.workspace import PerTables
from strategies.registry import UniformChoice

#: Values of HeuristicPolicy.guild: "none", then the guilds in the order of `Guild`.
GUILD_NAMES = ("none", "mage", "soldier", "farmer", "merchant", "politician", "ambassador")


@functools.cache
def _compiled():
    """The kernel modules the policies run on, imported when first asked (importing
    `sim.abyss.policies` compiles it)."""
    from sim.abyss import kcore, policies, state, workspace

    return kcore, policies, state, workspace


def _own_workspace(t) -> np.ndarray:
    from sim.abyss.workspace import cached_template

    return cached_template(t).copy()


#: A kernel workspace holding the card tables `t` (one per tables object, reused by the policies).
workspace_for = PerTables(_own_workspace)


class CompiledPolicy:
    """Base of the built-in strategies: `kind` and a parameter vector for the compiled code."""

    kind: int = P.RANDOM

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not 0.0 <= value <= 1.0:
                raise ValueError(f"{f.name} is a probability, between 0 and 1; got {value}")
            if isinstance(value, float) and abs(value * 1000 - round(value * 1000)) > 1e-6:
                # the compiled policy holds probabilities in thousandths: never round silently
                raise ValueError(
                    f"{f.name} is held in steps of 0.001; got {value} (use e.g. {round(value, 3)})"
                )
            if isinstance(value, int) and not 0 <= value <= 999:
                raise ValueError(f"{f.name} must be between 0 and 999; got {value}")

    def params(self) -> np.ndarray:
        """The int32 parameter vector, in field order (see `policies.G_*`, `policies.H_*`)."""
        vec = np.zeros(P.N_PARAMS, dtype=np.int32)
        for name, slot in self.slots().items():
            vec[slot] = self.param_value(name, getattr(self, name))
        return vec

    @classmethod
    def slots(cls) -> dict[str, int]:
        """Each parameter's slot in the vector: field order, except `PARAM_SLOTS`."""
        fields = [f.name for f in dataclasses.fields(cls) if f.name != "name"]
        in_order = [f for f in fields if f not in PARAM_SLOTS]
        return {f: PARAM_SLOTS[f] if f in PARAM_SLOTS else in_order.index(f) for f in fields}

    def param_value(self, name: str, value) -> int:
        """A parameter as the compiled policy reads it: probabilities in thousandths."""
        return round(value * 1000) if isinstance(value, float) else int(value)

    def choose(self, game, seat: int, decision: int, options: list[int]) -> int:
        K, policies, S, W = _compiled()
        w = workspace_for(game.t)
        w[: S.STATE_SIZE] = S.encode(game)[0]
        K.refresh_all_powers(w)  # the kernel's cache of working powers, for the new state
        n = len(options)
        w[W.OPT : W.OPT + n] = options
        params = getattr(self, "_params", None)
        if params is None:
            params = self._params = self.params()
        w[W.POLICY_KIND + seat] = self.kind
        w[W.POLICY_PARAMS + seat * W.N_PARAMS : W.POLICY_PARAMS + (seat + 1) * W.N_PARAMS] = params
        W.put_rng(w, game.rng.keys, game.rng.counters)
        option = int(policies.choose(w, np.int64(seat), np.int64(decision), np.int64(n)))
        game.rng.counters[:] = W.get_counters(w)
        return option


#: Parameter slots that do not follow field order: greedy's fields come first, then the
#: heuristic's (P.G_*, P.H_*); greedy's later fields go after the heuristic's.
PARAM_SLOTS = {"fight_risk": P.G_FIGHT_RISK}


@dataclass
class RandomPolicy(UniformChoice, CompiledPolicy):
    """Picks uniformly among the legal options: reaches every rule path; the default opponent."""

    name: str = "random"
    kind = P.RANDOM


@dataclass
class GreedyPolicy(CompiledPolicy):
    """A simple baseline: recruit whenever possible, buy and take strong Allies, fight well.

    Parameters:
        buy_min: buy an offered Ally of at least this value.
        take_min: take a revealed Ally of at least this value for free.
        take_slot: take any Ally revealed on this track space or later.
        fight_threat: fight a Monster when the Threat token is at least on this space (0-based).
        council_min: request support when a Council stack holds at least this many cards.
        pearl_shortfall: finish a payment with Pearls when at most this many points are missing.
        fight_p: Leviathan expansion: fight (or attack again) when the best eligible Ally removes a
            Life Point with at least this probability.
        fight_risk: Leviathan expansion, the rule learnt from forked rollouts (`abyss-mc ev
            rollout`, docs/fight-or-explore.md): when above 0, fight past a revealed Monster
            exactly when continuing risks an attack (a new Leviathan landing on an occupied
            zone) with at least this probability and some Ally can damage a Leviathan;
            fight_p then governs only the attacks. 0: fight_p decides.
    """

    name: str = "greedy"
    buy_min: int = 4
    take_min: int = 4
    take_slot: int = 4
    fight_threat: int = 2
    council_min: int = 3
    pearl_shortfall: int = 1
    fight_p: float = 0.5
    fight_risk: float = 0.0
    kind = P.GREEDY


@dataclass
class HeuristicPolicy(GreedyPolicy):
    """The parametrised heuristic behind the named presets (`strategies/abyss/presets.toml`).

    Parameters (the first seven are greedy's):
        buy_min, take_min, take_slot, fight_threat, council_min, pearl_shortfall, fight_p,
            fight_risk: as `GreedyPolicy`.
        recruit_min: recruit only when an affordable Lord is worth at least this (see
            key_weight, guild); 0 recruits at every chance.
        key_weight: IP a Key on a Lord is worth to this player.
        guild: the favoured guild ("none", "mage", "soldier", "farmer", "merchant",
            "politician", "ambassador").
        guild_bonus: IP added to the worth of a Lord of the favoured guild.
        plot_pearls: plot at Court (1 Pearl) whenever holding at least this many Pearls
            (99: never).
        explore_risk: Leviathan expansion: highest accepted chance that a new Leviathan lands
            on an occupied zone; above it, request support rather than explore, and fight
            rather than continue past a Monster.
        location_min: take a face-up Location worth at least this many IP rather than draw.
    """

    name: str = "heuristic"
    recruit_min: int = 0
    key_weight: int = 1
    guild: str = "none"
    guild_bonus: int = 0
    plot_pearls: int = 99
    explore_risk: float = 1.0
    location_min: int = 8
    kind = P.HEURISTIC

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.guild not in GUILD_NAMES:
            raise ValueError(f"guild must be one of {', '.join(GUILD_NAMES)}; got {self.guild!r}")

    def param_value(self, name: str, value):
        if name == "guild":
            return GUILD_NAMES.index(value) - 1  # "none" is -1, then the Guild numbers
        return super().param_value(name, value)
