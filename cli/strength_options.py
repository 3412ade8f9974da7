"""The options of the play strengths a tournament adds to its report (`abyss-mc tournament
--strengths`, `reports.strengths`): which tiers, the search tier's budget, the card values."""

from __future__ import annotations

from typing import Annotated

import typer

StrengthsOption = Annotated[
    str,
    typer.Option(
        "--strengths",
        metavar="auto|tuned|search|none",
        help="Also play the tuned versions made for each player count of the line-up's "
        "presets (<preset>_tuned_<N>p; a second tournament in strengths/tuned/), so the "
        "report says whether each verdict holds across play strengths, and names the "
        "strategies without one. search: also search players modelling the best tuned "
        "presets (a third tournament in strengths/search/; minutes, not seconds). auto "
        "(default): tuned, with --report.",
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
