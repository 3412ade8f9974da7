"""`abyss-mc tournament`: strategies compared with seat rotation, intervals over blocks
(`reports.runs.tournament`)."""

from __future__ import annotations

from cli.commands import common as c
from cli.strength_options import (
    CardBlocksOption,
    MinutesOption,
    SearchBlocksOption,
    SearchRolloutsOption,
    StrengthsOption,
)
from reports.runs.options import TournamentOptions as O

Strategies = c.option(str, "--strategies", "The strategies to compare (at least two, each once), "
                      "with optional parameters: name:param=value. Default: every built-in "
                      "strategy of the game and the random policy.", "A,B,...")
Players = c.option(str, "--players", "Players per game: 2-4, or 2-5 with Leviathan; several "
                   "counts (e.g. 3,4) play one tournament each and the report compares their "
                   "seat advantage. Default: every count the game allows.", "N[,N...]")
Blocks = c.option(int, "--blocks", "Deals to play; every table of the design plays each deal "
                  "(common random numbers). Games = blocks x tables.")
Design = c.option(str, "--design", "Line-ups when there are more strategies than seats: "
                  "balanced (default: each strategy in n line-ups of every block, the strategies "
                  "in a fresh random order each block, so every pair meets equally often in "
                  "expectation), cyclic (one fixed order) or every combination. Each line-up "
                  "plays in every rotation of its seats.", "balanced|cyclic|all")
Crn = c.option(str, "--crn", "Common random numbers: every table of a block plays the same deal "
               "(block), only the rotations of each line-up (lineup), or every table its own deal "
               "(none); auto (default): block with one line-up, none with several, as measured "
               "best in docs/tournament.md.", "auto|block|lineup|none")
Sequential = c.option(float | None, "--sequential", "Stop as soon as every pair of strategies is "
                      "told apart, with family-wise error rate ALPHA at any stopping time; "
                      "--blocks is then the budget.", "ALPHA")
Report = c.option(bool, "--report/--no-report", "Also write the balance report.")
FightPoints = c.option(int, "--fight-points", "With Leviathan: decision points of the "
                       "fight-or-explore rollouts for the report (also as many games of rule "
                       "rollouts); 0 skips them. See `abyss-mc ev rollout` for the full "
                       "analysis.")
Resume = c.resume_option("tournament: its finished chunks of blocks are kept, the rest is played "
                         "with its own options")


@c.command(O, strategies=Strategies, players=Players, blocks=Blocks, design=Design,
           crn=Crn, sequential=Sequential, report=Report, fight_points=FightPoints,
           resume=Resume, strengths=StrengthsOption, search_blocks=SearchBlocksOption,
           search_rollouts=SearchRolloutsOption, card_blocks=CardBlocksOption,
           minutes=MinutesOption)
def tournament(**flags) -> None:
    """Compare strategies with seat rotation and common random numbers; print the ranking."""
    c.run(O, flags)
