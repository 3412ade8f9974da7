"""Tests of `reports.stats.blocks` against known answers: synthetic tournaments with known win
probabilities, scores and Plackett-Luce strengths, hand-computed Holm adjustments, and simulated
coverage of the fixed-n intervals and of the anytime-valid confidence sequences."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from reports.stats import blocks as stats
from reports.stats import rating, sequential
from reports.stats.intervals import wilson_interval

NAMES = ("A", "B", "C", "D")
COLUMNS = ["block", "table", "seat", "strategy", "win", "ip", "rank"]


def tournament(
    rng: np.random.Generator,
    probs=(0.4, 0.3, 0.2, 0.1),
    n_blocks: int = 40,
    tables: int = 4,
    concentration: float | None = None,
    ip_means=(60, 55, 50, 45),
    ip_block_sd: float = 0.0,
) -> pd.DataFrame:
    """A 4-player CRN tournament with known answers.

    Every table seats all four strategies, rotated by the table index. In block b each table's
    winner is strategy i with probability q_b[i], where q_b = probs, or, with `concentration` c,
    q_b ~ Dirichlet(c * probs): E[q_b] = probs, and a small c makes the tables of one block strongly
    correlated (a deal that suits one strategy suits it at every table). So E[win of i] = probs[i]
    exactly. The losers get ranks 2-4 in random order. Scores are ip_means[i] plus a block effect
    N(0, ip_block_sd) shared by all seats of the block and N(0, 5) noise, rounded (symmetric noise,
    integer means: E[ip of i] = ip_means[i]).
    """
    k = len(NAMES)
    probs = np.asarray(probs, dtype=float)
    if concentration is None:
        q = np.broadcast_to(probs, (n_blocks, k))
    else:
        q = rng.dirichlet(concentration * probs, size=n_blocks)
    cum = np.cumsum(q, axis=1)
    cum[:, -1] = 1.0
    u = rng.random((n_blocks, tables))
    winner = (u[:, :, None] >= cum[:, None, :]).sum(axis=2)  # strategy index per table
    seat = np.arange(k)
    strat = (seat[None, :] + np.arange(tables)[:, None]) % k  # [table, seat] -> strategy index
    strat = np.broadcast_to(strat, (n_blocks, tables, k))
    win = (strat == winner[:, :, None]).astype(float)
    key = rng.random((n_blocks, tables, k))
    key[win == 1] = -1.0
    rank = key.argsort(axis=2).argsort(axis=2) + 1
    block_effect = rng.normal(0.0, ip_block_sd, size=(n_blocks, 1, 1)) if ip_block_sd else 0.0
    ip = np.asarray(ip_means)[strat] + block_effect + rng.normal(0.0, 5.0, strat.shape)
    b, t, s = np.meshgrid(np.arange(n_blocks), np.arange(tables), seat, indexing="ij")
    return pd.DataFrame(
        {
            "block": b.ravel(),
            "table": t.ravel(),
            "seat": s.ravel(),
            "strategy": np.asarray(NAMES)[strat.ravel()],
            "win": win.ravel(),
            "ip": np.rint(ip).astype(int).ravel(),
            "rank": rank.ravel(),
        }
    )


def pl_tournament(rng, theta, n_blocks, tables=1, seats=None):
    """Tables whose finishing order is a Plackett-Luce draw with log-strengths `theta` (Gumbel
    trick: sorting theta + Gumbel noise gives a PL ranking). Each table seats `seats` strategies
    (all by default) drawn at random without replacement."""
    theta = np.asarray(theta, dtype=float)
    k = len(theta)
    seats = seats or k
    rows = []
    for b in range(n_blocks):
        for t in range(tables):
            who = rng.permutation(k)[:seats]
            g = theta[who] + rng.gumbel(size=seats)
            rank = (-g).argsort().argsort() + 1
            for seat in range(seats):
                rows.append(
                    (b, t, seat, f"s{who[seat]}", float(rank[seat] == 1), 0, int(rank[seat]))
                )
    return pd.DataFrame(rows, columns=COLUMNS)


# --- strategy_summary --------------------------------------------------------------------------


def test_rigged_tournament_recovers_the_win_probability():
    p = 0.55
    rng = np.random.default_rng(11)
    rest = (1 - p) / 3
    df = tournament(rng, probs=(p, rest, rest, rest), n_blocks=500, tables=4)
    s = stats.strategy_summary(df)
    assert list(s.index)[0] == "A"
    a = s.loc["A"]
    assert a["games"] == 2000 and a["blocks"] == 500
    assert a["win_rate"] == pytest.approx(p, abs=0.03)
    assert a["win_lo"] < p < a["win_hi"]
    assert a["win_hi"] - a["win_lo"] < 0.06
    # balanced design: the mean of block means is the pooled rate
    assert a["win_rate"] == pytest.approx(df.loc[df.strategy == "A", "win"].mean())
    assert s["win_rate"].sum() == pytest.approx(1.0)  # one win per table, one seat each
    assert a["mean_ip"] == pytest.approx(60, abs=0.5)
    assert a["ip_lo"] < 60 < a["ip_hi"]


def test_one_game_per_block_is_the_ordinary_t_interval_over_games():
    from scipy import stats as st

    rng = np.random.default_rng(3)
    df = tournament(rng, n_blocks=80, tables=1)
    s = stats.strategy_summary(df, conf=0.9)
    for name in NAMES:
        x = df.loc[df.strategy == name].sort_values("block")
        for col, lo, hi, mean in (
            ("win", "win_lo", "win_hi", "win_rate"),
            ("ip", "ip_lo", "ip_hi", "mean_ip"),
        ):
            v = x[col].to_numpy(dtype=float)
            ref = st.t.interval(0.9, len(v) - 1, loc=v.mean(), scale=st.sem(v))
            assert s.loc[name, mean] == pytest.approx(v.mean())
            if col == "ip":
                assert (s.loc[name, lo], s.loc[name, hi]) == pytest.approx(ref)
            else:
                # a win rate's interval: the wider of this t interval and the Wilson interval
                # of the seat-games, within [0, 1]
                wl, wh = wilson_interval(int(round(v.sum())), len(v), 0.9)
                assert s.loc[name, lo] == pytest.approx(max(0.0, min(ref[0], wl)))
                assert s.loc[name, hi] == pytest.approx(min(1.0, max(ref[1], wh)))


def test_summary_handles_unbalanced_and_tiny_inputs():
    df = pd.DataFrame(
        [
            (0, 0, 0, "A", 1.0, 10, 1),
            (0, 0, 1, "A", 0.0, 5, 2),  # a mirror seat: two seat-games of A in one block
            (0, 0, 2, "B", 0.0, 4, 3),
            (1, 0, 0, "A", 0.5, 8, 1),
            (1, 0, 1, "B", 0.5, 8, 1),
        ],
        columns=COLUMNS,
    )
    s = stats.strategy_summary(df)
    assert s.loc["A", "games"] == 3 and s.loc["A", "blocks"] == 2
    assert s.loc["A", "win_rate"] == pytest.approx((0.5 + 0.5) / 2)  # block means 0.5, 0.5
    # no variance between blocks: the t interval has zero width, so the Wilson interval of the
    # seat-games (about 2 wins in 3) sets it
    assert s.loc["A", "win_lo"] == pytest.approx(min(0.5, wilson_interval(2, 3)[0]))
    assert s.loc["A", "win_hi"] == pytest.approx(max(0.5, wilson_interval(2, 3)[1]))
    assert s.loc["B", "win_rate"] == pytest.approx(0.25)
    one = stats.strategy_summary(df[df.block == 0])
    assert math.isnan(one.loc["A", "win_lo"])
    with pytest.raises(ValueError, match="missing column"):
        stats.strategy_summary(df.drop(columns="ip"))


def _coverage(n_sims, seed, **kwargs):
    """Coverage over simulated tournaments of: A's block win interval, A's naive Wilson interval
    on seat-games, A's score interval, and the pairwise A - B interval."""
    rng = np.random.default_rng(seed)
    probs = kwargs.setdefault("probs", (0.4, 0.3, 0.2, 0.1))
    hits = np.zeros(4)
    for _ in range(n_sims):
        df = tournament(rng, **kwargs)
        s = stats.strategy_summary(df).loc["A"]
        hits[0] += s["win_lo"] <= probs[0] <= s["win_hi"]
        a = df.loc[df.strategy == "A", "win"]
        lo, hi = wilson_interval(int(a.sum()), len(a))
        hits[1] += lo <= probs[0] <= hi
        hits[2] += s["ip_lo"] <= 60 <= s["ip_hi"]
        means = stats.block_means(df, "win")
        d = stats.block_differences(df)[("A", "B")]
        assert np.allclose(d, means["A"] - means["B"])
        row = stats.paired_test(d, 0.95)
        hits[3] += row[1] <= probs[0] - probs[1] <= row[2]
    return hits / n_sims


