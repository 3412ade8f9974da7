"""What a game provides, as one spec the commands look up (`sim.games`), so that a command never
asks which game it is.

A spec names its modules instead of importing them, so that looking a game up costs nothing
(`abyss-mc --help` stays instant) and a game's engine loads only when a command needs it:

- `cards_module`, the card data: ``load_cards(data_dir, overrides[, expansions])`` (validated,
  one-line errors) and ``describe(tables) -> str``.
- `play_module`, games of a line-up on the game's engines (the `PLAY API` below).
- `strategies_module` (default ``games.<name>.strategies``), the strategies and presets: a module
whose
  ``REGISTRY`` is a `strategies.registry.Registry` (``make_policies``, ``use_presets``, ...).
- `report_module`, what the reports add (the game's `report` package, named, never imported
  here): ``summary(played, n_players) -> str``, ``write_report(run_dir, out) -> paths`` and the
  optional hooks of `sim.core.contract.ReportModule`. Without one, the generic summary and
  report of `reports` serve.
- `results_module`, the result columns as data: ``SEAT_COLUMNS`` and ``GAME_COLUMNS`` (name ->
  (dtype, meaning)) and ``SCHEMA_VERSION``. Without one, a game's results follow the common
  convention (docs/architecture.md): ``game``, ``seat``, ``strategy``, ``score``, ``rank`` and
  the score's sources as ``score_*``.
- `analysis_module`: a game whose runs are not games of a line-up (the Wilds' crystal episodes)
  names the module that runs and reports its analysis instead (``simulate``, ``write_report``,
  ``replay``, ``bench``).
- `commands_module`: the game's own commands (``COMMANDS``: name -> a typer application), added
  to ``abyss-mc`` beside the generic ones (Abyss's ``ev``).

PLAY API, the functions of a `play_module`:

- ``player_counts(tables, expansions) -> tuple[int, ...]``: the player counts it can seat.
- ``run_games(tables, *, engine, n_players, n_games, seed, policies, expansions, threads,
  per_game, progress, store, chunk_size, client) -> Played``: the games of one line-up, seats
  rotated game by game; `engine` is one of the spec's `engines`; `store` a `sim.core.chunks`
  store (resume); `client` a Dask client or None. The same seed gives the same bytes on any
  engine, thread count, chunking or backend.
- ``run_tables(tables, *, seed, games, seatings, strategies) -> (seats, games, aggregates)``:
  given tables of a tournament block design (`games[i]` the deal, `seatings[i]` the seat order);
  columns as dicts of arrays; aggregates None when the game keeps none.
- ``replay(tables, *, seed, game, n_players, policies, expansions) -> (text, events)``: one
  game move by move, as the run played it.
- ``load_aggregates(path)``, for a game whose `run_tables` returns aggregates: those a run saved
  (``aggregates.save(path)``), to be merged with ``merge``.
- optional, restricted play (`reports.probe`): ``probing(policy)``, the policy as it plays,
  probing (its `run_tables` games add the game column ``probe_marks``: int[game, mark], 1
  where a single forbid would have changed one of that seat's decisions); ``forbid_mark(base,
  restricted)``, the mark of the one forbid `restricted` adds to `base`, or None. Without
  them, every restricted game is played.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from sim.core.errors import UserError


@dataclass
class Played:
    """What `run_games` returns: one row per game and seat (`seats`: game, seat, strategy, score,
    win, rank and the game's own columns) and one per game (`games`), both pandas frames (None
    when the run keeps aggregates only); the `aggregates` the game keeps over every game (with
    ``save(path)``), or None; the runner's `timings` (``threads``, seconds, ...)."""

    seats: object
    games: object
    aggregates: object = None
    timings: dict = field(default_factory=dict)


