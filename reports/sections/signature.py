"""A strategy's behavioural signature: what it does in its games, counted from the reference
engine's event log and decisions, so that one can see whether a tuned preset still plays the
archetype it is named after (docs/tuning-results.md, `scripts/signature.py`).

The strategy plays `n_games` games of a seed against a field, in every seat in turn (seat s of
game g plays the line-up's entry (s + g) mod n, as `simulate` rotates); only its own seat is
counted. Two strategies signed with the same field and seed play the same deals (common random
numbers), so their signatures differ by their decisions and what those lead to.

What is counted is each game's own (`SIGNATURE` of its report: `games/<game>/report/
signature.py`).
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

import numpy as np


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


def win_share(ranks, seat: int) -> float:
    """The seat's share of the win (ties share it)."""
    return 1.0 / list(ranks).count(1) if ranks[seat] == 1 else 0.0


def counts_of(game: str):
    """The module that says what a game's signature counts (its report's `SIGNATURE`): `COLUMNS`,
    `RATIOS`, `HEADERS`, `GAME` (the reference engine's game), `seat_counts(game, seat)` and
    `TUNED_EXPANSIONS`; a user error for a game without one."""
    from sim import games
    from sim.core.errors import UserError

    spec = games.get(game)
    name = spec.report().SIGNATURE
    if name is None:
        raise UserError(f"{spec.title} has no behavioural signature")
    return import_module(name)


def tuned_games() -> dict[str, tuple[str, ...]]:
    """Every game with a signature, and the expansions its presets are tuned with."""
    from sim import games

    return {name: counts_of(name).TUNED_EXPANSIONS for name in games.names()
            if games.get(name).report().SIGNATURE is not None}  # fmt: skip


def signature_games(game: str, tables, strategy: str, field: list[str], *, n_games: int,
                    seed: int, registry=None) -> list[dict[str, float]]:  # fmt: skip
    """The strategy's counts in each of games 0 .. n_games - 1 of `seed` against `field` (one
    strategy per other seat), the strategy in seat (-g) mod n of game g."""
    from sim import games

    registry = registry if registry is not None else games.get(game).strategies()
    lineup = [registry.make_policy(s) for s in (strategy, *field)]
    n = len(lineup)
    counts = counts_of(game)
    play = _watched(counts.GAME)
    rows = []
    for g in range(n_games):
        policies = [lineup[(s + g) % n] for s in range(n)]
        done = play(tables, policies, seed, g, record=True).play()
        rows.append(counts.seat_counts(done, (-g) % n))
    return rows


def signature(game: str, tables, strategy: str, field: list[str], *, n_games: int, seed: int,
              registry=None) -> dict[str, float]:  # fmt: skip
    """The mean of each column of the game's `COLUMNS` over the strategy's games
    (`signature_games`); `games`: how many."""
    rows = signature_games(game, tables, strategy, field, n_games=n_games, seed=seed,
                           registry=registry)  # fmt: skip
    counts, out = counts_of(game), {}
    for k in counts.COLUMNS:
        if k in counts.RATIOS:
            num, den = (sum(r[c] for r in rows) for c in counts.RATIOS[k])
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
    from reports.sections.tune import command_options, recorded_commands
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


#: Columns shown as a percentage.
SHARES = ("win", "fight_share", "pearl_master")


def markdown(game: str, rows: list[tuple[str, dict]]) -> str:
    """A Markdown table of signatures: one row per (label, `signature`), the columns of
    the game's `HEADERS`; shares in %, counts per game to one decimal."""
    headers = counts_of(game).HEADERS
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