def test_block_intervals_cover_without_correlation():
    cover_block, cover_wilson, cover_ip, cover_diff = _coverage(400, seed=5, n_blocks=30, tables=4)
    assert 0.92 <= cover_block <= 0.98
    assert 0.92 <= cover_wilson <= 0.98  # no correlation: the naive interval is fine too
    assert 0.92 <= cover_ip <= 0.98
    assert 0.92 <= cover_diff <= 0.98


def test_block_intervals_cover_under_strong_within_block_correlation():
    # Dirichlet(2 p) deals: intra-block correlation ~1/3 over 12 tables -> design effect ~4.7
    cover_block, cover_wilson, cover_ip, cover_diff = _coverage(
        400, seed=6, n_blocks=30, tables=12, concentration=2.0, ip_block_sd=10.0
    )
    assert 0.92 <= cover_block <= 0.98
    assert cover_wilson < 0.8  # seat-games treated as independent: badly under-covers
    assert 0.92 <= cover_ip <= 0.98
    assert 0.92 <= cover_diff <= 0.98


def _tied_tables(rng: np.random.Generator, k_max: int) -> pd.DataFrame:
    """Random tables, blocks unsorted and strategies repeated, the winners sharing a win among
    up to `k_max` tied seats (k_max 2: halves, every sum exact; 3 and more: thirds, fifths)."""
    rows = []
    for b in rng.choice(10**6, size=int(rng.integers(1, 40)), replace=False):
        for t in range(int(rng.integers(1, 4))):
            names = rng.choice(["A", "B", "C", "D", "E"], size=4)
            tied = rng.permutation(4)[: int(rng.integers(1, k_max + 1))]
            for s in range(4):
                rows.append((int(b), t, s, names[s], 1 / len(tied) if s in tied else 0.0,
                             int(rng.integers(0, 90)), 1))  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS).sample(frac=1.0, random_state=int(b))


