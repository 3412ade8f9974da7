"""Least squares with standard errors clustered by group, in closed form.

`cluster_ols` gives what statsmodels' `OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": g})`
gives (its CR1 sandwich: Liang & Zeger 1986, with the small-sample factor
G / (G - 1) * (N - 1) / (N - K)) for a full-rank design of a few columns, to rounding
(tests/core/test_ols.py), without its checks of the design's rank by a singular value
decomposition of the whole N x K matrix, which this machine's LAPACK does slowly for tall matrices
(0.13 s for 10,000 x 28, against 0.01 s by QR first; docs/benchmarks.md): the end-of-game
verdicts fit it once per player count and play strength. `full_rank` does that check once, on
the R of a QR decomposition, which has the same singular values.
"""

from __future__ import annotations

import numpy as np


def full_rank(x: np.ndarray) -> bool:
    """Whether the columns of `x` [N, K] are linearly independent, at numpy's `matrix_rank`
    tolerance for `x` (its largest singular value x max(N, K) x the float epsilon)."""
    x = np.asarray(x, dtype=float)
    if x.shape[0] < x.shape[1]:
        return False
    if x.shape[1] == 0:
        return True
    r = np.linalg.qr(x, mode="r")
    s = np.linalg.svd(r, compute_uv=False)
    return bool((s > s.max() * max(x.shape) * np.finfo(float).eps).all())


def cluster_ols(y: np.ndarray, x: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`(params, cov)` of y on x (no constant added), `cov` the CR1 cluster-robust covariance
    by `groups` (codes 0 .. G-1): (X'X)^-1 (sum over groups of X_g'u_g u_g'X_g) (X'X)^-1 times
    G / (G - 1) x (N - 1) / (N - K). `x` must have full column rank (`full_rank`)."""
    y, x = np.asarray(y, dtype=float), np.asarray(x, dtype=float)
    n, k = x.shape
    bread = np.linalg.inv(x.T @ x)
    params = bread @ (x.T @ y)
    scores = x * (y - x @ params)[:, None]
    g = int(groups.max()) + 1
    sums = np.stack([np.bincount(groups, weights=scores[:, j], minlength=g) for j in range(k)],
                    axis=1)  # fmt: skip
    cov = bread @ (sums.T @ sums) @ bread * (g / (g - 1)) * ((n - 1) / (n - k))
    return params, cov
