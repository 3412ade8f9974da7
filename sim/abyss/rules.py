"""Abyss, the readable reference engine: the rules as written, with a full event log.

Specification: `shared/seeds/001_bc4781964399e738.txt` (quoted as "Rulebook" below); card data and
clarifications: `shared/reference/components.md` section 1. Where the text is silent or ambiguous
the choice is recorded in `docs/rules-notes.md` and, where it matters, is a rules option in
`sim/abyss/data/rules.toml`.

Design (see docs/decisions.md):
- Chance is explicit: every random draw comes from `GameRng` streams keyed by (seed, game, stream),
  so a game is a pure function of (cards, seed, game, policies).
- Every choice a player makes goes through `Game.choose(seat, decision, options)`: the options are
  integers in a documented, deterministic order, and a policy returns one of them. A decision with a
  single legal option is not asked (both engines skip it the same way).
- Cards are integer ids into the `CardTables` arrays; the state is lists of ids, so it maps one
  to one onto the fixed-shape arrays of the fast path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Protocol

from sim.abyss.constants import (
    MONSTER,
    N_RACES,
    AbyssRng,
    Guild,
    LocationRule,
    Power,
    Stream,
)
from sim.abyss.leviathan import LeviathanMixin

if TYPE_CHECKING:
    from sim.abyss.cards_tables import CardTables


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
    COURT_LORD = 18  # lord id in the Court (Opportunist, Traitor, Corruptor), or DECLINE
    COUNCIL_DISCARD = 19  # race of the Council stack discarded (Oracle)
    ILLUSIONIST_GIVE = 20  # your location id to exchange, or DECLINE
    ILLUSIONIST_TAKE = 21  # the available location id taken in exchange
    BLACK_SMOKERS = 22  # DECLINE (keep Black Smokers) or a location id from the stack


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


class Policy(Protocol):
    """A strategy: picks one of the legal `options` of `decision` for `seat`."""

    name: str

    def choose(self, game: Game, seat: int, decision: Decision, options: list[int]) -> int: ...


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
class Score:
    lords: int = 0
    locations: int = 0
    allies: int = 0
    monsters: int = 0
    wounds: int = 0  # Leviathan: -1 per Wound token (never positive)
    scourge: int = 0  # Leviathan: +5 for the Scourge of the Abyss

    @property
    def total(self) -> int:
        return (
            self.lords + self.locations + self.allies + self.monsters + self.wounds + self.scourge
        )


class Game(LeviathanMixin):
    """One game of Abyss for 2-4 players (2-5 with Leviathan), played to the end by `play()`."""

    #: (round, seat) -> the seat's running IP, Pearls and Keys after its last turn of the round
    #: (`record_round`); None: not recorded (a class default, so decoded games have it too).
    trajectory: dict[tuple[int, int], tuple[int, int, int]] | None = None

    def __init__(
        self,
        tables: CardTables,
        policies: list[Policy],
        seed: int,
        game: int = 0,
        record: bool = True,
        trajectory: bool = False,
    ):
        n = len(policies)
        if not 2 <= n <= tables.max_players:
            raise ValueError(f"this game is for 2 to {tables.max_players} players, got {n}")
        self.t = tables
        self.leviathan = "leviathan" in tables.expansions
        self.rules = tables.rules
        self.policies = policies
        self.n_players = n
        self.seed, self.game_index = seed, game
        self.rng = AbyssRng(seed, game)
        self.record = record
        self.events: list[dict] = []
        self.trace: list[tuple[int, int, int, int]] = []  # (seat, decision, option, n_options)
        self.turn = 0
        self.active = 0
        self.end_reason: str | None = None  # set when the end is triggered
        self.over = False
        self.extra_turn = False
        self.scores: list[Score] = []
        self.ranks: list[int] = []
        self.n_fights = self.n_continues = self.n_leviathan_attacks = self.n_kills = 0
        self.pearls_from_treasury = 0
        self.pearls_to_treasury = 0
        self.pending_reward_space = 0  # Threat Track space of the reward being chosen
        self.pending_payment: tuple[int, list[int]] = (0, [])  # (cost, Allies used so far)
        self.pending_attack: tuple[int, int] = (0, 0)  # (zone, Attack Power before Pearls)
        self.fight_zone = -1  # Border zone of the Leviathan being fought, -1 outside a fight
        self.next_seat = 0  # the seat whose turn comes next
        self.final_turns: list[int] | None = None  # seats still to play once the end is triggered
        if trajectory:
            self.trajectory = {}
        self._setup()

    # ------------------------------------------------------------------ setup
    def _setup(self) -> None:
        """Rulebook, Preparation: shuffle the decks, six Lords to the Court, a Location face up."""
        t, rng = self.t, self.rng
        self.location_deck = list(range(t.n_locations))
        rng.shuffle(self.location_deck, Stream.LOCATION_DECK)
        self.locations_available = [self.location_deck.pop()]
        crabs = self.starting_crabs() if self.leviathan else []
        self.exploration_deck = [a for a in range(t.n_allies) if a not in crabs]
        rng.shuffle(self.exploration_deck, Stream.EXPLORATION_DECK)
        self.exploration_discard: list[int] = []
        self.track: list[int] = []
        self.council: list[list[int]] = [[] for _ in range(N_RACES)]
        self.lord_deck = list(range(t.n_lords))
        rng.shuffle(self.lord_deck, Stream.LORD_DECK)
        self.lord_discard: list[int] = []
        self.court: list[int] = []  # index 0 nearest the Lord deck
        for _ in range(t.court_size):
            self.court.append(self.lord_deck.pop())
        self.monster_tokens = list(range(len(t.monster_token_ip)))
        rng.shuffle(self.monster_tokens, Stream.MONSTER_TOKENS)
        self.key_pile = t.n_keys
        self.threat = 0
        self.players = [Player(seat=s, pearls=t.starting_pearls) for s in range(self.n_players)]
        self.log("setup", court=list(self.court), location=self.locations_available[0])
        if self.leviathan:
            for p, crab in zip(self.players, crabs, strict=True):
                p.hand.append(crab)
            self.setup_leviathan()

    # ---------------------------------------------------------------- helpers
    def log(self, kind: str, **data) -> None:
        if self.record:
            self.events.append({"turn": self.turn, "seat": self.active, "event": kind, **data})

    def choose(self, seat: int, decision: Decision, options: list[int]) -> int:
        """Ask the seat's policy; a single legal option is taken without asking."""
        if len(options) == 1:
            return options[0]
        option = self.policies[seat].choose(self, seat, decision, options)
        if option not in options:
            raise RuntimeError(
                f"policy {self.policies[seat].name!r} chose {option} for {decision.name}, "
                f"legal: {options}"
            )
        self.trace.append((seat, int(decision), int(option), len(options)))
        return option

    def policy_below(self, n: int) -> int:
        """Randomness for policies (tie-breaks, the random policy): the POLICY stream."""
        return self.rng.below(Stream.POLICY, n)

    def opponents(self, seat: int) -> list[int]:
        """The other seats in clockwise order, starting with the player on the left."""
        return [(seat + i) % self.n_players for i in range(1, self.n_players)]

    def race(self, ally: int) -> int:
        return int(self.t.ally_race[ally])

    def value(self, ally: int) -> int:
        return int(self.t.ally_value[ally])

    def lord_power(self, lord: int) -> int:
        return int(self.t.lord_power[lord])

    def has_power(self, p: Player, power: Power) -> bool:
        """A semi-permanent power works while its Lord is free and not disabled."""
        return any(
            self.lord_power(lord) == power and lord not in p.disabled
            for lord in p.lords
            if lord not in p.under
        )

    def protected(self, p: Player) -> bool:
        """The Shaman: "You are protected against the Powers of Military Lords"."""
        return self.has_power(p, Power.SHAMAN)

    def lord_keys(self, lord: int) -> int:
        return lord_key_count(self.t, lord)

    def key_lords(self, p: Player) -> list[int]:
        """Free, working Lords whose Keys can be used."""
        return [
            lord
            for lord in p.lords
            if lord not in p.under and lord not in p.disabled and self.lord_keys(lord) > 0
        ]

    def n_keys(self, p: Player) -> int:
        return p.keys + sum(self.lord_keys(lord) for lord in self.key_lords(p))

    def gain_pearls(self, p: Player, n: int, why: str) -> None:
        """Pearls from the Treasury (unlimited, components 1.1)."""
        if n > 0:
            p.pearls += n
            self.pearls_from_treasury += n
            self.log("pearls", who=p.seat, n=n, why=why)

    def pay_treasury(self, p: Player, n: int, why: str) -> None:
        """Pearls paid (or lost) to the Treasury; never more than the player has."""
        n = min(n, p.pearls)
        if n > 0:
            p.pearls -= n
            self.pearls_to_treasury += n
            self.log("pearls", who=p.seat, n=-n, why=why)

    def gain_keys(self, p: Player, n: int, why: str) -> None:
        """Key tokens come from a pile of ten; an empty pile gives none."""
        n = min(n, self.key_pile)
        if n > 0:
            self.key_pile -= n
            p.keys += n
            self.log("keys", who=p.seat, n=n, why=why)

    def discard_ally_from_hand(self, p: Player, ally: int, why: str) -> None:
        p.hand.remove(ally)
        self.exploration_discard.append(ally)
        self.log("discard_ally", who=p.seat, ally=ally, why=why)

    def choose_discard(self, p: Player, why: str) -> None:
        """The owner of the hand chooses which Ally to discard (one per (race, value, effect))."""
        ally = self.choose(p.seat, Decision.DISCARD_ALLY, distinct_allies(self.t, p.hand))
        self.discard_ally_from_hand(p, ally, why)

    # ------------------------------------------------------------- game flow
    def play(self) -> Game:
        """Play turns until the end; returns self with `scores` and `ranks` filled in.

        The loop keeps its place in `next_seat` and `final_turns`, so a game decoded from a state
        between two turns (`sim.abyss.state.decode`) plays on from there.
        """
        while True:
            seat = self.next_seat
            if self.turn >= self.rules.turn_limit:
                # Safety cap (rules option `turn_limit`); never reached in normal play.
                self.end_reason = "turn_limit"
                self.log("turn_limit")
                break
            self.take_turn(seat)
            if self.trajectory is not None:
                self.record_round(seat)
            if self.extra_turn:
                # Invoker: "Take an extra turn after this one." Once the end is triggered,
                # "every other player takes one last turn" (rules option last_round_extra_turn).
                self.extra_turn = False
                if self.end_reason is None or self.rules.last_round_extra_turn:
                    self.log("extra_turn", who=seat)
                    continue
                self.log("extra_turn_not_taken", who=seat)
            if self.end_reason is not None:
                if self.final_turns is None:
                    # "The active player finishes their turn, and every other player takes one
                    # last turn."
                    self.final_turns = self.opponents(seat)
                    self.log("last_round", trigger=seat, reason=self.end_reason)
                if not self.final_turns:
                    break
                self.next_seat = self.final_turns.pop(0)
            else:
                self.next_seat = (seat + 1) % self.n_players
        self.over = True
        self.final_scoring()
        return self

    def take_turn(self, seat: int) -> None:
        p = self.players[seat]
        self.turn += 1
        self.active = seat
        self.log("turn_start", who=seat, pearls=p.pearls)
        p.used_powers.clear()
        for q in self.players:
            q.bought_this_turn = False
        for lord in p.free_lords():
            if self.lord_power(lord) == Power.LANDLORD and lord not in p.disabled:
                # Landlord: "Gain 1 Pearl now and at the start of each of your turns."
                self.gain_pearls(p, 1, "landlord")
        if self.leviathan:
            self.reveal_held_tokens(p)
        self.plot_at_court(p)
        self.use_once_per_turn_powers(p)
        kills = self.n_kills
        self.take_action(p)
        # "If you gain a third Key, you must immediately take control of a Location": also after
        # a kill, which ends the turn.
        self.control_locations(p)
        if self.n_kills == kills or self.rules.powers_after_kill:
            # "The death of a Leviathan ends your turn": no "During your turn" powers after it.
            self.use_once_per_turn_powers(p)
        self.enforce_commander(p)
        if self.leviathan:
            self.martial_law(p)
            self.leviathan_end_check()
        if self.rules.court_end == "bga" and self.end_reason is None:
            if not self.lord_deck and len(self.court) < self.t.court_size:
                self.trigger_end("court_empty")

    def record_round(self, seat: int) -> None:
        """The seat's running IP (scored as at the end, before the final affiliation), Pearls and
        Keys after its turn, in its round's entry: the fast path's `kernel.record_round`."""
        p = self.players[seat]
        round_ = (self.turn - 1) // self.n_players
        self.trajectory[round_, seat] = (self.score(p).total, p.pearls, self.n_keys(p))

    def trigger_end(self, reason: str) -> None:
        if self.end_reason is None:
            self.end_reason = reason
            self.log("end_triggered", reason=reason)

    # ------------------------------------------------------------ plot at court
    def can_plot(self, p: Player) -> bool:
        """ "This is not possible if the Court is full or the Lord deck is empty." """
        return p.pearls >= 1 and len(self.court) < self.t.court_size and bool(self.lord_deck)

    def plot_at_court(self, p: Player) -> None:
        """Rulebook: "You may pay one Pearl to the Treasury to add one Lord to an empty space"."""
        while self.can_plot(p) and self.choose(p.seat, Decision.PLOT, [0, 1]) == 1:
            self.pay_treasury(p, 1, "plot")
            lord = self.lord_deck.pop()
            self.court.append(lord)  # "filling the space furthest from the Lord deck"
            self.log("plot", who=p.seat, lord=lord)

    # ------------------------------------------------------- once-per-turn powers
    def once_per_turn_options(self, p: Player) -> list[int]:
        options = []
        for power in ONCE_PER_TURN:
            if power in p.used_powers or not self.has_power(p, power):
                continue
            if power == Power.SLAVER and not p.hand:
                continue
            if power == Power.ORACLE and not any(self.council):
                continue
            if power == Power.OPPORTUNIST and not (self.court and self.lord_deck):
                continue
            options.append(int(power))
        return options

    def use_once_per_turn_powers(self, p: Player) -> None:
        """Powers usable "During your turn"; offered before and after the action."""
        while True:
            powers = self.once_per_turn_options(p)
            if not powers:
                return
            power = self.choose(p.seat, Decision.POWER, [0, *powers])
            if power == 0:
                return
            p.used_powers.add(power)
            if power == Power.SLAVER:
                # "discard 1 Ally from your hand to gain 2 Pearls"
                self.choose_discard(p, "slaver")
                self.gain_pearls(p, 2, "slaver")
            elif power == Power.ORACLE:
                # "discard 1 stack of cards from the council"
                stacks = [r for r in range(N_RACES) if self.council[r]]
                race = self.choose(p.seat, Decision.COUNCIL_DISCARD, stacks)
                self.exploration_discard.extend(self.council[race])
                self.log("oracle", who=p.seat, race=race, n=len(self.council[race]))
                self.council[race] = []
            elif power == Power.OPPORTUNIST:
                # "discard a Lord from the Court and replace it with the top one from the deck"
                lord = self.choose(p.seat, Decision.COURT_LORD, list(self.court))
                i = self.court.index(lord)
                self.court[i] = self.lord_deck.pop()
                self.lord_discard.append(lord)
                self.log("opportunist", who=p.seat, discarded=lord, new=self.court[i])

    # ------------------------------------------------------------------ actions
    def legal_actions(self, p: Player) -> list[int]:
        actions = []
        if self.exploration_deck or self.exploration_discard:
            actions.append(Action.EXPLORE)
        if any(self.council):
            actions.append(Action.REQUEST_SUPPORT)
        if self.affordable_lords(p):
            actions.append(Action.RECRUIT)
        return actions

    def take_action(self, p: Player) -> None:
        """ "You must choose one of the following three actions"."""
        actions = self.legal_actions(p)
        if not actions:
            self.log("no_action", who=p.seat)
            return
        action = self.choose(p.seat, Decision.ACTION, actions)
        if action == Action.EXPLORE:
            self.explore(p)
        elif action == Action.REQUEST_SUPPORT:
            self.request_support(p)
        else:
            self.recruit(p)

    # ------------------------------------------------------------------ explore
    def reveal(self) -> int | None:
        """The top Exploration card; an empty deck is rebuilt by shuffling the discard pile."""
        if not self.exploration_deck:
            if not self.exploration_discard:
                return None
            self.exploration_deck = self.exploration_discard
            self.exploration_discard = []
            self.rng.shuffle(self.exploration_deck, Stream.EXPLORATION_DECK)
            self.log("reshuffle", n=len(self.exploration_deck))
        return self.exploration_deck.pop()

    def explore(self, p: Player) -> None:
        """Rulebook, Explore the Depths."""
        purchases = 0
        taken: int | None = None
        reshuffled = False
        while True:
            if not self.exploration_deck and reshuffled:
                # Every card left has been revealed in this exploration (only Monsters discarded
                # without effect remain): it ends as if the explorer had stopped.
                self.log("deck_exhausted")
                break
            reshuffled = reshuffled or not self.exploration_deck
            card = self.reveal()
            if card is None:
                self.log("deck_exhausted")
                break
            self.track.append(card)
            slot = len(self.track)
            last = slot >= self.t.track_length
            self.log("reveal", card=card, slot=slot)
            if self.race(card) == MONSTER and self.leviathan:
                if self.leviathan_monster(p, card):
                    break
                continue
            if self.race(card) == MONSTER:
                if last:
                    # "If a Monster is revealed on the last space ... you must fight it. You receive
                    # the Threat Track reward plus one Pearl."
                    self.fight_monster(p, bonus_pearl=True)
                    break
                if self.choose(p.seat, Decision.FIGHT_MONSTER, [0, 1]) == 1:
                    self.fight_monster(p, bonus_pearl=False)
                    break
                # "KEEP EXPLORING: Move the Threat token one space up the track"
                self.threat = min(self.threat + 1, len(self.t.threat_n_options) - 1)
                self.log("keep_exploring", threat=self.threat)
                continue
            buyer = self.offer_to_opponents(p, card, purchases + 1)
            if buyer is not None:
                purchases += 1
                continue
            if last:
                # "If all spaces ... are filled and no one buys the last Ally, you must add it to
                # your hand and gain one Pearl."
                taken = self.take_from_track(p)
                self.gain_pearls(p, 1, "last_space")
                break
            if self.choose(p.seat, Decision.TAKE_ALLY, [0, 1]) == 1:
                taken = self.take_from_track(p)
                break
        self.end_exploration(p, taken)

    def offer_to_opponents(self, p: Player, card: int, cost: int) -> int | None:
        """ "You must first offer other players the chance to buy it (clockwise)."

        The first buyer pays `cost` Pearls to the explorer; an opponent buys at most once per turn.
        A bought Ally leaves the track, so its space is free for the next card.
        """
        for seat in self.opponents(p.seat):
            q = self.players[seat]
            if q.bought_this_turn or q.pearls < cost:
                continue
            if self.choose(seat, Decision.BUY, [0, 1]) == 1:
                q.pearls -= cost
                p.pearls += cost
                q.bought_this_turn = True
                self.track.pop()
                q.hand.append(card)
                self.log("buy", who=seat, card=card, cost=cost)
                return seat
        return None

    def take_from_track(self, p: Player) -> int:
        card = self.track.pop()
        p.hand.append(card)
        self.log("take", who=p.seat, card=card)
        return card

    def fight_monster(self, p: Player, bonus_pearl: bool) -> None:
        """Rulebook: "FIGHT THE MONSTER: Victory is automatic ... you win the reward shown"."""
        space = self.threat
        tamed = any(self.has_power(self.players[s], Power.TAMER) for s in self.opponents(p.seat))
        if tamed and not self.protected(p):
            # Tamer: "they earn the reward from the previous Monster Track space"
            space = max(0, space - 1)
        options = self.threat_options(space)
        self.pending_reward_space = space
        k = self.choose(p.seat, Decision.THREAT_REWARD, options)
        pearls, monsters, keys = (int(x) for x in self.t.threat_options[space, k])
        self.log("fight_monster", who=p.seat, space=space, option=k, tamed=tamed)
        self.gain_pearls(p, pearls, "monster")
        for _ in range(monsters):
            self.draw_monster_token(p)
        self.gain_keys(p, keys, "monster")
        if bonus_pearl:
            self.gain_pearls(p, 1, "last_space")
        self.threat = 0

    def threat_options(self, space: int) -> list[int]:
        """Reward options of a space, except those needing more Monster tokens than remain."""
        n = int(self.t.threat_n_options[space])
        ok = [k for k in range(n) if self.t.threat_options[space, k, 1] <= len(self.monster_tokens)]
        return ok or list(range(n))

    def draw_monster_token(self, p: Player) -> None:
        if self.monster_tokens:
            token = self.monster_tokens.pop()
            p.tokens.append(token)
            self.log(
                "monster_token", who=p.seat, token=token, ip=int(self.t.monster_token_ip[token])
            )

    def end_exploration(self, p: Player, taken: int | None) -> None:
        """ "Remaining Allies on the track are placed face down in the Council by Race. Monsters are
        placed in the Exploration discard pile." """
        races = {self.race(c) for c in self.track if self.race(c) != MONSTER}
        if self.has_power(p, Power.SHIP_MASTER) and races:
            # Ship Master: "Gain 1 Pearl for each different Race that you send to the Council."
            self.gain_pearls(p, len(races), "ship_master")
        for card in self.track:
            if self.race(card) == MONSTER:
                self.exploration_discard.append(card)
            else:
                self.council[self.race(card)].append(card)
        self.log("end_exploration", to_council=[c for c in self.track if self.race(c) != MONSTER])
        self.track = []

    # ---------------------------------------------------------- request support
    def request_support(self, p: Player) -> None:
        """ "Take all cards from one stack in the Council ... and add them to your hand."

        The Alchemist: "add 2 stacks to your hand instead of 1".
        """
        n_stacks = 2 if self.has_power(p, Power.ALCHEMIST) else 1
        for _ in range(n_stacks):
            stacks = [r for r in range(N_RACES) if self.council[r]]
            if not stacks:
                break
            self.take_council_stack(p, self.choose(p.seat, Decision.COUNCIL_STACK, stacks))

    def take_council_stack(self, p: Player, race: int) -> None:
        cards = self.council[race]
        self.council[race] = []
        p.hand.extend(cards)
        self.log("council", who=p.seat, race=race, n=len(cards))

    # ------------------------------------------------------------------ recruit
    def lord_cost(self, p: Player, lord: int) -> int:
        """Printed cost, +2 per opponent's Recruiter, -2 for your Treasurer, at least 0."""
        cost = int(self.t.lord_cost[lord])
        if not self.protected(p):
            for s in self.opponents(p.seat):
                q = self.players[s]
                cost += 2 * sum(
                    1
                    for lord2 in q.free_lords()
                    if self.lord_power(lord2) == Power.RECRUITER and lord2 not in q.disabled
                )
        if self.has_power(p, Power.TREASURER):
            cost -= 2
        return max(0, cost)

    def payment_rule(self, p: Player, lord: int) -> PaymentRule:
        guild = int(self.t.lord_guild[lord])
        # Ambassadors have no required race; the Diplomat "may use any Races of your choice".
        required = -1 if guild == Guild.AMBASSADOR or self.has_power(p, Power.DIPLOMAT) else guild
        return PaymentRule(
            cost=self.lord_cost(p, lord), n_races=int(self.t.lord_races[lord]), required=required
        )

    def affordable_lords(self, p: Player) -> list[int]:
        return [
            lord
            for lord in self.court
            if payment_feasible(self.t, p.hand, [], p.pearls, self.payment_rule(p, lord))
        ]

    def recruit(self, p: Player) -> None:
        """Rulebook, Recruit a Lord."""
        lord = self.choose(p.seat, Decision.RECRUIT_LORD, self.affordable_lords(p))
        rule = self.payment_rule(p, lord)
        used: list[int] = []
        self.pending_payment = (rule.cost, used)  # observation for policies
        while True:
            options = payment_options(self.t, p.hand, used, p.pearls, rule)
            ally = self.choose(p.seat, Decision.PAY_ALLY, options)
            if ally == FINISH:
                break
            used.append(ally)
            p.hand.remove(ally)
        pearls = max(0, rule.cost - sum(self.value(a) for a in used))
        self.pay_treasury(p, pearls, "recruit")
        self.log("recruit", who=p.seat, lord=lord, allies=list(used), pearls=pearls, cost=rule.cost)
        self.affiliate(p, used)
        self.court.remove(lord)  # "Slide remaining Lords"
        self.gain_lord(p, lord)
        self.refill_court(p)

    def affiliate(self, p: Player, used: list[int]) -> None:
        """ "All Allies used to recruit are discarded except for the one with the lowest value,
        which becomes affiliated ... If there is a tie for the lowest value, you choose which one."

        The Master of Magic: "affiliate the Ally of your choice from among those used".
        """
        if not used:
            return
        if self.has_power(p, Power.MASTER_OF_MAGIC):
            candidates = distinct_allies(self.t, used)
        else:
            low = min(self.value(a) for a in used)
            candidates = distinct_allies(self.t, [a for a in used if self.value(a) == low])
        keep = self.choose(p.seat, Decision.AFFILIATE, candidates)
        p.affiliated.append(keep)
        for ally in used:
            if ally != keep:
                self.exploration_discard.append(ally)
        self.log("affiliate", who=p.seat, ally=keep)

    def gain_lord(self, p: Player, lord: int) -> None:
        """Place the Lord face up; arrow powers apply now; the 7th Lord triggers the end."""
        p.lords.append(lord)
        if lord not in p.recruited:
            p.recruited.append(lord)
        self.log("gain_lord", who=p.seat, lord=lord)
        self.apply_recruit_power(p, lord)
        if len(p.lords) >= 7:
            self.trigger_end("seventh_lord")

    def refill_court(self, p: Player) -> None:
        """ "If only two Lords remain, you gain two Pearls and must refill the Court from the deck."

        The end is triggered "when a Lord is recruited and the Court cannot be completely refilled".
        """
        if len(self.court) > 2:
            return
        self.gain_pearls(p, 2, "court_refill")
        while len(self.court) < self.t.court_size and self.lord_deck:
            self.court.append(self.lord_deck.pop())
        self.log("court_refill", court=list(self.court))
        if len(self.court) < self.t.court_size and self.rules.court_end == "refill":
            self.trigger_end("court_empty")

    # ------------------------------------------------------------ Lord powers
    def military_targets(self, p: Player) -> list[Player]:
        """Opponents hit by a Military (Soldier) power: all but those protected by a Shaman."""
        return [
            self.players[s] for s in self.opponents(p.seat) if not self.protected(self.players[s])
        ]

    def apply_recruit_power(self, p: Player, lord: int) -> None:
        """Powers marked with an arrow "are applied once upon recruitment"."""
        power = self.lord_power(lord)
        if power == Power.JAILER:
            # "Each of your opponents must discard 1 Ally from their hand."
            for q in self.military_targets(p):
                if q.hand:
                    self.choose_discard(q, "jailer")
        elif power == Power.SEEKER:
            # "Each of your opponents must return 2 Pearls to the Treasury."
            for q in self.military_targets(p):
                self.pay_treasury(q, 2, "seeker")
        elif power == Power.ASSASSIN:
            # "Disable 1 Lord from each opponent. That Lord counts only for points."
            for q in self.military_targets(p):
                targets = [lord2 for lord2 in q.free_lords() if lord2 not in q.disabled]
                if targets:
                    victim = self.choose(p.seat, Decision.ASSASSIN_TARGET, targets)
                    q.disabled.add(victim)
                    self.log("assassinate", who=p.seat, victim=q.seat, lord=victim)
        elif power == Power.COMMANDER:
            # "Your opponents can no longer hold more than 6 Allies ... discard any extras."
            for q in self.military_targets(p):
                self.discard_to_limit(q, 6, "commander")
        elif power == Power.HUNTER:
            # "Steal a random Monster token from the opponent of your choice."
            victims = [q.seat for q in self.military_targets(p) if q.tokens]
            if victims:
                q = self.players[self.choose(p.seat, Decision.TARGET_OPPONENT, victims)]
                token = q.tokens.pop(self.rng.below(Stream.HUNTER, len(q.tokens)))
                p.tokens.append(token)
                self.log("hunt", who=p.seat, victim=q.seat, token=token)
        elif power == Power.TRADER:
            self.gain_pearls(p, 3, "trader")
        elif power == Power.PEDDLER:
            self.gain_pearls(p, 2, "peddler")
        elif power == Power.SHOPKEEPER:
            self.gain_pearls(p, 1, "shopkeeper")
        elif power == Power.LANDLORD and self.rules.landlord_immediate_pearl:
            self.gain_pearls(p, 1, "landlord")
        elif power == Power.INVOKER:
            self.extra_turn = True  # "Take an extra turn after this one."
        elif power == Power.APPRENTICE:
            stacks = [r for r in range(N_RACES) if self.council[r]]
            if stacks:  # "Add 1 stack of cards from the Council to your hand."
                self.take_council_stack(p, self.choose(p.seat, Decision.COUNCIL_STACK, stacks))
        elif power == Power.ILLUSIONIST:
            self.illusionist(p)
        elif power == Power.CORRUPTOR:
            self.corruptor(p)
        elif power == Power.TRAITOR:
            self.traitor(p, lord)
        elif power == Power.SCHEMER:
            self.schemer(p, lord)
        elif power in AMBASSADOR_DRAWS and self.rules.ambassador_mode == "draw":
            self.ambassador(p, lord, AMBASSADOR_DRAWS[Power(power)])
        elif self.leviathan:
            self.leviathan_lord_power(p, power)

    def discard_to_limit(self, q: Player, limit: int, why: str) -> None:
        while len(q.hand) > limit:
            self.choose_discard(q, why)

    def enforce_commander(self, p: Player) -> None:
        """Commander: opponents "must discard any extras", re-checked at the end of their turns."""
        if self.protected(p):
            return
        if any(self.has_power(self.players[s], Power.COMMANDER) for s in self.opponents(p.seat)):
            self.discard_to_limit(p, 6, "commander")

    def illusionist(self, p: Player) -> None:
        """ "You can exchange one of your Locations for a different available one." """
        if not p.locations or not self.locations_available:
            return
        give = self.choose(p.seat, Decision.ILLUSIONIST_GIVE, [DECLINE, *p.locations])
        if give == DECLINE:
            return
        take = self.choose(p.seat, Decision.ILLUSIONIST_TAKE, list(self.locations_available))
        self.locations_available.remove(take)
        self.locations_available.append(give)
        i = p.locations.index(give)
        p.locations[i] = take
        p.location_lords[take] = p.location_lords.pop(give)
        self.log("illusionist", who=p.seat, gave=give, took=take)

    def corruptor(self, p: Player) -> None:
        """Corruptor: "You can recruit a second Lord from the Court by paying 5 Pearls"."""
        if p.pearls < 5 or not self.court:
            return
        lord = self.choose(p.seat, Decision.COURT_LORD, [DECLINE, *self.court])
        if lord == DECLINE:
            return
        self.pay_treasury(p, 5, "corruptor")
        self.court.remove(lord)
        self.log("recruit", who=p.seat, lord=lord, allies=[], pearls=5, cost=5, by="corruptor")
        self.gain_lord(p, lord)
        self.refill_court(p)

    def traitor(self, p: Player, traitor: int) -> None:
        """Traitor: "You can discard one of your other free Lords and replace it with any Lord
        from the Court."

        Clarification (components 1.4 / publisher FAQ): the replacement's power applies at once.
        """
        mine = [lord for lord in p.free_lords() if lord != traitor]
        if not mine or not self.court:
            return
        old = self.choose(p.seat, Decision.OWN_LORD, [DECLINE, *mine])
        if old == DECLINE:
            return
        new = self.choose(p.seat, Decision.COURT_LORD, list(self.court))
        self.discard_lord(p, old)
        self.court.remove(new)
        self.log("traitor", who=p.seat, discarded=old, lord=new)
        self.gain_lord(p, new)
        self.refill_court(p)

    def schemer(self, p: Player, schemer: int) -> None:
        """Schemer: "You may discard one of your other free Lords and replace it with the top one
        from the deck." """
        mine = [lord for lord in p.free_lords() if lord != schemer]
        if not mine or not self.lord_deck:
            return
        old = self.choose(p.seat, Decision.OWN_LORD, [DECLINE, *mine])
        if old == DECLINE:
            return
        self.discard_lord(p, old)
        new = self.lord_deck.pop()
        self.log("schemer", who=p.seat, discarded=old, lord=new)
        self.gain_lord(p, new)

    def discard_lord(self, p: Player, lord: int) -> None:
        p.lords.remove(lord)
        p.disabled.discard(lord)
        self.lord_discard.append(lord)

    def ambassador(self, p: Player, lord: int, n: int) -> None:
        """Hermit/Sage/Elder: draw n Locations, control one (the Ambassador slides under it),
        the others become available (components 1.4, BGA behaviour)."""
        drawn = [self.location_deck.pop() for _ in range(min(n, len(self.location_deck)))]
        if not drawn:
            return
        keep = self.choose(p.seat, Decision.LOCATION_KEEP, drawn)
        drawn.remove(keep)
        self.locations_available.extend(drawn)
        self.log("ambassador", who=p.seat, lord=lord, location=keep, revealed=drawn)
        self.place_location(p, keep, [lord])

    # --------------------------------------------------------- control locations
    def control_locations(self, p: Player) -> None:
        """ "If you gain a third Key, you must immediately take control of a Location." """
        while self.n_keys(p) >= 3 and (self.location_deck or self.locations_available):
            lords = self.spend_keys(p)
            self.take_location(p, lords)

    def spend_keys(self, p: Player) -> list[int]:
        """Choose the three Keys: Key tokens go back to the pile, Lords slide under the Location."""
        need, lords, tokens = 3, [], 0
        while need > 0:
            options = [KEY_TOKEN] if p.keys - tokens > 0 else []
            unused = [lord for lord in self.key_lords(p) if lord not in lords]
            # A Lord whose Keys overshoot what is still needed is offered only when nothing fits.
            fitting = [lord for lord in unused if self.lord_keys(lord) <= need]
            options += fitting if (fitting or options) else unused
            source = self.choose(p.seat, Decision.KEY_SOURCE, options)
            if source == KEY_TOKEN:
                tokens += 1
                need -= 1
            else:
                lords.append(source)
                need -= self.lord_keys(source)
        p.keys -= tokens
        self.key_pile += tokens
        return lords

    def take_location(self, p: Player, lords: list[int]) -> None:
        """ "You may take a face-up Location or draw 1-4 Locations and choose one (placing the rest
        face up)." """
        options = list(self.locations_available)
        n_draw = min(MAX_LOCATION_DRAW, len(self.location_deck))
        options += [LOCATION_DRAW + n for n in range(1, n_draw + 1)]
        source = self.choose(p.seat, Decision.LOCATION_SOURCE, options)
        if source >= LOCATION_DRAW:
            drawn = [self.location_deck.pop() for _ in range(source - LOCATION_DRAW)]
            location = self.choose(p.seat, Decision.LOCATION_KEEP, drawn)
            drawn.remove(location)
            self.locations_available.extend(drawn)
            self.log("draw_locations", who=p.seat, drawn=[location, *drawn])
        else:
            location = source
            self.locations_available.remove(location)
        self.place_location(p, location, lords)

    def place_location(self, p: Player, location: int, lords: list[int]) -> None:
        """Rulebook: "Any Lords used to control it are slid underneath ... no longer free." """
        if self.t.location_rule[location] == LocationRule.BLACK_SMOKERS and self.location_deck:
            # Black Smokers: "you may immediately swap it for a Location of your choice from the
            # deck"
            options = [DECLINE, *sorted(self.location_deck)]
            swap = self.choose(p.seat, Decision.BLACK_SMOKERS, options)
            if swap != DECLINE:
                self.location_deck.remove(swap)
                self.location_deck.append(location)
                self.rng.shuffle(self.location_deck, Stream.LOCATION_DECK)
                self.log("black_smokers", who=p.seat, took=swap)
                location = swap
        p.locations.append(location)
        p.location_lords[location] = list(lords)
        p.under.update(lords)
        self.log("control_location", who=p.seat, location=location, lords=list(lords))

    # ---------------------------------------------------------------- scoring
    def final_scoring(self) -> None:
        """Rulebook, End of Game and Scoring."""
        for p in self.players:
            # "Players affiliate the lowest-value Ally of each Race remaining in their hand"
            for race in range(N_RACES):
                mine = [a for a in p.hand if self.race(a) == race]
                if mine:
                    low = min(mine, key=lambda a: (self.value(a), a))
                    p.affiliated.append(low)
            for a in p.hand:
                if a not in p.affiliated:
                    self.exploration_discard.append(a)
            p.hand = []
        self.scores = [self.score(p) for p in self.players]
        for p, s in zip(self.players, self.scores, strict=True):
            self.log(
                "score",
                who=p.seat,
                total=s.total,
                lords=s.lords,
                locations=s.locations,
                allies=s.allies,
                monsters=s.monsters,
                wounds=s.wounds,
                scourge=s.scourge,
                pearls=p.pearls,
            )
        keys = [self.tiebreak_key(s) for s in range(self.n_players)]
        self.ranks = [1 + sum(1 for k in keys if k > keys[s]) for s in range(self.n_players)]
        self.log("game_end", ranks=list(self.ranks), reason=self.end_reason)

    def tiebreak_key(self, seat: int) -> tuple[int, int, int]:
        """ "Ties are broken by the most Pearls, then by the highest value Lord." """
        p = self.players[seat]
        best_lord = max((int(self.t.lord_ip[lord]) for lord in p.lords), default=0)
        return (self.scores[seat].total, p.pearls, best_lord)

    def score(self, p: Player) -> Score:
        t = self.t
        best = [0] * N_RACES
        for a in p.affiliated:
            best[self.race(a)] = max(best[self.race(a)], self.value(a))
        return Score(
            lords=sum(int(t.lord_ip[lord]) for lord in p.lords),
            locations=sum(self.location_score(p, loc) for loc in p.locations),
            allies=sum(best),  # "The strongest affiliated Ally from each Race"
            monsters=sum(int(t.monster_token_ip[tok]) for tok in p.tokens),
            wounds=-p.wounds,  # "subtract 1 Influence Point for each Wound token you possess"
            scourge=5 if self.leviathan and self.scourge == p.seat else 0,
        )

    def location_score(self, p: Player, location: int) -> int:
        if self.t.location_rule[location] == LocationRule.CITY_OF_MIRRORS:
            # City of Mirrors copies the best-scoring opponent Location, scored with your cards.
            others = [
                loc
                for s in self.opponents(p.seat)
                for loc in self.players[s].locations
                if self.t.location_rule[loc] != LocationRule.CITY_OF_MIRRORS
            ]
            return max((location_formula(self.t, p, loc) for loc in others), default=0)
        return location_formula(self.t, p, location)


