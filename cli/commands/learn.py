"""`abyss-mc learn`: a learned player distilled from the search by expert iteration
(`reports.runs.learn`, docs/learned.md)."""

from __future__ import annotations

import shutil
import sys
import time
from importlib import import_module
from pathlib import Path

import typer

from cli.commands import common as c
from reports.run_dir import card_digest, data_options, data_paths
from sim.core.errors import UserError


@c.user_errors
def learn(
    game: c.GameOption = "abyss",
    players: c.PlayersOption = 4,
    iterations: c.option(int, "--iterations", "Rounds of expert iteration: search games recorded, "
                         "a fit, its strength measured.") = 2,
    games: c.option(int, "--games", "Search games recorded per iteration (the search in every "
                    "seat in turn).") = 1000,
    rollouts: c.option(int, "--rollouts", "The search's rollouts per decision: its labels' "
                       "quality.") = 64,
    strength_games: c.option(int, "--strength-games", "Games in which each iteration's player "
                             "meets the fields, seats rotated: split among them, every field on "
                             "the same deals, of a seed of their own that chooses nothing (the "
                             "last iteration is shipped).") = 4000,
    field: c.option(str, "--field", "The opponents: `open`, each open preset of this count in "
                    "turn in every other seat (the search's games and the strength split among "
                    "them), or one line-up (players - 1 strategies).", "open|A,B,...") = "open",
    opponents: c.option(str, "--opponents", "The search's model of the opponents: their own "
                        "strategies, or its rollout policy.", "own|rollout") = "own",
    base: c.option(str | None, "--base", "The heuristic the learned player scores over and the "
                   "first search's model of every player; default: the game's strongest open "
                   "preset at this count.", "S") = None,
    backend: c.BackendOption = "local",
    scheduler: c.SchedulerOption = None,
    seed: c.SeedOption = 1,
    out: c.OutDirOption = None,
    resume: c.option(Path | None, "--resume", "Finish an interrupted run: its finished iterations "
                     "are kept.", "DIR") = None,
    expansions: c.ExpansionsOption = None,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    presets: c.PresetsOption = None,
) -> None:
    """Distil a learned player from the search; write its weights and the learning curve."""
    options = {"game": game, "players": players, "iterations": iterations, "games": games,
               "rollouts": rollouts, "strength_games": strength_games, "field": field,
               "opponents": opponents,
               "base": base, "seed": seed, "expansions": expansions}  # fmt: skip
    run, options, set_, cards, presets, out = c.resumed("learn", resume, options, set_, cards,
                                                        presets, out)  # fmt: skip
    c.check_backend(backend, scheduler)
    _learn(options, cards, set_, presets, out, run, backend, scheduler)


def _learn(o, cards, set_, presets, out, run, backend="local", scheduler=None) -> None:
    from reports.run_dir import Run
    from reports.runs import learn as L
    from sim.core.runs import atomic_write_text

    t_start = time.perf_counter()
    for name in ("iterations", "games", "rollouts", "strength_games"):
        if o[name] < 1:
            raise UserError(f"--{name.replace('_', '-')} must be at least 1; got {o[name]}")
    c.game_spec(o["game"]).play()  # a game of line-ups, or one line saying it is not
    spec, registry, exp, tables = c.field_setup(o, cards, set_, presets)
    if spec.report().LEARN is None:
        raise UserError(f"{spec.title} has no learned player yet")
    n = o["players"]
    base = o["base"] or import_module(spec.report().LEARN).base_strategy(n)
    if o.get("opponents", "own") not in ("own", "rollout"):
        raise UserError(f"--opponents must be own or rollout; got {o['opponents']!r}")
    if o["field"] == "open":
        fields = L.open_fields(registry, n)
    else:
        fields = [c.parse_lineup(o["field"], n - 1)]
    for field in fields:
        registry.make_policies([base, *field], n)  # unknown names fail before any work
    if run is None:
        run = Run.start("learn", out, o["seed"], {"options": o, "game": spec.name,
                        **data_paths(cards, set_, presets)})  # fmt: skip
    setup = L.LearnSetup(spec, tables, exp, n, fields, base, o["seed"], o["iterations"],
                         o["games"], o["rollouts"], o["strength_games"], run.dir,
                         opponents=o.get("opponents", "own"))  # fmt: skip
    progress = c.GamesProgress(L.total_games(setup), sys.stderr.isatty())
    with run, progress:
        setup.progress = progress.advance
        run.seal(tables, presets)
        setup.client = run.cluster(backend, scheduler, None)
        curve = L.iterate(setup, L.read_done(run.dir))
        # the last iteration, chosen by nothing: the curve's deals report it (docs/learned.md)
        shipped = run.dir / f"learned_{o['iterations']}.npz"
        shutil.copyfile(shipped, run.dir / "learned.npz")
        gain = L.gain_over_base(setup, f"learned:weights={shipped}")
        atomic_write_text(run.dir / "curve.csv", curve.to_csv(index=False))
        summary = L.curve_text(curve, setup, gain)
        atomic_write_text(run.dir / "summary.txt", summary)
        (run.dir / "learning_curve.png").write_bytes(L.curve_png(curve, setup))
        run.write_manifest(
            o["seed"], {"game": spec.name, "command": "learn", **o, "base": base,
                        "fields": fields, "expansions": list(exp),
                        "seeds": L.seed_purposes(setup),
                        "shipped": {"iteration": o["iterations"], "chosen by": "nothing (the "
                                    "last iteration)", "minus its base, paired by deal": gain},
                        **data_options(cards, set_, presets, run.out)},
            card_digest=card_digest(tables, cards, set_),
            timings={"total": time.perf_counter() - t_start},
        )  # fmt: skip
        run.finish()
    typer.echo(summary, nl=False)
    typer.echo(f"results: {run.out} (play it with learned:weights={run.out}/learned.npz)")
