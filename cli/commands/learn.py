"""`abyss-mc learn`: a learned player distilled from the search by expert iteration
(`reports.runs.learn`, docs/learned.md)."""

from __future__ import annotations

from cli.commands import common as c
from reports.runs.options import LearnOptions as O

Iterations = c.option(int, "--iterations", "Rounds of expert iteration: search games recorded, a "
                      "fit, its strength measured.")
Games = c.option(int, "--games", "Search games recorded per iteration (the search in every seat "
                 "in turn).")
Rollouts = c.option(int, "--rollouts", "The search's rollouts per decision: its labels' quality.")
StrengthGames = c.option(int, "--strength-games", "Games in which each iteration's player meets "
                         "the fields, seats rotated: split among them, every field on the same "
                         "deals, of a seed of their own that chooses nothing (the last iteration "
                         "is shipped).")
Field = c.option(str, "--field", "The opponents: `open`, each open preset of this count in turn "
                 "in every other seat (the search's games and the strength split among them), or "
                 "one line-up (players - 1 strategies).", "open|A,B,...")
Opponents = c.option(str, "--opponents", "The search's model of the opponents: their own "
                     "strategies, or its rollout policy.", "own|rollout")
Base = c.option(str | None, "--base", "The heuristic the learned player scores over and the first "
                "search's model of every player; default: the game's strongest open preset at "
                "this count.", "S")
Resume = c.resume_option("run: its finished iterations are kept")


@c.command(O, iterations=Iterations, games=Games, rollouts=Rollouts,
           strength_games=StrengthGames, field=Field, opponents=Opponents, base=Base,
           resume=Resume)
def learn(**flags) -> None:
    """Distil a learned player from the search; write its weights and the learning curve."""
    c.run(O, flags)
