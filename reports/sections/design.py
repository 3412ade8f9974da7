"""What `abyss-mc design` shows: the summary (a table first: each target as given, and the
chosen candidate on the confirmation's deals, with the re-tuned players and the learned player),
the trade-off chart (the Pareto front of shortfall and distance) and the report."""

from __future__ import annotations

import math

import numpy as np

from reports.design import Candidate, Outcome


def _cell(c: Candidate | None, target) -> str:
    """A target's figure on one candidate's deals: value, 95% interval and what they say."""
    if c is None:
        return "-"
    e = c.estimates[target.name]
    ok = c.says(target)
    if math.isnan(e.lo):
        return f"{e.value:.3f} {ok}"
    if target.metric == "card_value" and e.value == e.lo == e.hi == 0:
        return f"0 {ok} (never taken: forbidding it changed no game)"
    return f"{e.value:.3f} [{e.lo:.3f}, {e.hi:.3f}] {ok}"


def _values(outcome: Outcome, c: Candidate) -> str:
    p = outcome.problem
    return ", ".join(f"{v.key}={v.text(c.values[v.key])}" for v in p.varies)


def _deals(outcome: Outcome) -> str:
    b = outcome.budget
    return f"{b.reeval_blocks} deals" if b is not None else "its deals"


def headline(outcome: Outcome) -> str:
    """The answer in one paragraph: what the confirmation's deals say, then the other players."""
    p, conf, verdict = outcome.problem, outcome.confirmation, outcome.verdict
    deals = _deals(outcome)
    if verdict == "no change needed":
        return (f"No change needed: the data as given meets every target on the confirmation's "
                f"{deals}, which chose nothing (every seat rotation of each deal).")  # fmt: skip
    if verdict == "unreachable":
        return ("Unreachable: every finalist misses a target on its round's fresh deals (its "
                "interval wholly on the wrong side); the closest are listed below.")  # fmt: skip
    if verdict == "cannot tell":
        return ("Cannot tell: no finalist was shown to meet every target on its round's fresh "
                "deals, and some miss none (their intervals straddle a target); the closest are "
                "listed below. More deals (--reeval-blocks) may tell.")  # fmt: skip
    what = "the data as given" if conf.number == 0 else _values(outcome, conf)
    if verdict == "not confirmed":
        said = "misses a target" if outcome.confirmed is False else "cannot tell"
        return (f"Not confirmed: {what} met every target on its round's deals, but on the "
                f"confirmation's {deals}, which chose nothing, it {said}; no change is "
                "recommended, and no other candidate is chosen on those deals.")  # fmt: skip
    given = ", ".join(f"{v.key}={v.text(v.start)}" for v in p.varies)
    text = (f"Change {given} to {what}: it meets every target on the confirmation's {deals}, "
            "which chose nothing.")  # fmt: skip
    if outcome.adapted is not None:
        text += {False: " With the players re-tuned to the new values it misses them: it meets "
                        "them only with the old players.",
                 True: " It still meets them with the players re-tuned to the new values.",
                 None: " With the players re-tuned to the new values the data cannot tell "
                       "whether it still meets them."}[outcome.adapts]  # fmt: skip
    if outcome.learned is not None:
        text += " With the learned player in every seat (its weights fitted under the rules as " \
            "given, not re-fitted) " + {False: "it misses them.", True: "it meets them too.",
                                        None: "the data cannot tell."}[outcome.learned_holds]
    return text


def headers(outcome: Outcome) -> list[str]:
    third = "chosen, not confirmed" if outcome.verdict == "not confirmed" else "recommended"
    return ["target", "as given", f"{third} (confirmation deals)", "re-tuned players",
            "learned player (weights of the rules as given)"]


def rows(outcome: Outcome) -> list[list[str]]:
    """One row per target: the data as given on the first round's deals, the chosen candidate
    on the confirmation's, then the other players' checks."""
    p = outcome.problem
    given = next((c for c in outcome.fresh if c.number == 0), None)
    out = []
    for t in p.targets:
        out.append([t.text, _cell(given, t), _cell(outcome.confirmation, t),
                    _cell(outcome.adapted, t), _cell(outcome.learned, t)])  # fmt: skip
    return out


