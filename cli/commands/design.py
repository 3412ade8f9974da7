"""`abyss-mc design`: which card and rule values meet a designer's targets
(`reports.runs.design`, `reports.design`)."""

from __future__ import annotations

from cli.commands import common as c
from reports.runs.options import DesignOptions as O

Vary = c.option(list[str] | None, "--vary", "A card-data or rules value to search (any key --set "
                "takes): a range of integers or reals, or choices; repeatable, e.g. --vary "
                "rules.seat_4_pearls=0..4.", "KEY=LO..HI|KEY=A|B")
Target = c.option(list[str] | None, "--target", "What the values must achieve: METRIC<=X, >=X "
                  "(the 95% interval on that side) or ==X±M (inside X-M..X+M; +-M too; without M "
                  "a margin per metric, docs/design.md); shares as fractions (24.5% also reads "
                  "0.245). Metrics: seat_spread, seat_share:N, win_rate:STRATEGY, rounds, "
                  "card_value:KEY (e.g. card_value:lord.jailer), max_card_value, lead_changes, "
                  "decisive_point, comeback, margin. Repeatable.", "METRIC<=X")
Strategies = c.option(str | None, "--strategies", "The line-up, cycled to --players. Default: the "
                      "game's tournament strategies but random, one per seat, each tuned for the "
                      "player count where a tuned preset exists.", "A,B,...")
CardStrategy = c.option(str | None, "--card-strategy", "The strategy whose cards are valued "
                        "(card_value targets; it plays every seat). Default: the line-up's "
                        "first.", "S")
Minutes = c.option(float | None, "--minutes", "Bound the whole run to about this many minutes: "
                   "the search stops in time for the first finalists and the confirmation; later "
                   "rounds and the other players' checks are skipped (and said so) when they "
                   "would not fit. Default: --candidates only.", "M")
Candidates = c.option(int, "--candidates", "Candidates the search asks at most.")
Blocks = c.option(int, "--blocks", "Deals each candidate plays in the search (every seat "
                  "rotation, the same deals for every candidate).")
Finalists = c.option(int, "--finalists", "Candidates a round of finalists plays on deals of its "
                     "own.")
ReevalBlocks = c.option(int, "--reeval-blocks", "Deals of each finalist, of the confirmation and "
                        "of the other players' checks.")
RetuneCandidates = c.option(int, "--retune-candidates", "Candidates of each strategy's re-tune "
                            "under the recommended values.")
Resume = c.resume_option("search: its finished batches and stages are kept")


@c.command(O, vary=Vary, target=Target, strategies=Strategies, card_strategy=CardStrategy,
           minutes=Minutes, candidates=Candidates, blocks=Blocks, finalists=Finalists,
           reeval_blocks=ReevalBlocks, retune_candidates=RetuneCandidates, resume=Resume)
def design(**flags) -> None:
    """Search card and rule values for those nearest the data as given that meet the targets,
    choose among finalists on deals of their own, confirm the choice on deals nothing chose
    on, and check the answer with re-tuned players and the learned player."""
    c.run(O, flags)
