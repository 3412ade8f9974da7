"""`reports.stats.ols`: the cluster-robust least squares of the end-of-game verdicts, in closed
form, against statsmodels' own fit (the reference it replaces), and its rank check against
numpy's `matrix_rank`."""

from __future__ import annotations

import numpy as np
import pytest

from reports.stats.ols import cluster_ols, full_rank


def _data(seed: int, effect: float):
    rng = np.random.default_rng(seed)
    n, k, g = int(rng.integers(200, 3000)), int(rng.integers(1, 12)), int(rng.integers(5, 80))
    groups = rng.integers(0, g, n)
    groups = np.unique(groups, return_inverse=True)[1]  # codes 0 .. G-1, every group present
    x = rng.normal(size=(n, k)) + rng.normal(size=(g, k))[groups]  # correlated within groups
    y = effect * x[:, 0] + rng.normal(size=n) + rng.normal(size=g)[groups]
    return y, x, groups


@pytest.mark.parametrize("effect", [0.0, 0.3])  # a null and a planted slope
def test_the_fit_is_statsmodels_cluster_fit(effect: float) -> None:
    import statsmodels.api as sm

    for seed in range(40):
        y, x, groups = _data(seed, effect)
        params, cov = cluster_ols(y, x, groups)
        fit = sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": groups})
        np.testing.assert_allclose(params, fit.params, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(cov, fit.cov_params(), rtol=1e-8, atol=1e-14)


def test_a_planted_slope_is_found_and_a_null_is_not_too_often() -> None:
    """Over 200 seeds: the planted slope's 95% interval (normal) covers it about 95% of the
    time (5 to 80 groups: a little less), and rejects 0 nearly always."""
    covered = rejected = 0
    for seed in range(200):
        y, x, groups = _data(1000 + seed, 0.5)
        params, cov = cluster_ols(y, x, groups)
        se = np.sqrt(cov[0, 0])
        covered += abs(params[0] - 0.5) < 1.96 * se
        rejected += abs(params[0]) > 1.96 * se
    assert 0.88 <= covered / 200 <= 0.99
    assert rejected / 200 > 0.9


def test_the_rank_check_is_numpys() -> None:
    for seed in range(30):
        rng = np.random.default_rng(seed)
        x = rng.normal(size=(int(rng.integers(5, 400)), int(rng.integers(1, 8))))
        if seed % 3 == 0:  # a column that is a combination of the others
            x = np.column_stack([x, x @ rng.normal(size=x.shape[1])])
        if seed % 5 == 0:  # a column of zeros
            x[:, -1] = 0
        assert full_rank(x) == (np.linalg.matrix_rank(x) == x.shape[1]), seed
    assert not full_rank(np.ones((2, 3)))  # more columns than rows
    assert full_rank(np.empty((4, 0)))
