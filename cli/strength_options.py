"""The options of the play strengths a tournament adds to its report (`abyss-mc tournament
--strengths`, `reports.strengths`): which tiers, the search tier's budget, the card values."""

from __future__ import annotations

from typing import Annotated

import typer

StrengthsOption = Annotated[
    str,
    typer.Option(
        "--strengths",
        metavar="auto|tuned|learned|search|none",
        help="Also play the tuned versions made for each player count of the line-up's "
        "presets (<preset>_tuned_<N>p; a second tournament in strengths/tuned/), so the "
        "report says whether each verdict holds across play strengths, and names the "
        "strategies without one. learned: also the tuned presets' archetypes played at the "
        "learned strength, at the counts it has weights for (strengths/learned/). search: also "
        "search players modelling the best of those (strengths/search/; minutes, not seconds). "
        "auto (default): learned (tuned where the game has no learned player), with --report.",
    ),
]
SearchBlocksOption = Annotated[
    int,
    typer.Option(
        "--search-blocks",
        metavar="B",
        help="Blocks of the search tier's tournaments (--strengths search).",
    ),
]
SearchRolloutsOption = Annotated[
    int,
    typer.Option(
        "--search-rollouts",
        metavar="R",
        help="Rollouts per decision of the search tier's players (--strengths search).",
    ),
]
CardBlocksOption = Annotated[
    int | None,
    typer.Option(
        "--card-blocks",
        metavar="B",
        help="Restricted play for the report's card values: deals per card for the best "
        "strategy of each play strength at 4 players (`abyss-mc restrict`); 0 skips. "
        "Default: 250 with --report and the built-in line-up, else 0.",
    ),
]
MinutesOption = Annotated[
    float | None,
    typer.Option(
        "--minutes",
        metavar="M",
        help="With --report: a time budget for the verdicts still undecided, in looks of "
        "doubling size: half for the best strategy (a tournament whose best is not told apart "
        "plays more blocks), the rest for the card values instead of --card-blocks (deals go "
        "to the cards still undecided). Sequential tests, family-wise error 5% over all looks "
        "(docs/restricted-play.md). M minutes over all player counts and play strengths, spent to "
        "within a tenth, on top of what the report plays and draws anyway (and more blocks make "
        "its drawing longer).",
    ),
]
