"""The statistics of a tournament's tables, with the block (one deal in every rotation) as the
independent unit (`reports.stats.blocks`; docs/tournament.md): a frame of `block`, `strategy`
and the metric (``TournamentResult.frame()``, or its `seats` with a column renamed) in, a
DataFrame out.

- `strategy_summary(df)`: each strategy's win rate and mean IP, t intervals over blocks;
- `pairwise(df, metric="win", correction="holm")`: every pair, paired over blocks, adjusted;
- `pairwise_matrix(pairs, value="diff")`: one column of `pairwise` as a strategy x strategy
  matrix;
- `block_means(df, metric="win")`: each strategy's mean in each block (the units);
- `block_differences(df, metric="win")`: each pair's per-block differences;
- `adjust_pvalues(p, method="holm")`: Holm (or another) adjustment of a family of p-values;
- `crn_variance_ratio(df, a, b)`: what common random numbers bought for a pair;
- `seat_advantage(seats)`: each seat's win share, t intervals over blocks.

Imported on first use, so ``import abyss_mc.stats`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module

#: name -> (module, name there)
NAMES = {
    **{name: ("reports.stats.blocks", name) for name in (
        "strategy_summary", "pairwise", "pairwise_matrix", "block_means", "block_differences",
        "adjust_pvalues", "crn_variance_ratio")},  # fmt: skip
    "seat_advantage": ("reports.sections.seat_tables", "seat_advantage_blocks"),
}

__all__ = sorted(NAMES)


def __getattr__(name: str):
    if name not in NAMES:
        raise AttributeError(f"module 'abyss_mc.stats' has no attribute {name!r}")
    module, attr = NAMES[name]
    return getattr(import_module(module), attr)


def __dir__() -> list[str]:
    return __all__