@dataclass(frozen=True)
class GameSpec:
    name: str  # as `--game` names it
    title: str  # as people read it
    cards_module: str  # has load_cards(data_dir, overrides[, expansions]) and describe(tables)
    expansions: tuple[str, ...] = ()  # the expansions its card data can add
    play_module: str | None = None  # the PLAY API (module docstring)
    strategies_module: str | None = None  # default: games.<name>.strategies
    report_module: str | None = None  # summary, write_report[, tournament_extras]
    analysis_module: str | None = None  # a game whose runs are not games of a line-up
    results_module: str | None = None  # SEAT_COLUMNS, GAME_COLUMNS, SCHEMA_VERSION
    engines: tuple[str, ...] = ("fast", "reference")  # the first is the default
    default_strategies: str = ""  # simulate's line-up
    default_tournament: str = ""  # the tournament's strategies
    tournament_expansions: tuple[str, ...] = ()  # a tournament's expansions unless told
    resumable_engines: tuple[str, ...] = ("fast",)  # engines whose runs can --resume
    commands_module: str | None = None  # the game's own commands: COMMANDS, name -> typer app

    # --- the modules, loaded when a command needs them -------------------------------------
    def play(self):
        """The play module, or a user error when the game has no games of a line-up."""
        if self.play_module is None:
            raise UserError(f"{self.title} has no games of strategies to play; see "
                            f"`abyss-mc simulate --game {self.name}`")  # fmt: skip
        return import_module(self.play_module)

    def strategies(self):
        """The game's strategies registry (`strategies.registry.Registry`); a user error for a
        game without games of a line-up (Wilds: `tune --game wilds` was a traceback)."""
        if self.play_module is None:
            raise UserError(f"{self.title} has no strategies: its runs are not games of a "
                            f"line-up; see `abyss-mc simulate --game {self.name}`")  # fmt: skip
        return import_module(self.strategies_module or f"games.{self.name}.strategies").REGISTRY

    def report(self):
        """The report module (the game's own, else the generic one of `reports`)."""
        return import_module(self.report_module or "reports.sections.generic")

    def result_columns(self) -> tuple[dict, dict] | None:
        """(seat columns, game columns), name -> (dtype, meaning), when the game declares them."""
        if self.results_module is None:
            return None
        module = import_module(self.results_module)
        return module.SEAT_COLUMNS, module.GAME_COLUMNS

    def analysis(self):
        return import_module(self.analysis_module) if self.analysis_module else None

    # --- options ------------------------------------------------------------------------------
    def check_engine(self, engine: str) -> str:
        if engine not in self.engines:
            raise UserError(f"--engine must be {' or '.join(self.engines)}; got {engine!r}")
        return engine

    def check_players(self, tables, n_players: int, expansions: Iterable[str] = ()) -> int:
        """`n_players` if the game (with these expansions) seats them, else a user error."""
        counts = tuple(self.play().player_counts(tables, tuple(expansions)))
        if n_players in counts:
            return n_players
        more = self.play().player_counts(tables, self.expansions) if self.expansions else counts
        wanted = ",".join(self.expansions)
        if n_players in more:
            names = ", ".join(e.title() for e in self.expansions)
            raise UserError(f"{n_players} players need the {names} expansion "
                            f"(--expansions {wanted})")  # fmt: skip
        hint = f" ({more[0]}-{more[-1]} with --expansions {wanted})" if more != counts else ""
        raise UserError(
            f"--players must be {counts[0]}-{counts[-1]} for {self.title}{hint}; got {n_players}"
        )

    def check_effect(self, tables, counts: Iterable[int], settings, policies=()) -> None:
        """Refuse, in one line, a `--set` setting or a strategy parameter that could take effect
        in no game of this run (`counts`: its player counts): the game's `inert_setting`; say in
        one line each one that takes effect at only some of them (`partial_setting`)."""
        if self.play_module is None:  # a game of its own analysis (Wilds): nothing to check
            return
        inert = getattr(self.play(), "inert_setting", None)
        if inert is None:
            return
        from sim.core.carddata import parse_set_options

        overrides = parse_set_options(list(settings or []))
        why = inert(tables, tuple(counts), overrides, policies)
        if why is not None:
            raise UserError(why)
        partial = getattr(self.play(), "partial_setting", None)
        for line in partial(tables, tuple(counts), overrides) if partial else ():
            print(f"note: {line}", file=sys.stderr, flush=True)  # it plays: harmless

    def check_expansions(self, expansions: Iterable[str]) -> tuple[str, ...]:
        wanted = tuple(expansions)
        if wanted and not self.expansions:
            raise UserError(f"--expansions: {self.title} has no expansions")
        unknown = [e for e in wanted if e not in self.expansions]
        if unknown:
            raise UserError(
                f"unknown expansion {unknown[0]!r} for {self.title}; known: "
                + ", ".join(self.expansions)
            )
        return wanted

    def load_cards(
        self, data_dir: Path | None = None, set_items: Iterable[str] = (), expansions=(),
        values: dict | None = None,
    ):
        """The card data of `data_dir` (default: the built-in data) with the `--set KEY=VALUE`
        items applied, then `values` (typed, as `design` passes its candidates: KEY -> value,
        never turned into text), and the expansions added; a user error names any problem in
        one line."""
        from sim.core.carddata import parse_set_options

        if data_dir is not None and not Path(data_dir).exists():
            raise UserError(f"card data directory {data_dir} does not exist")
        wanted = self.check_expansions(expansions)
        module = import_module(self.cards_module)
        overrides = {**parse_set_options(list(set_items or [])), **(values or {})}
        if self.expansions:
            return module.load_cards(data_dir, overrides, expansions=wanted)
        return module.load_cards(data_dir, overrides)

    def load_run_cards(self, config: dict, expansions: Iterable[str] | None = None):
        """The card data a run played with, from its manifest's `config` (`cards`, `set` and,
        unless given, `expansions`)."""
        cards = config.get("cards")
        if expansions is None:
            expansions = config.get("expansions") or ()
        items = [str(s) for s in config.get("set") or []]
        return self.load_cards(Path(cards) if cards else None, items, tuple(expansions))

    def describe(self, tables) -> str:
        """The card data as text, ending with a newline."""
        text = import_module(self.cards_module).describe(tables)
        return text if text.endswith("\n") else text + "\n"
