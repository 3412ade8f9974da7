"""The built-in policies: uniformly random, a simple greedy player, and the parametrised
heuristic behind the named presets (`presets.toml`).

The decision logic lives in compiled form in `sim.abyss.policies`, shared by both engines.
The classes here are the reference engine's side: they hold the documented parameters and, when
asked, encode the game (`sim.abyss.state.encode`) and call the compiled policy on it
(`strategies.compiled`, what every game's strategies share). A policy must only read the game;
its randomness comes from the game's POLICY stream.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.abyss import kcore as K
from sim.abyss import policies as P
from sim.abyss import state as S
from sim.abyss import workspace as W
from strategies import compiled

#: Values of HeuristicPolicy.guild: "none", then the guilds in the order of `Guild`.
GUILD_NAMES = ("none", "mage", "soldier", "farmer", "merchant", "politician", "ambassador")


class CompiledPolicy(compiled.CompiledPolicy):
    """Base of the built-in strategies: `kind` and a parameter vector for the compiled code."""

    policies = P
    layout = W
    state = S
    #: a copy of the kernel's template per card tables: the template is shared
    workspaces = compiled.TablesCache(lambda t: W.cached_template(t).copy())
    #: Parameter slots that do not follow field order: greedy's fields come first, then the
    #: heuristic's (P.G_*, P.H_*); greedy's later fields go after the heuristic's.
    PARAM_SLOTS = {"fight_risk": P.G_FIGHT_RISK}

    def workspace(self, game) -> np.ndarray:
        w = super().workspace(game)
        K.refresh_all_powers(w)  # the kernel's cache of working powers, for the new state
        return w


@dataclass
class RandomPolicy(compiled.UniformChoice, CompiledPolicy):
    """Picks uniformly among the legal options: reaches every rule path; the default opponent."""

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
