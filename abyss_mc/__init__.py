"""abyss-mc from Python: one function per command, with the command's options (Python names:
``--reeval-games`` is ``reeval_games``, ``--set`` is ``set``) and defaults, returning a small
result that holds the run's tables as pandas DataFrames (docs/api.md)::

    import abyss_mc as amc

    r = amc.tournament(strategies=["greedy", "farmer"], players=2, blocks=20, seed=3)
    r.summary        # each strategy's win rate and mean score, intervals over blocks
    r.seats          # one row per seat of every game, as seats.parquet
    r.run_dir        # where the run was written

Values take Python's form or the command line's: ``strategies=["greedy", "farmer"]`` or
``"greedy,farmer"``; ``set={"rules.seat_4_pearls": 2}`` or ``["rules.seat_4_pearls=2"]``;
``expansions=["leviathan"]`` (``[]``: none). A command that writes a run directory writes it to
`out`, or with ``out=None`` to a new directory under the system's temporary directory, kept
after the call (`run_dir`). ``progress=True`` shows the progress bars the command line shows on
a terminal.

Bad input raises `UserError` (whatever part of the library found it) with the one line the
command line prints. The command line calls `run` with the same typed options
(`TournamentOptions`, ...), so both give the same results.

Importing this package is cheap: the engines, numpy and pandas load when a function runs.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

from abyss_mc import results as R
from reports.runs.options import (
    BenchOptions,
    CardsOptions,
    DesignOptions,
    DramaOptions,
    LearnOptions,
    Options,
    PlanOptions,
    ReplayOptions,
    ReportOptions,
    RestrictOptions,
    SimulateOptions,
    SkillOptions,
    StrategiesOptions,
    SweepOptions,
    TournamentOptions,
    TuneOptions,
)
from sim.core.errors import UserError, is_user_error, one_line

__all__ = [
    "UserError", "run", "simulate", "tournament", "sweep", "tune", "restrict", "design", "learn",
    "report", "cards", "strategies", "plan", "bench", "replay", "drama", "skill",
    "SimulateOptions", "TournamentOptions", "SweepOptions", "TuneOptions", "RestrictOptions",
    "DesignOptions", "LearnOptions", "ReportOptions", "CardsOptions", "StrategiesOptions",
    "PlanOptions", "BenchOptions", "ReplayOptions", "DramaOptions", "SkillOptions",
]  # fmt: skip

#: Each command's options -> (the module and function that run it, its result).
RUNS: dict[type, tuple[str, str, type]] = {
    SimulateOptions: ("reports.runs.simulate", "run", R.SimulateResult),
    TournamentOptions: ("reports.runs.tournament", "run", R.TournamentResult),
    SweepOptions: ("reports.runs.sweep", "run", R.SweepResult),
    TuneOptions: ("reports.runs.tune", "run", R.TuneResult),
    RestrictOptions: ("reports.runs.restrict", "run", R.RestrictResult),
    DesignOptions: ("reports.runs.design", "run", R.DesignResult),
    LearnOptions: ("reports.runs.learn", "run", R.LearnResult),
    ReportOptions: ("reports.runs.describe", "report", R.ReportResult),
    CardsOptions: ("reports.runs.describe", "cards", R.CardsResult),
    StrategiesOptions: ("reports.runs.describe", "strategies", R.StrategiesResult),
    PlanOptions: ("reports.runs.plan", "run", R.PlanResult),
    BenchOptions: ("reports.runs.bench", "run", R.BenchResult),
    ReplayOptions: ("reports.runs.replay", "run", R.ReplayResult),
    DramaOptions: ("reports.runs.drama", "run", R.DramaResult),
    SkillOptions: ("reports.runs.skill", "run", R.SkillResult),
}


def run(options: Options) -> R.Result:
    """Run the command `options` are of (`TournamentOptions`: a tournament, ...) as the command
    line does, and return its result. ``options.out=None`` here is the command line's default,
    a new ``runs/<UTC time>-seed<seed>`` (the functions below default to a temporary one)."""
    module, function, result = RUNS[type(options)]
    try:
        output = getattr(import_module(module), function)(options)
    except Exception as exc:
        # every user error as a `UserError` (the card data's and strategies' have classes of
        # their own), with the line the command line prints
        if is_user_error(exc) and not isinstance(exc, UserError):
            raise UserError(one_line(exc)) from exc
        raise
    found = result.of(output)
    if isinstance(found, R.StrategiesResult):
        found.game, found.presets_file = options.game, options.presets
    return found


def _run(kind: type, given: dict, writes: bool = True) -> R.Result:
    """`run` of the options a function was given (Python names), `out` a temporary directory
    when not given (for a command that writes a run directory)."""
    given = {("set_" if k == "set" else k): v for k, v in given.items()}
    if writes and given.get("out") is None and given.get("resume") is None:
        import secrets
        import tempfile

        # a name, not a directory: the run creates it once the options are checked
        given["out"] = Path(tempfile.gettempdir()) / f"abyss-mc-{secrets.token_hex(6)}"
    return run(kind(**given))


# --- one function per command ----------------------------------------------------------------
# The defaults are the options' (`reports.runs.options`), which are the command line's.
_S, _T, _W, _U = SimulateOptions, TournamentOptions, SweepOptions, TuneOptions
_X, _D, _L, _P, _B = RestrictOptions, DesignOptions, LearnOptions, PlanOptions, BenchOptions


def simulate(*, strategies=_S.strategies, players: int = _S.players, games: int = _S.games,
             seed: int = _S.seed, expansions=_S.expansions, set=_S.set_, cards=_S.cards,
             presets=_S.presets, game: str = _S.game, engine: str | None = _S.engine,
             per_game: bool = _S.per_game, threads: int | None = _S.threads,
             backend: str = _S.backend, scheduler: str | None = _S.scheduler,
             chunk_size: int | None = _S.chunk_size, out=None, resume=None, yes: bool = False,
             progress: bool = False) -> R.SimulateResult:  # fmt: skip
    """Games of one line-up (`strategies`, cycled to `players` seats; the game's default when
    None): `seats`, `games` and the printed summary (`abyss-mc simulate`)."""
    return _run(SimulateOptions, locals())


def tournament(*, strategies=_T.strategies, players=_T.players, blocks: int = _T.blocks,
               design: str = _T.design, crn: str = _T.crn, sequential: float | None = _T.sequential,
               seed: int = _T.seed, report: bool = _T.report, expansions=_T.expansions,
               fight_points: int = _T.fight_points, set=_T.set_, cards=_T.cards,
               presets=_T.presets, game: str = _T.game, strengths: str = _T.strengths,
               search_blocks: int = _T.search_blocks, search_rollouts: int = _T.search_rollouts,
               card_blocks: int | None = _T.card_blocks, minutes: float | None = _T.minutes,
               threads: int | None = _T.threads, backend: str = _T.backend,
               scheduler: str | None = _T.scheduler, out=None, resume=None, yes: bool = False,
               progress: bool = False) -> R.TournamentResult:  # fmt: skip
    """Strategies compared with seat rotation and common random numbers (`players`: a count,
    several, or "all"): `summary`, `seats`, `games` (`abyss-mc tournament`)."""
    return _run(TournamentOptions, locals())


def sweep(*, set=_W.set_, fixed=_W.fixed, players: int = _W.players, games: int = _W.games,
          seed: int = _W.seed, strategies=_W.strategies, expansions=_W.expansions,
          cards=_W.cards, presets=_W.presets, game: str = _W.game, report: bool = _W.report,
          threads: int | None = _W.threads, backend: str = _W.backend,
          scheduler: str | None = _W.scheduler, out=None, resume=None,
          yes: bool = False) -> R.SweepResult:
    """The default card data and every point of a grid (`set`: ``{"key": [v1, v2]}``, every
    combination of the keys) on the same seeds: `points`, `seats`, `games`, `differences`
    (`abyss-mc sweep`)."""
    return _run(SweepOptions, locals())


def tune(*, strategy: str | None = _U.strategy, players: int = _U.players, against=_U.against,
         games: int = _U.games, candidates: int = _U.candidates, params=_U.params,
         open: bool = _U.open, sampler: str = _U.sampler, finalists: int = _U.finalists,
         reeval_games: int = _U.reeval_games, heldout_games: int = _U.heldout_games,
         seed: int = _U.seed, expansions=_U.expansions, set=_U.set_, cards=_U.cards,
         presets=_U.presets, game: str = _U.game, threads: int | None = _U.threads,
         backend: str = _U.backend, scheduler: str | None = _U.scheduler, out=None, resume=None,
         yes: bool = False, progress: bool = False) -> R.TuneResult:  # fmt: skip
    """A strategy's parameters searched for the highest win rate against a field: `trace`,
    `preset`, `presets` (the tuned.toml) (`abyss-mc tune`)."""
    return _run(TuneOptions, locals())


def restrict(*, strategy: str | None = _X.strategy, players: int = _X.players,
             blocks: int = _X.blocks, seed: int = _X.seed, expansions=_X.expansions,
             set=_X.set_, cards=_X.cards, presets=_X.presets, game: str = _X.game,
             threads: int | None = _X.threads, backend: str = _X.backend,
             scheduler: str | None = _X.scheduler, out=None, resume=None, yes: bool = False,
             progress: bool = False) -> R.RestrictResult:  # fmt: skip
    """Every card's value to `strategy`, by restricted play: `impact` (`abyss-mc restrict`)."""
    return _run(RestrictOptions, locals())


