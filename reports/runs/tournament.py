"""`abyss-mc tournament` as a run: every player count's tournament, its tables and summary, the
game's extras (Abyss's fight rollouts), the play strengths (the tuned and search tiers) and the
card values of restricted play, the manifest and the report; each tournament stored chunk by
chunk so that `--resume` picks up there. The command parses and checks the options."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

from reports.run_dir import (
    card_digest,
    data_options,
    load_array,
    read_plan,
    save_array,
    schema_entry,
)


class TournamentSetup(NamedTuple):
    """A tournament's options as the command resolved and checked them."""

    spec: Any
    tables: Any
    exp: tuple[str, ...]
    names: list[str]
    counts: list[int]
    plans: dict
    blocks: int
    seed: int
    design: str
    crn: str
    sequential: float | None
    strengths: str
    card_blocks: int
    search: tuple[int, int]  # the search tier's blocks and rollouts
    fight_points: int
    report: bool
    cards: Any
    set_: Any
    presets: Any
    threads: int | None
    t_start: float
    #: a time budget for the card values (minutes over all tiers; `reports.budget`)
    card_minutes: float | None = None


def play(setup: TournamentSetup, run, backend, scheduler, progress) -> tuple[str, Path]:
    """The tournament inside `run` (`progress(total)`: a progress bar over that many games);
    returns (the summary, the run directory)."""
    (spec, tables, exp, names, counts, plans, blocks, seed, design, crn, sequential, _, _, _,
     fight_points, report, cards, set_, presets, threads, t_start, _) = setup  # fmt: skip
    out_dir = run.out
    if report:
        _compile_ahead(spec, exp, fight_points)
    with run:
        run.seal(tables, presets)
        cluster = run.cluster(backend, scheduler, threads)
        import pandas as pd

        from reports.play.tournament import run_tournament, tournament_text
        from sim.core.runs import atomic_write_text, write_parquet

        results, pool, looks = {}, _pair_pool(setup), {}
        for n in counts:
            results[n] = _in_looks(spec, n, blocks, pool, looks, lambda b, n=n: run_tournament(
                tables, names, n_players=n, n_blocks=b, seed=seed, design=design, crn=crn,
                threads=threads, progress=sys.stderr.isatty(), sequential_alpha=sequential,
                game=spec.name, store=run.store(f"{n}p"), client=cluster))  # fmt: skip
        typed = [spec.play().tournament_frames(r.seats, r.games) for r in results.values()]
        seats_df = pd.concat([t[0] for t in typed], ignore_index=True)
        games_df = pd.concat([t[1] for t in typed], ignore_index=True)
        write_parquet(seats_df, run.dir / "seats.parquet")
        write_parquet(games_df, run.dir / "games.parquet")
        for n, r in results.items():
            if r.aggregates is not None:
                name = "aggregates.npz" if len(counts) == 1 else f"aggregates-{n}p.npz"
                r.aggregates.save(run.dir / name)
        text = "".join(
            (f"== {n} players ==\n" if len(counts) > 1 else "") + tournament_text(r)
            for n, r in results.items()
        )
        atomic_write_text(run.dir / "summary.txt", text)
        extras = spec.report().tournament_extras
        extra_config = extras(
            tables, names=names, counts=counts, seed=seed, expansions=exp,
            fight_points=fight_points, run_dir=run.dir,
        ) if extras is not None else {}  # fmt: skip
        extra_config |= _play_strengths(setup, results, run, cluster, progress, pool)
        if looks:
            extra_config["pair_looks"] = looks
        one = len(counts) == 1
        run.write_manifest(
            seed,
            {
                "game": spec.name,
                "command": "tournament",
                **extra_config,
                "n_players": counts[0] if one else counts,
                "strategies": names,
                "blocks": results[counts[0]].n_blocks
                if one
                else {n: r.n_blocks for n, r in results.items()},
                "blocks_budget": blocks,
                "tables": plans[counts[0]].n_tables
                if one
                else {n: p.n_tables for n, p in plans.items()},
                "n_games": int(len(games_df)),
                "design": design,
                "crn": crn,
                "sequential": sequential,
                "stopped_early": all(r.stopped_early for r in results.values()),
                "seed": seed,
                "expansions": list(exp),
                **data_options(cards, set_, presets, out_dir),
            },  # fmt: skip
            card_digest=card_digest(tables, cards, set_),
            timings={
                "total": time.perf_counter() - t_start,
                "runner": {str(n): r.timings for n, r in results.items()},
            },
            extra=schema_entry(spec),
        )
        if report:
            spec.report().write_report(run.dir, run.dir / "report")
        run.finish()
    return text, out_dir


