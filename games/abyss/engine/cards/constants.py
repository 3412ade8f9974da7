"""Integer codes shared by the card loader, the reference engine and (later) the kernel.

Rulebook nouns map to small integers so that the readable engine and the compiled fast path use
the very same numbers. `tests/test_constants.py` pins them: changing one is a breaking change.
"""

from __future__ import annotations

from enum import IntEnum

from sim.core.rng import GameRng


class Race(IntEnum):
    """The five Allied races; each matches the guild of the same colour."""

    JELLYFISH = 0  # purple, Mage
    CRAB = 1  # red, Soldier (Military)
    SEAHORSE = 2  # yellow, Farmer
    SHELLFISH = 3  # green, Merchant
    SQUID = 4  # blue, Politician


N_RACES = 5
MONSTER = -1  # ally_race of a Monster Exploration card


class Guild(IntEnum):
    """A Lord's guild. Guilds 0-4 require the Allied race with the same number."""

    MAGE = 0
    SOLDIER = 1
    FARMER = 2
    MERCHANT = 3
    POLITICIAN = 4
    AMBASSADOR = 5  # no required race


N_GUILDS = 6


class AllyEffect(IntEnum):
    """Effect printed on Leviathan-expansion Allies; it applies only when fighting."""

    NONE = 0
    ADD_PEARLS = 1  # "After rolling the die, you can spend as many Pearls as you want"
    TWO_DICE = 2  # "roll BOTH dice and take into account only the higher"


class Power(IntEnum):
    """Lord powers. Values are the printed Lord numbers (base 1-35, Leviathan 201-210)."""

    NONE = 0
    RECRUITER = 1
    JAILER = 2
    SEEKER = 3
    ASSASSIN = 4
    COMMANDER = 5
    TAMER = 6
    HUNTER = 7
    SHIP_MASTER = 8
    TRADER = 9
    PEDDLER = 10
    LANDLORD = 11
    SLAVER = 12
    SHOPKEEPER = 13
    SHAMAN = 14
    INVOKER = 15
    APPRENTICE = 16
    ORACLE = 17
    ALCHEMIST = 18
    ILLUSIONIST = 19
    MASTER_OF_MAGIC = 20
    OPPORTUNIST = 21
    CORRUPTOR = 22
    TRAITOR = 23
    DIPLOMAT = 24
    TREASURER = 25
    SCHEMER = 26
    SAGE = 33
    HERMIT = 34
    ELDER = 35
    INTREPID = 201
    BORDER_GUARD = 202
    TAXIDERMIST = 203
    ARMS_DEALER = 204
    METAMORPH = 205
    SORCERER = 206
    ALTRUIST = 207
    REBEL = 208
    COWARD = 209
    BREEDER = 210


# Power names as written in the card TOML (lower-case member names).
POWER_BY_NAME = {p.name.lower(): p for p in Power}


class LocationRule(IntEnum):
    """How a Location scores at the end of the game (parameters: base, mult, arg)."""

    GUILD_LORDS = 0  # base + mult x (your Lords of guild `arg`)
    AFFILIATED_RACE = 1  # base + mult x (your affiliated Allies of race `arg`)
    DISTINCT_GUILDS = 2  # mult x (distinct guilds among your Lords)
    CITY_OF_MIRRORS = 3  # copies your best opponent Location, scored with your cards
    BLACK_SMOKERS = 4  # 0 IP; on acquisition you may swap it for a Location from the stack
    WEAKEST_LORD = 5  # mult x (IP of your weakest Lord)
    STRONGEST_LORD = 6  # mult x (IP of your strongest Lord)
    MINUS_LORDS = 7  # base - mult x (number of your Lords)
    LORDS_WITH_KEY = 8  # mult x (your Lords with at least one Key)
    LORDS_WITHOUT_KEY = 9  # mult x (your Lords with no Key)
    WEAKEST_AFFILIATED_SUM = 10  # base + sum over races of your weakest affiliated Ally
    MINUS_AFFILIATED = 11  # base - mult x (number of your affiliated Allies)


LOCATION_RULE_BY_NAME = {r.name.lower(): r for r in LocationRule}


class Penalty(IntEnum):
    """What a Leviathan inflicts when a new Leviathan lands on its Border zone (penalty_n of it)."""

    WOUNDS = 0  # gain n Wound tokens (-1 IP each at game end)
    PEARLS = 1  # discard n Pearls (all if fewer)
    ALLIES = 2  # discard n Allies from hand, the victim's choice (all if fewer)
    LORD = 3  # discard n free Lords, the victim's choice (all if fewer)


class LeviathanToken(IntEnum):
    """Kind of a Leviathan-expansion Monster token (amount in leviathan_token_amount)."""

    PEARLS = 0  # gain `amount` Pearls (2 or 3)
    KEY = 1  # gain `amount` Keys (1)
    COUNCIL = 2  # take `amount` Council stacks (1)


class Stream(IntEnum):
    """Random streams of one game: each is keyed by (seed, game, stream) and independent."""

    EXPLORATION_DECK = 0
    LORD_DECK = 1
    LOCATION_DECK = 2
    MONSTER_TOKENS = 3
    DICE = 4
    LEVIATHAN_DECK = 5
    LEVIATHAN_TOKENS = 6
    HUNTER = 7
    POLICY = 8


class AbyssRng(GameRng):
    """The game's random streams, with the Leviathan expansion's dice."""

    def die(self) -> int:
        """One six-sided die, from the DICE stream."""
        return 1 + self.below(Stream.DICE, 6)