@pytest.mark.parametrize("k_max", [2, 5])
def test_block_means_and_a_games_wins_are_pandas_grouping_to_the_last_bit(k_max):
    # numpy's counting stands in for pandas' grouping where no sum rounds; where one could (a
    # third of a win), pandas adds (compensated, so a naive sum differs in the last bit)
    from reports.metrics.cycles import wins_by_game

    rng = np.random.default_rng(k_max)
    for _ in range(60):
        df = _tied_tables(rng, k_max)
        for metric in ("win", "ip"):
            want = df.groupby(["block", "strategy"])[metric].mean().unstack("strategy")
            want.columns.name = "strategy"
            pd.testing.assert_frame_equal(stats.block_means(df, metric), want.astype(float),
                                          check_exact=True)  # fmt: skip
        want = df.pivot_table(index=["block", "table"], columns="strategy", values="win",
                              aggfunc="sum", observed=True)  # fmt: skip
        pd.testing.assert_frame_equal(wins_by_game(df), want, check_exact=True)
        # the same summary as pandas' grouping gives it (a categorical strategy takes that path),
        # also with a result missing (NaN) in a few seats
        for frame in (df, df.assign(win=df["win"].where(rng.random(len(df)) > 0.05))):
            summary = stats.strategy_summary(frame)
            pandas_way = stats.strategy_summary(frame.astype({"strategy": "category"}))
            pandas_way.index = pandas_way.index.astype(summary.index.dtype)
            pd.testing.assert_frame_equal(summary, pandas_way, check_exact=True)
            games = frame.groupby("strategy")["win"].size()
            assert summary["games"].to_dict() == games.to_dict()
    assert stats.strategy_summary(df.iloc[:0]).empty


# --- pairwise ----------------------------------------------------------------------------------


