"""What `abyss-mc design` shows: the summary (a table first: each target given and recommended,
on fresh deals, with the re-tuned players and the learned player), the trade-off chart (the
Pareto front of shortfall and distance) and the report."""

from __future__ import annotations

import math

import numpy as np

from reports.design import Candidate, Outcome


def _cell(c: Candidate | None, target) -> str:
    if c is None:
        return "-"
    from reports.design import _check

    e = c.estimates[target.name]
    ok = {True: "meets", False: "misses", None: "cannot tell"}[_check(_only(c, target), [target])]
    if math.isnan(e.lo):
        return f"{e.value:.3f} {ok}"
    if target.metric == "card_value" and e.value == e.lo == e.hi == 0:
        return f"0 {ok} (never taken: forbidding it changed no game)"
    return f"{e.value:.3f} [{e.lo:.3f}, {e.hi:.3f}] {ok}"


def _only(c: Candidate, target) -> Candidate:
    """`c` with the estimate of `target` alone (a cell judges one target)."""
    return Candidate(c.number, c.batch, c.values, {target.name: c.estimates[target.name]},
                     c.distance)  # fmt: skip


def _values(outcome: Outcome, c: Candidate) -> str:
    p = outcome.problem
    return ", ".join(f"{v.key}={v.text(c.values[v.key])}" for v in p.varies)


def headline(outcome: Outcome) -> str:
    p, rec = outcome.problem, outcome.recommended
    if outcome.verdict == "no change needed":
        return "No change needed: the data as given meets every target on fresh deals."
    if outcome.verdict == "unreachable":
        return ("Unreachable: no candidate met every target on fresh deals; the closest are "
                "listed below.")  # fmt: skip
    given = ", ".join(f"{v.key}={v.text(v.start)}" for v in p.varies)
    text = f"Change {given} to {_values(outcome, rec)}."
    if outcome.adapted is not None:
        text += {False: " It meets the targets only with the old players: with the players "
                        "re-tuned to the new values it misses them.",
                 True: " It still meets them with the players re-tuned to the new values.",
                 None: " With the players re-tuned to the new values the data cannot tell "
                       "whether it still meets them."}[outcome.adapts]  # fmt: skip
    if outcome.learned is not None:
        text += {False: " With the learned player in every seat it misses them.",
                 True: " With the learned player in every seat it meets them too.",
                 None: " With the learned player in every seat the data cannot tell."}[
            outcome.learned_holds]  # fmt: skip
    return text


def rows(outcome: Outcome) -> list[list[str]]:
    """One row per target: given and recommended on fresh deals, then the players' checks."""
    p = outcome.problem
    given = next((c for c in outcome.fresh if c.number == 0), None)
    out = []
    for t in p.targets:
        out.append([t.text, _cell(given, t), _cell(outcome.recommended, t),
                    _cell(outcome.adapted, t), _cell(outcome.learned, t)])  # fmt: skip
    return out


HEADERS = ["target", "as given", "recommended", "re-tuned players", "learned player"]


