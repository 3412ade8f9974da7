"""`abyss-mc tune` as a run: the field screened (unless given), the search, the finalists
re-evaluated, the held-out check, and what it writes (tuned.toml, trace, summary, chart,
manifest), each stage stored as it finishes so that `--resume` picks up there (`reports.tune`
holds the statistics)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

from reports.run_dir import (
    Run,
    card_digest,
    data_args,
    data_options,
    data_paths,
    load_array,
    save_array,
)
from reports.runs import setup as S
from reports.runs.options import TuneOptions
from sim.core.errors import UserError


class TuneSetup(NamedTuple):
    """A tune's options as resolved (`o`: as its plan and manifest record them): the game, its
    tables, the preset to start from and its policy, the searched space and the archetype's
    rules, the budget, the stages' seeds and the field (None: screened)."""

    o: dict
    spec: Any
    registry: Any
    tables: Any
    exp: tuple[str, ...]
    start: str
    policy_name: str
    space: dict
    rules: dict
    values: dict
    budget: dict
    seeds: dict
    opponents: list[str] | None
    cards: Any
    set_: Any
    presets: Any
    t_start: float


def run(o: TuneOptions) -> S.Output:
    """Check the options, tune into a new (or the resumed) run directory."""
    run, o = S.start_or_resume("tune", o)
    S.check_backend(o.backend, o.scheduler)
    setup = checked(o)
    if run is None:
        n = o.players
        field = setup.registry.table_policies(setup.opponents, n) if setup.opponents else []
        S.check_size(setup.spec, "tuning", setup.budget["games"] * n, per_game=False, out=o.out,
                     yes=o.yes, threads=o.threads, n_players=n,
                     policies=[setup.registry.make_policy(setup.start), *field],
                     expansions=setup.exp)  # fmt: skip
        run = Run.start("tune", o.out, o.seed, {
            "options": setup.o, "game": setup.spec.name, "command": command_line(),
            **data_paths(o.cards, o.set_, o.presets),
        })  # fmt: skip
    progress = S.GamesProgress(setup.budget["games"], o.progress)
    summary, out_dir = run_tune(setup, run, progress, o.backend, o.scheduler, o.threads)
    return S.Output(summary, out_dir, (f"results: {out_dir} (use the tuned preset with --presets "
                                       f"{out_dir}/tuned.toml)",))  # fmt: skip


def checked(o: TuneOptions) -> TuneSetup:
    """The options checked before any game (a one-line `UserError` each) and resolved: the
    searched space, the budget, the stages' seeds, the field when given."""
    from reports import tune as T

    t_start = time.perf_counter()
    if not o.strategy:
        raise UserError("--strategy is required: the preset (or policy) to tune")
    spec, registry, exp, tables = S.field_setup(o)
    n, start, stored = o.players, o.strategy.strip(), o.stored()
    policy = registry.make_policy(start)
    policy_name = next(k for k, cls in registry.policies.items() if type(policy) is cls)
    space, rules = T.search_space(registry, start, policy_name, o.params, o.open)
    values = {name: getattr(policy, name) for name in registry.parameters(policy_name)}
    blocks = budget(stored, n)
    seeds = T.stage_seeds(o.seed)
    T.check_fresh_deals(n, {"search": (seeds["search"], blocks["search"].blocks),
                            "re-evaluation": (seeds["re-evaluation"], blocks["reeval"]),
                            "held-out check": (seeds["held-out check"], blocks["heldout"])})
    opponents = None
    if o.against:
        opponents = S.parse_lineup(o.against, n - 1)
        # unknown names fail before any work, and a setting no game can use (issue 53)
        spec.check_effect(tables, [n], o.set_, registry.table_policies(opponents, n))
    spec.check_effect(tables, [n], o.set_, registry.table_policies([start], n))
    return TuneSetup(stored, spec, registry, tables, exp, start, policy_name, space, rules,
                     values, blocks, seeds, opponents, o.cards, o.set_, o.presets, t_start)