def test_holm_against_a_hand_computed_example():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> max so far 0.06
    assert stats.adjust_pvalues(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.adjust_pvalues([0.2, np.nan, 0.4]) == pytest.approx(
        [0.4, np.nan, 0.4], nan_ok=True
    )
    assert stats.adjust_pvalues([0.3, 0.6], method="bonferroni") == pytest.approx([0.6, 1.0])
    assert stats.adjust_pvalues([0.3, 0.6], method="none") == pytest.approx([0.3, 0.6])


def test_pairwise_is_the_paired_t_test_over_block_means():
    from scipy import stats as st

    rng = np.random.default_rng(8)
    df = tournament(rng, n_blocks=60, tables=4, concentration=5.0)
    pairs = stats.pairwise(df)
    assert list(zip(pairs.a, pairs.b, strict=True)) == [
        ("A", "B"),
        ("A", "C"),
        ("A", "D"),
        ("B", "C"),
        ("B", "D"),
        ("C", "D"),
    ]
    means = stats.block_means(df)
    for row in pairs.itertuples():
        d = means[row.a] - means[row.b]
        assert row.diff == pytest.approx(d.mean())
        assert row.p == pytest.approx(st.ttest_rel(means[row.a], means[row.b]).pvalue)
        lo, hi = st.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=st.sem(d))
        assert (row.lo, row.hi) == pytest.approx((lo, hi))
        assert row.n_blocks == 60
    # Holm by hand: sort, multiply by m, m-1, ..., running maximum, cap at 1
    order = np.argsort(pairs.p.to_numpy())
    adj = np.minimum(1, np.maximum.accumulate(pairs.p.to_numpy()[order] * np.arange(6, 0, -1)))
    assert pairs.p_adj.to_numpy()[order] == pytest.approx(adj)
    assert (pairs.significant == (pairs.p_adj < 0.05)).all()
    assert pairs.set_index(["a", "b"]).loc[("A", "D"), "significant"]


def test_holm_is_statsmodels_holm_over_many_random_families(monkeypatch):
    """`adjust_pvalues` computes Holm itself (statsmodels' runs a garbage collection on every
    call): the same adjusted p-values as statsmodels on 40 random families, ties and NaN
    included."""
    import gc

    from statsmodels.stats.multitest import multipletests

    # (statsmodels' collection, in a test worker's large heap: 20 s of the tier for 40 calls)
    monkeypatch.setattr(gc, "collect", lambda *a: 0)

    rng = np.random.default_rng(0)
    for _ in range(40):
        p = rng.choice([rng.uniform(0, 0.2), 0.01, 0.5], size=rng.integers(1, 30)) \
            if rng.random() < 0.2 else rng.uniform(0, 1, size=rng.integers(1, 30)) ** 3
        p[rng.random(len(p)) < 0.1] = np.nan
        ok = ~np.isnan(p)
        got = stats.adjust_pvalues(p)
        assert np.isnan(got[~ok]).all()
        if ok.any():
            assert got[ok] == pytest.approx(multipletests(p[ok], method="holm")[1], abs=1e-15)


def test_interval_levels_match_holm_bonferroni_and_none_by_hand():
    """Issue 28: "Show intervals with the same correction as the test". Holm by hand on
    p = (0.01, 0.04, 0.03, 0.005): 0.005 x 4 and 0.01 x 3 are below 0.05, 0.03 x 2 is not, so the
    two rejected are tested at 1 - 0.05/4 and 1 - 0.05/3 and the two others at 1 - 0.05/2."""
    p = [0.01, 0.04, 0.03, 0.005, np.nan]
    assert stats.adjusted_levels(p) == pytest.approx(
        [1 - 0.05 / 3, 0.975, 0.975, 1 - 0.05 / 4, np.nan], nan_ok=True)
    assert stats.adjusted_levels(p, method="bonferroni") == pytest.approx(
        [0.9875] * 4 + [np.nan], nan_ok=True)
    assert stats.adjusted_levels([0.001, 0.002, 0.003]) == pytest.approx(
        [1 - 0.05 / 3, 0.975, 0.95])  # every one rejected: the last at 95%
    assert stats.adjusted_levels([0.3, 0.6], conf=0.9, method="none") == pytest.approx([0.9, 0.9])
    with pytest.raises(ValueError, match="no intervals match"):
        stats.adjusted_levels([0.1], method="fdr_bh")