# --------------------------------------------------------------------------- formulas
def lord_key_count(t: CardTables, lord: int) -> int:
    """Keys printed on a Lord; with ambassador_mode="keys" each Ambassador carries 3."""
    if t.rules.ambassador_mode == "keys" and t.lord_guild[lord] == Guild.AMBASSADOR:
        return 3
    return int(t.lord_keys[lord])


def location_formula(t: CardTables, p: Player, location: int) -> int:
    """Final IP of `location` for player `p` (components 1.5). `p.lords` counts every Lord owned."""
    rule = int(t.location_rule[location])
    base, mult, arg = (
        int(t.location_base[location]),
        int(t.location_mult[location]),
        int(t.location_arg[location]),
    )
    lord_ips = [int(t.lord_ip[lord]) for lord in p.lords]
    if rule == LocationRule.GUILD_LORDS:
        return base + mult * sum(1 for lord in p.lords if t.lord_guild[lord] == arg)
    if rule == LocationRule.AFFILIATED_RACE:
        return base + mult * sum(1 for a in p.affiliated if t.ally_race[a] == arg)
    if rule == LocationRule.DISTINCT_GUILDS:
        return base + mult * len({int(t.lord_guild[lord]) for lord in p.lords})
    if rule == LocationRule.WEAKEST_LORD:
        return base + mult * min(lord_ips, default=0)
    if rule == LocationRule.STRONGEST_LORD:
        return base + mult * max(lord_ips, default=0)
    if rule == LocationRule.MINUS_LORDS:
        return base - mult * len(p.lords)
    if rule == LocationRule.LORDS_WITH_KEY:
        return base + mult * sum(1 for lord in p.lords if lord_key_count(t, lord) > 0)
    if rule == LocationRule.LORDS_WITHOUT_KEY:
        return base + mult * sum(1 for lord in p.lords if lord_key_count(t, lord) == 0)
    if rule == LocationRule.WEAKEST_AFFILIATED_SUM:
        weakest = {}
        for a in p.affiliated:
            r, v = int(t.ally_race[a]), int(t.ally_value[a])
            weakest[r] = min(weakest.get(r, v), v)
        return base + sum(weakest.values())
    if rule == LocationRule.MINUS_AFFILIATED:
        return base - mult * len(p.affiliated)
    return 0  # Black Smokers; City of Mirrors is resolved by the caller


