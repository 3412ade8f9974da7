"""Narrate one game turn by turn from the reference engine's event log."""

from __future__ import annotations

from sim.abyss.constants import MONSTER, AllyEffect, Race
from sim.abyss.rules import Game
from sim.abyss.runner import check_expansions, rotated

RACE_NAMES = {r.value: r.name.capitalize() for r in Race}
#: How the Leviathan expansion's fighting Allies are shown.
EFFECT_TAGS = {AllyEffect.ADD_PEARLS: " [+Pearls]", AllyEffect.TWO_DICE: " [2 dice]"}


class Narrator:
    """Turns events into sentences using the card names of the tables."""

    def __init__(self, tables, lineup: list[str]):
        self.t = tables
        self.lineup = lineup

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

    def location(self, loc: int) -> str:
        return self.t.location_name[loc]

    def who(self, seat: int) -> str:
        return f"Seat {seat} ({self.lineup[seat]})"

    def line(self, e: dict) -> str | None:  # noqa: C901 - one branch per event kind
        k, w = e["event"], e.get("who")
        if k == "setup":
            court = ", ".join(self.lord(x) for x in e["court"])
            return f"Setup. Court: {court}. Face-up Location: {self.location(e['location'])}."
        if k == "turn_start":
            return f"\nTurn {e['turn']}: {self.who(w)}, {e['pearls']} Pearls"
        if k == "plot":
            return f"  plots at Court (1 Pearl): {self.lord(e['lord'])} joins the Court"
        if k == "pearls":
            sign = "+" if e["n"] > 0 else ""
            target = "" if w == e["seat"] else f" {self.who(w)}"
            return f"  {sign}{e['n']} Pearl(s){target} ({e['why'].replace('_', ' ')})"
        if k == "keys":
            return f"  +{e['n']} Key(s) ({e['why']})"
        if k == "reveal":
            return f"  explores: reveals {self.card(e['card'])} on space {e['slot']}"
        if k == "buy":
            return f"    {self.who(w)} buys {self.card(e['card'])} for {e['cost']} Pearl(s)"
        if k == "take":
            return f"  takes {self.card(e['card'])}"
        if k == "keep_exploring":
            return f"  keeps exploring; Threat token moves to space {e['threat'] + 1}"
        if k == "fight_monster":
            rewards = self.t.threat_options[e["space"], e["option"]]
            parts = [
                f"{n} {name}"
                for n, name in zip(rewards, ("Pearl", "Monster token", "Key"), strict=True)
                if n
            ]
            tamed = " (Tamer: one space lower)" if e["tamed"] else ""
            return (
                f"  fights the Monster: reward of space {e['space'] + 1}{tamed}: {', '.join(parts)}"
            )
        if k == "monster_token":
            return f"  draws a Monster token worth {e['ip']} IP"
        if k == "end_exploration":
            return f"  exploration ends; to the Council: {self.cards(e['to_council'])}"
        if k == "reshuffle":
            return f"  the Exploration deck is empty: {e['n']} discarded cards reshuffled"
        if k == "deck_exhausted":
            return "  no Exploration card left to reveal"
        if k == "council":
            return f"  requests support: takes the {RACE_NAMES[e['race']]} stack ({e['n']} cards)"
        if k == "recruit":
            by = " with the Corruptor" if e.get("by") else ""
            return (
                f"  recruits {self.lord(e['lord'])}{by} (cost {e['cost']}): "
                f"pays {self.cards(e['allies'])} + {e['pearls']} Pearl(s)"
            )
        if k == "affiliate":
            return f"  affiliates {self.card(e['ally'])}"
        if k == "court_refill":
            return f"  Court refilled: {', '.join(self.lord(x) for x in e['court'])}"
        if k == "discard_ally":
            return f"    {self.who(w)} discards {self.card(e['ally'])} ({e['why']})"
        if k == "assassinate":
            return f"  the Assassin disables {self.lord(e['lord'])} of {self.who(e['victim'])}"
        if k == "hunt":
            return f"  the Hunter steals a Monster token from {self.who(e['victim'])}"
        if k == "oracle":
            return (
                f"  the Oracle discards the {RACE_NAMES[e['race']]} Council stack ({e['n']} cards)"
            )
        if k == "opportunist":
            return (
                f"  the Opportunist replaces {self.lord(e['discarded'])} with "
                f"{self.lord(e['new'])} in the Court"
            )
        if k == "illusionist":
            gave, took = self.location(e["gave"]), self.location(e["took"])
            return f"  the Illusionist exchanges {gave} for {took}"
        if k in ("traitor", "schemer"):
            return (
                f"  the {k.capitalize()} discards {self.lord(e['discarded'])} and brings in "
                f"{self.lord(e['lord'])}"
            )
        if k == "ambassador":
            extra = f"; {self.cards_loc(e['revealed'])} become available" if e["revealed"] else ""
            return f"  {self.lord(e['lord'])} takes {self.location(e['location'])}{extra}"
        if k == "draw_locations":
            return f"  draws Locations: {self.cards_loc(e['drawn'])}"
        if k == "control_location":
            under = ", ".join(self.lord(x) for x in e["lords"]) or "no Lord"
            return f"  takes control of {self.location(e['location'])} (under it: {under})"
        if k == "black_smokers":
            return f"  Black Smokers is swapped for {self.location(e['took'])}"
        if k == "extra_turn":
            return f"  {self.who(w)} takes an extra turn (Invoker)"
        if k == "extra_turn_not_taken":
            return f"  {self.who(w)} takes no extra turn: the end is triggered (Invoker)"
        if k == "end_triggered":
            return f"  ** the end of the game is triggered ({e['reason'].replace('_', ' ')}) **"
        if k == "last_round":
            return "  every other player now takes one last turn"
        if k == "no_action":
            return "  has no legal action"
        if k == "turn_limit":
            return "\nThe game reached the turn limit."
        return self.leviathan_line(e)

    def leviathan(self, lev: int) -> str:
        race = int(self.t.leviathan_race[lev])
        kind = RACE_NAMES[race] if race >= 0 else "Crab-only"
        return f"Leviathan #{int(self.t.leviathan_number[lev])} ({kind})"

    def leviathan_line(self, e: dict) -> str | None:
        """Narration of the Leviathan expansion's events."""
        k, w = e["event"], e.get("who")
        if k == "leviathan_arrives":
            d1, d2 = e["dice"]
            where = f"zone {e['zone'] + 1} (dice {d1}+{d2})"
            new = self.leviathan(e["leviathan"])
            if e["resident"] >= 0:
                return f"  {new} lands on {where}, occupied by {self.leviathan(e['resident'])}"
            return f"  {new} lands on free {where} ({e['why'].replace('_', ' ')})"
        if k == "leviathan_attack":
            what = ("Wound(s)", "Pearls lost", "Allies discarded", "free Lord(s) discarded")[
                e["penalty"]
            ]
            return f"  {self.leviathan(e['leviathan'])} attacks {self.who(w)}: {e['n']} {what}"
        if k == "attack":
            pearls = f" + {e['pearls_added']} Pearl(s)" if e["pearls_added"] else ""
            result = f"removes {e['life_removed']} Life Point(s)" if e["life_removed"] else "fails"
            return (
                f"  attacks {self.leviathan(e['leviathan'])} with {self.card(e['ally'])}: "
                f"die {e['die']}{pearls}, power {e['power']}, {result}"
            )
        if k == "kill":
            return f"  kills {self.leviathan(e['leviathan'])}"
        if k == "scourge":
            return f"  {self.who(w)} takes the Scourge of the Abyss"
        if k == "leviathan_token":
            return "  takes a Leviathan Monster token"
        if k == "reveal_token":
            what = ("Pearl(s)", "Key(s)", "Council stack(s)")[e["token_kind"]]
            return f"  reveals a Leviathan token: {e['amount']} {what}"
        if k == "monster_discarded":
            return f"  the Monster is discarded ({e['why'].replace('_', ' ')})"
        if k == "rebel":
            return f"  the Rebel strikes {self.leviathan(e['leviathan'])}"
        if k == "breeder":
            return f"  the Breeder places {self.leviathan(e['leviathan'])} on zone {e['zone'] + 1}"
        if k == "lose_lord":
            return f"  {self.who(w)} loses {self.lord(e['lord'])}"
        if k == "leviathan_deck_empty_on_add":
            return "  the Leviathan deck is empty: no Leviathan is added"
        return None

    def cards_loc(self, locs) -> str:
        return ", ".join(self.location(x) for x in locs)


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
