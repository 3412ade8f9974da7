"""`abyss-mc tune`: search a strategy's parameters for the highest win rate against a field,
with common random numbers, a re-evaluation of the finalists and a held-out check
(`reports.tune`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer

from cli.commands import common as c
from reports.run_dir import Run, data_paths
from sim.core.errors import UserError


@c.user_errors
def tune(
    strategy: c.option(str | None, "--strategy", "The strategy to tune: a preset or a policy, "
                       "with optional parameters (name:param=value); the search starts there.",
                       "PRESET") = None,
    game: c.GameOption = "abyss",
    players: c.PlayersOption = 4,
    against: c.option(str | None, "--against", "The field: one strategy per other seat (cycled if "
                      "fewer). Default: the strongest built-in strategies at this player count, "
                      "found by a short screening tournament.", "A,B,...") = None,
    games: c.option(int, "--games", "Games the search plays in all (the candidates share them "
                    "equally; every candidate plays the same deals).", "BUDGET") = 1_200_000,
    candidates: c.option(int, "--candidates", "Parameter sets the optimiser tries.") = 384,
    params: c.option(str | None, "--params", "The parameters to search (default: all of the "
                     "policy's, within the archetype); the others keep the strategy's values.",
                     "p1,p2,...") = None,
    open_: c.option(bool, "--open", "Search the parameters that define the preset too (by default "
                    "a preset is tuned within its archetype: what it sets stays on its side of "
                    "the policy's default, or is held; docs/tuning.md). The preset is then named "
                    "<preset>_open.") = False,
    sampler: c.option(str, "--sampler", "optuna's sampler (tpe: measured best, docs/tuning.md).",
                      "tpe|cmaes|random") = "tpe",
    finalists: c.option(int, "--finalists", "The search's best candidates played again.") = 5,
    reeval_games: c.option(int, "--reeval-games", "Fresh games each finalist plays (against the "
                           "winner's curse).") = 40_000,
    heldout_games: c.option(int, "--heldout-games", "Games of the held-out check, each of the "
                            "tuned and the starting strategy, on deals never used before (paired "
                            "by deal).") = 20_000,
    seed: c.SeedOption = 1,
    out: c.OutDirOption = None,
    resume: c.option(Path | None, "--resume", "Finish an interrupted tune: its finished batches "
                     "are kept and the search goes on to the very same candidates.", "DIR") = None,
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
        "games": games, "candidates": candidates, "params": params, "open": open_,
        "sampler": sampler,
        "finalists": finalists, "reeval_games": reeval_games, "heldout_games": heldout_games,
        "seed": seed, "expansions": expansions,
    }  # fmt: skip
    run, options, set_, cards, presets, out = c.resumed("tune", resume, options, set_, cards,
                                                        presets, out)  # fmt: skip
    c.check_backend(backend, scheduler)
    _tune(options, cards, set_, presets, out, run, backend, scheduler, threads)


def _tune(o, cards, set_, presets, out, run, backend, scheduler, threads) -> None:
    from reports import tune as T
    from reports.runs import tune as R

    t_start = time.perf_counter()
    if not o["strategy"]:
        raise UserError("--strategy is required: the preset (or policy) to tune")
    spec, registry, exp, tables = c.field_setup(o, cards, set_, presets)
    n = o["players"]
    start = o["strategy"].strip()
    policy = registry.make_policy(start)
    policy_name = next(k for k, cls in registry.policies.items() if type(policy) is cls)
    space, rules = T.search_space(registry, start, policy_name, o["params"], o.get("open", False))
    values = {name: getattr(policy, name) for name in registry.parameters(policy_name)}
    budget = R.budget(o, n)
    seeds = T.stage_seeds(o["seed"])
    T.check_fresh_deals(n, {"search": (seeds["search"], budget["search"].blocks),
                            "re-evaluation": (seeds["re-evaluation"], budget["reeval"]),
                            "held-out check": (seeds["held-out check"], budget["heldout"])})
    opponents = None
    if o["against"]:
        opponents = c.parse_lineup(o["against"], n - 1)
        registry.make_policies(opponents, n - 1)  # unknown names fail before any work

    setup = R.TuneSetup(o, spec, registry, tables, exp, start, policy_name, space, rules, values,
                        budget, seeds, opponents, cards, set_, presets, t_start)
    if run is None:
        run = Run.start("tune", out, o["seed"], {
            "options": o, "game": spec.name, "command": R.command_line(),
            **data_paths(cards, set_, presets),
        })  # fmt: skip
    progress = c.GamesProgress(budget["games"], sys.stderr.isatty())
    summary, out_dir = R.run_tune(setup, run, progress, backend, scheduler, threads)
    typer.echo(summary, nl=False)
    typer.echo(f"results: {out_dir} (use the tuned preset with --presets {out_dir}/tuned.toml)")
