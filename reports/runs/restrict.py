"""`abyss-mc restrict` as a run: what each card is worth to a strategy, by restricted play
(`reports.restrict`), batch by batch of cards so that `--resume` picks up there; the impact
table, its chart, the summary and the manifest."""

from __future__ import annotations

import time

from reports.run_dir import (
    Run,
    card_digest,
    data_options,
    data_paths,
    load_array,
    save_array,
)
from reports.runs import setup as S
from reports.runs.options import RestrictOptions
from sim.core.errors import UserError


def run(o: RestrictOptions) -> S.Output:
    """Check the options, value every card into a new (or the resumed) run directory."""
    run, o = S.start_or_resume("restrict", o)
    S.check_backend(o.backend, o.scheduler)
    t_start = time.perf_counter()
    spec, registry, exp, tables, cardlist = _checked(o)
    if run is None:  # the strategy unrestricted, then once per card, in every seat
        games = (1 + len(cardlist)) * o.blocks * o.players
        S.check_size(spec, "card valuation", games * o.players, per_game=False, out=o.out,
                     yes=o.yes, threads=o.threads, n_players=o.players,
                     policies=[registry.make_policy(o.strategy.strip())],
                     expansions=exp)  # fmt: skip
        run = Run.start("restrict", o.out, o.seed, {
            "options": o.stored(), "game": spec.name, **data_paths(o.cards, o.set_, o.presets),
        })  # fmt: skip
    summary = _play(o, spec, registry, exp, tables, cardlist, run, t_start)
    return S.Output(summary, run.out, (f"results: {run.out}",))


def _checked(o: RestrictOptions):
    """`(spec, registry, expansions, tables, cards)`, every option checked before any game."""
    if not o.strategy:
        raise UserError("--strategy is required: the strategy whose cards are valued")
    spec = S.game_spec(o.game)
    restrictions = spec.report().restrictions
    if restrictions is None:
        raise UserError(f"{spec.title} has no restricted play yet")
    spec, registry, exp, tables = S.field_setup(o)
    if o.blocks < 2:
        raise UserError(f"--blocks must be at least 2; got {o.blocks}")
    start = o.strategy.strip()
    # unknown names fail before any work, and a forbidden card beyond the deck (issue 53)
    spec.check_effect(tables, [o.players], o.set_, registry.table_policies([start], o.players))
    cardlist = restrictions(tables)
    registry.make_policy(f"{start}:{cardlist[0][2]}")  # a policy without restricted play says so
    return spec, registry, exp, tables, cardlist


def _play(o: RestrictOptions, spec, registry, exp, tables, cardlist, run, t_start) -> str:
    """The restricted games inside `run`, then what it writes; returns the summary."""
    from reports import restrict as R
    from reports.tune import Problem
    from sim.core.runs import atomic_write_text, write_parquet

    n, start = o.players, o.strategy.strip()
    problem = Problem(spec.name, tables, n, start, "", {}, {}, [start] * (n - 1), o.seed,
                      registry)  # fmt: skip
    progress = S.GamesProgress((1 + len(cardlist)) * o.blocks * n, o.progress)
    with run, progress:
        run.seal(tables, o.presets)
        client = run.cluster(o.backend, o.scheduler, o.threads)
        store = run.store("cards")
        done = {first: load_array(store, first) for first, _ in store.completed()} \
            if store is not None else {}  # fmt: skip
        shares = R.play_restricted(
            problem, cardlist, blocks=o.blocks, seed=o.seed, client=client, done=done,
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
            o.seed,
            {"game": spec.name, "command": "restrict", **o.stored(), "expansions": list(exp),
             "cards": len(cardlist), "games": int(shares.size * n),
             **data_options(o.cards, o.set_, o.presets, run.out)},
            card_digest=card_digest(tables, o.cards, o.set_),
            timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        run.finish()
    return summary


def _save(store, first: int, count: int, part) -> None:
    """One finished batch of cards (a chunk of a resumable run)."""
    save_array(store, first, count, part)