def _compile_ahead(spec, exp, fight_points: int) -> None:
    """A cold run compiles the report's other parts (Abyss's fight rollouts) in the background,
    on the core its tournament's compile leaves free (issue 33)."""
    from sim.core.firstrun import cold_start_allowed, compile_part_in_background, is_compiled

    ahead = spec.report().compile_ahead
    if ahead is None or not cold_start_allowed():
        return
    for label, target in ahead(exp, fight_points).items():
        if not is_compiled(label):
            compile_part_in_background(label, target)


#: The share of `--minutes` for the best strategy's looks (`reports.budget.extend`); the
#: card values get the rest, with what the looks left unspent.
PAIR_SHARE = 0.5


def _pair_pool(setup: TournamentSetup):
    """With `--minutes`: the pairs' share of the budget, split among the tournaments that may
    play more blocks (each player count of the run and of its tuned and learned tiers; not the
    search tier's); else None."""
    if not setup.card_minutes or setup.sequential is not None:
        return None
    from reports import budget as Q
    from reports import strengths as St

    tiers = 1 + sum(St.plays(setup.strengths, t) for t in (St.TUNED, St.LEARNED))
    return Q.Pool(setup.card_minutes * 60 * PAIR_SHARE, tiers * len(setup.counts))


def _in_looks(spec, n: int, blocks: int, pool, looks: dict, play_to):
    """One player count's tournament (`play_to(blocks)`): `blocks` blocks, or, with a budget
    (`pool`), in looks while its best strategy is not told apart (`reports.budget.extend`;
    the looks recorded in `looks[str(n)]`). A line-up of one strategy has no best to tell."""
    if pool is None:
        return play_to(blocks)
    from reports import budget as Q

    result, how = Q.extend(play_to, _best_told(spec, n), blocks, seconds=pool.share())
    pool.spend(how.seconds)
    looks[str(n)] = how.config()
    return result


def _best_told(spec, n: int):
    """Whether a tournament's best strategy is a finding at level `conf` (`reports.sections.verdicts`)."""

    def told(result, conf: float) -> bool:
        import pandas as pd

        from reports.sections.verdicts import best_strategy_blocks

        seats = pd.DataFrame(spec.play().tournament_frames(result.seats, result.games)[0])
        if "ip" not in seats and "score" in seats:
            seats = seats.rename(columns={"score": "ip"})
        seats["strategy"] = seats["strategy"].astype(str)
        if seats["strategy"].nunique() < 2:
            return True
        return best_strategy_blocks(seats, n, conf).finding

    return told


