"""The built-in policies: uniformly random, a simple greedy player, and the parametrised
heuristic behind the named presets (`presets.toml`).

The decision logic lives in compiled form in `games.abyss.engine.policies`, shared by both engines.
The classes here are the reference engine's side: they hold the documented parameters and, when
asked, encode the game (`games.abyss.engine.state.encode`) and call the compiled policy on it
(`strategies.compiled`, what every game's strategies share). A policy must only read the game;
its randomness comes from the game's POLICY stream.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.abyss.engine import policy_params as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import workspace as W
from sim.core.workspace import PerTables
from strategies import compiled
from strategies.compiled import probability
from strategies.registry import param

#: Values of HeuristicPolicy.guild: "none", then the guilds in the order of `Guild`.
GUILD_NAMES = ("none", "mage", "soldier", "farmer", "merchant", "politician", "ambassador")


class CompiledPolicy(compiled.CompiledPolicy):
    """Base of the built-in strategies: `kind` and a parameter vector for the compiled code."""

    policies_module = "games.abyss.engine.policies"
    layout = W
    state = S
    #: a copy of the kernel's template per card tables: the template is shared
    workspaces = PerTables(lambda t: W.cached_template(t).copy())
    #: Parameter slots that do not follow field order: greedy's fields come first, then the
    #: heuristic's (P.G_*, P.H_*); greedy's later fields go after the heuristic's.
    PARAM_SLOTS = {
        "fight_risk": P.G_FIGHT_RISK,
        "forbid_lord": P.G_FORBID_LORD,
        "forbid_location": P.G_FORBID_LOCATION,
        "forbid_fight": P.G_FORBID_FIGHT,
    }

    def workspace(self, game) -> np.ndarray:
        w = super().workspace(game)
        # the kernel's cache of working powers, for the new state
        compiled.compiled_module("games.abyss.engine.kernel.core").refresh_all_powers(w)
        return w


@dataclass
class RandomPolicy(compiled.UniformChoice, CompiledPolicy):
    """Picks uniformly among the legal options: reaches every rule path; the default opponent."""

    kind = P.RANDOM


#: Ally values are 1-9 in any card data (games.abyss.engine.cards.loader): a threshold of 10 is
#: never met.
ALLY_VALUE = "an Ally's value, 1-9"
#: What a Lord is worth to the heuristic (`lord_score`): IP, Keys x key_weight, guild_bonus.
WORTH = "IP"


@dataclass
class GreedyPolicy(CompiledPolicy):
    """A simple baseline: recruit whenever possible, buy and take strong Allies, fight well.

    Its decisions are `greedy` in `games.abyss.engine.policies`; each parameter is documented on
    its field
    (`abyss-mc strategies greedy` prints them). Decisions without a parameter: recruit whenever a
    Lord is affordable (the highest IP), take the biggest Council stack, take a face-up Location
    worth 8 IP or more, else draw; use the Slaver (its weakest Ally for 2 Pearls) with 8 Allies or
    more in hand, or when the Pearls pay for a Lord it cannot pay for now; never the Oracle or
    the Opportunist.
    """

    name: str = "greedy"
    buy_min: int = param(
        4,
        "When another player's exploration reveals an Ally, buy it (the first buyer of a turn "
        "pays the explorer 1 Pearl, the next 2, ...) if its value is at least this.",
        "buys fewer, only stronger Allies, and keeps its Pearls; 0 or 1: buys every Ally it can "
        "pay for; 10: never buys.",
        low=0,
        high=10,
        unit=ALLY_VALUE,
    )
    take_min: int = param(
        4,
        "On its own exploration, take the revealed Ally nobody bought (ending the exploration) "
        "if its value is at least this; otherwise keep exploring (see take_slot).",
        "explores further past weaker Allies; 0 or 1: takes the first Ally nobody buys; 10: only "
        "take_slot stops it (the Ally of the last track space is taken by rule).",
        low=0,
        high=10,
        unit=ALLY_VALUE,
    )
    take_slot: int = param(
        4,
        "On its own exploration, take any Ally nobody bought once it lies on this track space "
        "or later (1 is the first space), whatever its value.",
        "explores further before settling for a weak Ally; 0 or 1: takes the first Ally nobody "
        "buys; from the track's length (5 spaces; game.track_length) up: only take_min decides.",
        low=0,
        high=10,
        unit="track space, 1-10",
    )
    fight_threat: int = param(
        2,
        "Base game (without the Leviathan expansion): fight a Monster revealed on its "
        "exploration, ending it with the Threat Track reward, when the Threat token is on this "
        "space or higher (0: the start space); otherwise keep exploring and move the token up.",
        "keeps exploring past Monsters longer, for bigger Threat Track rewards; 0: always "
        "fights; above the last space (5 in the base game): never, but a Monster on the last "
        "track space must be fought.",
        low=0,
        high=10,
        unit="Threat Track space, 0-9",
    )
    council_min: int = param(
        3,
        "When it does not recruit, request support (take the biggest Council stack) rather "
        "than explore if a Council stack holds at least this many Allies.",
        "explores more and takes bigger stacks; 0 or 1: requests support whenever a stack is "
        "there; above any stack's size (at most one race's Allies, 13 in the base game): never.",
        low=0,
        high=99,
        search=(0, 14),
        unit="Allies",
    )
    pearl_shortfall: int = param(
        1,
        "When paying for a Lord, stop adding Allies and pay the rest in Pearls (1 per point) "
        "once at most this many points of its cost are missing; with no Ally left, always.",
        "keeps more Allies in hand and spends more Pearls; 0: pays with Allies as long as it "
        "has any; from a Lord's cost up (at most 40): Pearls as soon as the rules allow.",
        low=0,
        high=40,
        search=(0, 15),
        unit="points of a Lord's cost",
    )
    fight_p: float = probability(
        0.5,
        "Leviathan expansion: fight a Leviathan (past a revealed Monster, attack again, the "
        "Sorcerer's and the Intrepid's extra fights) when its best eligible Ally removes a Life "
        "Point with at least this probability (chances are in 36ths of 2d6); it attacks with the "
        "weakest Ally that reaches it, else the likeliest to hit. With fight_risk above 0, "
        "fight_risk decides past a Monster instead.",
        "fights and attacks again less often, only with better odds, and spends stronger Allies; "
        "0: fights whenever the rules allow; 1: only with a certain hit.",
    )
    fight_risk: float = probability(
        0.0,
        "Leviathan expansion, the rule learnt from forked rollouts (`abyss-mc ev rollout`, "
        "docs/fight-or-explore.md): above 0, fight past a revealed Monster exactly when "
        "continuing risks an attack (a new Leviathan landing on an occupied Border zone) with "
        "at least this probability and some Ally can damage a Leviathan; fight_p then governs "
        "only the attacks. 0: off, fight_p decides.",
        "fights past Monsters less often, only when an attack is likelier (the risk is a count "
        "of 2d6 sums over 36, in thousandths rounded down: 0.166 admits 6/36).",
    )
    forbid_lord: int = param(
        -1,
        "Restricted play (`abyss-mc restrict`): never gain this Lord (its index in the card "
        "data, as `abyss-mc restrict` lists them) by a choice of its own, unless the rules leave "
        "no other: not recruited (recruiting is not even chosen when it is the only affordable "
        "Lord), nor taken from the Court by the Corruptor or the Traitor. -1: none.",
        "forbids another Lord; -1 forbids nothing.",
        low=-1,
        high=99,
        unit="Lord index",
        tune=False,
    )
    forbid_location: int = param(
        -1,
        "Restricted play (`abyss-mc restrict`): never take this Location (its index in the card "
        "data), unless it is the only choice: not face up, nor among those drawn, nor by the "
        "Illusionist's exchange or Black Smokers' swap (a forbidden Black Smokers is swapped "
        "away). -1: none.",
        "forbids another Location; -1 forbids nothing.",
        low=-1,
        high=99,
        unit="Location index",
        tune=False,
    )
    forbid_fight: int = param(
        0,
        "Restricted play, a rules question (`abyss-mc restrict`): 1: never fight a Leviathan "
        "(past a revealed Monster, attack again, the Sorcerer's and the Intrepid's fights) "
        "when continuing or stopping is allowed. 0: off.",
        "1 plays as if the Leviathans could not be fought.",
        low=0,
        high=1,
        unit="0 or 1",
        tune=False,
    )
    kind = P.GREEDY


@dataclass
class HeuristicPolicy(GreedyPolicy):
    """The parametrised heuristic behind the named presets (`games/abyss/strategies/presets.toml`).

    `heuristic` in `games.abyss.engine.policies`: greedy's parameters and decisions, and parameters
    for
    which Lords it wants (their worth: IP, Keys x key_weight, guild_bonus for the favoured guild)
    and when it recruits, plots, requests support, takes a Location and accepts Leviathan risk.
    It uses the Slaver as greedy does (for a Lord worth recruit_min), and before plotting when
    its 2 Pearls bring it to plot_pearls.
    """

    name: str = "heuristic"
    recruit_min: int = param(
        0,
        "Recruit (when a Lord is affordable) only if the best affordable Lord is worth at least "
        "this: its IP, plus its Keys x key_weight, plus guild_bonus if of the favoured guild; "
        "otherwise request support or explore as greedy would.",
        "recruits less often, waiting for valuable Lords; 0: recruits at every chance.",
        low=0,
        high=99,
        search=(0, 20),
        unit=WORTH,
    )
    key_weight: int = param(
        1,
        "IP a Key on a Lord is worth to this player, in the worth of a Lord it recruits (which "
        "one, and whether: recruit_min).",
        "prefers Lords with Keys, and recruits them sooner; 0: ignores Keys.",
        low=0,
        high=99,
        search=(0, 10),
        unit="IP per Key",
    )
    guild: str = param(
        "none",
        "The favoured guild: its Lords are worth guild_bonus more.",
        "none: no favourite; a guild makes guild_bonus count for its Lords.",
        choices=GUILD_NAMES,
    )
    guild_bonus: int = param(
        0,
        "IP added to the worth of a Lord of the favoured guild (see guild).",
        "recruits Lords of the favoured guild over stronger others, and sooner; 0: no "
        "preference even with a guild.",
        low=0,
        high=99,
        search=(0, 10),
        unit=WORTH,
    )
    plot_pearls: int = param(
        99,
        "Plot at Court (pay 1 Pearl to add a Lord to the Court; again while allowed) whenever "
        "holding at least this many Pearls.",
        "plots less, keeps Pearls; 0 or 1: plots whenever it can; 99 (default): never in "
        "practice.",
        low=0,
        high=99,
        search=(0, 30),
        unit="Pearls",
    )
    explore_risk: float = probability(
        1.0,
        "Leviathan expansion: the highest accepted chance that a new Leviathan lands on an "
        "occupied Border zone (an attack); above it, request support rather than explore (when "
        "a Council stack is there), and fight rather than continue past a Monster (when an Ally "
        "can damage a Leviathan).",
        "explores and continues more, accepting more risk; 0: avoids any risk; 1 (default): off.",
    )
    location_min: int = param(
        8,
        "When it gains a Location, take the best face-up one if it is worth at least this many "
        "IP now (its end-of-game formula), else draw from the deck (greedy: 8).",
        "draws more often, hoping for a better one; 0: takes a face-up Location unless it is "
        "worth less than 0.",
        low=0,
        high=99,
        search=(0, 20),
        unit="IP",
    )
    kind = P.HEURISTIC

    def param_value(self, name: str, value):
        if name == "guild":
            return GUILD_NAMES.index(value) - 1  # "none" is -1, then the Guild numbers
        return super().param_value(name, value)
