"""`abyss-mc tune`: search a strategy's parameters for the highest win rate against a field,
with common random numbers, a re-evaluation of the finalists and a held-out check
(`reports.tune`)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from reports.commands import common as c
from sim.core.errors import UserError


@c.user_errors
def tune(
    strategy: Annotated[
        str | None,
        typer.Option("--strategy", metavar="PRESET",
                     help="The strategy to tune: a preset or a policy, with optional "
                     "parameters (name:param=value); the search starts there."),
    ] = None,  # fmt: skip
    game: c.GameOption = "abyss",
    players: c.PlayersOption = 4,
    against: Annotated[
        str | None,
        typer.Option("--against", metavar="A,B,...",
                     help="The field: one strategy per other seat (cycled if fewer). Default: "
                     "the strongest built-in strategies at this player count, found by a short "
                     "screening tournament."),
    ] = None,  # fmt: skip
    games: Annotated[
        int,
        typer.Option("--games", metavar="BUDGET",
                     help="Games the search plays in all (the candidates share them equally; "
                     "every candidate plays the same deals)."),
    ] = 1_200_000,  # fmt: skip
    candidates: Annotated[
        int, typer.Option("--candidates", help="Parameter sets the optimiser tries.")
    ] = 384,
    params: Annotated[
        str | None,
        typer.Option("--params", metavar="p1,p2,...",
                     help="The parameters to search (default: all of the policy's); the others "
                     "keep the strategy's values."),
    ] = None,  # fmt: skip
    sampler: Annotated[
        str,
        typer.Option("--sampler", metavar="tpe|cmaes|random",
                     help="optuna's sampler (tpe: measured best, docs/tuning.md)."),
    ] = "tpe",  # fmt: skip
    finalists: Annotated[
        int, typer.Option("--finalists", help="The search's best candidates played again.")
    ] = 5,
    reeval_games: Annotated[
        int,
        typer.Option("--reeval-games",
                     help="Fresh games each finalist plays (against the winner's curse)."),
    ] = 40_000,  # fmt: skip
    heldout_games: Annotated[
        int,
        typer.Option("--heldout-games",
                     help="Games of the held-out check, each of the tuned and the starting "
                     "strategy, on deals never used before (paired by deal)."),
    ] = 20_000,  # fmt: skip
    seed: c.SeedOption = 1,
    out: c.OutDirOption = None,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", metavar="DIR",
                     help="Finish an interrupted tune: its finished batches are kept and the "
                     "search goes on to the very same candidates."),
    ] = None,  # fmt: skip
    backend: c.BackendOption = "local",
    scheduler: c.SchedulerOption = None,
    threads: c.ThreadsOption = None,
    expansions: c.ExpansionsOption = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    presets: c.PresetsOption = None,
) -> None:
    """Find the parameters of a strategy that win most against a field; write tuned.toml."""
    options = {
        "strategy": strategy, "game": game, "players": players, "against": against,
        "games": games, "candidates": candidates, "params": params, "sampler": sampler,
        "finalists": finalists, "reeval_games": reeval_games, "heldout_games": heldout_games,
        "seed": seed, "expansions": expansions,
    }  # fmt: skip
    staging = None
    if resume is not None:
        staging, options, cards, presets, set_ = c.resumed_plan(resume)
        out = resume
    c.check_backend(backend, scheduler)
    _tune(options, cards, set_, presets, out, staging, backend, scheduler, threads)


def _tune(o, cards, set_, presets, out, staging, backend, scheduler, threads) -> None:
    from reports import tune as T
    from reports.tune_output import (
        Outcome,
        chart_png,
        preset_name,
        preset_toml,
        summary_text,
        trace_frame,
    )

    t_start = time.perf_counter()
    if not o["strategy"]:
        raise UserError("--strategy is required: the preset (or policy) to tune")
    spec = c.game_spec(o["game"])
    registry = spec.strategies()
    registry.use_presets(presets)
    exp = c.game_expansions(spec, o["expansions"], spec.tournament_expansions)
    tables = spec.load_cards(cards, set_, exp)
    n = o["players"]
    spec.check_players(tables, n, exp)
    c.check_seed(o["seed"])
    start = o["strategy"].strip()
    policy = registry.make_policy(start)
    policy_name = next(k for k, cls in registry.policies.items() if type(policy) is cls)
    space = _space(registry, policy_name, o["params"])
    values = {name: getattr(policy, name) for name in registry.parameters(policy_name)}
    budget = _budget(o, n)
    opponents = None
    if o["against"]:
        opponents = c.parse_lineup(o["against"], n - 1)
        registry.make_policies(opponents, n - 1)  # unknown names fail before any work

    from sim.core.runs import atomic_write_text, create_run_dir, default_run_dir, write_parquet

    out_dir = out if out is not None else default_run_dir("runs", seed=o["seed"])
    resumed = staging is not None
    if staging is None:
        staging = create_run_dir(out_dir, resumable=True)
        c.write_plan(staging.dir, {"options": o, "game": spec.name, "command": _command_line(),
                                   **c.data_paths(cards, set_, presets)})  # fmt: skip
    progress = c.GamesProgress(budget["games"], sys.stderr.isatty())
    with staging, c.interrupt_note(staging, out_dir, "tune"), \
            c.cluster_for(backend, scheduler, threads) as client, progress:  # fmt: skip
        c.seal_plan(staging, resumed, tables, presets, out_dir)
        if opponents is None:
            opponents = _screened_field(spec, tables, n, o["seed"], c.chunk_store(staging, "field"),
                                        client, progress)  # fmt: skip
        problem = T.Problem(spec.name, tables, n, start, policy_name, values, space, opponents,
                            o["seed"], registry)  # fmt: skip
        search = budget["search"]
        store = c.chunk_store(staging, "search")
        stored = _stored_batches(store)
        progress.advance(sum(len(v) for v in stored.values()) * search.blocks * n)

        def keep(batch: int, rows: list[dict]) -> None:
            _save_json(store, batch, rows)
            progress.advance(len(rows) * search.blocks * n)

        rows = T.run_search(problem, search, stored=stored, on_batch=keep, client=client)
        final = T.finalists(rows, o["finalists"])
        reeval = _stage(c.chunk_store(staging, "reeval"), problem, [r["spec"] for r in final],
                        T.derived_seed(o["seed"], T.REEVAL), budget["reeval"], client,
                        progress).mean(axis=1)  # fmt: skip
        chosen = final[int(reeval.argmax())]
        shares = _stage(c.chunk_store(staging, "heldout"), problem, [chosen["spec"], start],
                        T.derived_seed(o["seed"], T.HELDOUT), budget["heldout"], client,
                        progress)  # fmt: skip
        held = T.held_out(shares, n)
        outcome = Outcome(problem, rows, final, reeval, budget["reeval"] * n, chosen, held,
                          preset_name(start, n), c.read_plan(staging.dir)["command"])  # fmt: skip
        atomic_write_text(staging.dir / "tuned.toml", preset_toml(outcome))
        write_parquet(trace_frame(outcome), staging.dir / "trace.parquet")
        summary = summary_text(outcome)
        atomic_write_text(staging.dir / "summary.txt", summary)
        (staging.dir / "tune.png").write_bytes(chart_png(outcome))
        c.write_run_manifest(
            staging, o["seed"],
            {"game": spec.name, "command": "tune", **o, "expansions": list(exp),
             "opponents": opponents, "policy": policy_name, "space": space,
             "search_blocks": search.blocks, "reeval_blocks": budget["reeval"],
             "heldout_blocks": budget["heldout"], "preset": outcome.name,
             "chosen": chosen["spec"],
             "held_out": {"games": held.games, "tuned": held.tuned, "start": held.start,
                          "diff": held.diff, "lo": held.lo, "hi": held.hi, "p": held.p,
                          "verdict": held.verdict},
             **c.data_options(cards, set_, presets, out_dir)},
            card_digest=c.card_digest(tables, cards, set_),
            timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        c.finish_run(staging)
    typer.echo(summary, nl=False)
    typer.echo(f"results: {out_dir} (use the tuned preset with --presets {out_dir}/tuned.toml)")


def _command_line() -> str:
    import shlex

    return shlex.join(["abyss-mc", *sys.argv[1:]])


def _space(registry, policy: str, names: str | None) -> dict:
    """The searched parameters: all of the policy's, or the listed ones."""
    space = registry.search_space(policy)
    if not space:
        raise UserError(f"{policy} has no parameters to tune")
    if not names:
        return space
    wanted = [p.strip() for p in names.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in space]
    if unknown or not wanted:
        raise UserError(f"--params: unknown parameter {', '.join(unknown) or '(none)'} of "
                        f"{policy}; known: {', '.join(space)}")  # fmt: skip
    return {p: space[p] for p in wanted}