def summary_text(outcome: Outcome, command: str = "") -> str:
    p, b = outcome.problem, outcome.budget
    fld = p.field
    lines = [f"Design: {fld.spec.title}, {fld.n_players} players, line-up "
             f"{','.join(fld.lineup)}" + (f", cards valued for {fld.card_strategy}"
                                         if any(t.metric.endswith("card_value")
                                                for t in p.targets) else ""),  # fmt: skip
             headline(outcome), ""]
    table = [HEADERS, *rows(outcome)]
    widths = [max(len(r[i]) for r in table) for i in range(len(HEADERS))]
    for r in table:
        lines.append("  " + "  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)))
    lines.append("")
    if outcome.verdict == "unreachable":
        lines.append("The closest candidates (fresh deals):")
        for c in sorted(outcome.fresh, key=lambda c: (c.shortfall, c.distance))[:5]:
            figures = "; ".join(f"{t.name} {_cell(c, t)}" for t in p.targets)
            lines.append(f"  {_values(outcome, c)}: {figures}")
        lines.append("")
    n_fresh = len(outcome.fresh)
    if b is not None:
        lines.append(f"{len(outcome.searched)} candidates searched, each on the same {b.blocks} "
                     f"deals (common random numbers); {n_fresh} finalists re-played on "
                     f"{b.reeval_blocks} fresh deals (95% intervals; a target holds on the "
                     "side it asks, == when its interval contains the value).")  # fmt: skip
    if outcome.retuned:
        changed = {k: v for k, v in outcome.retuned.items() if k != v}
        lines.append("Re-tuned under the recommended values: " + (
            "; ".join(f"{k} -> {v}" for k, v in changed.items()) if changed
            else "nothing (no strategy of the line-up has parameters to tune)"))  # fmt: skip
    if outcome.learned_note:
        lines.append(f"The learned player: {outcome.learned_note}")
    if command:
        lines.append(f"Command: {command}")
    return "\n".join(lines) + "\n"


def chart(outcome: Outcome, df):
    """Every candidate's shortfall against its distance from the data as given; the front of
    the trade-off joined, the finalists ringed, the recommendation starred."""
    from reports.charts import figure
    from reports.design import pareto

    fig = figure(figsize=(6.4, 4.0))
    ax = fig.add_subplot()
    s, d = df["shortfall"].to_numpy(float), df["distance"].to_numpy(float)
    s_plot = np.where(np.isfinite(s), s, np.nan)
    ax.scatter(d, s_plot, s=14, color="#9aa7b4", label="candidates (search)")
    front = pareto(df)
    order = np.argsort(d[front])
    ax.plot(d[front][order], s_plot[front][order], color="#1f4e79", lw=1.2, marker="o",
            ms=4, label="trade-off front")  # fmt: skip
    fin = df["stage"].to_numpy() != "search"
    ax.scatter(d[fin], s_plot[fin], s=70, facecolors="none", edgecolors="#c0792b", lw=1.4,
               label="finalists (fresh deals)")  # fmt: skip
    rec = df["recommended"].to_numpy(bool)
    if rec.any():
        ax.scatter(d[rec], s_plot[rec], s=160, marker="*", color="#2e7d32", zorder=5,
                   label="recommended")  # fmt: skip
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlabel("distance from the data as given (share of each range, summed)")
    ax.set_ylabel("shortfall from the targets\n(standard errors, summed)")
    ax.set_title("Which change meets the targets, and how far it goes", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    return fig


def chart_png(outcome: Outcome, df) -> bytes:
    from reports.render import render_png

    return render_png(chart(outcome, df))


def write_report(outcome: Outcome, df, out_dir, command: str = "") -> dict:
    import pandas as pd

    from reports.render import Report

    p = outcome.problem
    fld = p.field
    report = Report("Design: " + ", ".join(t.text for t in p.targets),
                    f"{fld.spec.title}, {fld.n_players} players; varied: "
                    + ", ".join(v.key for v in p.varies))  # fmt: skip
    top = report.section("The answer", lead=True)
    top.table(pd.DataFrame(rows(outcome), columns=HEADERS),
              caption="Each target on fresh deals, 95% intervals")  # fmt: skip
    top.paragraph(headline(outcome))
    top.figure(chart(outcome, df), "tradeoff", "Every candidate: shortfall against distance")
    detail = report.section("Every candidate")
    shown = df.drop(columns=[c for c in df.columns if c.endswith(("_lo", "_hi"))])
    detail.table(shown.sort_values(["stage", "distance"]), float_format="{:.4g}",
                 caption="candidates.csv holds the intervals too")  # fmt: skip
    about = report.section("How the answer was found")
    about.paragraph(summary_text(outcome, command).split("\n\n", 1)[-1].strip())
    about.paragraph("docs/design.md explains how to ask and how to read the answer.")
    return report.write(out_dir)
