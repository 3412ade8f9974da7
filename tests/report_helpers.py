"""A small report full of hostile strings, shared by tests/core/test_render.py and
tests/core/test_report_browser.py."""

from __future__ import annotations

import datetime as dt

#: Strings that break HTML or Markdown when not escaped. Each goes into a title, caption, cell,
#: column name or index name of `sample_report`.
HOSTILE = {
    "script": "<script>alert(1)</script>",
    "img": '<img src=x onerror="window.__pwned=1">',
    "attr": '" onmouseover="alert(2)" x="',
    "pipe": "a|b",
    "backslash": "back\\slash\\|x",
    "newline": "two\nlines",
    "entity": "&lt;not a tag&gt; & AT&T",
    "markdown": "**not bold** _x_ [link](javascript:alert(3)) ![i](x.png) # `c`",
}

GENERATED = dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.UTC)


def sample_report():
    """A 2-section report: a table of hostile strings and 2 figures (one via pyplot, one via
    `new_figure`). Returns ``(report, frame)``."""
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    from reports.render.report import Report, new_figure

    frame = pd.DataFrame(
        {
            "win rate": np.linspace(0.1, 0.9, len(HOSTILE)),
            "games": np.arange(len(HOSTILE)) * 1000,
            HOSTILE["script"]: list(HOSTILE.values()),
        },
        index=pd.Index(list(HOSTILE.values()), name=HOSTILE["pipe"]),
    )
    report = Report(f"Report {HOSTILE['script']}", subtitle=HOSTILE["attr"])
    first = report.section(
        f"Win rates {HOSTILE['img']}",
        "Intro with **bold** and `code`.\n\n"
        f"Second paragraph: {HOSTILE['entity']} {HOSTILE['img']}",
    )
    first.table(frame, caption=f"Strategies {HOSTILE['pipe']} {HOSTILE['entity']}")
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar(["greedy", "random"], [0.6, 0.4])
    ax.set_title("<script>not a script</script>")
    first.figure(fig, "../win rates <script>", caption=HOSTILE["img"])

    second = report.section(HOSTILE["newline"])
    second.note(f"A note {HOSTILE['backslash']}")
    fig2 = new_figure((4, 3))
    fig2.add_subplot().plot([0, 1, 2], [2, 0, 1])
    second.figure(fig2, "Seat effects", caption="Seat effects")
    second.paragraph("The end.")
    return report, frame
