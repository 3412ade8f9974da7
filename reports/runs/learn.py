"""Expert iteration (`abyss-mc learn`, docs/learned.md): the search labels decisions, a learned
player imitates it, and the next search plays it as its rollout policy.

Each iteration plays search games against one or more fields (seats rotated), records every
decision of the search seat that the learned player scores (the game's LEARN module), fits the
scorer on most of the games (`reports.learned_fit`), checks it on the held-out games (agreement
with the search, the search's reward of its picks) and measures its strength against the fields
(every game a new deal, seats rotated). The weights of each iteration are written as a file the
`learned:weights=FILE` strategy plays; the next iteration's search models its own seat (and,
with `opponents=rollout`, every seat) by them.

Deals that choose never report (`reports.play.seeds`): the records, which choose the weights, play
the run's seed (`DEALS`); the strength, which reports, a stream of its own, and it chooses
nothing: the last iteration is shipped, whatever the curve, and compared with its base on the
same deals, paired by deal (`gain_over_base`). Every number reproduces from the seed.
"""

from __future__ import annotations

import json
import os
import textwrap
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

import numpy as np
import pandas as pd

from reports import learned_fit as F
from reports.play import seeds as S
from sim.core.errors import UserError

#: the records of iteration i are games DEALS * i on (of the run's seed); every strength is
#: measured on the same games 0 on of `strength_seed` (a stream of its own)
DEALS = 10_000_000


@dataclass
class LearnSetup:
    spec: object
    tables: object
    expansions: tuple
    n_players: int
    fields: list[list[str]]  # the opponents' line-ups (each n_players - 1 specs), in turn
    base: str  # the learned player's base heuristic, the first search's rollout policy
    seed: int
    iterations: int
    record_games: int
    rollouts: int
    strength_games: int
    out: Path | None  # the run's staging, once it has started
    progress: object = None
    #: the fit's soft target (`learned_fit.TARGETS`): the search's visit shares imitated it best
    #: (docs/learned.md: 30% against 25% for the mean rewards' and the choices' targets)
    target: str = "visits"
    penalty: float = F.DEFAULT_PENALTY
    #: the search's model of the opponents (`SearchPlayer.opponents`): their own strategies,
    #: so its labels answer each field, not copies of itself (docs/learned.md)
    opponents: str = "own"
    #: a Dask client (`--backend dask`): the search's games are played on the cluster
    client: object = None


def strength_seed(seed: int) -> int:
    """The deals of every strength measurement of a run of `seed`: its own stream
    (`reports.play.seeds.LEARN_STRENGTH`), never the records' deals, which choose the weights."""
    return S.derived_seed(seed, S.LEARN_STRENGTH)


