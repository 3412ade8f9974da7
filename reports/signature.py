"""A strategy's behavioural signature: what it does in its games, counted from the reference
engine's event log and decisions, so that one can see whether a tuned preset still plays the
archetype it is named after (docs/tuning-results.md, `scripts/signature.py`).

The strategy plays `n_games` games of a seed against a field, in every seat in turn (seat s of
game g plays the line-up's entry (s + g) mod n, as `simulate` rotates); only its own seat is
counted. Two strategies signed with the same field and seed play the same deals (common random
numbers), so their signatures differ by their decisions and what those lead to.

Abyss: Lords recruited (by guild), Allies bought and taken, Council stacks requested, how often
it fights when it may (a Monster revealed on its exploration: the Threat Track's fight, or with
Leviathan a Leviathan's), attacks and kills, Pearls spent at plotting, on Allies and on Lords,
Lords with Keys recruited, Key tokens gained, Locations at the end. Conspiracy: Lords placed,
discard piles taken and their Lords, draws, Lords with Keys and Pearls placed, the Pearl Master
held, the largest coalition, Locations.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

import numpy as np

from sim.abyss.rules_base import lord_key_count

#: Abyss' guilds, in the order of `sim.abyss.constants.Guild`, as columns.
GUILDS = ("mage", "soldier", "farmer", "merchant", "politician", "ambassador")
#: Decisions where a seat may fight (`sim.abyss.rules_base.Decision.FIGHT_MONSTER`,
#: `sim.abyss.rules_leviathan.LevDecision.MONSTER_CHOICE`); option 1 is fighting in both.
FIGHT_DECISIONS, FIGHT = (5, 30), 1

#: The expansions each game's presets are tuned with (scripts/tune_presets.py).
TUNED_EXPANSIONS = {"abyss": ("leviathan",), "conspiracy": ()}

#: Every column of a signature: (game, name) -> what it counts (a mean per game of the seat).
COLUMNS = {
    "abyss": {
        "win": "share of the win",
        "IP": "final score",
        "lords": "Lords recruited",
        **{g: f"{g.capitalize()} Lords recruited" for g in GUILDS},
        "bought": "Allies bought from another's exploration",
        "taken": "Allies taken on its own exploration",
        "council": "Council stacks requested",
        "chances": "Monsters revealed on its exploration that it may fight",
        "fights": "... of them fought",
        "fight_share": "fights / chances, over all its games",
        "attacks": "attacks on Leviathans",
        "kills": "Leviathans killed",
        "plot_pearls": "Pearls spent plotting at Court",
        "ally_pearls": "Pearls spent buying Allies",
        "lord_pearls": "Pearls paid for Lords",
        "key_lords": "Lords with a Key recruited",
        "key_tokens": "Key tokens gained",
        "locations": "Locations at the end",
    },
    "conspiracy": {
        "win": "share of the win",
        "IP": "final score",
        "lords": "Lords placed",
        "piles": "discard piles taken",
        "pile_lords": "Lords placed from discard piles",
        "draws": "turns drawing from the deck",
        "key_lords": "Lords with a Key placed",
        "pearl_lords": "Lords with Pearls placed",
        "pearl_master": "share of games holding the Pearl Master",
        "coalition": "largest same-colour coalition (Lords)",
        "locations": "Locations at the end",
        "ip_lords": "IP from Lords",
        "ip_locations": "IP from Locations",
        "ip_coalition": "IP from the coalition",
    },
}


def _watched(game_cls):
    """The game class, keeping every decision with a choice: (seat, decision, options, choice)."""

    class Watched(game_cls):
        def choose(self, seat, decision, options):
            choice = super().choose(seat, decision, options)
            if len(options) > 1:
                self.__dict__.setdefault("asked", []).append(
                    (seat, int(decision), tuple(int(o) for o in options), int(choice))
                )
            return choice

    return Watched


def abyss_seat(g, seat: int) -> dict[str, float]:
    """Seat `seat`'s counts in a finished Abyss game `g` (played with its event log)."""
    t = g.t
    out = dict.fromkeys(COLUMNS["abyss"], 0.0)
    mine = [e for e in g.events if e.get("who") == seat]
    for e in mine:
        kind = e["event"]
        if kind == "recruit":
            out["lords"] += 1
            out[GUILDS[int(t.lord_guild[e["lord"]])]] += 1
            out["key_lords"] += lord_key_count(t, e["lord"]) > 0
            out["lord_pearls"] += e["pearls"]
        elif kind == "keys" and e["n"] > 0:
            out["key_tokens"] += e["n"]
        elif kind == "buy":
            out["bought"] += 1
            out["ally_pearls"] += e["cost"]
        elif kind in ("take", "council"):
            out["taken" if kind == "take" else "council"] += 1
        elif kind in ("attack", "kill"):
            out["attacks" if kind == "attack" else "kills"] += 1
        elif kind == "pearls" and e["why"] == "plot" and e["n"] < 0:
            out["plot_pearls"] -= e["n"]
    chances = [c for s, d, opts, c in getattr(g, "asked", ())
               if s == seat and d in FIGHT_DECISIONS and FIGHT in opts]  # fmt: skip
    out["chances"], out["fights"] = len(chances), sum(c == FIGHT for c in chances)
    del out["fight_share"]  # a ratio over all games (RATIOS)
    out["locations"] = len(g.players[seat].locations)
    out["IP"], out["win"] = g.scores[seat].total, _win(g.ranks, seat)
    return out


