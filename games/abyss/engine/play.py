"""Abyss games of a line-up, as the commands ask for them (the PLAY API of `sim.core.game`)."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from sim.core.firstrun import first_compile
from sim.core.game import Played

#: The fast path's first compile on a 2-core machine (30 s on 2026-12-05, docs/benchmarks.md),
#: to tell the user and to choose the engine of a short cold run.
COMPILE_SECONDS = 30
#: The reference engine's seconds per seat and game on one core (4 players: 23 s for 1,000
#: games, 5 with Leviathan: 27 ms a game), for a first run's choice of engine while the fast path
#: compiles (`reports.runs.setup.cold_start_engine`).
REFERENCE_SECONDS = 0.006
#: The fast path's CPU seconds and per-game tables' bytes per seat-game (a game x its players),
#: for the estimate before a long run (`reports.runs.setup.check_size`): 100,000 four-player
#: games took 10 s of CPU and wrote 7.1 MB of seats.parquet and games.parquet (2026-12-06).
SEAT_GAME_SECONDS, SEAT_GAME_BYTES = 2.5e-5, 20
#: A searching seat's CPU seconds per rollout and player of its table (each rollout plays the
#: rest of the game at every seat), by the expansions played, for the same estimate: 64 rollouts
#: cost about 1.0 s a four-player game of the base game and 0.26 s with Leviathan against three
#: `pearl_economist_open_4p` (docs/reliability.md has the command; 2026-12-06).
ROLLOUT_SEAT_SECONDS = {"": 1.0 / 64 / 4, "leviathan": 0.26 / 64 / 4}


def reference_cores(n_games: int, threads: int | None = None) -> int:
    """The cores a reference run of `n_games` plays on (`runner.reference_workers`: forked
    workers from `runner.FORK_MIN_GAMES` games, `runner.play_reference`)."""
    from games.abyss.engine.runner import reference_workers

    return reference_workers(n_games, threads)


def player_counts(tables, expansions: tuple[str, ...]) -> tuple[int, ...]:
    """2-4 players; Leviathan: "The game can be played by two to five players"."""
    return (2, 3, 4, 5) if "leviathan" in expansions else (2, 3, 4)


def run_games(tables, *, engine: str, n_players: int, n_games: int, seed: int, policies: list,
              expansions: tuple[str, ...] = (), threads: int | None = None, per_game: bool = True,
              progress: bool = False, store=None, chunk_size: int | None = None,
              client=None) -> Played:  # fmt: skip
    """The games of one line-up (`games.abyss.engine.runner.run_games`; on Dask
    `fast.run_distributed`): typed result frames, the aggregates and the timings."""
    from games.abyss.engine.schema import games_frame, seats_frame

    if client is not None:
        from games.abyss.engine.fast import run_distributed

        seats, games, agg, timings = run_distributed(
            client, tables, n_players=n_players, n_games=n_games, seed=seed,
            strategies=policies, chunk_size=chunk_size, per_game=per_game, store=store,
        )  # fmt: skip
    else:
        from games.abyss.engine.runner import run_games as run

        announce = nullcontext()
        if engine == "fast":
            compile_apart_ahead(tables)
            announce = first_compile("abyss", COMPILE_SECONDS)
        with announce:
            seats, games, agg, timings = run(
                tables, engine=engine, n_players=n_players, n_games=n_games, seed=seed,
                strategies=policies, expansions=expansions, threads=threads, per_game=per_game,
                progress=progress, store=store, chunk_size=chunk_size,
            )  # fmt: skip
    if not per_game:
        return Played(None, None, agg, dict(timings or {}))
    return Played(seats_frame(seats), games_frame(games), agg, dict(timings or {}))


#: `--set` keys of the Leviathan expansion's data and rules (docs/card-data.md): they change a
#: game only when it is played
LEVIATHAN_KEYS = ("leviathan.", "leviathan_game.", "leviathan_exploration.", "border.",
                  "rules.leviathan_", "rules.powers_after_kill")  # fmt: skip


def inert_setting(tables, counts, overrides: dict, policies) -> str | None:
    """Why a setting of this run could take effect in none of its games (docs/reliability.md:
    such a setting is refused, since the run would say it measured a change it never made), or
    None: a setting of the Leviathan expansion in a run without it, Pearls for a seat no table of
    the run has, a Lord or Location forbidden beyond the deck."""
    import re

    if "leviathan" not in tables.expansions:
        for key in overrides:
            if key.startswith(LEVIATHAN_KEYS):
                return (f"--set {key}: a setting of the Leviathan expansion, which this run does "
                        "not play (add --expansions leviathan): it would change nothing")
    lords = getattr(tables, "n_lords", None)
    if lords is not None:  # a Lord not in this run's deck: an expansion's, or the Tamer it removes
        deck = {tables.lord_slug(i) for i in range(lords)}
        for key in overrides:
            lord = re.fullmatch(r"lord\.([^.]+)\..+", key)
            if lord and lord.group(1) not in deck:
                return (f"--set {key}: the Lord {lord.group(1)!r} is not in this run's deck "
                        f"(expansions: {', '.join(tables.expansions) or 'none'}): it would "
                        "change nothing")  # fmt: skip
    most = max(counts)
    for key in overrides:
        seat = re.fullmatch(r"rules\.seat_(\d)_pearls", key)
        if seat and int(seat.group(1)) > most:
            return (f"--set {key}: no table of this run has a seat {seat.group(1)} ("
                    f"{', '.join(map(str, counts))} players): it would change nothing")
    for p in policies:
        for param, n, what in (("forbid_lord", getattr(tables, "n_lords", None), "Lord"),
                               ("forbid_location", getattr(tables, "n_locations", None),
                                "Location")):  # fmt: skip
            value = getattr(p, param, -1)
            if n is not None and value >= n:
                return (f"{getattr(p, 'name', p)}: {param}={value} is no {what} of this card "
                        f"data (0-{n - 1}): it would forbid nothing")  # fmt: skip
    return None


def partial_setting(tables, counts, overrides: dict) -> list[str]:
    """What a setting of this run changes at only some of its player counts (docs/reliability.md:
    it plays, and the run says so in one line): Pearls for a seat that only the larger tables
    have."""
    import re

    lines = []
    for key in overrides:
        seat = re.fullmatch(r"rules\.seat_(\d)_pearls", key)
        if seat:
            at = [n for n in counts if n >= int(seat.group(1))]
            if at and len(at) < len(counts):
                rest = [n for n in counts if n not in at]
                lines.append(f"--set {key} changes the {_counts(at)}-player games only; the "
                             f"{_counts(rest)}-player tables have no seat {seat.group(1)}")
    return lines


def _counts(counts) -> str:
    return ", ".join(map(str, counts))


def compile_apart_ahead(tables) -> None:
    """A cold fast path: the kernels its rules call apart (`sim.core.apart`: the decisions'
    entry, and Leviathan's phases when it is played) compile in a second process while this one
    compiles the rules, on two cores side by side."""
    from sim.core.firstrun import cold_start_allowed, is_compiled

    if is_compiled("abyss") or not cold_start_allowed():
        return
    from sim.core.apart import compile_in_background

    stubs = ["choose", "leviathan"] if "leviathan" in tables.expansions else ["choose"]
    compile_in_background("games.abyss.engine.kernel.base", stubs)


def load_aggregates(path):
    """The aggregates a run saved (`games.abyss.engine.aggregate.Aggregates.save`)."""
    from games.abyss.engine.aggregate import Aggregates

    return Aggregates.load(path)


def run_tables(tables, *, seed: int, games, seatings, strategies: list):
    from games.abyss.engine.fast import run_tables as run

    compile_apart_ahead(tables)
    with first_compile("abyss", COMPILE_SECONDS):
        return run(tables, seed=seed, games=games, seatings=seatings, strategies=strategies)


@dataclass(frozen=True)
class Probing:
    """`policy`, probing (`policies.PROBE`): it plays as `policy` does, and its `run_tables`
    games add `probe_marks` (`games.abyss.engine.fast.run_tables`)."""

    policy: object

    @property
    def kind(self) -> int:
        return self.policy.kind

    @property
    def name(self) -> str:
        return self.policy.name

    def params(self):
        from games.abyss.engine.policies import PROBE
        from games.abyss.engine.policy_params import G_FORBID_LORD

        out = self.policy.params().copy()
        out[G_FORBID_LORD] = PROBE
        return out


def probing(policy) -> Probing | None:
    """`policy` probing, or None when it cannot probe: one that forbids a card itself (its
    restricted games forbid two), or the search player (its rollouts switch strategies)."""
    from games.abyss.engine.policy_params import SEARCH

    if policy.kind == SEARCH or forbids(policy.params()):
        return None
    return Probing(policy)


def forbid_mark(base, restricted) -> int | None:
    """The column of `probe_marks` (`kernel.workspace.PROBE_MARKS`) of the one forbid that the
    policy `restricted` adds to `base` (a Lord, a Location or no fights; nothing else
    different), or None."""
    from games.abyss.engine import state as S
    from games.abyss.engine.policy_params import G_FORBID_FIGHT, G_FORBID_LOCATION, G_FORBID_LORD

    a, b = base.params(), restricted.params()
    if base.kind != restricted.kind or len(a) != len(b) or forbids(a):
        return None
    differ = [int(k) for k in np.flatnonzero(a != b)]
    if len(differ) != 1:
        return None
    slot, value = differ[0], int(b[differ[0]])
    if slot == G_FORBID_LORD and 0 <= value < S.MAX_LORDS:
        return value
    if slot == G_FORBID_LOCATION and 0 <= value < S.MAX_LOCATIONS:
        return S.MAX_LORDS + value
    if slot == G_FORBID_FIGHT and value == 1:
        return S.MAX_LORDS + S.MAX_LOCATIONS
    return None


def forbids(params) -> bool:
    """Whether a parameter vector forbids anything (restricted play)."""
    from games.abyss.engine.policy_params import G_FORBID_FIGHT, G_FORBID_LOCATION, G_FORBID_LORD

    return bool(params[G_FORBID_LORD] != -1 or params[G_FORBID_LOCATION] != -1
                or params[G_FORBID_FIGHT] != 0)  # fmt: skip


def tournament_frames(seats, games):
    """A tournament's frames in the results schema (typed columns)."""
    from games.abyss.engine.schema import tournament_frames as typed

    return typed(seats, games)


def replay(tables, *, seed: int, game: int, n_players: int, policies: list,
           expansions: tuple[str, ...] = ()) -> tuple[str, list[dict]]:  # fmt: skip
    from games.abyss.engine.rules.replay import narrate_game

    return narrate_game(tables, seed=seed, game=game, n_players=n_players, strategies=policies,
                        expansions=expansions)  # fmt: skip


def oracle_values(tables, **kw):
    """Each seat's chance to win before every round of the given games (`sim.core.oracle`)."""
    from games.abyss.engine.oracle import oracle_values as values

    return values(tables, **kw)
