"""The verdict table, the report's first screen: a row per question, a column per play strength,
each cell a short finding or "cannot tell", and whether each finding holds across the strengths
(`reports.sections.across_strengths`); then each verdict's sentence (`reports.sections.verdicts`
builds them)."""

from __future__ import annotations

import pandas as pd

from reports.sections.across_strengths import head, judge_table
from reports.sections.verdicts import Verdict, cap
from reports.strengths import title

#: a row's status in the verdict table -> its words (the last column) and CSS class
STATUS = {
    "holds": ("holds", "v-holds"),
    "differs": ("differs", "v-differs"),
    "cannot tell": ("partly", "v-partial"),
    "none": ("cannot tell", "v-none"),
    "finding": ("finding", "v-holds"),
}


def _question(v: Verdict) -> str:
    where = f" ({v.players}p)" if v.players and v.per_count else ""
    return cap(v.topic) + where


def _rows(tiers: dict[str, list[Verdict]]) -> dict[tuple, dict[str, Verdict]]:
    """(topic, players) -> play strength -> verdict, in the order the questions first appear."""
    rows: dict[tuple, dict[str, Verdict]] = {}
    for tier, found in tiers.items():
        for v in found:
            key = (v.topic, v.players if v.per_count else None)
            rows.setdefault(key, {})[tier] = v
    return rows


def verdict_frame(tiers: dict[str, list[Verdict]]) -> pd.DataFrame:
    """The verdict table: one row per question (a topic, at a player count where it is asked
    per count), one column per play strength holding each strength's short finding or "cannot
    tell", then `across strengths` (`reports.sections.across_strengths`: holds, differs, partly,
    cannot
    tell; with one strength whether it found anything) and `status` (the key of STATUS)."""
    rows = _rows(tiers)
    judged = judge_table(rows) if len(tiers) > 1 else {}
    out = []
    for key, by_tier in rows.items():
        question = _question(next(iter(by_tier.values())))
        if key in judged:
            status, across = judged[key].status, judged[key].cell
        elif len(tiers) > 1:  # one strength played it
            status, across = "cannot tell", f"only the {title(next(iter(by_tier)))}"
        else:
            status = "finding" if next(iter(by_tier.values())).finding else "none"
            across = STATUS[status][0]
        cells = {title(t): (by_tier[t].cell if t in by_tier else "not played") for t in tiers}
        out.append({"question": question, **cells, "across strengths": across,
                    "status": status})  # fmt: skip
    return pd.DataFrame(out)


def verdict_text(frame: pd.DataFrame) -> str:
    """The verdict table as aligned plain text (the terminal's copy of the first screen)."""
    shown = frame.drop(columns="status", errors="ignore")
    widths = [max(len(str(c)), *(len(str(x)) for x in shown[c])) for c in shown.columns]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(shown.columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    for row in shown.itertuples(index=False):
        lines.append("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def add_verdict_table(sec, tiers: dict[str, list[Verdict]]) -> pd.DataFrame:
    """The table that opens the report (coloured by whether each finding holds across play
    strengths) and its plain-text copy (`verdicts.txt`, printed by `tournament --report`)."""
    frame = verdict_frame(tiers)
    if frame.empty:
        return frame
    classes = [STATUS[s][1] for s in frame["status"]]
    # one strength: its column says what it found; nothing to compare across
    shown = frame.drop(columns=["status"] if len(tiers) > 1 else ["status", "across strengths"])
    sec.table(shown.set_index("question"), row_classes=classes, css_class="verdicts")
    sec.attach("verdicts.txt", verdict_text(shown))
    seats = {title(t): {v.players: v.data for v in vs if v.topic == "seat advantage"
                        and v.data is not None} for t, vs in tiers.items()}  # fmt: skip
    seats = {t: by_count for t, by_count in seats.items() if by_count}
    if seats:
        from reports.sections.seat_tables import chart_seat_verdicts

        sec.figure(chart_seat_verdicts(seats), "verdict_seats",
                   "The seat question at a glance: each seat's win share minus the fair share, "
                   "with the seat verdict's interval (simultaneous over the seats)")  # fmt: skip
    return frame


def add_verdicts(report, verdicts: list[Verdict], notes: list[str]) -> None:
    """The `Verdicts` section, first in the report (before the contents): the verdict table,
    then each verdict's sentence."""
    sec = report.section("Verdicts", lead=True)
    add_verdict_table(sec, {"finding": verdicts})
    for v in verdicts:
        sec.paragraph(("" if v.finding else "**Cannot tell.** ") + v.sentence)
    for note in notes:
        sec.note(note)


def add_strength_verdicts(report, tiers: dict[str, list[Verdict]], notes: list[str]) -> None:
    """The `Verdicts` section when the run was played at several strengths: per verdict whether
    it holds (`reports.sections.across_strengths`), then each strength's sentence with its
    figures."""
    sec = report.section("Verdicts", lead=True)
    add_verdict_table(sec, tiers)
    names = list(tiers)
    listed = [f"the {title(t)}" for t in names]
    sec.paragraph("Each verdict is computed with " + ", ".join(listed[:-1]) + " and " +
        listed[-1] + ", each with deals of its own. A finding needs a significant test; "
        "otherwise the sentence says the data cannot tell. A row holds when every strength "
        "finds the same, or when the strengths pooled find it and none is shown to differ; it "
        "differs only when a test of the difference between the strengths says so (Cochran's "
        "Q, corrected over the table's rows); otherwise it says which strength cannot tell and "
        "why.")  # fmt: skip
    rows = _rows(tiers)
    judged = judge_table(rows)
    for (topic, players), found in rows.items():
        if (topic, players) in judged:
            lead = head(topic, players, judged[(topic, players)])
        else:
            where = f" at {players} players" if players else ""
            lead = f"**{cap(topic)}{where}: only the {title(next(iter(found)))} played.**"
        body = " ".join(f"{cap(title(t))}: " + v.sentence for t, v in found.items())
        sec.paragraph(f"{lead} {body}")
    for note in notes:
        sec.note(note)