def design(*, vary=None, target=None, players: int = _D.players, strategies=_D.strategies,
           card_strategy: str | None = _D.card_strategy, minutes: float | None = _D.minutes,
           candidates: int = _D.candidates, blocks: int = _D.blocks,
           finalists: int = _D.finalists, reeval_blocks: int = _D.reeval_blocks,
           retune_candidates: int = _D.retune_candidates, seed: int = _D.seed,
           expansions=_D.expansions, set=_D.set_, cards=_D.cards, presets=_D.presets,
           game: str = _D.game, threads: int | None = _D.threads, backend: str = _D.backend,
           scheduler: str | None = _D.scheduler, out=None, resume=None, yes: bool = False,
           progress: bool = False) -> R.DesignResult:  # fmt: skip
    """Card and rule values (`vary`: ``{"key": (lo, hi)}`` or choices ``{"key": [a, b]}``)
    toward a designer's targets (`target`: ``["seat_spread<=0.05"]``): `candidates`
    (`abyss-mc design`)."""
    return _run(DesignOptions, locals())


def learn(*, players: int = _L.players, iterations: int = _L.iterations, games: int = _L.games,
          rollouts: int = _L.rollouts, strength_games: int = _L.strength_games, field=_L.field,
          opponents: str = _L.opponents, base: str | None = _L.base, seed: int = _L.seed,
          expansions=_L.expansions, set=_L.set_, cards=_L.cards, presets=_L.presets,
          game: str = _L.game, backend: str = _L.backend, scheduler: str | None = _L.scheduler,
          out=None, resume=None, yes: bool = False,
          progress: bool = False) -> R.LearnResult:  # fmt: skip
    """A learned player distilled from the search: `curve`, `weights` (`abyss-mc learn`)."""
    return _run(LearnOptions, locals())


