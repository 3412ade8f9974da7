"""Whether a verdict holds across play strengths: a test, not a comparison of significance.

"Strength A finds it and strength B does not" is no finding about the game: the difference between
significant and not significant is not itself significant (Gelman & Stern 2006). So a row of the
verdict table says

- **holds** when every strength finds the same (each by its own test: an intersection-union
  test, valid at the level of each), or when the strengths' estimates pooled by inverse variance
  find it, no strength is shown to differ and every strength's estimate lies on the same side;
- **differs** only when a test of the difference between the strengths' estimates rejects:
  Cochran's Q on each quantity the finding rests on (`Verdict.effects`; statsmodels'
  `combine_effects`), or, for a row that names something, Gail and Simon's test that two named
  ones change order (a crossing: a margin's size is no answer to "which is best"); Bonferroni
  over what the row could compare, then Holm's correction over the table's rows, so that two
  strengths made of the same players say "differs" anywhere in the table at most 5% of the
  time;
- **partly** when some strength finds it and the others cannot tell, and no test says they
  differ: the sentence says which strength cannot tell and why (its deals; how much wider its
  interval is);
- **cannot tell** when no strength finds anything.

Rows that name something (the best strategy, the most valuable card) compare what each strength
names and its runner-up: the differences between them (`a − b`) in every strength; rows that name
a set (the cards too weak to matter) compare the value of each thing named. As the names are picked
after looking, the Bonferroni count is every pair (or thing) that could have been named, so the
choice cannot make a difference look significant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from reports.sections.verdicts import Effect, Verdict, cap, pts
from reports.strengths import title

ALPHA = 0.05
#: Rows whose finding names one thing among many: the row compares what the strengths name.
NAMING = ("best strategy", "most valuable card")
#: Rows whose finding is a set of things among many (`Verdict.accepts`): the row compares the
#: value of each thing some strength names.
SETS = ("cards too weak to matter",)


@dataclass
class Judgement:
    """A row's status (a key of `reports.sections.verdict_table.STATUS`), the words of its `across
    strengths`
    cell, and the sentence that says why."""

    status: str
    cell: str
    sentence: str


@dataclass
class _Test:
    """A row's test of a difference between strengths: the label that differed most, its
    Cochran's Q, degrees of freedom and p-value, the row's p-value (Bonferroni over `m`
    labels) and, once the table is known, its Holm-adjusted p-value over the `rows` tested."""

    label: str
    q: float
    df: int
    p: float
    m: int
    p_row: float
    p_adj: float = math.nan
    rows: int = 0


def cochran_q(effects: list[Effect]) -> tuple[float, int, float]:
    """Cochran's Q test that every strength estimates the same value: (Q, df, p)."""
    from statsmodels.stats.meta_analysis import combine_effects

    est = np.array([e.estimate for e in effects])
    var = np.array([e.se for e in effects]) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):  # its I² at Q = 0, unused here
        test = combine_effects(est, var).test_homogeneity()
    return float(test.statistic), int(test.df), float(test.pvalue)


def crossing(effects: list[Effect]) -> tuple[float, int, float]:
    """Gail and Simon's test that the strengths' effects cross (some above 0, some below), against
    a null where they all lie on one side: Q+ and Q- the sums of (estimate / se)^2 over the
    positive and the negative estimates, the statistic their minimum, its p-value the bound of
    Gail & Simon 1985 (the sum over i of C(k-1, i) 2^-(k-1) P(chi2_i >= c)). Returns (the
    statistic, k - 1, p)."""
    from math import comb

    from scipy.stats import chi2

    z2 = np.array([(e.estimate / e.se) ** 2 for e in effects])
    sign = np.array([e.estimate for e in effects]) > 0
    c = float(min(z2[sign].sum(), z2[~sign].sum()))
    k = len(effects)
    p = sum(comb(k - 1, i) * 2.0 ** -(k - 1) * chi2.sf(c, i) for i in range(1, k)) if c > 0 else 1.0
    return c, k - 1, float(min(1.0, p))


def pooled(effects: list[Effect]) -> Effect:
    """The fixed-effect (inverse-variance) pooled estimate and its standard error."""
    w = np.array([1 / e.se**2 for e in effects])
    est = np.array([e.estimate for e in effects])
    return Effect(float((w * est).sum() / w.sum()), float(1 / math.sqrt(w.sum())))


def _usable(e: Effect | None) -> bool:
    """An effect with an estimate and a standard error (a model fitted on too few deals can
    return one of 1e-14: no strength is measured that exactly)."""
    return e is not None and math.isfinite(e.estimate) and math.isfinite(e.se) and e.se > 1e-9


def _pair(effects: dict, a: str, b: str) -> Effect | None:
    """`a − b` from a verdict's effects: stored as a pair (paired by deal), or from the two
    single effects, their standard errors added in quadrature: conservative when the two are
    positively correlated (two cards' values share the unrestricted strategy's deals), not when
    negatively (two strategies' win rates at shared tables: such verdicts store pairs)."""
    if f"{a} − {b}" in effects:
        return effects[f"{a} − {b}"]
    if f"{b} − {a}" in effects:
        e = effects[f"{b} − {a}"]
        return Effect(-e.estimate, e.se)
    if a in effects and b in effects:
        x, y = effects[a], effects[b]
        return Effect(x.estimate - y.estimate, math.hypot(x.se, y.se))
    return None


def _items(v: Verdict) -> set[str]:
    """What a naming verdict could have named: the single effects, or the two sides of pairs."""
    out = set()
    for label in v.effects:
        out.update(label.split(" − ") if " − " in label else [label])
    return out


def named(v: Verdict) -> set[str]:
    """What a naming verdict names, found or not, and what it was told from: its `names` (the
    top and the runner-up), or its two highest single effects."""
    if v.names:
        return set(v.names)
    singles = {k: e for k, e in v.effects.items() if " − " not in k and _usable(e)}
    return set(sorted(singles, key=lambda k: -singles[k].estimate)[:2])


def contrasts(topic: str, verdicts: list[Verdict]) -> tuple[dict[str, list[Effect]], int]:
    """The quantities a row compares across strengths (label -> each strength's effect, for the
    labels at least two strengths measured) and how many labels it could have compared (the
    Bonferroni count)."""
    if topic in NAMING:
        common = [x for x in set().union(*map(_items, verdicts))
                  if sum(x in _items(v) for v in verdicts) >= 2]  # fmt: skip
        names = sorted(set().union(*map(named, verdicts)))
        labels = {f"{a} − {b}": [_pair(v.effects, a, b) for v in verdicts]
                  for a, b in combinations(names, 2)}  # fmt: skip
        m = len(common) * (len(common) - 1) // 2
    else:
        keys = sorted(set().union(*(v.effects for v in verdicts)))
        m = sum(sum(_usable(v.effects.get(k)) for v in verdicts) >= 2 for k in keys)
        if topic in SETS:  # the things some strength names, out of the m it could have named
            keys = sorted(set().union(*(v.accepts for v in verdicts if v.finding)) & set(keys))
        labels = {k: [v.effects.get(k) for v in verdicts] for k in keys}
    labels = {k: [e for e in es if _usable(e)] for k, es in labels.items()}
    return {k: es for k, es in labels.items() if len(es) >= 2}, max(m, 1)


def difference_test(topic: str, verdicts: list[Verdict]) -> _Test | None:
    """The row's test of a difference between strengths, or None when it has nothing to
    compare (e.g. skill over different line-ups)."""
    labels, m = contrasts(topic, verdicts)
    if not labels:
        return None
    # a name is a name: its answer differs only when two named ones change order (a crossing);
    # a quantity differs in size too (heterogeneity)
    test = crossing if topic in NAMING else cochran_q
    tests = {k: test(es) for k, es in labels.items()}
    label = min(tests, key=lambda k: tests[k][2])
    q, df, p = tests[label]
    return _Test(label, q, df, p, m, min(1.0, p * m))


def holm_over_rows(tests: list[_Test | None]) -> None:
    """Holm's correction over the table's rows with a test (fills `p_adj` and `rows`)."""
    from reports.stats.blocks import adjust_pvalues

    present = [t for t in tests if t is not None]
    adjusted = adjust_pvalues([t.p_row for t in present], "holm")
    for t, p in zip(present, adjusted, strict=True):
        t.p_adj, t.rows = float(p), len(present)


def _agree(verdicts: list[Verdict]) -> bool:
    """Every strength finds the same: the same key, or one the other accepts (a seat verdict's
    key and a set verdict's are the set itself)."""
    return all(v.finding for v in verdicts) and \
        all(a.key == b.key or a.key in b.accepts for a in verdicts for b in verdicts)  # fmt: skip


def pooled_finding(verdicts: list[Verdict]) -> str | None:
    """The finding of the strengths pooled, for rows whose effects are the same quantity at every
    strength (`Verdict.words`): each label's pooled estimate tested at the level the strengths'
    own findings use (Bonferroni over `family`), kept when every strength's estimate is on the
    pooled side; the short text of what holds, or None."""
    if not all(v.words for v in verdicts):
        return None
    words, family = verdicts[0].words, max(v.family for v in verdicts)
    from scipy.stats import norm

    z = norm.ppf(1 - ALPHA / (2 * family))
    sides: dict[str, list[str]] = {words[0]: [], words[1]: []}
    for label in sorted(set().union(*(v.effects for v in verdicts)), key=_natural):
        es = [v.effects.get(label) for v in verdicts]
        if not all(_usable(e) for e in es):
            continue
        p = pooled(es)
        if abs(p.estimate) > z * p.se and all(np.sign(e.estimate) == np.sign(p.estimate)
                                               for e in es):  # fmt: skip
            sides[words[p.estimate > 0]].append(label)
    if not any(sides.values()):
        return None
    if family == 1:
        return next(w for w, labels in sides.items() if labels)
    return " · ".join(f"{w} {','.join(labels)}" for w, labels in
                      sorted(sides.items(), key=lambda x: x[0] != words[1]) if labels)  # fmt: skip


def _natural(label: str):
    return (0, int(label)) if label.isdigit() else (1, label)


def _power(verdicts: dict[str, Verdict], tier: str) -> str:
    """Why a strength cannot tell: its deals, and how much wider its interval is than that of
    the most precise strength (the median ratio over the effects they share)."""
    v = verdicts[tier]
    deals = f"{v.deals:,} deals" if v.deals else "its games"
    ratios = []
    for label, e in v.effects.items():
        others = [w.effects[label].se for t, w in verdicts.items()
                  if t != tier and _usable(w.effects.get(label))]  # fmt: skip
        if _usable(e) and others:
            ratios.append(e.se / min(others))
    wide = float(np.median(ratios)) if ratios else math.nan
    if math.isfinite(wide) and wide > 1.2:
        best = min((t for t in verdicts if t != tier), key=lambda t: _median_se(verdicts[t]))
        return f"{deals}: an interval {wide:.1f} times as wide as that of the {title(best)}"
    return deals


def _median_se(v: Verdict) -> float:
    ses = [e.se for e in v.effects.values() if _usable(e)]
    return float(np.median(ses)) if ses else math.inf


def _test_text(t: _Test, topic: str) -> str:
    what = ("pair" if t.m == 1 else "pairs") if topic in NAMING else \
        ("quantity" if t.m == 1 else "quantities")  # fmt: skip
    rows = "the one tested row" if t.rows == 1 else f"the table's {t.rows} tested rows"
    name = (f"Gail and Simon's test that {_label(topic, t.label)} changes sign across strengths: "
            f"min(Q+, Q-) = {t.q:.1f}" if topic in NAMING else
            f"Cochran's Q test of {_label(topic, t.label)} across strengths: Q = {t.q:.1f} on "
            f"{t.df} df")  # fmt: skip
    return (f"{name}, p = {t.p:.2g}; Bonferroni over the {t.m} {what} the row could compare and "
            f"Holm's correction over {rows}: adjusted p = {t.p_adj:.2g}")  # fmt: skip


def _untested(topic: str) -> str:
    """Why a row has no test of a difference."""
    if topic in NAMING or topic in SETS:
        return ("what one strength names is not measured at another, so no test compares "
                "them")  # fmt: skip
    return "the strengths' findings cannot be compared by a test (different line-ups)"


def _effects_text(verdicts: dict[str, Verdict], label: str) -> str:
    """Each strength's estimate of `label` in points, with its standard error."""
    parts = []
    for tier, v in verdicts.items():
        e = _pair(v.effects, *label.split(" − ")) if " − " in label else v.effects.get(label)
        if _usable(e):
            parts.append(f"the {title(tier)} {pts(e.estimate)} (standard error {100 * e.se:.1f})")
    return "; ".join(parts)


def _label(topic: str, label: str) -> str:
    """A quantity as a sentence names it: a seat by its number."""
    return f"seat {label}" if label.isdigit() else label


def judge(topic: str, verdicts: dict[str, Verdict], test: _Test | None) -> Judgement:
    """A row's status and its sentence (`test`: its difference test, Holm-adjusted over the
    table, or None)."""
    present = list(verdicts.values())
    found = [t for t, v in verdicts.items() if v.finding]
    differs = test is not None and test.p_adj < ALPHA
    if _agree(present):
        return Judgement("holds", "holds", "holds across play strengths: every strength finds "
                         "it, each by its own test.")  # fmt: skip
    if differs:
        each = _effects_text(verdicts, test.label)
        return Judgement("differs", "differs", f"differs between the strengths' tournaments: "
                         f"{_label(topic, test.label)} differs ({each} points; "
                         f"{_test_text(test, topic)}).")  # fmt: skip
    no_diff = (f"no test finds the strengths differ ({_test_text(test, topic)})" if test else
               _untested(topic))  # fmt: skip
    pool = pooled_finding(present) if not differs else None
    if pool is not None:
        return Judgement("holds", f"holds, pooled: {pool}",
                         f"holds across play strengths, pooled: {pool} (the strengths' "
                         f"estimates pooled by inverse variance, every strength's on the same "
                         f"side; {no_diff}).")  # fmt: skip
    if not found:
        return Judgement("none", "cannot tell", f"no play strength can tell; {no_diff}.")
    if len(found) == len(verdicts):  # each finds something, not the same, none shown to differ
        finds = ", ".join(f"the {title(t)} {verdicts[t].cell}" for t in found)
        return Judgement("cannot tell", "not told apart",
                         f"each strength finds something, not the same ({finds}), and {no_diff}."
                         )  # fmt: skip
    silent = [t for t in verdicts if t not in found]
    why = "; ".join(f"the {title(t)} cannot tell ({_power(verdicts, t)})" for t in silent)
    finds = ", ".join(f"the {title(t)} ({verdicts[t].cell})" for t in found)
    some = "; ".join(x for x in (why,) if x)
    return Judgement("cannot tell", "partly",
                     f"partly: found by {finds}{'; ' + some if some else ''}; {no_diff}.")


def status(verdicts: list[Verdict]) -> str:
    """One row's status on its own (its test corrected over no other row)."""
    tiers = {str(i): v for i, v in enumerate(verdicts)}
    test = difference_test(verdicts[0].topic, verdicts)
    holm_over_rows([test])
    return judge(verdicts[0].topic, tiers, test).status


def judge_table(rows: dict[tuple, dict[str, Verdict]]) -> dict[tuple, Judgement]:
    """Every row of the verdict table judged, the difference tests Holm-corrected over the
    table's rows (`rows`: (topic, players) -> strength -> verdict)."""
    tests = {key: difference_test(key[0], list(vs.values())) if len(vs) > 1 else None
             for key, vs in rows.items()}  # fmt: skip
    holm_over_rows(list(tests.values()))
    return {key: judge(key[0], vs, tests[key]) for key, vs in rows.items() if len(vs) > 1}


def head(topic: str, players, judgement: Judgement) -> str:
    """The bold head of a row's paragraph (`players`: the count of a row asked per count)."""
    where = f" at {players} players" if players else ""
    return f"**{cap(topic)}{where}: {judgement.sentence}**"