def seed_purposes(setup: LearnSetup) -> dict[str, dict]:
    """The seeds of a run by purpose, which choose and which report (for its manifest)."""
    per_record = -(-setup.record_games // (setup.n_players * len(setup.fields)))
    n_records = per_record * setup.n_players * len(setup.fields)
    return {
        "records (choose the weights)": {
            "seed": setup.seed,
            "games": f"{DEALS:,} x iteration + 0 to {n_records - 1:,}",
            "held out (agreement; chooses nothing)": "a fifth of each iteration's games, drawn "
                                                     "by seed + iteration"},
        "strength (reports; chooses nothing, the last iteration is shipped)": {
            "seed": strength_seed(setup.seed),
            "games": f"0 to {_per_field(setup) - 1:,} against each field"},
    }  # fmt: skip


def win_share(seats: pd.DataFrame, name: str) -> tuple[float, float, int]:
    """The mean share of the win of the seats of `name` (ties shared), its 95% half-width and
    the number of such seats."""
    first = (seats["rank"] == 1).astype(float)
    share = first / first.groupby(seats["game"]).transform("sum")
    mine = share[seats["strategy"] == name].to_numpy()
    half = 1.96 * mine.std(ddof=1) / np.sqrt(len(mine)) if len(mine) > 1 else np.nan
    return float(mine.mean()), float(half), len(mine)


def game_shares(seats: pd.DataFrame, name: str) -> np.ndarray:
    """The share of each game's win (ties shared) of the seat of `name`, by game: the unit that
    pairs two players on the same deals."""
    first = (seats["rank"] == 1).astype(float)
    share = first / first.groupby(seats["game"]).transform("sum")
    mine = seats["strategy"] == name
    return share[mine].groupby(seats.loc[mine, "game"]).sum().sort_index().to_numpy()


def _per_field(setup: LearnSetup) -> int:
    """The strength's deals against each field."""
    return -(-setup.strength_games // len(setup.fields))


def strength_games(setup: LearnSetup, player: str) -> int:
    """The games `strength` plays for `player` (none against a field of itself)."""
    return _per_field(setup) * sum(not _is_own_field(player, f) for f in setup.fields)


def record_games(setup: LearnSetup) -> int:
    """The search games an iteration records (a whole number per field and seat)."""
    per_record = -(-setup.record_games // (setup.n_players * len(setup.fields)))
    return per_record * setup.n_players * len(setup.fields)


def total_games(setup: LearnSetup) -> int:
    """Every game a run plays: each iteration's records and strength, the base's, and the
    shipped player's and the base's again, paired (`gain_over_base`)."""
    learned, base = strength_games(setup, "learned"), strength_games(setup, setup.base)
    return setup.iterations * (record_games(setup) + learned) + 2 * base + learned


def check_size(setup: LearnSetup, o) -> None:
    """Before a run of more than an hour (`reports.runs.setup.check_size`): the records' games
    have a search seat, whose rollouts cost most; the strength games are heuristics'."""
    from reports.runs import setup as S

    n, registry = setup.n_players, setup.spec.strategies()
    search = registry.make_policy(f"search:rollouts={setup.rollouts}")
    records = setup.iterations * record_games(setup)
    lineup = [search] + [registry.make_policy(setup.base)] * (n - 1)
    seconds = n * (records * S.seat_seconds(setup.spec, n, lineup, expansions=setup.expansions)
                   + (total_games(setup) - records) * S.seat_seconds(setup.spec, n))
    S.check_size(setup.spec, "learning run", total_games(setup) * n, per_game=False, out=o.out,
                 yes=o.yes, seconds=seconds)  # fmt: skip


def open_fields(registry, n_players: int) -> list[list[str]]:
    """Each open preset of the count (`<preset>_open_<n>p`), in every opponent's seat: the
    fields a learned player must answer."""
    names = sorted(s for s in registry.strategy_names() if s.endswith(f"_open_{n_players}p"))
    if not names:
        raise UserError(f"no open presets at {n_players} players")
    return [[name] * (n_players - 1) for name in names]


def _is_own_field(player: str, field: list[str]) -> bool:
    return set(field) == {player}


def field_games(setup: LearnSetup, player: str) -> list[np.ndarray | None]:
    """`player` in one seat, each field in the others, seats rotated, on the strength's deals
    (`strength_seed`: the same for every player, none a deal the records came from),
    `strength_games` split among the fields: its share of each game, by field; None where the
    field is its own strategy (its share there is 1/n by symmetry)."""
    play = setup.spec.play()
    registry = setup.spec.strategies()
    per_field = _per_field(setup)
    out = []
    for field in setup.fields:
        if _is_own_field(player, field):
            out.append(None)
            continue
        policies = registry.make_policies([player, *field], setup.n_players)
        played = play.run_games(setup.tables, engine="fast", n_players=setup.n_players,
                                n_games=per_field, seed=strength_seed(setup.seed),
                                policies=policies, expansions=setup.expansions)  # fmt: skip
        if setup.progress is not None:
            setup.progress(per_field)
        out.append(game_shares(played.seats, policies[0].name))
    return out


def by_deal(setup: LearnSetup, games: list[np.ndarray | None]) -> np.ndarray:
    """float[fields, deals]: `field_games`' shares, 1/n where the field is the player's own.
    Every field plays the same deals (a deal is its seed and game, whatever the line-up), so a
    column is one deal: the unit of every interval over the fields."""
    n = _per_field(setup)
    return np.array([np.full(n, 1 / setup.n_players) if x is None else x for x in games])


def _half(x: np.ndarray) -> float:
    """The 95% half-width of the mean of `x` (nan below two values)."""
    return float(1.96 * x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else np.nan


def _mean_by_deal(rows: np.ndarray) -> tuple[float, float]:
    """The mean over the fields (rows) and its 95% half-width, the deal (column) as the unit."""
    per_deal = rows.mean(axis=0)
    return float(per_deal.mean()), _half(per_deal)


def strength(setup: LearnSetup, player: str) -> dict:
    """`player` against each field (`field_games`): the mean share over the fields (its 95%
    half-width, by deal), the worst field's, and each field's."""
    games = field_games(setup, player)
    rows = by_deal(setup, games)
    shares = [1 / setup.n_players if x is None else float(x.mean()) for x in games]
    halves = [0.0 if x is None else _half(x) for x in games]
    worst = int(np.argmin(shares))
    share, half = _mean_by_deal(rows)
    return {"win_share": share, "half_width": half,
            "worst_share": shares[worst], "worst_half_width": halves[worst],
            "worst_field": ",".join(setup.fields[worst]),
            "games": sum(0 if x is None else len(x) for x in games),
            "field_shares": shares}  # fmt: skip


def paired_gain(differences: np.ndarray) -> tuple[float, float, int]:
    """float[fields, deals] of differences by deal, the same deals against every field: the
    mean over the fields, its 95% half-width with the deal as the unit (a deal's differences
    against the fields are not independent) and the deals."""
    rows = np.asarray(differences, dtype=float)
    gain, half = _mean_by_deal(rows)
    return gain, half, rows.shape[1]


def against_base(gain: float, half: float) -> str:
    """What a paired gain's interval says: a side only when the whole interval is on it."""
    if gain - half > 0:
        return "stronger than its base"
    if gain + half < 0:
        return "weaker than its base"
    return "cannot tell it from its base"


def gain_over_base(setup: LearnSetup, player: str) -> dict:
    """`player` minus the base on the strength's deals, paired by deal, field by field (where a
    field is one of them, that one's share is 1/n by symmetry); the mean over the fields."""
    mine, base = field_games(setup, player), field_games(setup, setup.base)
    both = [k for k, (x, y) in enumerate(zip(mine, base, strict=True))
            if x is not None or y is not None]  # fmt: skip
    differences = (by_deal(setup, mine) - by_deal(setup, base))[both]
    gain, half, deals = paired_gain(differences)
    return {"gain": gain, "half_width": half, "deals": deals, "fields": len(both),
            "verdict": against_base(gain, half)}  # fmt: skip


def records(setup: LearnSetup, rollout: str, weights: str, first_game: int) -> F.Records:
    """The search's records: `record_games` games, split among the fields, the search in each
    seat in turn; every game a deal of its own."""
    from reports.play.blocks import in_chunks

    search = (f"search:rollouts={setup.rollouts}:rollout_policy={rollout}"
              f":opponents={setup.opponents}")  # fmt: skip
    if weights:
        search += f":rollout_weights={weights}"
    n = setup.n_players
    per_seat = -(-setup.record_games // (n * len(setup.fields)))
    lineups = []  # one part per field and seat of the search, per_seat games each
    for field in setup.fields:
        for seat in range(n):
            lineups.append([*field[:seat], search, *field[seat:]])
    args = (setup.spec.name, setup.tables, lineups, per_seat, setup.seed, first_game)
    total = len(lineups) * per_seat
    seen = [0]

    def advanced(done: int, _total: int) -> None:  # (in_chunks counts from the start)
        if setup.progress is not None:
            setup.progress(done - seen[0])
        seen[0] = done

    parts = in_chunks(record_part, total, per_seat, *args, client=setup.client,
                      progress=advanced)  # fmt: skip
    return F.Records.concat(parts)


def record_part(first: int, n: int, game: str, tables, lineups, per_part: int, seed: int,
                first_game: int) -> F.Records:  # fmt: skip
    """The records of games first .. first + n - 1 of an iteration (part first // per_part: its
    line-up), numbered from `first_game`: a pure function of its arguments (a Dask task)."""
    from sim import games as registry

    spec = registry.get(game)
    learn = import_module(spec.report().LEARN)
    games = first_game + first + np.arange(n)
    return search_records(learn, tables, lineups[first // per_part], seed, games,
                          spec.strategies())  # fmt: skip


def search_records(learn, tables, lineup: list[str], seed: int, games: np.ndarray,
                   registry) -> F.Records:  # fmt: skip
    """Play games `games` of `seed` with `lineup` (one strategy per seat, a search among them;
    seats as given, the caller rotates) on the fast path, recording every decision a search seat
    makes that the learned player scores (`learn`: the game's LEARN module)."""
    n = len(lineup)
    games = np.ascontiguousarray(games, dtype=np.int64)
    seatings = np.tile(np.arange(n, dtype=np.int64), (len(games), 1))
    rec = learn.record_tables(tables, seed, games, seatings, registry.make_policies(lineup, n))
    return F.Records.from_tables(rec, games)


def write_weights(learn, path: Path, weights: np.ndarray, base: str, n_players: int,
                  meta: dict) -> None:  # fmt: skip
    """The fitted weights (float, the features' units) as the kernel's weights file."""
    from strategies.learned import save_weights

    save_weights(path, F.to_fixed(weights, learn.BITS), learn.DECISIONS, learn.FEATURES,
                 {"game": learn.GAME, "players": n_players, "base": base, **meta})  # fmt: skip


#: the run's store of finished iterations (`Run.store`): chunk i (n = 1) is iteration i, its
#: row and (from iteration 1) its weights, under the names the run folder publishes them by
ITERATIONS = "iterations"


def row_name(it: int) -> str:
    return f"iteration_{it}.json"


def weights_name(it: int) -> str:
    return f"learned_{it}.npz"


def iterate(setup: LearnSetup, store=None) -> pd.DataFrame:
    """Every iteration: records, fit, held-out check, strength; each stored as it ends as one
    chunk of `store` (by default an unstamped one in `setup.out`), so an interrupted run resumes
    past the iterations the store holds, checked (`ChunkStore.completed`: a damaged one is
    quarantined with a warning and played again). Then every iteration's files are copied into
    `setup.out`. The learning curve, one row per iteration (iteration 0: the base heuristic),
    read back from the store, so its bytes never depend on where the run was interrupted."""
    from sim.core.chunks import ChunkStore

    store = store if store is not None else ChunkStore(setup.out / "chunks" / ITERATIONS)
    store.label = iteration_label
    # A run interrupted by an earlier version left its iterations loose in the staging
    # (iteration_<i>.json, learned_<i>.npz), unchecked and unstamped: they are not read, the
    # iterations are played again (the same seed, the same games) and `publish` overwrites them.
    done = {first for first, _ in store.completed()}
    learn = import_module(setup.spec.report().LEARN)
    if 0 not in done:
        base = {"iteration": 0, "player": setup.base, "records": 0, "agreement": np.nan,
                "reward_gap": np.nan, **strength(setup, setup.base)}  # fmt: skip
        store.save(0, 1, {row_name(0): _json_writer(base)})
    for it in range(1, setup.iterations + 1):
        if it not in done:
            _iteration(setup, learn, store, it)
    publish(store, setup.out, setup.iterations)
    return pd.DataFrame([read_row(store, it) for it in range(setup.iterations + 1)])


def iteration_label(first: int, _n: int) -> str:
    """What a stored chunk is called in the store's warning: each is one iteration."""
    return f"iteration {first}"


def _json_writer(row: dict):
    from sim.core.runs import atomic_write_text

    return lambda path: atomic_write_text(path, json.dumps(row))


def _moved_from(work: Path):
    """A writer that renames `work` to the chunk's file (atomic: one filesystem)."""
    return lambda path: os.replace(work, path)


def read_row(store, it: int) -> dict:
    return json.loads(store.path(it, row_name(it)).read_text())


def publish(store, out: Path, iterations: int) -> None:
    """Every iteration's files, out of the store into `out` under their names (`Run.finish`
    removes the chunks)."""
    from sim.core.runs import atomic_write_bytes

    for it in range(iterations + 1):
        for name in (row_name(it), *([weights_name(it)] if it else [])):
            atomic_write_bytes(out / name, store.path(it, name).read_bytes())


def _iteration(setup: LearnSetup, learn, store, it: int) -> None:
    """Iteration `it`, its search playing the previous iteration's stored weights, stored as
    chunk `it`: its weights, written in the staging (its strength plays them) then moved into
    the chunk, and its row."""
    rollout, weights, label = setup.base, "", ""
    if it > 1:
        label = weights_name(it - 1)  # the name users see; the search reads the stored file
        rollout, weights = "learned", str(store.path(it - 1, label))
    recs = records(setup, rollout, weights, DEALS * it)
    train, held = F.split_by_game(recs, 0.2, setup.seed + it)
    fit = F.fit(train, target=setup.target, penalty=setup.penalty, n_codes=learn.N_CODES)
    check = F.evaluate(fit, held)
    overall = check[check["code"] == F.ALL_CODES].iloc[0]
    made = {"iteration": it, "seed": setup.seed, "records": len(train),
            "rollouts": setup.rollouts, "fields": setup.fields, "target": setup.target,
            "opponents": setup.opponents, "search_rollout_policy": rollout,
            "search_rollout_weights": label}  # fmt: skip
    work = setup.out / weights_name(it)
    write_weights(learn, work, fit.weights, setup.base, setup.n_players, made)
    row = {"iteration": it, "player": f"learned:weights={work.name}", "records": len(recs),
           "agreement": float(overall["agreement"]), "reward_gap": float(overall["reward_gap"]),
           **strength(setup, f"learned:weights={work}")}  # fmt: skip
    store.save(it, 1, {weights_name(it): _moved_from(work), row_name(it): _json_writer(row)})


def curve_text(curve: pd.DataFrame, setup: LearnSetup, gain: dict) -> str:
    """The learning curve as a table, then what it says of the shipped (last) iteration: `gain`
    its paired comparison with the base (`gain_over_base`)."""
    many = len(setup.fields) > 1
    against = (f"{len(setup.fields)} fields (the mean share; the worst field's beside it)"
               if many else ", ".join(setup.fields[0]))  # fmt: skip
    lines = [textwrap.fill(f"Learned player, {setup.n_players} players, against {against} "
                           f"(seats rotated, {_per_field(setup):,} deals of seed "
                           f"{strength_seed(setup.seed)}"
                           + (", each against every field" if many else "")
                           + f", which chose nothing; parity {1 / setup.n_players:.1%})", 100),
             "",
             f"{'iteration':>9}  {'records':>8}  {'agreement':>9}  {'win share':>18}"
             + (f"  {'worst field':>18}" if many else "") + "  player"]
    for r in curve.itertuples():
        agree = "" if np.isnan(r.agreement) else f"{r.agreement:.1%}"
        share = f"{r.win_share:.1%} +/- {r.half_width:.1%}"
        worst = f"  {f'{r.worst_share:.1%} +/- {r.worst_half_width:.1%}':>18}" if many else ""
        lines.append(f"{r.iteration:>9}  {r.records:>8}  {agree:>9}  {share:>18}{worst}  "
                     f"{r.player}")
    if many:
        alike = all(len(set(f)) == 1 for f in setup.fields)
        listed = ", ".join(f[0] if alike else ",".join(f) for f in setup.fields)
        lines += ["", textwrap.fill(("fields (each in every other seat): " if alike else
                                     "fields: ") + listed, 100)]  # fmt: skip
    last = curve.iloc[-1]
    lo, hi = last.win_share - last.half_width, last.win_share + last.half_width
    g, h = 100 * gain["gain"], 100 * gain["half_width"]
    mean = f", the mean over the {gain['fields']} fields" if many else ""
    lines += ["", textwrap.fill(
        f"Shipped: iteration {last.iteration}, the last (no iteration is chosen on these deals):"
        f" {last.win_share:.1%} (95% interval {lo:.1%} to {hi:.1%}). Minus its base on the same "
        f"{gain['deals']:,} deals, paired by deal{mean}: {g:+.1f} points (95% interval "
        f"{g - h:+.1f} to {g + h:+.1f}): {gain['verdict']}.", 100)]  # fmt: skip
    if curve.games.iloc[0] == 0 and not many:
        lines.append(f"(The base is the whole field: its {curve.win_share.iloc[0]:.1%} is its "
                     "share by symmetry.)")
    return "\n".join(lines) + "\n"


def curve_png(curve: pd.DataFrame, setup: LearnSetup) -> bytes:
    """The learning curve: win share per iteration with 95% intervals, parity marked."""
    from reports.render.charts import figure
    from reports.render.report import render_png

    fig = figure(figsize=(5.5, 3.2))
    ax = fig.add_subplot()
    many = len(setup.fields) > 1
    ax.errorbar(curve["iteration"], curve["win_share"], yerr=curve["half_width"], marker="o",
                capsize=3, label="mean over the fields" if many else "win share")  # fmt: skip
    if many:
        ax.errorbar(curve["iteration"], curve["worst_share"], yerr=curve["worst_half_width"],
                    marker="v", capsize=3, label="the worst field")  # fmt: skip
    ax.axhline(1 / setup.n_players, color="grey", lw=0.8, ls="--", label="parity")
    ax.set_xlabel("iteration (0: the base heuristic)")
    ax.set_ylabel("win share against the field" + ("s" if many else ""))
    ax.set_xticks(curve["iteration"])
    ax.legend(fontsize=7, frameon=False)
    return render_png(fig)


# --- the run ----------------------------------------------------------------------------------
def run(o):
    """`abyss-mc learn` (options `o`: `reports.runs.options.LearnOptions`): check the options,
    iterate into a new (or the resumed) run directory, ship the last iteration."""
    import time

    from reports.run_dir import Run, data_paths
    from reports.runs import setup as S

    run, o = S.start_or_resume("learn", o)
    S.check_backend(o.backend, o.scheduler)
    t_start = time.perf_counter()
    spec, exp, tables, fields, base = _checked(o)
    setup = LearnSetup(spec, tables, exp, o.players, fields, base, o.seed, o.iterations,
                       o.games, o.rollouts, o.strength_games, None,
                       opponents=o.opponents)  # fmt: skip
    if run is None:
        check_size(setup, o)
        run = Run.start("learn", o.out, o.seed, {"options": o.stored(), "game": spec.name,
                        **data_paths(o.cards, o.set_, o.presets)})  # fmt: skip
    setup.out = run.dir
    summary = _learn(o, setup, run, t_start)
    return S.Output(summary, run.out, (f"results: {run.out} (play it with "
                                       f"learned:weights={run.out}/learned.npz)",))  # fmt: skip


def _checked(o):
    """`(spec, expansions, tables, fields, base)`, every option checked before any game."""
    from reports.runs import setup as S

    S.check_at_least(o, 1, "iterations", "games", "rollouts", "strength_games")
    S.game_spec(o.game).play()  # a game of line-ups, or one line saying it is not
    spec, registry, exp, tables = S.field_setup(o)
    if spec.report().LEARN is None:
        raise UserError(f"{spec.title} has no learned player yet")
    n = o.players
    base = o.base or import_module(spec.report().LEARN).base_strategy(n)
    if o.opponents not in ("own", "rollout"):
        raise UserError(f"--opponents must be own or rollout; got {o.opponents!r}")
    fields = open_fields(registry, n) if o.field == "open" else [S.parse_lineup(o.field, n - 1)]
    for field in fields:
        registry.make_policies([base, *field], n)  # unknown names fail before any work
    return spec, exp, tables, fields, base


def _learn(o, setup: LearnSetup, run, t_start: float) -> str:
    """The iterations inside `run`, the shipped player and what the run writes; returns the
    summary."""
    import time

    from reports.run_dir import card_digest, data_options
    from reports.runs import setup as S
    from sim.core.runs import atomic_write_bytes, atomic_write_text

    progress = S.GamesProgress(total_games(setup), o.progress)
    with run, progress:
        setup.progress = progress.advance
        run.seal(setup.tables, o.presets)
        setup.client = run.cluster(o.backend, o.scheduler, None)
        curve = iterate(setup, run.store(ITERATIONS))
        # the last iteration, chosen by nothing: the curve's deals report it (docs/learned.md)
        shipped = run.dir / weights_name(o.iterations)
        atomic_write_bytes(run.dir / "learned.npz", shipped.read_bytes())
        gain = gain_over_base(setup, f"learned:weights={shipped}")
        atomic_write_text(run.dir / "curve.csv", curve.to_csv(index=False))
        summary = curve_text(curve, setup, gain)
        atomic_write_text(run.dir / "summary.txt", summary)
        (run.dir / "learning_curve.png").write_bytes(curve_png(curve, setup))
        run.write_manifest(
            o.seed, {"game": setup.spec.name, "command": "learn", **o.stored(),
                     "base": setup.base, "fields": setup.fields,
                     "expansions": list(setup.expansions),
                     "seeds": seed_purposes(setup),
                     "shipped": {"iteration": o.iterations, "chosen by": "nothing (the "
                                 "last iteration)", "minus its base, paired by deal": gain},
                     **data_options(o.cards, o.set_, o.presets, run.out)},
            card_digest=card_digest(setup.tables, o.cards, o.set_),
            timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        run.finish()
    return summary
