"""`abyss-mc simulate` as a run: games of one line-up on either engine, chunk by chunk so that
`--resume` picks up there, locally or on Dask; the seats and games tables, the aggregates, the
game's summary and the manifest. A game whose runs are not games of a line-up (Wilds) runs its
own analysis."""

from __future__ import annotations

import time

from reports.run_dir import Run, card_digest, data_options, data_paths, schema_entry
from reports.runs import setup as S
from reports.runs.options import SimulateOptions
from sim.core.errors import UserError


def run(o: SimulateOptions) -> S.Output:
    """Check the options, play the games into a new (or the resumed) run directory."""
    S.check_backend(o.backend, o.scheduler)
    if o.backend == "dask" and o.engine not in (None, "fast"):
        raise UserError("--backend dask runs the fast engine")
    given = o.seed
    run, o = S.start_or_resume("simulate", o)
    spec = S.game_spec(o.game)
    S.check_seed(given)
    if spec.analysis_module is not None:
        return _analysis(spec, o)
    return _simulate(spec, o, run)


def _analysis(spec, o: SimulateOptions) -> S.Output:
    """A game whose runs are its own analysis (Wilds): it prints its own notes."""
    if o.engine not in (None, "fast") or o.resume is not None:
        raise UserError(
            f"{spec.title} runs play the fast path in one go (no --engine reference, no "
            f"--resume); `abyss-mc bench --game {spec.name}` compares the engines"
        )
    if o.games >= 2:  # (fewer: its own line says so)
        S.check_size(spec, "simulation", spec.analysis().episodes(o.games), per_game=True,
                     out=o.out, yes=o.yes, threads=o.threads)  # fmt: skip
    text = spec.analysis().simulate(
        games=o.games, seed=o.seed, cards=o.cards, set_=o.set_, out=o.out, backend=o.backend,
        scheduler=o.scheduler, threads=o.threads, chunk_size=o.chunk_size,
    )  # fmt: skip
    return S.Output(text, o.out)


def _checked(spec, o: SimulateOptions):
    """`(expansions, tables, seconds to load them, line-up, policies)`, every option checked."""
    spec.strategies().use_presets(o.presets)
    exp = S.game_expansions(spec, o.expansions)
    if o.engine is not None:
        spec.check_engine(o.engine)
    if o.games < 1:
        raise UserError(f"--games must be at least 1; got {o.games}")
    if o.chunk_size is not None and o.chunk_size < 1:
        raise UserError(f"--chunk-size must be at least 1; got {o.chunk_size}")
    t0 = time.perf_counter()
    tables = spec.load_cards(o.cards, o.set_, exp)
    t_cards = time.perf_counter() - t0
    spec.check_players(tables, o.players, exp)
    lineup, policies = S.game_lineup(spec, o.strategies, o.players)
    spec.check_effect(tables, [o.players], o.set_, policies)
    return exp, tables, t_cards, lineup, policies


def _simulate(spec, o: SimulateOptions, run) -> S.Output:
    """Games of one line-up of `spec`'s game, through its play and report modules (`run`: the
    resumed run, or None for a new one)."""
    t_start = time.perf_counter()
    exp, tables, t_cards, lineup, policies = _checked(spec, o)
    engine = o.engine
    if engine is None:  # not asked for: the fast path, or the reference engine while it compiles
        local_start = o.backend == "local" and run is None
        engine = (S.cold_start_engine(spec, o.players, o.games, policies, o.threads)
                  if local_start else "fast")  # fmt: skip
    if run is None:  # refuses an existing directory before any work
        S.check_size(spec, "simulation", o.games * o.players, per_game=o.per_game, out=o.out,
                     yes=o.yes, threads=o.threads, n_players=o.players, policies=policies,
                     engine=engine, expansions=exp)  # fmt: skip
        run = Run.start("simulate", o.out, o.seed, {
            "game": spec.name, "n_players": o.players, "n_games": o.games, "seed": o.seed,
            "strategies": lineup, "per_game": o.per_game, "expansions": list(exp),
            **data_paths(o.cards, o.set_, o.presets),
        }, resumable=engine in spec.resumable_engines)  # fmt: skip
    with run:
        run.seal(tables, o.presets)
        t0 = time.perf_counter()
        played = spec.play().run_games(
            tables, engine=engine, n_players=o.players, n_games=o.games, seed=o.seed,
            policies=policies, expansions=exp, threads=o.threads, per_game=o.per_game,
            progress=o.progress, store=run.store(), chunk_size=o.chunk_size,
            client=run.cluster(o.backend, o.scheduler, o.threads),
        )  # fmt: skip
        times = {"load_cards": t_cards, "run_simulation": time.perf_counter() - t0}
        summary = _write(spec, o, run, played, times, t_start,
                         {"strategies": lineup, "expansions": list(exp), "engine": engine},
                         card_digest(tables, o.cards, o.set_))  # fmt: skip
        run.finish()
    return S.Output(summary, run.out, (f"results: {run.out}",))


def _write(spec, o, run, played, times: dict, t_start: float, config: dict, digest) -> str:
    """The tables, aggregates, summary and manifest of a simulate run; returns the summary."""
    from sim.core.runs import atomic_write_text, write_parquet

    t0 = time.perf_counter()
    if played.seats is not None and (o.per_game or played.aggregates is None):
        write_parquet(played.seats, run.dir / "seats.parquet")
        write_parquet(played.games, run.dir / "games.parquet")
    if played.aggregates is not None:
        played.aggregates.save(run.dir / "aggregates.npz")
    summary = spec.report().summary(played, o.players)
    atomic_write_text(run.dir / "summary.txt", summary)
    times["write"] = time.perf_counter() - t0
    run.write_manifest(
        o.seed,
        {"game": spec.name, "command": "simulate", "n_players": o.players, "n_games": o.games,
         "seed": o.seed, "strategies": config["strategies"], "expansions": config["expansions"],
         "engine": config["engine"], "threads": played.timings.get("threads"),
         "per_game": o.per_game, **data_options(o.cards, o.set_, o.presets, run.out)},
        card_digest=digest,
        timings={**times, "total": time.perf_counter() - t_start, "runner": dict(played.timings)},
        extra=schema_entry(spec),
    )  # fmt: skip
    return summary