def run_tune(setup: TuneSetup, run, progress, backend, scheduler, threads) -> tuple[str, Path]:
    """The tune inside `run`; returns (the summary, the run directory)."""
    from reports import tune as T
    from reports.sections.tune import (
        Outcome,
        chart_png,
        preset_name,
        preset_toml,
        summary_text,
        trace_frame,
    )

    (o, spec, registry, tables, exp, start, policy_name, space, rules, values, budget, seeds,
     opponents, cards, set_, presets, t_start) = setup  # fmt: skip
    n = o["players"]
    from sim.core.runs import atomic_write_text, write_parquet

    out_dir = run.out
    with run, progress:
        run.seal(tables, presets)
        client = run.cluster(backend, scheduler, threads)
        if opponents is None:
            opponents = _screened_field(spec, tables, n, o["seed"], run.store("field"),
                                        client, progress)  # fmt: skip
        problem = T.Problem(spec.name, tables, n, start, policy_name, values, space, opponents,
                            o["seed"], registry, rules, o.get("open", False))  # fmt: skip
        search = budget["search"]
        store = run.store("search")
        stored = _stored_batches(store)
        progress.advance(sum(len(v) for v in stored.values()) * search.blocks * n)

        def keep(batch: int, rows: list[dict]) -> None:
            _save_json(store, batch, rows)
            progress.advance(len(rows) * search.blocks * n)

        rows = T.run_search(problem, search, stored=stored, on_batch=keep, client=client)
        final = T.finalists(rows, o["finalists"])
        reeval = stage(run.store("reeval"), problem, [r["spec"] for r in final],
                        seeds["re-evaluation"], budget["reeval"], client,
                        progress).mean(axis=1)  # fmt: skip
        chosen = final[int(reeval.argmax())]
        shares = stage(run.store("heldout"), problem, [chosen["spec"], start],
                        seeds["held-out check"], budget["heldout"], client, progress)  # fmt: skip
        held = T.held_out(shares, n)
        command = recorded_command(o, spec, exp, opponents, cards, set_, presets)
        code = code_version()
        made_on = {**code, "cards": card_digest(tables, cards, set_)}
        outcome = Outcome(problem, rows, final, reeval, budget["reeval"] * n, chosen, held,
                          preset_name(start, open_tune=o.get("open", False)), command,
                          made_on)  # fmt: skip
        atomic_write_text(run.dir / "tuned.toml", preset_toml(outcome))
        write_parquet(trace_frame(outcome), run.dir / "trace.parquet")
        summary = summary_text(outcome)
        atomic_write_text(run.dir / "summary.txt", summary)
        (run.dir / "tune.png").write_bytes(chart_png(outcome))
        run.write_manifest(
            o["seed"],
            {"game": spec.name, "command": "tune", **o, "expansions": list(exp),
             "opponents": opponents, "policy": policy_name, "space": space,
             "archetype": rules, "recorded_command": command, "code": code,
             "search_blocks": search.blocks, "reeval_blocks": budget["reeval"],
             "heldout_blocks": budget["heldout"], "preset": outcome.name,
             "chosen": chosen["spec"],
             "held_out": {"games": held.games, "tuned": held.tuned, "start": held.start,
                          "diff": held.diff, "lo": held.lo, "hi": held.hi, "p": held.p,
                          "verdict": held.verdict},
             **data_options(cards, set_, presets, out_dir)},
            card_digest=card_digest(tables, cards, set_),
            timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        run.finish()
    return summary, out_dir




def command_line() -> str:
    import shlex

    return shlex.join(["abyss-mc", *sys.argv[1:]])


def recorded_command(o: dict, spec, exp, opponents, cards, set_, presets) -> str:
    """The command that makes this tune again, every option that changes its result written
    out: the field as played (screened or given), the budget and the expansions, whatever their
    defaults become; not where it is written nor where it is played."""
    import shlex

    args = ["abyss-mc", "tune", "--game", spec.name, "--strategy", o["strategy"].strip(),
            "--players", str(o["players"]), "--against", ",".join(opponents)]  # fmt: skip
    if o.get("open"):
        args.append("--open")
    if o["params"]:
        args += ["--params", o["params"]]
    if exp or spec.tournament_expansions:
        args += ["--expansions", ",".join(exp)]
    for key in ("games", "candidates", "sampler", "finalists", "reeval_games", "heldout_games",
                "seed"):  # fmt: skip
        args += ["--" + key.replace("_", "-"), str(o[key])]
    return shlex.join(args + data_args(cards, set_, presets))


def code_version() -> dict:
    """The code a tune ran: the package version, the git commit of its checkout (with `dirty`
    when its Python sources differ from the commit; None outside a git checkout) and a digest
    of the Python sources of sim/, strategies/, reports/, cli/ and games/."""
    import subprocess
    from importlib.metadata import PackageNotFoundError, version
    from importlib.util import find_spec

    import games
    import reports
    import sim
    import strategies
    from sim.core.provenance import source_digest

    dirs = [Path(m.__file__).parent for m in (sim, strategies, reports, games)]
    # the command line's source too, found without importing it (the library never does)
    dirs.append(Path(find_spec("cli").submodule_search_locations[0]))
    root = dirs[0].parent

    def git(*args: str) -> subprocess.CompletedProcess | None:
        try:
            return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                                  timeout=30, check=False)  # fmt: skip
        except OSError:
            return None

    head = git("rev-parse", "HEAD")
    commit = head.stdout.strip() if head is not None and head.returncode == 0 else None
    dirty = None
    if commit is not None:
        diff = git("diff", "--quiet", "HEAD", "--", "*.py")
        dirty = diff is not None and diff.returncode != 0
    try:
        package = version("abyss-mc")
    except PackageNotFoundError:
        package = None
    return {"abyss_mc_version": package, "git_commit": commit,
            "git_dirty": dirty, "source_digest": "sha256:" + source_digest(dirs)}  # fmt: skip


def budget(o: dict, n: int) -> dict:
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


def stage(store, problem, specs, seed, n_blocks, client, progress):
    """Win shares of `specs` on `n_blocks` blocks of `seed`, or the stored ones."""
    from reports.tune import evaluate

    if store is not None and store.end() > 0:
        shares = load_array(store, 0)
    else:
        shares = evaluate(problem, specs, seed=seed, n_blocks=n_blocks, client=client)
        if store is not None:
            save_array(store, 0, 1, shares)
    progress.advance(shares.size * problem.n_players)
    return shares


def _screened_field(spec, tables, n, seed, store, client, progress) -> list[str]:
    """The n - 1 strongest built-in strategies at n players: a balanced tournament of every
    hand-written preset and policy but random and the search player (about 10,000 games), ranked
    by win rate. The presets tuned from them are not screened: a field of them would change
    whenever they are made again."""
    if store is not None and store.end() > 0:
        return json.loads(store.path(0, "field.json").read_text())
    from reports.play.tournament import run_tournament, tournament_frame
    from reports.stats.blocks import strategy_summary
    from reports.tune import SCREEN, derived_seed

    registry = spec.strategies()
    builtin = registry.hand_written_presets()
    names = [p for p, cls in registry.policies.items()  # no random, search or learned player
             if p != "random" and getattr(cls, "SCREENED", True)
             and not getattr(cls, "LOOKS_AHEAD", False)] + sorted(builtin)
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
