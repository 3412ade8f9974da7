"""Narrate one game turn by turn from the reference engine's event log."""

from __future__ import annotations

import string

from games.abyss.engine.cards.constants import MONSTER, AllyEffect, Race
from games.abyss.engine.rules.game import Game
from games.abyss.engine.runner import check_expansions, rotated

RACE_NAMES = {r.value: r.name.capitalize() for r in Race}
#: How the Leviathan expansion's fighting Allies are shown.
EFFECT_TAGS = {AllyEffect.ADD_PEARLS: " [+Pearls]", AllyEffect.TWO_DICE: " [2 dice]"}


#: Events told by a template: {field} is the event's value, {field:how} shows it by the
#: Narrator's method `how` (a card, Lord, Location, seat ... by name).
TEMPLATES = {
    "turn_start": "\nTurn {turn}: {who:who}, {pearls} Pearls",
    "plot": "  plots at Court (1 Pearl): {lord:lord} joins the Court",
    "keys": "  +{n} Key(s) ({why})",
    "reveal": "  explores: reveals {card:card} on space {slot}",
    "buy": "    {who:who} buys {card:card} for {cost} Pearl(s)",
    "take": "  takes {card:card}",
    "keep_exploring": "  keeps exploring; Threat token moves to space {threat:number}",
    "monster_token": "  draws a Monster token worth {ip} IP",
    "end_exploration": "  exploration ends; to the Council: {to_council:cards}",
    "reshuffle": "  the Exploration deck is empty: {n} discarded cards reshuffled",
    "deck_exhausted": "  no Exploration card left to reveal",
    "council": "  requests support: takes the {race:race} stack ({n} cards)",
    "affiliate": "  affiliates {ally:card}",
    "court_refill": "  Court refilled: {court:lords}",
    "discard_ally": "    {who:who} discards {ally:card} ({why})",
    "assassinate": "  the Assassin disables {lord:lord} of {victim:who}",
    "hunt": "  the Hunter steals a Monster token from {victim:who}",
    "oracle": "  the Oracle discards the {race:race} Council stack ({n} cards)",
    "opportunist": "  the Opportunist replaces {discarded:lord} with {new:lord} in the Court",
    "illusionist": "  the Illusionist exchanges {gave:location} for {took:location}",
    "traitor": "  the Traitor discards {discarded:lord} and brings in {lord:lord}",
    "schemer": "  the Schemer discards {discarded:lord} and brings in {lord:lord}",
    "draw_locations": "  draws Locations: {drawn:cards_loc}",
    "black_smokers": "  Black Smokers is swapped for {took:location}",
    "extra_turn": "  {who:who} takes an extra turn (Invoker)",
    "extra_turn_not_taken": "  {who:who} takes no extra turn: the end is triggered (Invoker)",
    "end_triggered": "  ** the end of the game is triggered ({reason:words}) **",
    "last_round": "  every other player now takes one last turn",
    "no_action": "  has no legal action",
    "turn_limit": "\nThe game reached the turn limit.",
    # the Leviathan expansion
    "kill": "  kills {leviathan:leviathan}",
    "scourge": "  {who:who} takes the Scourge of the Abyss",
    "leviathan_token": "  takes a Leviathan Monster token",
    "monster_discarded": "  the Monster is discarded ({why:words})",
    "rebel": "  the Rebel strikes {leviathan:leviathan}",
    "breeder": "  the Breeder places {leviathan:leviathan} on zone {zone:number}",
    "lose_lord": "  {who:who} loses {lord:lord}",
    "leviathan_deck_empty_on_add": "  the Leviathan deck is empty: no Leviathan is added",
}