def conspiracy_seat(g, seat: int) -> dict[str, float]:
    """Seat `seat`'s counts in a finished Conspiracy game `g`."""
    t, p, score = g.t, g.players[seat], g.scores[seat]
    chamber = list(p.chamber)
    return {
        "win": _win(g.ranks, seat),
        "IP": score.total,
        "lords": len(chamber),
        "piles": p.pile_takes,
        "pile_lords": p.pile_lords,
        "draws": p.draws,
        "key_lords": sum(int(t.lord_key[x]) != 0 for x in chamber),
        "pearl_lords": sum(int(t.lord_pearls[x]) > 0 for x in chamber),
        "pearl_master": float(g.pearl_master == seat),
        "coalition": score.coalition / t.coalition_ip if t.coalition_ip else np.nan,
        "locations": len(p.locations),
        "ip_lords": score.lords,
        "ip_locations": score.locations,
        "ip_coalition": score.coalition,
    }


#: Columns that are ratios of two sums over the games, not means of per-game values.
RATIOS = {"fight_share": ("fights", "chances")}


def _win(ranks, seat: int) -> float:
    return 1.0 / list(ranks).count(1) if ranks[seat] == 1 else 0.0


SEATS = {"abyss": abyss_seat, "conspiracy": conspiracy_seat}


def signature_games(game: str, tables, strategy: str, field: list[str], *, n_games: int,
                    seed: int, registry=None) -> list[dict[str, float]]:  # fmt: skip
    """The strategy's counts in each of games 0 .. n_games - 1 of `seed` against `field` (one
    strategy per other seat), the strategy in seat (-g) mod n of game g."""
    from sim import games

    registry = registry if registry is not None else games.get(game).strategies()
    lineup = [registry.make_policy(s) for s in (strategy, *field)]
    n = len(lineup)
    play = _watched(import_module(f"sim.{game}.rules").Game)
    rows = []
    for g in range(n_games):
        policies = [lineup[(s + g) % n] for s in range(n)]
        done = play(tables, policies, seed, g, record=True).play()
        rows.append(SEATS[game](done, (-g) % n))
    return rows


def signature(game: str, tables, strategy: str, field: list[str], *, n_games: int, seed: int,
              registry=None) -> dict[str, float]:  # fmt: skip
    """The mean of each column of `COLUMNS[game]` over the strategy's games
    (`signature_games`); `games`: how many."""
    rows = signature_games(game, tables, strategy, field, n_games=n_games, seed=seed,
                           registry=registry)  # fmt: skip
    out = {}
    for k in COLUMNS[game]:
        if k in RATIOS:
            num, den = (sum(r[c] for r in rows) for c in RATIOS[k])
            out[k] = num / den if den else np.nan
        else:
            out[k] = float(np.mean([r[k] for r in rows])) if rows else np.nan
    return {**out, "games": n_games}


