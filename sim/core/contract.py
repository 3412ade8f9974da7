"""What a game provides, every hook in one place (issue 29): the modules a `GameSpec` names must
have these attributes. A hook marked *optional* is still declared, as ``None`` when the game does
not provide it, so that commands read it directly and never discover hooks by `getattr`.

`missing_hooks(spec)` lists what a game's modules lack; `tests/core/test_contract.py` runs it over
every registered game and the tiny test game.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class CardsModule(Protocol):
    """`GameSpec.cards_module`: the card data."""

    #: load_cards(data_dir, overrides[, expansions]) -> tables (validated; one-line errors)
    load_cards: Callable[..., Any]
    #: describe(tables) -> str (what `abyss-mc cards` prints)
    describe: Callable[[Any], str]
    #: set_value(data_dir, overrides, key) -> the value of a `--set` key after `overrides`
    #: (`abyss-mc design`: where a search starts), or None for a game without design (optional)
    set_value: Callable[..., Any] | None


@runtime_checkable
class PlayModule(Protocol):
    """`GameSpec.play_module`: games of a line-up on the game's engines (the PLAY API of
    `sim.core.game`)."""

    #: seconds the fast path takes to compile on a 2-core machine (the first run's notice)
    COMPILE_SECONDS: int
    #: seconds per seat-game on the reference engine, or None: a first run never plays there
    #: while the fast path compiles (optional)
    REFERENCE_SECONDS: float | None
    player_counts: Callable[..., tuple[int, ...]]
    run_games: Callable[..., Any]
    run_tables: Callable[..., tuple]
    #: tournament_frames(seats, games) -> (seats frame, games frame), typed like run_games'
    tournament_frames: Callable[..., tuple]
    replay: Callable[..., tuple]
    #: load_aggregates(path) -> the aggregates `run_tables` returned, saved; None for a game
    #: that keeps none (optional)
    load_aggregates: Callable[..., Any] | None
    #: oracle_values(tables, *, seed, games, seatings, strategies, n_rollouts) -> each seat's
    #: chance to win before every round [game, row, fold, seat] (`sim.core.oracle`; `abyss-mc
    #: drama`), or None for a line-up it cannot play; None for a game without an oracle (optional)
    oracle_values: Callable[..., Any] | None


@runtime_checkable
class ReportModule(Protocol):
    """`GameSpec.report_module` (default `reports.sections.generic`): what the reports add."""

    summary: Callable[..., str]
    write_report: Callable[..., dict]
    #: tournament_extras(tables, *, names, counts, seed, expansions, fight_points, run_dir,
    #: headline_only=False) -> config entries: analyses a tournament adds beside its games
    #: (optional; `headline_only`: a play strength's tier, its verdicts' own analyses only)
    tournament_extras: Callable[..., dict] | None
    #: compile_ahead(expansions, fight_points) -> {label: "module:function"}: parts of
    #: `tournament --report` compiled apart from its tournament, which a cold run compiles in the
    #: background meanwhile (`sim.core.firstrun.compile_part_in_background`; optional)
    compile_ahead: Callable[..., dict] | None
    #: restrictions(tables) -> [(kind, label, forbid spec)]: what restricted play forbids, one
    #: card or rule at a time (`abyss-mc restrict`; optional)
    restrictions: Callable[..., list] | None
    #: tension_sample(aggregates) -> the sampled games' running scores of a tournament's
    #: aggregates (`reports.metrics.tension.Sample`; `abyss-mc design`'s tension targets), or None
    #: for a game that keeps none (optional)
    tension_sample: Callable[..., Any] | None
    #: the module that says what a strategy's behavioural signature counts
    #: (`reports.sections.signature`:
    #: COLUMNS, RATIOS, HEADERS, GAME, seat_counts, TUNED_EXPANSIONS; optional)
    SIGNATURE: str | None
    #: the module of the learned player's data (`abyss-mc learn`, `reports.runs.learn`: GAME,
    #: DECISIONS, FEATURES, N_CODES, BITS, record_tables, base_strategy; optional)
    LEARN: str | None


@runtime_checkable
class AnalysisModule(Protocol):
    """`GameSpec.analysis_module`: a game whose runs are not games of a line-up."""

    simulate: Callable[..., str]
    #: episodes(games) -> the episodes a `simulate` of `--games` plays, for its size estimate
    #: (`reports.runs.setup.check_size`, with the module's `SEAT_GAME_SECONDS` per episode)
    episodes: Callable[..., int]
    write_report: Callable[..., dict]
    replay: Callable[..., tuple]
    bench: Callable[..., Any]
    sweep_run: Callable[..., tuple]


def _hooks(protocol) -> list[str]:
    return [name for name in protocol.__annotations__ if not name.startswith("_")]


def missing_hooks(spec) -> list[str]:
    """Every hook of the contract that a game's modules lack, as "module: name"."""
    wanted: list[tuple[str | None, Any]] = [
        (spec.cards_module, CardsModule),
        (spec.play_module, PlayModule),
        (spec.report_module or "reports.sections.generic", ReportModule),
        (spec.analysis_module, AnalysisModule),
    ]
    out = []
    for module_name, protocol in wanted:
        if module_name is None:
            continue
        module = import_module(module_name)
        out += [f"{module_name}: {h}" for h in _hooks(protocol) if not hasattr(module, h)]
        out += [f"{module_name}: {h} (a submodule of that name replaces it once imported)"
                for h in _hooks(protocol) if h in _submodules(module)]  # fmt: skip
    return out


def _submodules(module) -> set[str]:
    """The modules of a package (a hook in a package's __init__ must not share their names:
    importing `package.summary` sets `package.summary` to that module)."""
    import pkgutil

    return {m.name for m in pkgutil.iter_modules(getattr(module, "__path__", []))}