def test_an_adjusted_interval_excludes_0_exactly_when_the_pair_is_significant():
    """Over 200 synthetic tournaments, planted differences of every size and none (the null):
    the interval at the level Holm's procedure tested a pair excludes 0 if and only if the pair
    is significant after the correction; the per-comparison 95% interval does not (it excludes
    0 for pairs Holm does not call significant), which is why verdicts print the adjusted one."""
    agree, unadjusted_disagree, found, missed = True, 0, 0, 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        gap = rng.uniform(0, 0.12)
        df = tournament(rng, probs=(0.25 + gap, 0.25, 0.25, 0.25 - gap), n_blocks=150)
        for correction in ("bonferroni", "holm"):  # the last, Holm, is the reports'
            pairs = stats.pairwise(df, correction=correction)
            excludes = (pairs["lo_adj"] > 0) | (pairs["hi_adj"] < 0)
            agree &= bool((excludes == pairs["significant"]).all())
            assert (pairs["level"] >= 0.95).all()
            assert (pairs["lo_adj"] <= pairs["lo"] + 1e-12).all()  # never narrower
        unadjusted = (pairs["lo"] > 0) | (pairs["hi"] < 0)
        unadjusted_disagree += int((unadjusted != pairs["significant"]).sum())
        found += int(pairs["significant"].sum())
        missed += int((~pairs["significant"]).sum())
    assert agree
    assert found > 100 and missed > 100  # both outcomes occur: the check has teeth
    assert unadjusted_disagree > 10


def test_pairwise_only_uses_blocks_where_both_play_and_handles_no_variance():
    df = pd.DataFrame(
        [
            (0, 0, 0, "A", 1.0, 9, 1),
            (0, 0, 1, "B", 0.0, 3, 2),
            (1, 0, 0, "A", 1.0, 9, 1),
            (1, 0, 1, "B", 0.0, 3, 2),
            (2, 0, 0, "A", 0.0, 1, 2),
            (2, 0, 1, "C", 1.0, 5, 1),
        ],
        columns=COLUMNS,
    )
    pairs = stats.pairwise(df, metric="ip").set_index(["a", "b"])
    assert pairs.loc[("A", "B"), "n_blocks"] == 2
    assert pairs.loc[("A", "B"), "diff"] == 6.0
    assert pairs.loc[("A", "B"), "p"] == 0.0  # constant non-zero difference
    assert math.isnan(pairs.loc[("A", "C"), "p"])  # one block only
    assert math.isnan(pairs.loc[("A", "C"), "p_adj"])
    assert not pairs.loc[("A", "C"), "significant"]
    assert pairs.loc[("B", "C"), "n_blocks"] == 0


def test_pairwise_matrix_is_antisymmetric():
    rng = np.random.default_rng(9)
    pairs = stats.pairwise(tournament(rng, n_blocks=50))
    diff = stats.pairwise_matrix(pairs, "diff")
    assert list(diff.index) == list(NAMES) == list(diff.columns)
    assert np.allclose(diff.to_numpy(), -diff.to_numpy().T)
    assert diff.loc["A", "D"] == pytest.approx(pairs.set_index(["a", "b"]).loc[("A", "D"), "diff"])
    lo, hi = stats.pairwise_matrix(pairs, "lo"), stats.pairwise_matrix(pairs, "hi")
    assert (lo.to_numpy() <= diff.to_numpy() + 1e-12).all()
    assert (diff.to_numpy() <= hi.to_numpy() + 1e-12).all()
    assert np.allclose(lo.to_numpy(), -hi.to_numpy().T)
    p = stats.pairwise_matrix(pairs, "p_adj")
    assert np.allclose(p.to_numpy(), p.to_numpy().T, equal_nan=True)
    assert np.isnan(np.diag(p.to_numpy())).all()


def test_crn_variance_ratio_is_small_when_blocks_dominate():
    rng = np.random.default_rng(10)
    df = tournament(rng, n_blocks=200, tables=4, ip_block_sd=20.0)
    assert stats.crn_variance_ratio(df, "A", "B", "ip") < 0.3
    df = tournament(rng, n_blocks=200, tables=4, ip_block_sd=0.0)
    assert stats.crn_variance_ratio(df, "A", "B", "ip") == pytest.approx(1.0, abs=0.3)


# --- Plackett-Luce -----------------------------------------------------------------------------