@cache
def _tables(game: str, expansions: tuple[str, ...]):
    from sim import games

    return games.get(game).load_cards(None, [], expansions)


def signature_job(job: dict) -> dict[str, float]:
    """`signature` of one job: game, strategy, field, expansions, n_games, seed (the built-in
    card data and presets; a process pool's task)."""
    tables = _tables(job["game"], tuple(job["expansions"]))
    return signature(job["game"], tables, job["strategy"], list(job["field"]),
                     n_games=job["n_games"], seed=job["seed"])  # fmt: skip


def signatures(jobs: list[dict], workers: int | None = None) -> list[dict[str, float]]:
    """`signature_job` of every job, in order, on `workers` processes (default: every core)."""
    from concurrent.futures import ProcessPoolExecutor

    if workers == 1 or len(jobs) <= 1:
        return [signature_job(j) for j in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(signature_job, jobs))


def archetype_table(game: str, n_players: int, *, n_games: int, seed: int, expansions=(),
                    workers: int | None = None) -> str:  # fmt: skip
    """The Markdown table of each hand-written preset of `game`, its tuned and its open version
    at `n_players` (those that exist), each signed against the field its tune was made against
    (the `--against` of the command recorded in the built-in presets files)."""
    from reports.tune_output import command_options, recorded_commands
    from sim import games

    registry = games.get(game).strategies()
    registry.use_presets(None)
    presets = registry.presets()
    fields = {}
    for path in registry.builtin:
        for command in recorded_commands(path.read_text()):
            o = command_options(command)
            if "against" in o:
                fields[o["strategy"], int(o["players"])] = o["against"].split(",")
    jobs, labels = [], []
    for preset in registry.hand_written_presets():
        field = fields.get((preset, n_players))
        if field is None:
            continue
        for v in (preset, f"{preset}_tuned_{n_players}p", f"{preset}_open_{n_players}p"):
            if v in presets:
                jobs.append({"game": game, "strategy": v, "field": field, "seed": seed,
                             "expansions": expansions, "n_games": n_games})  # fmt: skip
                labels.append(f"`{v}`")
    return markdown(game, list(zip(labels, signatures(jobs, workers), strict=True)))


#: Short headers of the columns the tables show (docs/tuning-results.md).
HEADERS = {
    "abyss": {"win": "win", "lords": "Lords", "mage": "Mag", "soldier": "Sol", "farmer": "Far",
              "merchant": "Mer", "politician": "Pol", "ambassador": "Amb", "bought": "bought",
              "taken": "taken", "council": "Council", "fight_share": "fights", "attacks": "attacks",
              "plot_pearls": "plot Pearls", "key_lords": "Key Lords", "key_tokens": "Key tokens",
              "locations": "Loc"},
    "conspiracy": {"win": "win", "lords": "Lords", "piles": "piles", "pile_lords": "pile Lords",
                   "draws": "draws", "key_lords": "Key Lords", "pearl_lords": "Pearl Lords",
                   "pearl_master": "Pearl Master", "coalition": "coalition",
                   "locations": "Loc", "ip_lords": "IP Lords", "ip_locations": "IP Loc",
                   "ip_coalition": "IP coalition"},
}  # fmt: skip
#: Columns shown as a percentage.
SHARES = ("win", "fight_share", "pearl_master")


def markdown(game: str, rows: list[tuple[str, dict]]) -> str:
    """A Markdown table of signatures: one row per (label, `signature`), the columns of
    `HEADERS[game]`; shares in %, counts per game to one decimal."""
    headers = HEADERS[game]
    lines = ["| strategy | " + " | ".join(headers.values()) + " |",
             "|---|" + "---:|" * len(headers)]  # fmt: skip
    for label, sig in rows:
        cells = [_cell(sig[k], k in SHARES) for k in headers]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(value: float, share: bool) -> str:
    if not np.isfinite(value):
        return "-"
    return f"{value:.0%}" if share else f"{value:.1f}"
