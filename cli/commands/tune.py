"""`abyss-mc tune`: search a strategy's parameters for the highest win rate against a field,
with common random numbers, a re-evaluation of the finalists and a held-out check
(`reports.runs.tune`, `reports.tune`)."""

from __future__ import annotations

from cli.commands import common as c
from reports.runs.options import TuneOptions as O

Strategy = c.option(str | None, "--strategy", "The strategy to tune: a preset or a policy, with "
                    "optional parameters (name:param=value); the search starts there.", "PRESET")
Against = c.option(str | None, "--against", "The field: one strategy per other seat (cycled if "
                   "fewer). Default: the strongest built-in strategies at this player count, "
                   "found by a short screening tournament.", "A,B,...")
Games = c.option(int, "--games", "Games the search plays in all (the candidates share them "
                 "equally; every candidate plays the same deals).", "BUDGET")
Candidates = c.option(int, "--candidates", "Parameter sets the optimiser tries.")
Params = c.option(str | None, "--params", "The parameters to search (default: all of the "
                  "policy's, within the archetype); the others keep the strategy's values.",
                  "p1,p2,...")
Open = c.option(bool, "--open", "Search the parameters that define the preset too (by default a "
                "preset is tuned within its archetype: what it sets stays on its side of the "
                "policy's default, or is held; docs/tuning.md). The preset is then named "
                "<preset>_open.")
Sampler = c.option(str, "--sampler", "optuna's sampler (tpe: measured best, docs/tuning.md).",
                   "tpe|cmaes|random")
Finalists = c.option(int, "--finalists", "The search's best candidates played again.")
ReevalGames = c.option(int, "--reeval-games", "Fresh games each finalist plays (against the "
                       "winner's curse).")
HeldoutGames = c.option(int, "--heldout-games", "Games of the held-out check, each of the tuned "
                        "and the starting strategy, on deals never used before (paired by "
                        "deal).")
Resume = c.resume_option("tune: its finished batches are kept and the search goes on to the very "
                         "same candidates")


@c.command(O, strategy=Strategy, against=Against, games=Games, candidates=Candidates,
           params=Params, open=Open, sampler=Sampler, finalists=Finalists,
           reeval_games=ReevalGames, heldout_games=HeldoutGames, resume=Resume)
def tune(**flags) -> None:
    """Find the parameters of a strategy that win most against a field; write tuned.toml."""
    c.run(O, flags)
