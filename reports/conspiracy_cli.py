"""The `abyss-mc` commands for *Abyss: Conspiracy* (`--game conspiracy`).

`reports.cli` parses the options and hands over here; the run directories, manifests, atomic
writes, the tournament design and statistics are the shared ones (`sim.core.runs`,
`reports.tournament`, `reports.stats`). Imports are lazy, as in `reports.cli`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import typer

from sim.core.errors import UserError

GAME = "conspiracy"
DEFAULT_STRATEGIES = "key_hunter,pile_raider"
DEFAULT_TOURNAMENT = "coalition_builder,key_hunter,pearl_master,high_ip,pile_raider,random"


def load_tables(cards: Path | None, set_: list[str] | None) -> Any:
    from sim import games

    return games.get("conspiracy").load_cards(cards, set_)


def check_expansions(expansions: str) -> None:
    if expansions.strip():
        raise UserError("--expansions applies to Abyss only; Conspiracy has no expansions")


def check_players(tables: Any, n_players: int) -> None:
    lo, hi = tables.min_players, tables.max_players
    if not lo <= n_players <= hi:
        raise UserError(f"--players must be {lo}-{hi} for Conspiracy; got {n_players}")


def use_presets(presets: Path | None) -> None:
    from strategies.conspiracy import use_presets as use

    use(presets)


def make_policies(lineup: list[str], n_players: int) -> list:
    """The policies of a line-up of Conspiracy strategy specs (the engines take policies)."""
    from strategies.conspiracy import make_policies as make

    return make(lineup, n_players)


def lineup_of(text: str, n_players: int) -> list[str]:
    import itertools

    from strategies.conspiracy import make_policy

    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise UserError("--strategies is empty; give at least one strategy name")
    if len(names) > n_players:
        raise UserError(f"--strategies lists {len(names)} strategies for {n_players} players")
    for name in names:
        make_policy(name)
    return list(itertools.islice(itertools.cycle(names), n_players))


def cards(cards_dir: Path | None, set_: list[str] | None) -> None:
    from sim.conspiracy.cards import describe

    typer.echo(describe(load_tables(cards_dir, set_)))


def summary_text(seats, n_games: int, n_players: int) -> str:
    """Win rate (Wilson 95%) and mean IP by source per strategy."""
    from reports.summary import wilson_interval

    fair = f"equal-strength win rate {1 / n_players:.1%}"
    lines = [f"{n_games:,} games, {n_players} players ({fair})"]
    header = (
        f"  {'strategy':<20} {'seats':>8} {'win rate [95% CI]':>24} {'IP':>6} {'lords':>6} "
        f"{'locations':>9} {'coalition':>9} {'master':>6}"
    )
    lines += [header, "  " + "-" * (len(header) - 2)]
    for name, part in seats.groupby("strategy", sort=True):
        n = len(part)
        wins = float(part["win"].sum())
        lo, hi = wilson_interval(wins, n)
        lines.append(
            f"  {name:<20} {n:>8,} {wins / n:>9.1%} [{lo:.1%}, {hi:.1%}] "
            f"{part['score'].mean():>6.1f} {part['score_lords'].mean():>6.1f} "
            f"{part['score_locations'].mean():>9.1f} {part['score_coalition'].mean():>9.1f} "
            f"{part['score_pearl_master'].mean():>6.1f}"
        )
    return "\n".join(lines) + "\n"


def simulate(
    *,
    players: int,
    games: int,
    seed: int,
    strategies: str,
    out: Path | None,
    cards_dir: Path | None,
    set_: list[str] | None,
    engine: str,
    threads: int | None,
    presets: Path | None,
    expansions: str,
    resume: Path | None = None,
    chunk_size: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
) -> None:
    import pandas as pd

    from reports.commands.common import (
        chunk_store,
        data_options,
        finish_run,
        interrupt_note,
        seal_plan,
        write_plan,
    )
    from sim.core.runs import (
        atomic_write_text,
        create_run_dir,
        default_run_dir,
        write_manifest,
        write_parquet,
    )

    t_start = time.perf_counter()
    use_presets(presets)
    check_expansions(expansions)
    tables = load_tables(cards_dir, set_)
    check_players(tables, players)
    if games < 1:
        raise UserError(f"--games must be at least 1; got {games}")
    lineup = lineup_of(strategies, players)
    if resume is not None:
        out_dir = resume
        staging = _resume_staging(resume)
    else:
        out_dir = out if out is not None else default_run_dir("runs", seed=seed)
        staging = create_run_dir(out_dir, resumable=engine == "fast")
        if staging.resumable:
            write_plan(
                staging.dir,
                {"game": GAME, "n_players": players, "n_games": games, "seed": seed,
                 "strategies": lineup, "per_game": True, "expansions": [],
                 "cards": str(cards_dir) if cards_dir else None, "set": list(set_ or []),
                 "presets": str(presets) if presets else None},
            )  # fmt: skip
    with staging, interrupt_note(staging, out_dir):
        seal_plan(staging, resume is not None, tables, presets, out_dir)
        from sim.conspiracy.fast import run_distributed, run_fast, run_reference

        policies = make_policies(lineup, players)
        if backend == "dask":
            from sim.core.dask_backend import client

            with client(scheduler, threads) as c:
                seats, game_cols, timings = run_distributed(
                    c, tables, n_players=players, n_games=games, seed=seed,
                    strategies=policies, chunk_size=chunk_size,
                )  # fmt: skip
        elif engine == "reference":
            seats, game_cols, timings = run_reference(
                tables, n_players=players, n_games=games, seed=seed, strategies=policies
            )
        else:
            seats, game_cols, timings = run_fast(
                tables,
                n_players=players,
                n_games=games,
                seed=seed,
                strategies=policies,
                threads=threads,
                progress=sys.stderr.isatty(),
                store=chunk_store(staging),
                chunk_size=chunk_size,
            )
        seats_df, games_df = pd.DataFrame(seats), pd.DataFrame(game_cols)
        write_parquet(seats_df, staging.dir / "seats.parquet")
        write_parquet(games_df, staging.dir / "games.parquet")
        text = summary_text(seats_df, games, players)
        atomic_write_text(staging.dir / "summary.txt", text)
        write_manifest(
            staging.dir,
            command=["abyss-mc", *sys.argv[1:]],
            seed=seed,
            config={
                "game": GAME,
                "command": "simulate",
                "n_players": players,
                "n_games": games,
                "seed": seed,
                "strategies": lineup,
                "engine": engine,
                **data_options(cards_dir, set_, presets, out_dir),
            },
            card_digest=tables.digest,
            timings={"total": time.perf_counter() - t_start, "runner": dict(timings)},
        )
        finish_run(staging)
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")


def tournament(
    *,
    players: str,
    strategies: str | None,
    blocks: int,
    seed: int,
    design: str,
    crn: str,
    sequential: float | None,
    report: bool,
    out: Path | None,
    cards_dir: Path | None,
    set_: list[str] | None,
    threads: int | None,
    presets: Path | None,
    staging=None,
    backend: str = "local",
    scheduler: str | None = None,
) -> None:
    import pandas as pd

    from reports.commands.common import (
        chunk_store,
        cluster_for,
        data_options,
        finish_run,
        interrupt_note,
        parse_player_counts,
        seal_plan,
        tournament_options,
        write_plan,
    )
    from reports.tournament import crn_mode, make_design, run_tournament, tournament_text
    from sim.core.runs import (
        atomic_write_text,
        create_run_dir,
        default_run_dir,
        write_manifest,
        write_parquet,
    )
    from strategies.conspiracy import make_policy

    t_start = time.perf_counter()
    use_presets(presets)
    tables = load_tables(cards_dir, set_)
    counts = (
        list(range(tables.min_players, tables.max_players + 1))
        if players == "all"
        else parse_player_counts(players)
    )
    for n in counts:
        check_players(tables, n)
    if blocks < 1:
        raise UserError(f"--blocks must be at least 1; got {blocks}")
    if sequential is not None and not 0 < sequential < 1:
        raise UserError(f"--sequential must be between 0 and 1; got {sequential}")
    names = [p.strip() for p in (strategies or DEFAULT_TOURNAMENT).split(",") if p.strip()]
    crn = crn_mode(crn)
    for name in names:
        make_policy(name)
    plans = {n: make_design(names, n, design) for n in counts}
    out_dir = out if out is not None else default_run_dir("runs", seed=seed)
    resumed = staging is not None
    if staging is None:
        staging = create_run_dir(out_dir, resumable=True)
        write_plan(
            staging.dir,
            {
                **tournament_options(
                    ",".join(names), players, blocks, design, crn, seed, report, "", 0,
                    cards_dir, set_, presets, GAME,
                ),
                "sequential": sequential,
            },
        )  # fmt: skip
    with staging, interrupt_note(staging, out_dir, "tournament"), \
            cluster_for(backend, scheduler, threads) as cluster:
        seal_plan(staging, resumed, tables, presets, out_dir)
        results = {
            n: run_tournament(
                tables,
                names,
                n_players=n,
                n_blocks=blocks,
                seed=seed,
                design=design,
                crn=crn,
                threads=threads,
                progress=sys.stderr.isatty(),
                sequential_alpha=sequential,
                game=GAME,
                store=chunk_store(staging, f"{n}p"),
                client=cluster,
            )
            for n in counts
        }
        seats_df = pd.concat([r.seats for r in results.values()], ignore_index=True)
        games_df = pd.concat([r.games for r in results.values()], ignore_index=True)
        seats_df["strategy"] = seats_df["strategy"].astype(str)
        write_parquet(seats_df, staging.dir / "seats.parquet")
        write_parquet(games_df, staging.dir / "games.parquet")
        text = "".join(
            (f"== {n} players ==\n" if len(counts) > 1 else "") + tournament_text(r)
            for n, r in results.items()
        )
        atomic_write_text(staging.dir / "summary.txt", text)
        write_manifest(
            staging.dir,
            command=["abyss-mc", *sys.argv[1:]],
            seed=seed,
            config={
                "game": GAME,
                "command": "tournament",
                "n_players": counts[0] if len(counts) == 1 else counts,
                "strategies": names,
                "blocks": {str(n): r.n_blocks for n, r in results.items()},
                "tables": {str(n): p.n_tables for n, p in plans.items()},
                "n_games": int(len(games_df)),
                "design": design,
                "crn": crn,
                "sequential": sequential,
                "seed": seed,
                **data_options(cards_dir, set_, presets, out_dir),
            },
            card_digest=tables.digest,
            timings={
                "total": time.perf_counter() - t_start,
                "runner": {str(n): r.timings for n, r in results.items()},
            },
        )
        if report:
            from reports.conspiracy_report import write_report

            write_report(staging.dir, staging.dir / "report")
        finish_run(staging)
    typer.echo(text, nl=False)
    typer.echo(f"results: {out_dir}")
    if report:
        typer.echo(f"report: {out_dir / 'report' / 'report.html'}")


def _resume_staging(path: Path):
    from sim.core.runs import resume_run_dir

    return resume_run_dir(path)


def is_conspiracy_run(run_dir: Path) -> bool:
    import json

    manifest = Path(run_dir) / "manifest.json"
    if not manifest.is_file():
        return False
    try:
        return json.loads(manifest.read_text()).get("config", {}).get("game") == GAME
    except ValueError:
        return False