def report(run_dir, *, out=None) -> R.ReportResult:
    """The balance report of a run directory (default: into RUN_DIR/report): `html`,
    `markdown` (`abyss-mc report`)."""
    return _run(ReportOptions, locals(), writes=False)


def cards(*, expansions=None, set=None, cards=None, game: str = "abyss") -> R.CardsResult:
    """The card data, validated and described (`abyss-mc cards`)."""
    return _run(CardsOptions, locals(), writes=False)


def strategies(strategy: str | None = None, *, presets=None,
               game: str = "abyss") -> R.StrategiesResult:  # fmt: skip
    """The strategies: `text` (or one strategy in full) and `table` (`abyss-mc strategies`)."""
    return _run(StrategiesOptions, locals(), writes=False)


def plan(*, effect: float = _P.effect, strategies=_P.strategies, players: int = _P.players,
         metric: str = _P.metric, alpha: float = _P.alpha, power: float = _P.power,
         pilot_blocks: int = _P.pilot_blocks, seed: int = _P.seed, expansions=_P.expansions,
         set=_P.set_, cards=_P.cards, presets=_P.presets,
         game: str = _P.game) -> R.PlanResult:  # fmt: skip
    """Blocks, games and time a comparison of two strategies needs: `plan` (`abyss-mc plan`)."""
    return _run(PlanOptions, locals(), writes=False)


def bench(*, players: int = _B.players, strategies=_B.strategies, expansions=_B.expansions,
          games: int = _B.games, reference_games: int = _B.reference_games,
          memory_games: int = _B.memory_games, starts: bool = _B.starts, markdown=None,
          seed: int = _B.seed, set=_B.set_, cards=_B.cards, presets=_B.presets,
          game: str = _B.game) -> R.BenchResult:  # fmt: skip
    """The engines' speed, measured in one run: `figures` (`abyss-mc bench`)."""
    return _run(BenchOptions, locals(), writes=False)


def replay(run_dir=None, *, index: int | None = None, seed: int = 1, players: int = 4,
           strategies=None, expansions=None, set=None, cards=None, presets=None,
           game: str = "abyss", json_out: bool = False) -> R.ReplayResult:  # fmt: skip
    """One game move by move: game `index` of a simulate run directory, or of the options
    given: `text`, `events` (`abyss-mc replay`)."""
    return _run(ReplayOptions, locals(), writes=False)


def drama(run_dir, *, games: int = 256, rollouts: int = 16) -> R.DramaResult:
    """Drama and decisiveness of a tournament's games, with an oracle: `drama`
    (`abyss-mc drama`)."""
    return _run(DramaOptions, locals(), writes=False)


def skill(run_dir, *, rungs="") -> R.SkillResult:
    """Skill steps between the rungs of a ladder of a tournament's strategies (weakest first):
    `steps` (`abyss-mc skill`)."""
    return _run(SkillOptions, locals(), writes=False)