def summary_text(outcome: Outcome, command: str = "") -> str:
    p, b = outcome.problem, outcome.budget
    fld = p.field
    lines = [f"Design: {fld.spec.title}, {fld.n_players} players, line-up "
             f"{','.join(fld.lineup)}" + (f", cards valued for {fld.card_strategy}"
                                         if any(t.metric.endswith("card_value")
                                                for t in p.targets) else ""),  # fmt: skip
             headline(outcome), ""]
    table = [headers(outcome), *rows(outcome)]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for r in table:
        lines.append("  " + "  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)))
    lines.append("")
    if outcome.verdict in ("unreachable", "cannot tell"):
        lines.append("The closest candidates (their rounds' fresh deals):")
        for c in sorted(outcome.fresh, key=lambda c: (c.shortfall, c.distance))[:5]:
            figures = "; ".join(f"{t.name} {_cell(c, t)}" for t in p.targets)
            lines.append(f"  {_values(outcome, c)}: {figures}")
        lines.append("")
    if b is not None:
        sizes = "+".join(str(len(r)) for r in outcome.rounds)
        lines.append(
            f"{len(outcome.searched)} candidates searched, each on the same {b.blocks} deals "
            f"(common random numbers); finalists in {len(outcome.rounds)} round(s) of {sizes} "
            f"(the data as given in the first), each round on {b.reeval_blocks} deals of its own "
            f"that chose it; the chosen candidate confirmed on {b.reeval_blocks} other deals "
            "(95% intervals over deals, every seat rotation of a deal; a target is met when its "
            "interval lies on the side it asks, == when inside X±margin).")  # fmt: skip
    if outcome.retuned:
        changed = {k: v for k, v in outcome.retuned.items() if k != v}
        lines.append("Re-tuned under the recommended values: " + (
            "; ".join(f"{k} -> {v}" for k, v in changed.items()) if changed
            else "nothing (no strategy of the line-up has parameters to tune)"))  # fmt: skip
    if outcome.learned is not None or outcome.learned_note:
        lines.append("The learned player: " + (outcome.learned_note or "weights fitted under "
                     "the rules as given, not re-fitted to the recommended values: a stronger "
                     "player's check of the answer, not a player that adapts."))  # fmt: skip
    for s in outcome.skipped:
        lines.append(f"Skipped to keep within --minutes: {s}.")
    if b is not None and b.minutes is not None:
        lines.append(f"Time: {outcome.minutes_used:.1f} of --minutes {b.minutes:g}.")
    if command:
        lines.append(f"Command: {command}")
    return "\n".join(lines) + "\n"


def chart(outcome: Outcome, df):
    """Every candidate's shortfall against its distance from the data as given, on the search's
    games; the front of the trade-off joined, the finalists ringed, the recommendation starred."""
    from reports.design import pareto
    from reports.render.charts import figure

    fig = figure(figsize=(6.4, 4.0))
    ax = fig.add_subplot()
    searched = df[df["stage"] == "search"]
    s, d = searched["shortfall"].to_numpy(float), searched["distance"].to_numpy(float)
    s_plot = np.where(np.isfinite(s), s, np.nan)
    ax.scatter(d, s_plot, s=14, color="#9aa7b4", label="candidates (search)")
    front = pareto(searched)
    order = np.argsort(d[front])
    ax.plot(d[front][order], s_plot[front][order], color="#1f4e79", lw=1.2, marker="o",
            ms=4, label="trade-off front")  # fmt: skip
    number = searched["candidate"].to_numpy()
    fin = np.isin(number, [c.number for c in outcome.fresh])
    ax.scatter(d[fin], s_plot[fin], s=70, facecolors="none", edgecolors="#c0792b", lw=1.4,
               label="finalists (played on deals of their own)")  # fmt: skip
    if outcome.recommended is not None:
        rec = number == outcome.recommended.number
        ax.scatter(d[rec], s_plot[rec], s=160, marker="*", color="#2e7d32", zorder=5,
                   label="recommended (confirmed)")  # fmt: skip
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlabel("distance from the data as given (share of each range, summed)")
    ax.set_ylabel("shortfall from the targets\n(standard errors, summed; search's games)")
    ax.set_title("Which change meets the targets, and how far it goes", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    return fig


def chart_png(outcome: Outcome, df) -> bytes:
    from reports.render.report import render_png

    return render_png(chart(outcome, df))


def write_report(outcome: Outcome, df, out_dir, command: str = "") -> dict:
    import pandas as pd

    from reports.render.report import Report

    p = outcome.problem
    fld = p.field
    report = Report("Design: " + ", ".join(t.text for t in p.targets),
                    f"{fld.spec.title}, {fld.n_players} players; varied: "
                    + ", ".join(v.key for v in p.varies))  # fmt: skip
    top = report.section("The answer", lead=True)
    top.table(pd.DataFrame(rows(outcome), columns=headers(outcome)),
              caption="The data as given on the first round's deals, the chosen candidate on "
              "the confirmation's (deals that chose nothing), the other players on deals of "
              "their own; 95% intervals over deals")  # fmt: skip
    top.paragraph(headline(outcome))
    top.figure(chart(outcome, df), "tradeoff", "Every candidate: shortfall against distance")
    detail = report.section("Every candidate")
    shown = df.drop(columns=[c for c in df.columns if c.endswith(("_lo", "_hi"))])
    detail.table(shown, float_format="{:.4g}",
                 caption="One row per candidate and stage (its deals: seed and deals); "
                 "candidates.csv holds the intervals too")  # fmt: skip
    about = report.section("How the answer was found")
    about.paragraph(summary_text(outcome, command).split("\n\n", 1)[-1].strip())
    about.paragraph("docs/design.md explains how to ask and how to read the answer.")
    return report.write(out_dir)