class Narrator(string.Formatter):
    """Turns events into sentences using the card names of the tables."""

    def __init__(self, tables, lineup: list[str]):
        self.t = tables
        self.lineup = lineup

    def format_field(self, value, how: str) -> str:
        return getattr(self, how)(value) if how else format(value)

    def card(self, ally: int) -> str:
        race = int(self.t.ally_race[ally])
        if race == MONSTER:
            return "a Monster"
        kind = EFFECT_TAGS.get(int(self.t.ally_effect[ally]), "")
        return f"{RACE_NAMES[race]} {int(self.t.ally_value[ally])}{kind}"

    def cards(self, allies) -> str:
        return ", ".join(self.card(a) for a in allies) or "nothing"

    def lord(self, lord: int) -> str:
        return self.t.lord_name[lord]

    def lords(self, lords) -> str:
        return ", ".join(self.lord(x) for x in lords)

    def location(self, loc: int) -> str:
        return self.t.location_name[loc]

    def cards_loc(self, locs) -> str:
        return ", ".join(self.location(x) for x in locs)

    def who(self, seat: int) -> str:
        return f"Seat {seat + 1} ({self.lineup[seat]})"  # seats as people count them

    def race(self, race: int) -> str:
        return RACE_NAMES[race]

    def number(self, index: int) -> str:
        """A 0-based space or zone as printed (from 1)."""
        return str(index + 1)

    def words(self, name: str) -> str:
        return name.replace("_", " ")

    def leviathan(self, lev: int) -> str:
        race = int(self.t.leviathan_race[lev])
        kind = RACE_NAMES[race] if race >= 0 else "Crab-only"
        return f"Leviathan #{int(self.t.leviathan_number[lev])} ({kind})"

    def line(self, e: dict) -> str | None:
        """The sentence of event `e` (None: an event the narration leaves out)."""
        k = e["event"]
        if k in TEMPLATES:
            return self.format(TEMPLATES[k], **e)
        told = getattr(self, "tell_" + k, None)
        return told(e) if told is not None else None

    # ---- events with more to say than a template
    def tell_setup(self, e: dict) -> str:
        court, location = self.lords(e["court"]), self.location(e["location"])
        return f"Setup. Court: {court}. Face-up Location: {location}."

    def tell_pearls(self, e: dict) -> str:
        w = e.get("who")
        sign = "+" if e["n"] > 0 else ""
        target = "" if w == e["seat"] else f" {self.who(w)}"
        return f"  {sign}{e['n']} Pearl(s){target} ({self.words(e['why'])})"

    def tell_fight_monster(self, e: dict) -> str:
        rewards = self.t.threat_options[e["space"], e["option"]]
        parts = [
            f"{n} {name}"
            for n, name in zip(rewards, ("Pearl", "Monster token", "Key"), strict=True)
            if n
        ]
        tamed = " (Tamer: one space lower)" if e["tamed"] else ""
        return f"  fights the Monster: reward of space {e['space'] + 1}{tamed}: {', '.join(parts)}"

    def tell_recruit(self, e: dict) -> str:
        by = " with the Corruptor" if e.get("by") else ""
        return (
            f"  recruits {self.lord(e['lord'])}{by} (cost {e['cost']}): "
            f"pays {self.cards(e['allies'])} + {e['pearls']} Pearl(s)"
        )

    def tell_ambassador(self, e: dict) -> str:
        extra = f"; {self.cards_loc(e['revealed'])} become available" if e["revealed"] else ""
        return f"  {self.lord(e['lord'])} takes {self.location(e['location'])}{extra}"

    def tell_control_location(self, e: dict) -> str:
        under = self.lords(e["lords"]) or "no Lord"
        return f"  takes control of {self.location(e['location'])} (under it: {under})"

    def tell_leviathan_arrives(self, e: dict) -> str:
        d1, d2 = e["dice"]
        where = f"zone {e['zone'] + 1} (dice {d1}+{d2})"
        new = self.leviathan(e["leviathan"])
        if e["resident"] >= 0:
            return f"  {new} lands on {where}, occupied by {self.leviathan(e['resident'])}"
        return f"  {new} lands on free {where} ({self.words(e['why'])})"

    def tell_leviathan_attack(self, e: dict) -> str:
        what = ("Wound(s)", "Pearls lost", "Allies discarded", "free Lord(s) discarded")
        lev, who = self.leviathan(e["leviathan"]), self.who(e.get("who"))
        return f"  {lev} attacks {who}: {e['n']} {what[e['penalty']]}"

    def tell_attack(self, e: dict) -> str:
        pearls = f" + {e['pearls_added']} Pearl(s)" if e["pearls_added"] else ""
        result = f"removes {e['life_removed']} Life Point(s)" if e["life_removed"] else "fails"
        return (
            f"  attacks {self.leviathan(e['leviathan'])} with {self.card(e['ally'])}: "
            f"die {e['die']}{pearls}, power {e['power']}, {result}"
        )

    def tell_reveal_token(self, e: dict) -> str:
        what = ("Pearl(s)", "Key(s)", "Council stack(s)")[e["token_kind"]]
        return f"  reveals a Leviathan token: {e['amount']} {what}"


def narrate_game(
    tables,
    *,
    seed: int,
    game: int,
    n_players: int,
    strategies: list,
    expansions: tuple[str, ...] = (),
) -> tuple[str, list[dict]]:
    """Play game `game` of a run (same seating rotation as `simulate`) and narrate it;
    `strategies`: the line-up's policies (`sim.core.policy`)."""
    check_expansions(expansions)
    policies = rotated(strategies, game)
    lineup = [p.name for p in policies]
    g = Game(tables, policies, seed, game, record=True).play()
    narrator = Narrator(tables, lineup)
    lines = [f"Game {game} of seed {seed}: {n_players} players, seats: {', '.join(lineup)}"]
    lines += [text for e in g.events if (text := narrator.line(e)) is not None]
    leviathan = "leviathan" in tables.expansions
    parts = "Lords + Locations + Allies + Monster tokens" + (
        " + Wounds + Scourge" if leviathan else ""
    )
    lines.append(f"\nFinal scoring ({parts} = IP):")
    order = sorted(range(n_players), key=lambda s: g.ranks[s])

    def extra(sc) -> str:
        return f" - {-sc.wounds} + {sc.scourge}" if leviathan else ""

    for s in order:
        sc, p = g.scores[s], g.players[s]
        locs = ", ".join(
            f"{tables.location_name[loc]} {g.location_score(p, loc)}" for loc in p.locations
        )
        lines.append(
            f"  {g.ranks[s]}. {narrator.who(s)}: {sc.lords} + {sc.locations} + {sc.allies} + "
            f"{sc.monsters}{extra(sc)} = {sc.total} IP; {p.pearls} Pearls; "
            f"Lords: {', '.join(tables.lord_name[x] for x in p.lords) or 'none'}; "
            f"Locations: {locs or 'none'}; affiliated: {narrator.cards(p.affiliated)}"
        )
    return "\n".join(lines), g.events