# ----------------------------------------------------------------------------- payment
@dataclass(frozen=True)
class PaymentRule:
    """What a Lord costs this player: value, exact number of races, required race (-1: any)."""

    cost: int
    n_races: int
    required: int


def distinct_allies(t: CardTables, allies: list[int]) -> list[int]:
    """One representative (the lowest id) per (race, value, effect), ascending: choices that
    differ. The effect matters with the Leviathan expansion: a plain Squid 1 and a Squid 1 that
    adds Pearls are different cards to keep for a fight (components 2.6)."""
    seen: dict[tuple[int, int, int], int] = {}
    for a in allies:
        key = (int(t.ally_race[a]), int(t.ally_value[a]), int(t.ally_effect[a]))
        if key not in seen or a < seen[key]:
            seen[key] = a
    return sorted(seen.values())


def _race_sets(races_held: set[int], chosen: set[int], rule: PaymentRule):
    """Every set of exactly `n_races` races held that contains `chosen` and the required race."""
    from itertools import combinations

    need = rule.n_races - len(chosen)
    if need < 0:
        return
    free = sorted(races_held - chosen)
    for extra in combinations(free, need):
        full = chosen | set(extra)
        if rule.required < 0 or rule.required in full:
            yield full


def payment_feasible(
    t: CardTables, hand: list[int], used: list[int], pearls: int, rule: PaymentRule
) -> bool:
    """Can the Allies `used` so far be completed into a legal payment?

    "You must play the exact number of different Races required ... The total value must meet the
    required number ... You may spend one Pearl for each missing point, but you must still play at
    least one Ally from each required Race."
    """
    chosen = {int(t.ally_race[a]) for a in used}
    remaining = [a for a in hand if a not in used]
    held = chosen | {int(t.ally_race[a]) for a in remaining}
    paid = sum(int(t.ally_value[a]) for a in used)
    for races in _race_sets(held, chosen, rule):
        extra = sum(int(t.ally_value[a]) for a in remaining if int(t.ally_race[a]) in races)
        if paid + extra + pearls >= rule.cost:
            return True
    return False


