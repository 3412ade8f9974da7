"""Abyss, the readable reference engine: the rules as written, with a full event log.

Specification: `shared/seeds/001_bc4781964399e738.txt` (quoted as "Rulebook" below); card data and
clarifications: `shared/reference/components.md` section 1. Where the text is silent or ambiguous
the choice is recorded in `docs/rules-notes.md` and, where it matters, is a rules option in
`games/abyss/engine/data/rules.toml`.

Design (see docs/decisions.md):
- Chance is explicit: every random draw comes from `GameRng` streams keyed by (seed, game, stream),
  so a game is a pure function of (cards, seed, game, policies).
- Every choice a player makes goes through `Game.choose(seat, decision, options)`
  (`sim.core.reference`): the options are integers in a documented, deterministic order, and a
  policy returns one of them. A decision with a single legal option is not asked (both engines
  skip it the same way).
- Cards are integer ids into the `CardTables` arrays; the state is lists of ids, so it maps one
  to one onto the fixed-shape arrays of the fast path.

The rules are split by the rulebook's phases: this module has the set-up and the turn (plotting at
Court, the once-per-turn powers, the choice of action); `rules.explore`, `rules.recruit`,
`rules.lords`, `rules.locations`, `rules.scoring` and the expansion's `rules.leviathan` mix the rest
into `Game`; `rules.base` names the decisions and holds a player's state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.abyss.engine.cards.constants import N_RACES, AbyssRng, Power, Stream
from games.abyss.engine.rules.base import (
    ONCE_PER_TURN,
    Action,
    Decision,
    Player,
    Score,
    lord_key_count,
)
from games.abyss.engine.rules.explore import ExploreMixin
from games.abyss.engine.rules.leviathan import LeviathanMixin
from games.abyss.engine.rules.locations import LocationsMixin
from games.abyss.engine.rules.lords import LordPowersMixin
from games.abyss.engine.rules.recruit import RecruitMixin, distinct_allies
from games.abyss.engine.rules.scoring import ScoringMixin
from games.abyss.engine.state import encode
from sim.core.reference import ReferenceGame

if TYPE_CHECKING:
    import numpy as np

    from games.abyss.engine.cards.tables import CardTables


class Game(
    ExploreMixin,
    RecruitMixin,
    LordPowersMixin,
    LocationsMixin,
    ScoringMixin,
    LeviathanMixin,
    ReferenceGame,
):
    """One game of Abyss for 2-4 players (2-5 with Leviathan), played to the end by `play()`."""

    RNG = AbyssRng
    POLICY_STREAM = Stream.POLICY
    #: (round, seat) -> the seat's running IP, Pearls and Keys after its last turn of the round
    #: (`record_round`); None: not recorded (a class default, so decoded games have it too).
    trajectory: dict[tuple[int, int], tuple[int, int, int]] | None = None
    #: (state, stream counters, trace length) at the current turn's start, kept for the search
    #: player (`keep_turn_start`); None: no search seat, or not in `play`.
    turn_start: tuple[np.ndarray, np.ndarray, int] | None = None

    @staticmethod
    def seats_allowed(tables: CardTables) -> tuple[int, int]:
        return 2, tables.max_players  # 2-4, 2-5 with Leviathan

    def new_game(self, trajectory: bool = False) -> None:
        """`trajectory`: keep each seat's running IP, Pearls and Keys round by round."""
        tables = self.t
        self.leviathan = "leviathan" in tables.expansions
        self.rules = tables.rules
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
        # extra Pearls by seat: a balance experiment (rules.toml), 0 in the rules as printed
        extra = t.rules.extra_pearls()
        self.players = [Player(seat=s, pearls=t.starting_pearls + extra[s])
                        for s in range(self.n_players)]  # fmt: skip
        self.log("setup", court=list(self.court), location=self.locations_available[0])
        if self.leviathan:
            for p, crab in zip(self.players, crabs, strict=True):
                p.hand.append(crab)
            self.setup_leviathan()

    # ---------------------------------------------------------------- helpers
    def log(self, kind: str, **data) -> None:
        if self.record:
            self.events.append({"turn": self.turn, "seat": self.active, "event": kind, **data})

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
        between two turns (`games.abyss.engine.rules.decode.decode`) plays on from there.
        """
        while True:
            seat = self.next_seat
            if self.turn >= self.rules.turn_limit:
                # Safety cap (rules option `turn_limit`); never reached in normal play.
                self.end_reason = "turn_limit"
                self.log("turn_limit")
                break
            self.keep_turn_start()
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

    #: the state as the fast path's arrays (`state.encode`), for the search's replays
    encode = encode

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
        if self.plot_possible():
            # "its owner chooses when during their turn to apply it": also before plotting,
            # so that the Slaver's Pearls can pay for it
            self.use_once_per_turn_powers(p, Decision.POWER_BEFORE_PLOT)
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
        """The seat's running IP (its score if the game ended now, the final affiliation of its
        hand included), Pearls and Keys after its turn, in its round's entry: the fast path's
        `kernel.record_round`."""
        p = self.players[seat]
        round_ = (self.turn - 1) // self.n_players
        self.trajectory[round_, seat] = (self.score_if_ended(p).total, p.pearls, self.n_keys(p))

    def trigger_end(self, reason: str) -> None:
        if self.end_reason is None:
            self.end_reason = reason
            self.log("end_triggered", reason=reason)

    # ------------------------------------------------------------ plot at court
    def plot_possible(self) -> bool:
        """ "This is not possible if the Court is full or the Lord deck is empty." """
        return len(self.court) < self.t.court_size and bool(self.lord_deck)

    def can_plot(self, p: Player) -> bool:
        return p.pearls >= 1 and self.plot_possible()

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

    def use_once_per_turn_powers(self, p: Player, decision: Decision = Decision.POWER) -> None:
        """Powers usable "During your turn", each once: offered before plotting (`decision`
        POWER_BEFORE_PLOT), before the action and after the Location step (POWER)."""
        while True:
            powers = self.once_per_turn_options(p)
            if not powers:
                return
            power = self.choose(p.seat, decision, [0, *powers])
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
                lord = self.choose(p.seat, Decision.COURT_DISCARD, list(self.court))
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