def test_plackett_luce_recovers_known_strengths():
    theta = np.array([0.8, 0.3, -0.2, -0.9])
    rng = np.random.default_rng(12)
    df = pl_tournament(rng, theta, n_blocks=150, tables=2)
    r = rating.plackett_luce(df, conf=0.99)
    assert list(r.index) == ["s0", "s1", "s2", "s3"]
    assert r["strength"].sum() == pytest.approx(0.0, abs=1e-9)
    assert r["tables"].tolist() == [300] * 4
    truth = theta - theta.mean()
    assert np.abs(r["strength"].to_numpy() - truth).max() < 0.25
    # 99% intervals: all four cover the truth jointly in ~95% of seeds (checked over 40)
    assert ((r["lo"] <= truth) & (truth <= r["hi"])).all()
    assert ((r["lo"] < r["strength"]) & (r["strength"] < r["hi"])).all()
    assert r["elo"].to_numpy() == pytest.approx(r["strength"].to_numpy() * 400 / math.log(10))


def test_plackett_luce_without_ties_is_choix_on_the_full_rankings():
    import choix

    rng = np.random.default_rng(13)
    df = pl_tournament(rng, [0.5, 0.0, -0.5, 0.2, 0.1], n_blocks=80, seats=3)
    r = rating.plackett_luce(df, intervals=False)
    order = df.sort_values(["block", "table", "rank"])
    rankings = [
        tuple(int(s[1:]) for s in g["strategy"]) for _, g in order.groupby(["block", "table"])
    ]
    ref = choix.ilsr_rankings(5, rankings, alpha=0.01)
    ref -= ref.mean()
    assert r.sort_index()["strength"].to_numpy() == pytest.approx(ref, abs=1e-6)
    assert r["lo"].isna().all()


def test_plackett_luce_ties_are_symmetric_and_ignore_seat_order():
    rows = []
    for b in range(30):
        # A and B tie for first ahead of C; then C wins once every 3 blocks, with A, B tied second
        ranks = {"A": 1, "B": 1, "C": 3} if b % 3 else {"C": 1, "A": 2, "B": 2}
        seats = ["A", "B", "C"] if b % 2 else ["C", "B", "A"]
        for seat, name in enumerate(seats):
            rows.append((b, 0, seat, name, float(ranks[name] == 1) / 2, 0, ranks[name]))
    df = pd.DataFrame(rows, columns=COLUMNS)
    r = rating.plackett_luce(df)
    assert r.loc["A", "strength"] == pytest.approx(r.loc["B", "strength"], abs=1e-8)
    assert r.loc["A", "strength"] > r.loc["C", "strength"]
    swapped = df.assign(seat=df["seat"].map({0: 2, 1: 1, 2: 0}))
    r2 = rating.plackett_luce(swapped, intervals=False)
    assert r2["strength"].to_numpy() == pytest.approx(r["strength"].to_numpy(), abs=1e-10)


def test_plackett_luce_intervals_cover_the_known_strengths():
    """The cluster-robust (by block) Wald intervals cover each true strength ~95% of the time."""
    theta = np.array([0.8, 0.3, -0.2, -0.9])
    truth = theta - theta.mean()
    covered = []
    for k in range(150):
        df = pl_tournament(np.random.default_rng(1000 + k), theta, n_blocks=150, tables=2)
        r = rating.plackett_luce(df).sort_index()
        covered.append(((r["lo"] <= truth) & (truth <= r["hi"])).to_numpy())
    assert 0.92 <= np.mean(covered) <= 0.98


def test_plackett_luce_breslow_events():
    df = pd.DataFrame(
        [(0, 0, 0, "a", 0.5, 0, 1), (0, 0, 1, "b", 0.5, 0, 1), (0, 0, 2, "c", 0, 0, 3)]
        + [(0, 0, 3, "d", 0, 0, 4), (1, 0, 0, "d", 1, 0, 1), (1, 0, 1, "c", 0, 0, 2)],
        columns=COLUMNS,
    )
    events = rating._ChoiceEvents(df, {"a": 0, "b": 1, "c": 2, "d": 3})
    # a and b tie first: each chosen from all four; then c from {c, d}; block 1: d from {c, d}
    chosen = events.chosen.tolist()
    members = events.members.astype(int).tolist()
    assert sorted(zip(chosen, map(tuple, members), events.count.tolist(), strict=True)) == [
        (0, (1, 1, 1, 1), 1), (1, (1, 1, 1, 1), 1), (2, (0, 0, 1, 1), 1), (3, (0, 0, 1, 1), 1)
    ]  # fmt: skip
    assert events.blocks.tolist() == [0, 1]
    by_block = events.by_block.toarray()
    assert by_block.sum(axis=1).tolist() == [3, 1]
    assert by_block[1, chosen.index(3)] == 1


