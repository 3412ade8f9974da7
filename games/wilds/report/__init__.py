"""Leviathan Wilds' warped crystals: its runs are an analysis of crystal episodes, not games of
strategies, so it provides the commands' work itself (`sim.core.game.GameSpec.analysis_module`):
`simulate`, `write_report`, `replay` and `bench`. ALL ITS DATA IS PLACEHOLDER."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from sim.core.errors import UserError
from sim.core.runs import read_table

#: What one episode of one setting costs a `simulate` (its share of the tables and report too),
#: for the size estimate (`reports.runs.setup.check_size`; a "seat-game" here is an episode):
#: seconds on one core (the run keeps about one busy: the compiled episodes are a third of its
#: time, the tables and report the rest: `ONE_CORE`), bytes of crystals.parquet, and bytes of
#: memory at the run's peak over a fixed `BASE_MEMORY` (a sweep holds less per episode). From
#: `/usr/bin/time -f '%e %U %S %M' abyss-mc simulate --game wilds --games N` at N = 20,000 and
#: 200,000, the slope between them (%M in KiB; docs/reliability.md).
SEAT_GAME_SECONDS, SEAT_GAME_BYTES, SEAT_GAME_MEMORY = 1.7e-5, 16, 1330
BASE_MEMORY, SWEEP_SEAT_GAME_MEMORY, ONE_CORE = 0.32e9, 800, True


def _tables(cards: Path | None, set_):
    from sim import games

    return games.get("wilds").load_cards(cards, set_)


def episodes(games: int) -> int:
    """The episodes a `simulate` of `--games` plays: every setting of `crystals.run_analysis`."""
    from games.wilds.report.crystals import RUNS_PER_EPISODE

    return games * RUNS_PER_EPISODE


def simulate(*, games: int, seed: int, cards, set_, out, backend: str = "local",
             scheduler=None, threads=None, chunk_size=None) -> str:  # fmt: skip
    """Episodes of every strike setting and warp-deck variant: the long-form table, a summary and
    the report, into a new run directory; on Dask the same results. Returns what to print."""
    from games.wilds.report.crystals import build_report, distributed_runner, effort, run_analysis
    from reports.run_dir import Run, data_options
    from sim.core.runs import atomic_write_text, write_parquet

    if games < 2:
        raise UserError(f"--games must be at least 2; got {games}")
    t_start = time.perf_counter()
    tables = _tables(cards, set_)
    # not resumable: its episodes take seconds, not hours (a lost cluster: run it again)
    run = Run.start("simulate", out, seed, resumable=False)
    out_dir = run.out
    with run:
        client = run.cluster(backend, scheduler, threads)
        if client is not None:
            frame = run_analysis(tables, seed, games, run=distributed_runner(client, chunk_size))
        else:
            from sim.core.firstrun import first_compile

            with first_compile("wilds", 15):
                frame = run_analysis(tables, seed, games)
        write_parquet(frame, run.dir / "crystals.parquet")
        table = effort(frame[frame["deck"] == "as given"], ["setting", "warped"])
        text = (
            "Warped crystals (ALL DATA IS PLACEHOLDER): per crystal broken, mean strikes and "
            f"turns spent on it, {games:,} episodes per setting\n"
            + table[["setting", "warped", "strikes", "turns_spent", "warps"]].to_string(
                index=False, float_format=lambda x: f"{x:.2f}"
            )
            + "\n"
        )
        atomic_write_text(run.dir / "summary.txt", text)
        command = " ".join(["abyss-mc", *sys.argv[1:]])
        build_report(frame, tables, command).write(run.dir / "report")
        run.write_manifest(
            seed,
            {"game": "wilds", "command": "simulate", "n_games": games, "seed": seed,
             **data_options(cards, set_, None, out_dir)},
            card_digest=tables.digest,
            timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        run.finish()
    return (f"{text}results: {out_dir}\n"
            f"report: {out_dir / 'report' / 'report.html'}\n")  # fmt: skip


def write_report(run_dir: Path | str, out: Path | str | None = None) -> dict:
    import json

    from games.wilds.report.crystals import build_report

    manifest = json.loads((Path(run_dir) / "manifest.json").read_text())
    config = manifest.get("config", {})
    tables = _tables(Path(config["cards"]) if config.get("cards") else None, config.get("set"))
    frame = read_table(Path(run_dir) / "crystals.parquet")
    command = " ".join(manifest.get("command") or [])
    return build_report(frame, tables, command).write(
        out if out is not None else Path(run_dir) / "report"
    )


def replay(*, seed: int, index: int, cards, set_) -> tuple[str, list[dict]]:
    from games.wilds.engine.rules import Game

    g = Game(_tables(cards, set_), seed, index).play()
    lines = [f"Warped crystals (PLACEHOLDER data), seed {seed}, episode {index}:"]
    for e in g.events:
        details = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("event", "turn"))
        lines.append(f"turn {e['turn']:>3}  {e['event']:<8} {details}")
    return "\n".join(lines), g.events


def bench(*, games: int, reference_games: int, seed: int, cards, set_):
    """Episodes per second of both Wilds engines (same episodes), 1 thread and all threads."""
    import numpy as np

    from games.wilds.engine.kernel import run_episodes
    from games.wilds.engine.rules import Game
    from reports.runs.bench import BenchResult
    from sim.core.batch import set_threads
    from sim.core.jit import numba

    t = _tables(cards, set_)
    result = BenchResult({"game": "wilds", "episodes": games})
    run_episodes(t, seed, np.arange(8))  # compile or load
    t0 = time.perf_counter()
    for g in range(reference_games):
        Game(t, seed, g, record=False).play()
    ref = reference_games / (time.perf_counter() - t0)
    result.add("Wilds reference engine", ref, f"{ref:,.0f} episodes/s")
    rates = {}
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        set_threads(threads)
        t0 = time.perf_counter()
        run_episodes(t, seed, np.arange(games))
        rates[threads] = games / (time.perf_counter() - t0)
        result.add(f"Wilds fast path, {threads} thread(s)", rates[threads],
                   f"{rates[threads]:,.0f} episodes/s")  # fmt: skip
    set_threads(None)
    result.add("fast (1 thread) / reference", rates[1] / ref, f"{rates[1] / ref:,.0f}x")
    return result


def sweep_run(*, games: int, seed: int, cards, base: list[str], backend: str = "local"):
    """(load, run, sources) of a Wilds sweep (`reports.runs.sweep.run_sweep`)."""

    if backend == "dask":
        raise UserError("--backend dask does not run Wilds sweeps; use --backend local")

    def load(setting):
        return _tables(cards, base + [f"{k}={v}" for k, v in setting.items()])

    return load, _sweep_point(games, seed), SWEEP_SOURCES


#: A Wilds sweep's efforts besides the strikes ("score")
SWEEP_SOURCES = ["turns_spent", "warps"]


def _sweep_point(n_episodes: int, seed: int):
    """`run` of a Wilds sweep: episodes 0 .. n-1 of the climber's own strikes, as "seat" rows
    (one per crystal: `strategy` = warped / plain, `score` = strikes) and "game" rows (`turns`),
    so `differences` and the report work unchanged (`SWEEP_SOURCES` its efforts)."""

    def run(tables):
        import numpy as np
        import pandas as pd

        from games.wilds.report.crystals import episodes_frame

        frame = episodes_frame(tables, seed, n_episodes, 0)
        seats = pd.DataFrame(
            {
                "game": frame["episode"],
                "seat": frame["crystal"],
                "strategy": np.where(frame["warped"], "warped crystals", "plain crystals"),
                "win": frame["broken"].astype(float),
                "score": frame["strikes"],
                "turns_spent": frame["turns_spent"],
                "warps": frame["warps"],
            }
        )
        games = frame.groupby("episode", sort=True)["episode_turns"].first().reset_index()
        games.columns = ["game", "turns"]
        return seats, games

    return run
