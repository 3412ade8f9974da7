"""The reference engine's vocabulary: every decision and its options, a player's holdings and
score, and the Keys a Lord carries. The rule modules (`rules*.py`) and the fast path's decision
codes (`games.abyss.engine.policies`) follow it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING

from games.abyss.engine.cards.constants import Guild, Power
from sim.core.reference import ScoreBySource

if TYPE_CHECKING:
    from games.abyss.engine.cards.tables import CardTables


class Decision(IntEnum):
    """Every decision point of the base game, with the meaning of its integer options."""

    PLOT = 0  # 0 = stop plotting, 1 = pay 1 Pearl to add a Lord to the Court
    POWER = 1  # 0 = done, else a once-per-turn Power to use now (Slaver, Oracle, Opportunist)
    ACTION = 2  # Action.* below
    BUY = 3  # asked of an opponent: 0 = pass, 1 = buy the revealed Ally
    TAKE_ALLY = 4  # explorer: 0 = reveal the next card, 1 = take the Ally (ends the turn)
    FIGHT_MONSTER = 5  # explorer: 0 = keep exploring, 1 = fight the Monster
    THREAT_REWARD = 6  # index of the reward option on the Threat Track space
    COUNCIL_STACK = 7  # race of the Council stack to take
    RECRUIT_LORD = 8  # lord id from the Court
    PAY_ALLY = 9  # ally id to add to the payment, or FINISH (-1): Pearls pay the missing points
    AFFILIATE = 10  # ally id among those used that becomes affiliated
    KEY_SOURCE = 11  # KEY_TOKEN (-1) or the lord id whose Key is used for a Location
    LOCATION_SOURCE = 12  # a face-up location id, or LOCATION_DRAW + n (draw n from the stack)
    LOCATION_KEEP = 13  # location id kept among those drawn
    DISCARD_ALLY = 14  # ally id discarded from hand (Jailer, Commander, Slaver)
    TARGET_OPPONENT = 15  # seat of the opponent targeted (Hunter)
    ASSASSIN_TARGET = 16  # the opponent's lord id to disable
    OWN_LORD = 17  # one of your other free lord ids to discard (Traitor, Schemer), or DECLINE
    COURT_LORD = 18  # lord id in the Court taken (Traitor, Corruptor), or DECLINE (Corruptor)
    COUNCIL_DISCARD = 19  # race of the Council stack discarded (Oracle)
    ILLUSIONIST_GIVE = 20  # your location id to exchange, or DECLINE
    ILLUSIONIST_TAKE = 21  # the available location id taken in exchange
    BLACK_SMOKERS = 22  # the Black Smokers id (keep it) or a location id from the stack
    POWER_BEFORE_PLOT = 23  # as POWER, before plotting at Court (while a Lord can be plotted)
    COURT_DISCARD = 24  # lord id in the Court discarded and replaced from the deck (Opportunist)


class Action(IntEnum):
    EXPLORE = 0
    REQUEST_SUPPORT = 1
    RECRUIT = 2


FINISH = -1
KEY_TOKEN = -1
DECLINE = -1
LOCATION_DRAW = 1000
MAX_LOCATION_DRAW = 4
AMBASSADOR_DRAWS = {Power.HERMIT: 1, Power.SAGE: 2, Power.ELDER: 3}
ONCE_PER_TURN = (Power.SLAVER, Power.ORACLE, Power.OPPORTUNIST)


@dataclass
class Player:
    seat: int
    pearls: int
    keys: int = 0  # Key tokens
    hand: list[int] = field(default_factory=list)  # ally ids
    affiliated: list[int] = field(default_factory=list)  # ally ids, face up
    lords: list[int] = field(default_factory=list)  # every Lord owned, in order of arrival
    under: set[int] = field(default_factory=set)  # Lords slid under a Location: no longer free
    disabled: set[int] = field(default_factory=set)  # Lords turned by the Assassin
    locations: list[int] = field(default_factory=list)
    location_lords: dict[int, list[int]] = field(default_factory=dict)
    tokens: list[int] = field(default_factory=list)  # Monster token ids (base deck, worth IP)
    wounds: int = 0  # Leviathan: Wound tokens, -1 IP each
    killed: list[int] = field(default_factory=list)  # Leviathan: ids of Leviathans killed
    held_tokens: list[int] = field(default_factory=list)  # Leviathan tokens not yet revealed
    recruited: list[int] = field(default_factory=list)  # every Lord ever gained, for the results
    bought_this_turn: bool = False
    used_powers: set[int] = field(default_factory=set)  # once-per-turn powers used this turn

    def free_lords(self) -> list[int]:
        return [lord for lord in self.lords if lord not in self.under]


@dataclass
class Score(ScoreBySource):
    """Rulebook, End of Game and Scoring: the Lords, the Locations, the strongest affiliated Ally
    of each race and the Monster tokens; with Leviathan, the Wounds and the Scourge."""

    lords: int = 0
    locations: int = 0
    allies: int = 0
    monsters: int = 0
    wounds: int = 0  # Leviathan: -1 per Wound token (never positive)
    scourge: int = 0  # Leviathan: +5 for the Scourge of the Abyss


def lord_key_count(t: CardTables, lord: int) -> int:
    """Keys printed on a Lord; with ambassador_mode="keys" each Ambassador carries 3."""
    if t.rules.ambassador_mode == "keys" and t.lord_guild[lord] == Guild.AMBASSADOR:
        return 3
    return int(t.lord_keys[lord])