def test_plackett_luce_counts_repeated_events_as_choix_repeats_them():
    """Distinct events weighted by their counts give choix's estimate on the full list of events,
    copies of one strategy at a table and ties included."""
    import choix

    rng = np.random.default_rng(14)
    df = pl_tournament(rng, [0.6, 0.1, -0.3, 0.0], n_blocks=60, seats=4)
    df.loc[df["strategy"] == "s3", "strategy"] = "s2"  # two copies of s2 at every table
    df.loc[(df["block"] % 5 == 0) & (df["rank"] == 2), "rank"] = 1  # some ties
    r = rating.plackett_luce(df, intervals=False).sort_index()
    order = df.sort_values(["block", "table", "rank", "seat"])
    events = []
    for _, g in order.groupby(["block", "table"]):
        items = [int(s[1:]) for s in g["strategy"]]
        ranks = g["rank"].tolist()
        for k, (item, rank) in enumerate(zip(items, ranks, strict=True)):
            others = [x for j, x in enumerate(items) if j != k and ranks[j] >= rank]
            if others:
                events.append((item, others))
    ref = choix.ilsr_top1(3, events, alpha=0.01, max_iter=1000)
    assert r["strength"].to_numpy() == pytest.approx(ref - ref.mean(), abs=1e-9)


# --- confidence sequences ----------------------------------------------------------------------


@pytest.mark.parametrize("method", ["eb", "normal-mixture"])
@pytest.mark.parametrize("mean", [0.0, 0.2])
def test_confidence_sequence_rarely_ever_misses_the_mean(method, mean):
    """Over 2000 steps, the fraction of runs whose interval EVER excludes the true mean is at most
    alpha (the running intersection makes the final interval record every exclusion)."""
    alpha, runs, steps = 0.1, 300, 2000
    rng = np.random.default_rng(21)
    # paired win-share differences: +1, 0, -1 with P(+1) - P(-1) = mean
    p_up = 0.25 + mean / 2
    misses = 0
    for _ in range(runs):
        x = rng.choice([1.0, 0.0, -1.0], size=steps, p=[p_up, 0.5, 0.5 - p_up])
        cs = sequential.ConfidenceSequence(alpha, -1, 1, method=method).update(x)
        misses += cs.decided(null=mean)
    assert misses / runs <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)


def test_repeatedly_checked_fixed_n_intervals_do_not_keep_their_level():
    """The reason for confidence sequences: a 90% t interval checked after every step of 2000
    excludes a true mean of 0 at some step in far more than 10% of runs."""
    rng = np.random.default_rng(22)
    x = rng.choice([1.0, 0.0, -1.0], size=(300, 2000), p=[0.25, 0.5, 0.25])
    n = np.arange(1, 2001)
    z = np.cumsum(x, axis=1) / np.sqrt(0.5 * n)
    ever = (np.abs(z[:, 9:]) > 1.645).any(axis=1).mean()
    assert ever > 0.3


def test_confidence_sequence_decides_quickly_with_a_real_difference():
    rng = np.random.default_rng(23)
    x = rng.choice([1.0, 0.0, -1.0], size=5000, p=[0.4, 0.4, 0.2])  # mean 0.2
    decided_at = {}
    for method in ("eb", "normal-mixture"):
        cs = sequential.ConfidenceSequence(0.05, -1, 1, method=method)
        for start in range(0, len(x), 10):
            cs.update(x[start : start + 10])
            if cs.decided():
                break
        assert cs.decided() and cs.interval()[0] > 0
        decided_at[method] = cs.n
    assert decided_at["eb"] <= 400
    # low-variance differences (averages over many tables): empirical Bernstein adapts
    y = np.clip(rng.normal(0.05, 0.1, size=5000), -1, 1)
    n = {}
    for method in ("eb", "normal-mixture"):
        cs = sequential.ConfidenceSequence(0.05, -1, 1, method=method)
        n[method] = next(k for k in range(10, 5001, 10) if cs.update(y[k - 10 : k]).decided())
    assert n["eb"] * 5 < n["normal-mixture"]


