"""`abyss-mc tournament` as a run: the options checked, every player count's tournament, its
tables and summary, the game's extras (Abyss's fight rollouts), the play strengths (the tuned and
search tiers) and the card values of restricted play, the manifest and the report; each
tournament stored chunk by chunk so that `--resume` picks up there."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any, NamedTuple

from reports.run_dir import (
    Run,
    card_digest,
    data_options,
    data_paths,
    load_array,
    read_plan,
    save_array,
    schema_entry,
)
from reports.runs import setup as S
from reports.runs.options import TournamentOptions
from sim.core.errors import UserError
from sim.core.runs import read_table


class TournamentSetup(NamedTuple):
    """A tournament's options, checked and resolved (`o`: its crn, strengths and card blocks as
    played), its game, card data, expansions, strategies, player counts and their designs."""

    o: TournamentOptions
    spec: Any
    tables: Any
    exp: tuple[str, ...]
    names: list[str]
    counts: list[int]
    plans: dict
    t_start: float


def run(o: TournamentOptions) -> S.Output:
    """Check the options, play the tournament into a new (or the resumed) run directory."""
    run, o = S.start_or_resume("tournament", o)
    S.check_backend(o.backend, o.scheduler)
    if o.backend == "dask" and o.sequential is not None:
        raise UserError("--backend dask does not run --sequential tournaments; use local")
    setup = checked(o)
    if run is None:
        run = Run.start("tournament", o.out, o.seed, stored(setup))
    text, out_dir = play(setup, run)
    notes = [f"results: {out_dir}"]
    if o.report:
        table = out_dir / "report" / "verdicts.txt"  # the report's first screen
        if table.is_file():
            notes.append("\nverdicts (colours and details in the report):\n" + table.read_text())
        notes.append(f"report: {out_dir / 'report' / 'report.html'}")
    return S.Output(text, out_dir, tuple(notes))


def checked(o: TournamentOptions) -> TournamentSetup:
    """The options checked before any game (a one-line `UserError` each), the defaults that
    depend on the game resolved."""
    spec = S.game_spec(o.game)
    spec.play()  # a game without games of strategies says so here
    t_start = time.perf_counter()
    spec.strategies().use_presets(o.presets)
    exp = S.game_expansions(spec, o.expansions, spec.tournament_expansions)
    tables = spec.load_cards(o.cards, o.set_, exp)
    counts = (list(spec.play().player_counts(tables, exp)) if o.players == "all"
              else S.parse_player_counts(o.players))  # fmt: skip
    for n in counts:
        spec.check_players(tables, n, exp)
    _check_numbers(o)
    names = [p.strip() for p in (o.strategies or spec.default_tournament).split(",") if p.strip()]
    from reports.strengths import resolve_options

    strengths, card_blocks = resolve_options(spec, o.strengths, o.card_blocks, o.report,
                                             builtin=o.strategies is None, minutes=o.minutes)
    if strengths == "search" and min(o.search_blocks, o.search_rollouts) < 1:
        raise UserError("--search-blocks and --search-rollouts must be at least 1")
    from dataclasses import replace

    from reports.play.tournament import crn_mode, make_design

    o = replace(o, crn=crn_mode(o.crn), strengths=strengths, card_blocks=card_blocks)
    policies = [spec.strategies().make_policy(name) for name in names]  # fail before any work
    spec.check_effect(tables, counts, o.set_, policies)
    plans = {n: make_design(names, n, o.design) for n in counts}
    if o.resume is None:  # each strength played is a tournament of about this size
        from reports import strengths as St

        tiers = sum(St.plays(strengths, t) for t in (St.TUNED, St.LEARNED)) + 1
        per_block = sum(p.n_tables * n for n, p in plans.items())
        seat_games, most = tiers * o.blocks * per_block, max(counts)
        seconds = seat_games * (S.seat_seconds(spec, most, policies, expansions=exp) or 0.0)
        if St.plays(strengths, St.SEARCH):  # every seat a search player
            search = spec.strategies().make_policy(f"{St.SEARCH}:rollouts={o.search_rollouts}")
            per_seat = S.seat_seconds(spec, most, [search], expansions=exp) or 0.0
            seconds += o.search_blocks * per_block * per_seat
        restrictions = spec.report().restrictions
        if card_blocks and restrictions and not o.minutes:  # each tier's card values
            n = St.card_players(counts)  # the tier's best, unrestricted then without each card
            card_seat_games = tiers * (1 + len(restrictions(tables))) * card_blocks * n * n
            seconds += card_seat_games * (S.seat_seconds(spec, n, expansions=exp) or 0.0)
        S.check_size(spec, "tournament", seat_games, per_game=True, out=o.out, yes=o.yes,
                     threads=o.threads, seconds=seconds)  # fmt: skip
    return TournamentSetup(o, spec, tables, exp, names, counts, plans, t_start)


def _check_numbers(o: TournamentOptions) -> None:
    S.check_seed(o.seed)
    if o.blocks < 1:
        raise UserError(f"--blocks must be at least 1; got {o.blocks}")
    if o.fight_points < 0 or o.fight_points == 1:
        raise UserError(f"--fight-points must be 0 or at least 2; got {o.fight_points}")
    if o.sequential is not None and not 0 < o.sequential < 1:
        raise UserError(f"--sequential must be between 0 and 1; got {o.sequential}")


def stored(setup: TournamentSetup) -> dict:
    """What `--resume` needs to play the rest as the run was started (its plan;
    `TournamentOptions.from_plan` reads it)."""
    o = setup.o
    return {
        "strategies": ",".join(setup.names), "players": o.players, "blocks": o.blocks,
        "design": o.design, "crn": o.crn, "seed": o.seed, "report": o.report,
        "expansions": ",".join(setup.exp), "fight_points": o.fight_points,
        **data_paths(o.cards, o.set_, o.presets), "game": setup.spec.name,
        "sequential": o.sequential, "strengths": o.strengths, "card_blocks": o.card_blocks,
        "card_minutes": o.minutes, "search_blocks": o.search_blocks,
        "search_rollouts": o.search_rollouts,
    }  # fmt: skip


def play(setup: TournamentSetup, run) -> tuple[str, Path]:
    """The tournament inside `run`; returns (the summary, the run directory)."""
    o, spec, tables, exp, counts = setup.o, setup.spec, setup.tables, setup.exp, setup.counts
    if o.report:
        _compile_ahead(spec, exp, o.fight_points)
    with run:
        run.seal(tables, o.presets)
        if run.resumed:
            _clear_results(run)
        cluster = run.cluster(o.backend, o.scheduler, o.threads)
        from reports.play.tournament import run_tournament

        results, pool, looks, phases = {}, _pair_pool(setup), {}, Phases()
        for n in counts:
            with phases(f"{n}p tournament"):
                results[n] = _in_looks(spec, n, o.blocks, pool, looks, lambda b, n=n:
                                       run_tournament(
                    tables, setup.names, n_players=n, n_blocks=b, seed=o.seed, design=o.design,
                    crn=o.crn, threads=o.threads, progress=o.progress,
                    sequential_alpha=o.sequential, game=spec.name, store=run.store(f"{n}p"),
                    client=cluster))  # fmt: skip
        with phases("writing the tables"):
            text, n_games = _write(setup, run, results)
        extras = spec.report().tournament_extras
        with phases("extras (fight rollouts)"):
            extra_config = extras(
                tables, names=setup.names, counts=counts, seed=o.seed, expansions=exp,
                fight_points=o.fight_points, run_dir=run.dir,
            ) if extras is not None else {}  # fmt: skip
        extra_config |= _play_strengths(setup, results, run, cluster, pool, phases)
        if looks:
            extra_config["pair_looks"] = looks
        _manifest(setup, run, results, extra_config, n_games, phases)
        if o.report:
            with phases("the report"):
                spec.report().write_report(run.dir, run.dir / "report")
            _manifest(setup, run, results, extra_config, n_games, phases)  # (with its time)
        run.finish()
    return text, run.out


def _clear_results(run) -> None:
    """A resumed run writes every result again (the tournaments' and card values' from their
    chunks, the fight rollouts played again): what the interrupted run wrote is removed first,
    its chunks and plan kept. A part that makes its folder anew (Abyss's fight_or_explore/)
    failed with "File exists" when the run was interrupted after it (issue 53)."""
    import shutil

    from reports.run_dir import CHUNKS_NAME, PLAN_NAME

    for path in run.dir.iterdir():
        if path.name in (CHUNKS_NAME, PLAN_NAME):
            continue
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def _write(setup: TournamentSetup, run, results: dict) -> tuple[str, int]:
    """The seats and games of every player count, their aggregates and the summary; returns
    (the summary, the number of games)."""
    import pandas as pd

    from reports.play.tournament import tournament_text
    from sim.core.runs import atomic_write_text, write_parquet

    typed = [setup.spec.play().tournament_frames(r.seats, r.games) for r in results.values()]
    games_df = pd.concat([t[1] for t in typed], ignore_index=True)
    write_parquet(pd.concat([t[0] for t in typed], ignore_index=True), run.dir / "seats.parquet")
    write_parquet(games_df, run.dir / "games.parquet")
    one = len(setup.counts) == 1
    for n, r in results.items():
        if r.aggregates is not None:
            r.aggregates.save(run.dir / ("aggregates.npz" if one else f"aggregates-{n}p.npz"))
    text = "".join((f"== {n} players ==\n" if not one else "") + tournament_text(r)
                   for n, r in results.items())  # fmt: skip
    atomic_write_text(run.dir / "summary.txt", text)
    return text, len(games_df)


class Phases(dict):
    """Wall seconds of each phase of a run, in the order played (the manifest's
    `timings.phases`: where a report's time goes, docs/benchmarks.md)."""

    @contextlib.contextmanager
    def __call__(self, name: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self[name] = round(self.get(name, 0.0) + time.perf_counter() - t0, 3)


def _manifest(setup: TournamentSetup, run, results: dict, extra_config: dict,
              n_games: int, phases: dict | None = None) -> None:  # fmt: skip
    o, counts, plans = setup.o, setup.counts, setup.plans
    one = len(counts) == 1
    run.write_manifest(
        o.seed,
        {"game": setup.spec.name, "command": "tournament", **extra_config,
         "n_players": counts[0] if one else counts, "strategies": setup.names,
         "blocks": results[counts[0]].n_blocks if one
         else {n: r.n_blocks for n, r in results.items()},
         "blocks_budget": o.blocks,
         "tables": plans[counts[0]].n_tables if one else {n: p.n_tables for n, p in plans.items()},
         "n_games": int(n_games), "design": o.design, "crn": o.crn, "sequential": o.sequential,
         "stopped_early": all(r.stopped_early for r in results.values()), "seed": o.seed,
         "expansions": list(setup.exp), **data_options(o.cards, o.set_, o.presets, run.out)},
        card_digest=card_digest(setup.tables, o.cards, o.set_),
        timings={"total": time.perf_counter() - setup.t_start,
                 "runner": {str(n): r.timings for n, r in results.items()},
                 "phases": dict(phases or {})},
        extra=schema_entry(setup.spec),
    )  # fmt: skip


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
    o = setup.o
    if not o.minutes or o.sequential is not None:
        return None
    from reports import budget as Q
    from reports import strengths as St

    tiers = 1 + sum(St.plays(o.strengths, t) for t in (St.TUNED, St.LEARNED))
    return Q.Pool(o.minutes * 60 * PAIR_SHARE, tiers * len(setup.counts))


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
    """Whether a tournament's best strategy is a finding at level `conf`
    (`reports.sections.verdicts`)."""

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


def _play_strengths(setup: TournamentSetup, results, run, cluster, pool,
                    phases: Phases) -> dict:  # fmt: skip
    """The tuned tier's tournaments (strengths/tuned/), the learned and search tiers'
    (strengths/learned/, strengths/search/)
    and the card values of the tiers of presets (card_values/<tier>/): `reports.strengths`.
    The manifest's entries (with the tuned tier: `tuned_versions`, player count -> strategy ->
    its tuned version or None, for the report's note on those without)."""

    o, spec, tables, expansions, names, counts = (setup.o, setup.spec, setup.tables, setup.exp,
                                                  setup.names, setup.counts)  # fmt: skip
    blocks, seed, design, crn, threads = o.blocks, o.seed, o.design, o.crn, o.threads
    strengths, card_blocks = o.strengths, o.card_blocks
    fight_points = o.fight_points
    from reports import strengths as St
    from reports.play.seeds import card_seed, purposes, tier_seed
    from reports.play.tournament import run_tournament

    registry = spec.strategies()
    tiers = {St.HAND if not any(St.is_tuned(s) for s in names) else "as run": (names, results)}

    def play_tier(tier, lineups, n_blocks, budget=None):
        looks, own, played = {}, tier_seed(seed, tier), {}  # deals of its own (`.play.seeds`)
        for n, lineup in lineups.items():
            with phases(f"{tier}: {n}p tournament"):
                played[n] = _in_looks(spec, n, n_blocks, budget, looks, lambda b, n=n,
                                      lineup=lineup: run_tournament(
                    tables, lineup, n_players=n, n_blocks=b, seed=own, design=design, crn=crn,
                    threads=threads, progress=o.progress, game=spec.name,
                    store=run.store(f"{tier}-{n}p"), client=cluster,
                ))  # fmt: skip
        if played:
            with phases(f"{tier}: tables and extras"):
                _write_tier(spec, tables, run, tier, lineups, played, seed=own,
                            expansions=expansions, fight_points=fight_points,
                            pair_looks=looks)  # fmt: skip
        return played

    versions = {}
    if St.plays(strengths, St.TUNED):
        versions = {str(n): St.tuned_versions(registry, names, n) for n in counts}
        tuned_lineups = {n: St.tuned_lineup(registry, names, n) for n in counts}
        tuned_lineups = {n: lineup for n, lineup in tuned_lineups.items() if lineup}
        tuned = play_tier(St.TUNED, tuned_lineups, blocks, pool)
        if tuned:
            tiers[St.TUNED] = (sorted({s for x in tuned_lineups.values() for s in x}), tuned)
        seats = read_table(run.dir / St.TUNED_DIR / "seats.parquet") if tuned else None
        learned_seats = None
        if St.plays(strengths, St.LEARNED) and tuned:
            lineups = {n: St.learned_lineup(registry, tuned_lineups[n], n) for n in tuned}
            lineups = {n: lineup for n, lineup in lineups.items() if lineup}
            learned = play_tier(St.LEARNED, lineups, blocks, pool)
            if learned:
                tiers[St.LEARNED] = (sorted({s for x in lineups.values() for s in x}), learned)
                learned_seats = read_table(run.dir / St.LEARNED_DIR / "seats.parquet")
        if St.plays(strengths, St.SEARCH) and tuned:
            n_blocks, rollouts = o.search_blocks, o.search_rollouts
            lineups = {n: St.search_lineup(seats, n, rollouts, learned_seats) for n in tuned}
            play_tier(St.SEARCH, lineups, n_blocks)
    budget = {}
    if card_blocks:  # not the search tier's: restricted play of a search player costs hours
        cards = None
        if o.minutes:  # the rest of the budget and what the looks left unspent, tier by tier
            from reports import budget as Q

            cards = Q.Pool(o.minutes * 60 * (1 - PAIR_SHARE) + (pool.left() if pool else 0.0),
                           len(tiers))  # fmt: skip
            budget = {"seconds": o.minutes * 60, "looks": round(pool.spent(), 1) if pool else 0}
        for tier, (_, res) in tiers.items():
            with phases(f"{tier}: card values"):
                _card_values(spec, tables, run, cluster, tier, res, card_blocks,
                             card_seed(seed, tier), o.progress,
                             cards.share() if cards else None)  # fmt: skip
            if cards:
                cards.spend(phases[f"{tier}: card values"])
        if cards:
            budget["card values"] = round(cards.spent(), 1)
            budget["spent"] = round(budget["looks"] + budget["card values"], 1)
    played = list(tiers) + ([St.SEARCH] if (run.dir / St.SEARCH_DIR).is_dir() else [])
    return {"strengths": played, "card_blocks": card_blocks, "card_minutes": o.minutes,
            "purposes": purposes(seed, played), **({"budget": budget} if budget else {}),
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
               fight_points=fight_points, run_dir=d, headline_only=True)  # fmt: skip
    plan = read_plan(run.dir)  # the run's card data and options
    manifest = St.tier_manifest({**plan, "expansions": list(expansions), "seed": seed}, tier,
                                lineups, len(games), pair_looks)  # fmt: skip
    atomic_write_text(d / "manifest.json", json.dumps(manifest, indent=1) + "\n")


def _card_values(spec, tables, run, cluster, tier, results, card_blocks, seed,
                 show: bool, seconds=None) -> None:  # fmt: skip
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
    progress = S.GamesProgress((1 + len(cardlist)) * card_blocks * n, show)
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
    from reports import budget as Q
    from reports import restrict as R
    from reports import strengths as St
    from reports.probe import play_rows
    from reports.tune import derived_seed

    specs = R.restricted_specs(problem.start, cardlist)
    fresh_store = run.store(f"cards-{tier}-fresh")
    fresh_done = {k: load_array(fresh_store, k) for k, _ in fresh_store.completed()} \
        if fresh_store is not None else {}  # fmt: skip

    # Every table is played here (skip=False): the budget's planner (`Q.last_look`) prices every
    # row alike, but with the skip the unrestricted row costs about 6 times a restricted one, so
    # a late look with few rows, or a confirmation, would cost more than it planned.
    def play(rows, first, count):
        if first in done and done[first].shape == (len(rows), count):
            return done[first]
        part = play_rows(problem, [specs[r] for r in rows], seed=seed, first_block=first,
                         n_blocks=count, client=cluster, skip=False)  # fmt: skip
        if store is not None:
            save_array(store, first, count, part)
        return part

    def confirm(rows, count, look):  # (one chunk per look: keys that never overlap)
        if look in fresh_done and fresh_done[look].shape == (len(rows), count):
            return fresh_done[look]
        part = play_rows(problem, [specs[r] for r in rows], seed=derived_seed(seed, Q.CONFIRM),
                         n_blocks=count, client=cluster, skip=False)  # fmt: skip
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