def _play_strengths(setup: TournamentSetup, results, run, cluster, progress,
                    pool=None) -> dict:  # fmt: skip
    """The tuned tier's tournaments (strengths/tuned/), the learned and search tiers'
    (strengths/learned/, strengths/search/)
    and the card values of the tiers of presets (card_values/<tier>/): `reports.strengths`.
    The manifest's entries (with the tuned tier: `tuned_versions`, player count -> strategy ->
    its tuned version or None, for the report's note on those without)."""
    import pandas as pd

    spec, tables, expansions, names, counts = (setup.spec, setup.tables, setup.exp, setup.names,
                                               setup.counts)  # fmt: skip
    blocks, seed, design, crn, threads = (setup.blocks, setup.seed, setup.design, setup.crn,
                                          setup.threads)  # fmt: skip
    strengths, card_blocks, search = setup.strengths, setup.card_blocks, setup.search
    fight_points = setup.fight_points
    from reports import strengths as St
    from reports.play.seeds import card_seed, purposes, tier_seed
    from reports.play.tournament import run_tournament

    registry = spec.strategies()
    tiers = {St.HAND if not any(St.is_tuned(s) for s in names) else "as run": (names, results)}

    def play_tier(tier, lineups, n_blocks, budget=None):
        looks, own = {}, tier_seed(seed, tier)  # deals of its own (`reports.play.seeds`)
        played = {n: _in_looks(spec, n, n_blocks, budget, looks, lambda b, n=n, lineup=lineup:
                               run_tournament(
            tables, lineup, n_players=n, n_blocks=b, seed=own, design=design, crn=crn,
            threads=threads, progress=sys.stderr.isatty(), game=spec.name,
            store=run.store(f"{tier}-{n}p"), client=cluster,
        )) for n, lineup in lineups.items()}  # fmt: skip
        if played:
            _write_tier(spec, tables, run, tier, lineups, played, seed=own,
                        expansions=expansions, fight_points=fight_points,
                        pair_looks=looks)  # fmt: skip
        return played

    versions = {}
    if St.plays(strengths, St.TUNED):
        versions = {str(n): St.tuned_versions(registry, names, n) for n in counts}
        lineups = {n: St.tuned_lineup(registry, names, n) for n in counts}
        lineups = {n: lineup for n, lineup in lineups.items() if lineup}
        tuned = play_tier(St.TUNED, lineups, blocks, pool)
        if tuned:
            tiers[St.TUNED] = (sorted({s for x in lineups.values() for s in x}), tuned)
        seats = pd.read_parquet(run.dir / St.TUNED_DIR / "seats.parquet") if tuned else None
        if St.plays(strengths, St.LEARNED) and tuned:
            lineups = {n: St.learned_lineup(registry, seats, n) for n in tuned}
            lineups = {n: lineup for n, lineup in lineups.items() if lineup}
            learned = play_tier(St.LEARNED, lineups, blocks, pool)
            if learned:
                tiers[St.LEARNED] = (sorted({s for x in lineups.values() for s in x}), learned)
        if St.plays(strengths, St.SEARCH) and tuned:
            n_blocks, rollouts = search
            lineups = {n: St.search_lineup(seats, n, rollouts) for n in tuned}
            play_tier(St.SEARCH, lineups, n_blocks)
    if card_blocks:  # not the search tier's: restricted play of a search player costs hours
        seconds = None
        if setup.card_minutes:  # the rest of the budget and what the looks left unspent
            left = setup.card_minutes * 60 * (1 - PAIR_SHARE) + (pool.left() if pool else 0.0)
            seconds = left / len(tiers)
        for tier, (_, res) in tiers.items():
            _card_values(spec, tables, run, cluster, tier, res, card_blocks,
                         card_seed(seed, tier), progress, seconds)  # fmt: skip
    played = list(tiers) + ([St.SEARCH] if (run.dir / St.SEARCH_DIR).is_dir() else [])
    return {"strengths": played, "card_blocks": card_blocks, "card_minutes": setup.card_minutes,
            "purposes": purposes(seed, played),
            **({"tuned_versions": versions} if versions else {})}  # fmt: skip


def _write_tier(spec, tables, run, tier, lineups, results, *, seed, expansions,
                fight_points, pair_looks=None):  # fmt: skip
    import json
    import shutil

    import pandas as pd

    from reports import strengths as St
    from reports.play.tournament import tournament_text
    from sim.core.runs import atomic_write_text, write_parquet

    d = run.dir / "strengths" / tier
    shutil.rmtree(d, ignore_errors=True)  # a resumed run writes it again from its chunks
    d.mkdir(parents=True)
    typed = [spec.play().tournament_frames(r.seats, r.games) for r in results.values()]
    games = pd.concat([x[1] for x in typed], ignore_index=True)
    write_parquet(pd.concat([x[0] for x in typed], ignore_index=True), d / "seats.parquet")
    write_parquet(games, d / "games.parquet")
    for n, r in results.items():
        if r.aggregates is not None:
            r.aggregates.save(d / f"aggregates-{n}p.npz")
    text = "".join(f"== {n} players, {St.title(tier)} ==\n" + tournament_text(r)
                   for n, r in results.items())  # fmt: skip
    atomic_write_text(d / "summary.txt", text)
    extras = spec.report().tournament_extras
    if extras is not None and tier != St.SEARCH:  # the fight rollouts fork no search player
        n = St.card_players(list(lineups))
        extras(tables, names=lineups[n], counts=[n], seed=seed, expansions=expansions,
               fight_points=fight_points, run_dir=d)  # fmt: skip
    plan = read_plan(run.dir)  # the run's card data and options
    manifest = St.tier_manifest({**plan, "expansions": list(expansions), "seed": seed}, tier,
                                lineups, len(games), pair_looks)  # fmt: skip
    atomic_write_text(d / "manifest.json", json.dumps(manifest, indent=1) + "\n")