def payment_complete(t: CardTables, used: list[int], pearls: int, rule: PaymentRule) -> bool:
    races = {int(t.ally_race[a]) for a in used}
    if len(races) != rule.n_races or (rule.required >= 0 and rule.required not in races):
        return False
    return sum(int(t.ally_value[a]) for a in used) + pearls >= rule.cost


def payment_options(
    t: CardTables, hand: list[int], used: list[int], pearls: int, rule: PaymentRule
) -> list[int]:
    """FINISH (when `used` is a complete payment), then each distinct Ally keeping it payable."""
    options = [FINISH] if payment_complete(t, used, pearls, rule) else []
    for a in distinct_allies(t, hand):
        if payment_feasible(t, hand, [*used, a], pearls, rule):
            options.append(a)
    return options


# ------------------------------------------------------------------------------ results
def play_game(
    tables: CardTables,
    policies: list[Policy],
    seed: int,
    game: int = 0,
    record: bool = True,
    trajectory: bool = False,
) -> Game:
    """Play one game with the reference engine and return the finished `Game` (with
    `trajectory`, its per-round record too)."""
    return Game(tables, policies, seed, game, record, trajectory).play()


def seat_rows(g: Game, strategies: list[str]) -> list[dict]:
    """One results row per seat (schema: docs/results-schema.md)."""
    rows = []
    for p, s, rank in zip(g.players, g.scores, g.ranks, strict=True):
        rows.append(
            {
                "game": g.game_index,
                "seat": p.seat,
                "strategy": strategies[p.seat],
                "score": s.total,
                "score_lords": s.lords,
                "score_locations": s.locations,
                "score_allies": s.allies,
                "score_monsters": s.monsters,
                "score_wounds": s.wounds,
                "score_scourge": s.scourge,
                "pearls": p.pearls,
                "keys": p.keys,
                "n_lords": len(p.lords),
                "n_locations": len(p.locations),
                "n_affiliated": len(p.affiliated),
                "n_monster_tokens": len(p.tokens),
                "leviathans_killed": len(p.killed),
                "wounds": p.wounds,
                "rank": rank,
                "winner": rank == 1,
                "lord_set": card_set(p.recruited),
                "location_set": card_set(p.locations),
            }
        )
    return rows


def card_set(cards) -> int:
    """Card indices as a bit set (bit i = card i), as the results tables store them."""
    bits = 0
    for c in cards:
        bits |= 1 << int(c)
    return bits


def game_row(g: Game) -> dict:
    return {
        "game": g.game_index,
        "n_players": g.n_players,
        "turns": g.turn,
        "end_reason": g.end_reason or "none",
        "seed": g.seed,
        "n_fights": g.n_fights,
        "n_continues": g.n_continues,
        "n_leviathan_attacks": g.n_leviathan_attacks,
        "n_kills": g.n_kills,
    }


__all__ = [
    "Action",
    "Decision",
    "Game",
    "Player",
    "Policy",
    "Score",
    "game_row",
    "location_formula",
    "payment_feasible",
    "payment_options",
    "play_game",
    "seat_rows",
]