def test_confidence_sequence_width_shrinks():
    rng = np.random.default_rng(24)
    x = rng.uniform(-1, 1, size=20000)
    cs = sequential.ConfidenceSequence(0.05, -1, 1)
    widths = []
    for n in (100, 1000, 10000, 20000):
        cs.update(x[cs.n : n])
        lo, hi = cs.interval()
        assert lo <= 0 <= hi
        widths.append(hi - lo)
    assert widths == sorted(widths, reverse=True)
    assert 2.0 < widths[1] / widths[2] < 4.5  # about sqrt(10), up to the log factor
    t_width = 2 * 1.96 * x.std() / math.sqrt(20000)
    assert t_width < widths[3] < 3 * t_width  # the price of anytime validity


def test_confidence_sequence_is_chunking_invariant_and_checks_input():
    rng = np.random.default_rng(25)
    x = rng.uniform(0, 10, size=500)
    for method in ("eb", "normal-mixture"):
        whole = sequential.ConfidenceSequence(0.05, 0, 10, method=method).update(x)
        parts = sequential.ConfidenceSequence(0.05, 0, 10, method=method)
        for chunk in np.array_split(x, 7):
            parts.update(chunk)
        parts.update([])
        assert parts.interval() == pytest.approx(whole.interval())
        assert parts.mean == pytest.approx(x.mean())
        assert parts.n == 500
    fresh = sequential.ConfidenceSequence(0.05, -1, 1)
    assert fresh.interval() == (-1.0, 1.0) and not fresh.decided() and math.isnan(fresh.mean)
    with pytest.raises(ValueError):
        fresh.update([0.5, 1.5])
    with pytest.raises(ValueError):
        sequential.ConfidenceSequence(0.05, method="t")


def test_sequential_comparison_decides_every_pair_correctly():
    rng = np.random.default_rng(26)
    sc = sequential.SequentialComparison(NAMES, alpha=0.05)
    assert sc.pair_alpha == pytest.approx(0.05 / 6)
    block = 0
    while not sc.all_decided() and block < 20000:
        chunk = tournament(rng, probs=(0.45, 0.3, 0.17, 0.08), n_blocks=100, tables=4)
        chunk["block"] += block
        block += 100
        sc.update(chunk)
    assert sc.all_decided()
    status = sc.status().set_index(["a", "b"])
    assert (status["better"] == status.index.get_level_values("a")).all()
    assert (status["n_blocks"] == block).all()
    assert len(sc.decided_pairs()) == 6


def test_sequential_comparison_family_wise_error_under_the_null():
    """Three equal strategies: with Bonferroni across the three pairs, the fraction of runs in
    which ANY pair is EVER decided stays below alpha."""
    alpha, runs = 0.1, 200
    rng = np.random.default_rng(27)
    wrong = 0
    for _ in range(runs):
        sc = sequential.SequentialComparison(["x", "y", "z"], alpha=alpha)
        # one table per block, each strategy wins with probability 1/3
        winner = rng.integers(0, 3, size=1500)
        win = np.eye(3)[winner]
        for start in range(0, 1500, 500):
            w = win[start : start + 500]
            sc.update_differences(
                {
                    ("x", "y"): w[:, 0] - w[:, 1],
                    ("z", "x"): w[:, 2] - w[:, 0],
                    ("y", "z"): w[:, 1] - w[:, 2],
                }
            )
        wrong += bool(sc.decided_pairs())
    assert wrong / runs <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)
    with pytest.raises(KeyError):
        sc.update_differences({("x", "w"): [0.0]})


def test_the_paired_test_is_scipys_t_test_over_many_random_samples() -> None:
    """`paired_test`'s p-value is `scipy.stats.ttest_1samp`'s (computed without its wrapper),
    on samples of every size, scale and with ties; NaN where a difference is missing."""
    from scipy.stats import ttest_1samp

    rng = np.random.default_rng(54)
    for i in range(2000):
        n = int(rng.integers(2, 400))
        d = rng.normal(rng.normal(0, 0.3), 1, n) * rng.choice([1e-3, 1, 10])
        d = np.round(d, 1) if i % 5 == 0 else d
        if np.ptp(d) == 0:
            continue
        assert stats.paired_test(d, 0.95)[3] == pytest.approx(ttest_1samp(d, 0.0).pvalue,
                                                              rel=1e-11, abs=1e-300)
    assert math.isnan(stats.paired_test(np.array([0.1, np.nan, 0.3]), 0.95)[3])