def _budget(o: dict, n: int) -> dict:
    """Blocks of each stage (a block is n games: the rotations of one deal)."""
    from reports.tune import Search

    for key in ("games", "reeval_games", "heldout_games"):
        if o[key] < 2 * n:
            raise UserError(f"--{key.replace('_', '-')} must be at least {2 * n}; got {o[key]}")
    if o["finalists"] < 1:
        raise UserError(f"--finalists must be at least 1; got {o['finalists']}")
    cands = o["candidates"]
    blocks = max(2, o["games"] // (cands * n)) if cands > 0 else 0
    search = Search(sampler=o["sampler"], candidates=cands, blocks=blocks)
    reeval = max(2, o["reeval_games"] // n)
    heldout = max(2, -(-o["heldout_games"] // n))
    total = (cands * blocks + (o["finalists"] + 1) * reeval + 2 * heldout) * n
    return {"search": search, "reeval": reeval, "heldout": heldout, "games": total}


def _stage(store, problem, specs, seed, n_blocks, client, progress):
    """Win shares of `specs` on `n_blocks` blocks of `seed`, or the stored ones."""
    from reports.tune import evaluate

    if store is not None and store.end() > 0:
        shares = c.load_array(store, 0)
    else:
        shares = evaluate(problem, specs, seed=seed, n_blocks=n_blocks, client=client)
        if store is not None:
            c.save_array(store, 0, 1, shares)
    progress.advance(shares.size * problem.n_players)
    return shares


def _screened_field(spec, tables, n, seed, store, client, progress) -> list[str]:
    """The n - 1 strongest built-in strategies at n players: a balanced tournament of every
    built-in preset and policy but random and the search player (about 10,000 games), ranked
    by win rate."""
    if store is not None and store.end() > 0:
        return json.loads(store.path(0, "field.json").read_text())
    from reports.stats import strategy_summary
    from reports.tournament import run_tournament, tournament_frame
    from reports.tune import SCREEN, derived_seed

    registry = spec.strategies()
    builtin = registry.builtin_presets()
    names = [p for p, cls in registry.policies.items()  # no random player, no search player
             if p != "random" and not getattr(cls, "LOOKS_AHEAD", False)] + sorted(builtin)
    blocks = max(50, 10_000 // (len(names) * n))
    result = run_tournament(tables, names, n_players=n, n_blocks=blocks, game=spec.name,
                            seed=derived_seed(seed, SCREEN), client=client)  # fmt: skip
    ranking = strategy_summary(tournament_frame(result)).index.tolist()
    field = [ranking[i % len(ranking)] for i in range(n - 1)]
    if store is not None:
        from sim.core.runs import atomic_write_text

        store.save(0, 1, {"field.json": lambda path: atomic_write_text(path, json.dumps(field))})
    progress.advance(0)
    return field


def _stored_batches(store) -> dict:
    if store is None:
        return {}
    return {first: json.loads(store.path(first, "batch.json").read_text())
            for first, _ in store.completed()}  # fmt: skip


def _save_json(store, batch: int, rows: list[dict]) -> None:
    if store is None:
        return
    from sim.core.runs import atomic_write_text

    text = json.dumps(rows)
    store.save(batch, 1, {"batch.json": lambda path: atomic_write_text(path, text)})