def _card_values(spec, tables, run, cluster, tier, results, card_blocks, seed,
                 make_progress, seconds=None) -> None:  # fmt: skip
    """The tier's best strategy at the card count, forbidden each card in turn: `card_blocks`
    deals each, or, with a time budget of `seconds`, sequentially (`_card_values_timed`)."""
    import pandas as pd

    from reports import restrict as R
    from reports import strengths as St
    from reports.tune import Problem

    n = St.card_players(list(results))
    seats = spec.play().tournament_frames(results[n].seats, results[n].games)[0]
    best = St.best_of(pd.DataFrame(seats), n)
    registry = spec.strategies()
    cardlist = spec.report().restrictions(tables)
    problem = Problem(spec.name, tables, n, best, "", {}, {}, [best] * (n - 1), seed, registry)
    store = run.store(f"cards-{tier}")
    done = {first: load_array(store, first) for first, _ in store.completed()} \
        if store is not None else {}  # fmt: skip
    if seconds is not None:
        _card_values_timed(run, tier, problem, cardlist, seed, cluster, store, done, seconds)
        return
    progress = make_progress((1 + len(cardlist)) * card_blocks * n)
    with progress:
        shares = R.play_restricted(
            problem, cardlist, blocks=card_blocks, seed=seed, client=cluster, done=done,
            save=(lambda f, k, part: save_array(store, f, k, part)) if store else None,
            progress=progress,
        )  # fmt: skip
    St.save_card_values(run.dir / St.CARDS_DIR / tier, R.impact_frame(cardlist, shares, n),
                        strategy=best, players=n, unrestricted=float(shares[0].mean()),
                        blocks=card_blocks)  # fmt: skip


def _card_values_timed(run, tier, problem, cardlist, seed, cluster, store, done,
                       seconds) -> None:  # fmt: skip
    """Card values on a time budget (`reports.budget`): the looks' deals go to the cards
    still undecided, and the cards a look decides are confirmed on fresh deals (stream
    `Q.CONFIRM` of the seed). Each look's shares are a chunk of the run (key: the look's first
    deal; `done`: those stored; a confirmation's in the store `-fresh`, key: its look), so a
    resumed run replays the decisions from them and goes on."""
    from reports import restrict as R
    from reports import budget as Q
    from reports import strengths as St
    from reports.tune import derived_seed, evaluate

    specs = R.restricted_specs(problem.start, cardlist)
    fresh_store = run.store(f"cards-{tier}-fresh")
    fresh_done = {k: load_array(fresh_store, k) for k, _ in fresh_store.completed()} \
        if fresh_store is not None else {}  # fmt: skip

    def play(rows, first, count):
        if first in done and done[first].shape == (len(rows), count):
            return done[first]
        part = evaluate(problem, [specs[r] for r in rows], seed=seed, first_block=first,
                        n_blocks=count, client=cluster)  # fmt: skip
        if store is not None:
            save_array(store, first, count, part)
        return part

    def confirm(rows, count, look):  # (one chunk per look: keys that never overlap)
        if look in fresh_done and fresh_done[look].shape == (len(rows), count):
            return fresh_done[look]
        part = evaluate(problem, [specs[r] for r in rows], seed=derived_seed(seed, Q.CONFIRM),
                        n_blocks=count, client=cluster)  # fmt: skip
        if fresh_store is not None:
            save_array(fresh_store, look, 1, part)
        return part

    result = Q.run(play, len(cardlist), confirm=confirm, seconds=seconds)
    df = Q.impact_frame(cardlist, result, problem.n_players)
    played = int(result.deals.max())  # (the unrestricted strategy plays every look)
    St.save_card_values(run.dir / St.CARDS_DIR / tier, df, strategy=problem.start,
                        players=problem.n_players,
                        unrestricted=float(result.shares[0, :played].mean()), blocks=played,
                        looks=result.looks, stopped_by=result.stopped_by)  # fmt: skip
