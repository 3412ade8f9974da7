"""`abyss-mc restrict`: what each card is worth to a strategy, by restricted play
(`reports.restrict`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

from cli.commands import common as c
from reports.run_dir import (
    Run,
    card_digest,
    data_options,
    data_paths,
    load_array,
    save_array,
)
from sim.core.errors import UserError


@c.user_errors
def restrict(
    strategy: c.option(str | None, "--strategy", "The strategy whose cards are valued (a preset "
                       "or a policy with parameters, e.g. a tuned preset); it plays every seat.",
                       "S") = None,
    game: c.GameOption = "abyss",
    players: c.PlayersOption = 4,
    blocks: c.option(int, "--blocks", "Deals per card; each is played in every rotation of the "
                     "seats by the restricted and the unrestricted strategy (common random "
                     "numbers).") = 2000,
    seed: c.SeedOption = 1,
    out: c.OutDirOption = None,
    resume: c.option(Path | None, "--resume", "Finish an interrupted run: its finished batches of "
                     "cards are kept.", "DIR") = None,
    backend: c.BackendOption = "local",
    scheduler: c.SchedulerOption = None,
    threads: c.ThreadsOption = None,
    expansions: c.ExpansionsOption = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    presets: c.PresetsOption = None,
) -> None:
    """Value every Lord and Location: the win rate a strategy loses when forbidden each one."""
    options = {"strategy": strategy, "game": game, "players": players, "blocks": blocks,
               "seed": seed, "expansions": expansions}  # fmt: skip
    run, options, set_, cards, presets, out = c.resumed("restrict", resume, options, set_, cards,
                                                        presets, out)  # fmt: skip
    c.check_backend(backend, scheduler)
    _restrict(options, cards, set_, presets, out, run, backend, scheduler, threads)


def _restrict(o, cards, set_, presets, out, run, backend, scheduler, threads) -> None:
    from reports import restrict as R
    from reports.tune import Problem

    t_start = time.perf_counter()
    if not o["strategy"]:
        raise UserError("--strategy is required: the strategy whose cards are valued")
    spec = c.game_spec(o["game"])
    restrictions = spec.report().restrictions
    if restrictions is None:
        raise UserError(f"{spec.title} has no restricted play yet")
    spec, registry, exp, tables = c.field_setup(o, cards, set_, presets)
    n = o["players"]
    if o["blocks"] < 2:
        raise UserError(f"--blocks must be at least 2; got {o['blocks']}")
    start = o["strategy"].strip()
    registry.make_policy(start)  # unknown names fail before any work
    cardlist = restrictions(tables)
    specs = [f"{start}:{forbid}" for _, _, forbid in cardlist]
    registry.make_policy(specs[0])  # a policy without restricted play says so here

    from sim.core.runs import atomic_write_text, write_parquet

    if run is None:
        run = Run.start("restrict", out, o["seed"], {
            "options": o, "game": spec.name, **data_paths(cards, set_, presets),
        })  # fmt: skip
    out_dir = run.out
    problem = Problem(spec.name, tables, n, start, "", {}, {}, [start] * (n - 1), o["seed"],
                      registry)  # fmt: skip
    progress = c.GamesProgress((1 + len(specs)) * o["blocks"] * n, sys.stderr.isatty())
    with run, progress:
        run.seal(tables, presets)
        client = run.cluster(backend, scheduler, threads)
        store = run.store("cards")
        done = {first: load_array(store, first) for first, _ in store.completed()} \
            if store is not None else {}  # fmt: skip
        shares = R.play_restricted(
            problem, cardlist, blocks=o["blocks"], seed=o["seed"], client=client, done=done,
            save=(lambda first, count, part: _save(store, first, count, part)) if store else None,
            progress=progress,
        )  # fmt: skip
        df = R.impact_frame(cardlist, shares, n)
        write_parquet(df, run.dir / "impact.parquet")
        atomic_write_text(run.dir / "impact.csv", df.to_csv(index=False))
        summary = R.summary_text(df, start, n, float(shares[0].mean()))
        atomic_write_text(run.dir / "summary.txt", summary)
        (run.dir / "impact.png").write_bytes(R.chart_png(df, start, n))
        run.write_manifest(
            o["seed"],
            {"game": spec.name, "command": "restrict", **o, "expansions": list(exp),
             "cards": len(cardlist), "games": int(shares.size * n),
             **data_options(cards, set_, presets, out_dir)},
            card_digest=card_digest(tables, cards, set_),
            timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        run.finish()
    typer.echo(summary, nl=False)
    typer.echo(f"results: {out_dir}")


def _save(store, first: int, count: int, part) -> None:
    """One finished batch of cards (a chunk of a resumable run)."""
    save_array(store, first, count, part)
