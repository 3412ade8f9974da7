"""What the runs share before they play: the game, its expansions, card data and line-up from the
options, the checks that fail before any work (one-line `UserError`s), the engine of a cold
start, and a progress bar over a multi-stage run's games.

Only the standard library at import (the engines load when a run asks for them).
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path
from typing import NamedTuple

from sim.core.errors import UserError


def game_spec(game: str):
    """The spec of the game `game` names (`sim.core.game.GameSpec`), or a one-line user error."""
    from sim import games

    return games.get(game)


def game_expansions(spec, text: str | None, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    """`--expansions` for `spec`: ``None`` (not given) is `default`; ``""`` is none."""
    if text is None:
        return default
    names = tuple(dict.fromkeys(p.strip().lower() for p in text.split(",") if p.strip()))
    return spec.check_expansions(names)


def mixed_lineup(spec, n_players: int) -> str:
    """A line-up of different strategies, one per seat: the game's tournament strategies but
    random, in order (a sweep's default, so that a change can favour one style over another)."""
    names = [s for s in spec.default_tournament.split(",") if s.split(":")[0] != "random"]
    return ",".join(names[i % len(names)] for i in range(n_players)) if names else ""


def reference_cores(spec, n_games: int, threads: int | None = None) -> int:
    """The cores a reference run of `n_games` plays on: the game's `reference_cores` (Abyss
    forks its reference games), else one."""
    cores = getattr(spec.play(), "reference_cores", None)
    return 1 if cores is None else cores(n_games, threads)


def cold_start_engine(spec, n_players: int, n_games: int, policies=(),
                      threads: int | None = None) -> str:  # fmt: skip
    """The engine a local run that asked for the fast path by default plays on: "reference"
    when the fast path is not compiled yet and these games finish sooner on the reference engine
    (the same games, byte for byte) than the compile takes; the fast path then compiles in the
    background for later runs (`reports.runs.warmup`). Otherwise "fast" (compiled in the
    foreground and announced, if need be): also when a seat looks ahead (the search player),
    whose decisions are the fast path's on either engine."""
    from sim.core.firstrun import cold_start_allowed, compile_in_background, is_compiled

    play = spec.play()
    per_seat_game = play.REFERENCE_SECONDS
    if per_seat_game is None or "reference" not in spec.engines or not cold_start_allowed():
        return "fast"
    if any(getattr(p, "LOOKS_AHEAD", False) for p in policies):
        return "fast"
    if is_compiled(spec.name):
        return "fast"
    estimate = n_games * n_players * per_seat_game / reference_cores(spec, n_games, threads)
    if estimate > play.COMPILE_SECONDS:
        return "fast"
    compile_in_background(spec.name)
    print(f"the {spec.name} fast path is not compiled yet: these {n_games} games play on the "
          f"reference engine (the same games, about {max(1, round(estimate))} s) while it "
          f"compiles in the background (about {play.COMPILE_SECONDS} s, once); later runs start "
          "at once", file=sys.stderr, flush=True)  # fmt: skip
    return "reference"


#: Beyond these a run asks first (issue 53): an hour of play, or a tenth of the free disk; one
#: that holds its tables whole is refused beyond this share of the memory available (its peak
#: was measured up to 10% over the estimate, and the system needs some too)
LONG_SECONDS, DISK_SHARE, MEMORY_SHARE = 3600.0, 0.1, 0.8


def seat_seconds(spec, n_players: int, policies=(), engine: str = "fast",
                 expansions=()) -> float | None:  # fmt: skip
    """CPU seconds per seat-game (a game x its players) of `policies` played equally often at
    `n_players` (one line-up, or a tournament's pool): the engine's rate per seat (the game's
    `SEAT_GAME_SECONDS`, `REFERENCE_SECONDS`), plus, for a seat that looks ahead (the search),
    its rollouts: each plays the rest of the game at every seat (`ROLLOUT_SEAT_SECONDS`, per
    rollout and player; by the run's `expansions` where they change the game's length). A game
    of its own analysis (Wilds) has its rates per episode in that module. None where the game
    has no measured rates."""
    play = _rates(spec)
    base = getattr(play, "REFERENCE_SECONDS" if engine == "reference" else "SEAT_GAME_SECONDS",
                   None)  # fmt: skip
    if base is None:
        return None
    rollout = getattr(play, "ROLLOUT_SEAT_SECONDS", 0.0)
    if isinstance(rollout, dict):  # by expansions played ("": none); unknown: the slowest
        rollout = rollout.get("+".join(sorted(expansions)), max(rollout.values()))
    costs = [base + (p.rollouts * n_players * rollout if getattr(p, "LOOKS_AHEAD", False) else 0)
             for p in policies] or [base]  # fmt: skip
    return sum(costs) / len(costs)


def _rates(spec):
    """The module with the game's measured rates: its play module, or its analysis module."""
    return spec.play() if spec.play_module is not None else spec.analysis()


def check_size(spec, what: str, seat_games: int, *, per_game: bool, out, yes: bool,
               threads: int | None = None, n_players: int = 4, policies=(),
               engine: str = "fast", expansions=(), seconds: float | None = None,
               memory_rate: str = "SEAT_GAME_MEMORY") -> None:  # fmt: skip
    """Before a run of `seat_games` seat-games (games x players) that would take more than an
    hour or write more than a tenth of the free disk (`seat_seconds` of its line-up, or the
    caller's CPU `seconds` for a run of several kinds of games; the game's `SEAT_GAME_BYTES`:
    docs/reliability.md): one line with the estimate; with `yes` it goes on, on a terminal it
    asks, else it is refused. The reference engine plays on the cores `reference_cores` says,
    and a game whose rates say so on one (`ONE_CORE`). A run that holds its tables whole (the
    game's `BASE_MEMORY` and `memory_rate` per seat-game: Wilds) and would need more than
    `MEMORY_SHARE` of the memory available is refused, `--yes` or not: it would fail, or be
    killed, on its way."""
    import os
    import shutil

    if seconds is None:
        per_seat = seat_seconds(spec, n_players, policies, engine, expansions)
        if per_seat is None:
            return
        seconds = seat_games * per_seat
    rates = _rates(spec)
    if engine == "reference":
        cores = reference_cores(spec, seat_games // max(1, n_players), threads)
    else:
        cores = 1 if getattr(rates, "ONE_CORE", False) else threads or os.cpu_count() or 1
    seconds /= cores
    size = 2 * seat_games * getattr(rates, "SEAT_GAME_BYTES", 0) if per_game else 0  # chunks, merge
    memory = seat_games * getattr(rates, memory_rate, 0)  # a run that holds its tables
    memory += getattr(rates, "BASE_MEMORY", 0) if memory else 0
    available = _available_memory()
    if memory and available is not None and memory > MEMORY_SHARE * available:
        raise UserError(f"this {what} would need about {_bytes(memory)} of memory "
                        f"({_bytes(available)} available): make it smaller")  # fmt: skip
    where = Path(out).resolve() if out is not None else Path("runs").resolve()
    while not where.exists():
        where = where.parent
    free = shutil.disk_usage(where).free
    if seconds <= LONG_SECONDS and size <= DISK_SHARE * free:
        return
    line = f"this {what} would take about {_duration(seconds)} on {cores} core(s)"
    if size:
        line += f" and write about {_bytes(size)} ({_bytes(free)} free)"
    if yes:
        print(f"{line}; going on (--yes)", file=sys.stderr, flush=True)
        return
    if sys.stdin.isatty() and sys.stderr.isatty():
        print(f"{line}. Go on? [y/N] ", end="", file=sys.stderr, flush=True)
        if sys.stdin.readline().strip().lower() in ("y", "yes"):
            return
    raise UserError(f"{line}: add --yes to go on, or make it smaller")


def _available_memory() -> int | None:
    """Bytes of memory the system can give a new run, or None where nothing says: Linux's
    MemAvailable, or less in a container whose memory is limited (cgroup v2, where MemAvailable
    is the host's: `memory.max` less `memory.current`, its reclaimable file cache
    (`inactive_file` of `memory.stat`) counted as free)."""
    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        group = Path("/sys/fs/cgroup")
        limit = (group / "memory.max").read_text().strip()
        if limit != "max":
            used = int((group / "memory.current").read_text())
            stat = dict(line.split() for line in (group / "memory.stat").read_text().splitlines()
                        if line.count(" ") == 1)  # fmt: skip
            used -= min(used, int(stat.get("inactive_file", 0)))
            found.append(max(0, int(limit) - used))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{_rounded(seconds / size)} {unit}"
    return f"{_rounded(seconds)} s"


def _bytes(n: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{_rounded(n / size)} {unit}"
    return f"{n:.0f} bytes"


def _rounded(x: float) -> str:
    """Two significant figures: the rates behind an estimate are good to a factor of two or so
    (docs/reliability.md), so "579 days" would claim more than they know."""
    x = float(f"{x:.2g}")
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def start_or_resume(command: str, o):
    """`(run, o)`: with `o.resume`, the interrupted run and its stored options (`o.resumed`);
    else no run yet (the caller starts it once the options are checked) and `o` as given."""
    out = getattr(o, "out", None)
    if out is not None and Path(out) == Path("."):  # `--out ''` (an unset variable) or `--out .`
        raise UserError("--out names the current folder (empty?): give a new folder's name")
    if o.resume is None:
        return None, o
    from reports.run_dir import Run

    run = Run.resume(command, o.resume)
    return run, o.resumed(run.plan)


def field_setup(o):
    """`(spec, registry, expansions, tables)` of a run playing a field of strategies (options
    `o`: game, expansions, players, seed, card data, presets), the presets added, the player
    count and seed checked."""
    spec = game_spec(o.game)
    registry = spec.strategies()
    registry.use_presets(o.presets)
    exp = game_expansions(spec, o.expansions, spec.tournament_expansions)
    tables = spec.load_cards(o.cards, o.set_, exp)
    spec.check_players(tables, o.players, exp)
    spec.check_effect(tables, [o.players], o.set_)
    check_seed(o.seed)
    return spec, registry, exp, tables


def game_lineup(spec, text: str | None, n_players: int) -> tuple[list[str], list]:
    """The line-up `--strategies` gives (the game's default when not given), cycled to
    `n_players` seats, and its policies: unknown names and parameters fail before any work."""
    lineup = parse_lineup(text or spec.default_strategies, n_players)
    return lineup, spec.strategies().make_policies(lineup, n_players)


def check_seed(seed: int) -> None:
    if not 0 <= seed < 2**63:
        raise UserError(f"--seed must be between 0 and 2**63-1; got {seed}")


def check_at_least(o, low: int, *names: str) -> None:
    """Each option of `names` (fields of `o`) is at least `low`."""
    for name in names:
        if getattr(o, name) < low:
            raise UserError(f"--{name.replace('_', '-')} must be at least {low}; got "
                            f"{getattr(o, name)}")  # fmt: skip


def check_backend(backend: str, scheduler: str | None) -> None:
    if backend not in ("local", "dask"):
        raise UserError(f"--backend must be local or dask; got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise UserError("--scheduler needs --backend dask")


def parse_player_counts(text: str) -> list[int]:
    """``"4"`` -> [4]; ``"3,4"`` -> [3, 4] (each checked by `check_players`)."""
    try:
        counts = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise UserError(f"--players must be a number or a list like 3,4; got {text!r}") from None
    if not counts:
        raise UserError("--players is empty")
    return list(dict.fromkeys(counts))


def parse_lineup(text: str, n_players: int) -> list[str]:
    """Strategy names per seat: ``"greedy,random"`` for 4 players -> greedy, random, greedy,
    random. More names than players is a user error. Names are checked by the engine."""
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise UserError("--strategies is empty; give at least one strategy name")
    if len(names) > n_players:
        raise UserError(f"--strategies lists {len(names)} strategies for {n_players} players")
    return list(itertools.islice(itertools.cycle(names), n_players))


class GamesProgress:
    """A bar over every game of a multi-stage command, with the time left (when `show`: the
    command line shows it on a terminal)."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.show, self.done, self.bar = total, show, 0, None
        self.t0 = 0.0

    def __enter__(self):
        self.t0 = time.perf_counter()
        if self.show:
            from sim.core.batch import ProgressBar

            self.bar = ProgressBar(self.total, "games")
        return self

    def advance(self, games: int) -> None:
        self.done += games
        if self.bar is not None:
            elapsed = time.perf_counter() - self.t0
            self.bar.update(min(self.done, self.total), self.done / elapsed if elapsed else 0.0)

    def __exit__(self, *exc) -> bool:
        if self.bar is not None:
            self.bar.close()
        return False


class Output(NamedTuple):
    """What a run returns: its summary (`summary.txt`, what the command prints first), the run
    directory (None for a command that writes none), the lines printed after the summary
    (where the results are, how to use them) and the tables of a command that writes no run
    directory (by name)."""

    text: str
    out: Path | None = None
    notes: tuple[str, ...] = ()
    frames: dict | None = None
