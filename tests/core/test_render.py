"""reports/render/report.py: escaping, self-containedness, Markdown links, atomic writes, file
names.

tests/core/test_report_browser.py opens the same report in headless Chromium.
"""

from __future__ import annotations

import base64
import html
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_helpers import GENERATED, HOSTILE, sample_report

from reports.render import report as render
from sim.core.forkpool import submit

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _Page(HTMLParser):
    """Every start tag with its attributes, and the text of the page (entities decoded)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.chunks: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.chunks.append(data)

    def named(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.tags if tag == name]

    @property
    def text(self) -> str:
        return "".join(self.chunks)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    report, frame = sample_report()
    out = tmp_path_factory.mktemp("report")
    paths = report.write(out, generated=GENERATED)
    return out, paths, frame


def _md_table_rows(md: str) -> list[list[str]]:
    """The cells of the first pipe table in `md`, split on unescaped pipes and unescaped."""
    rows = []
    for line in md.splitlines():
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            break
    cells = []
    for line in rows:
        parts, cur, i = [], "", 0
        while i < len(line):
            ch = line[i]
            if ch == "\\" and i + 1 < len(line):
                cur += line[i : i + 2]
                i += 2
                continue
            if ch == "|":
                parts.append(cur)
                cur = ""
            else:
                cur += ch
            i += 1
        parts.append(cur)
        assert parts[0] == "" and parts[-1] == "", f"row does not start and end with |: {line!r}"
        cells.append([re.sub(r"\\(.)", r"\1", p.strip()) for p in parts[1:-1]])
    return cells


# --- files written -----------------------------------------------------------------------------


def test_write_returns_paths_of_existing_files(written):
    out, paths, _ = written
    assert paths["html"] == out / "report.html"
    assert paths["markdown"] == out / "report.md"
    assert len(paths["figures"]) == 2
    for path in [paths["html"], paths["markdown"], *paths["figures"]]:
        assert path.is_file() and path.stat().st_size > 0
    for path in paths["figures"]:
        assert path.parent == out / "figures"
        assert path.read_bytes().startswith(PNG_MAGIC)
    # nothing else: no temporary files left behind
    assert sorted(p.name for p in out.iterdir()) == ["figures", "report.html", "report.md"]


def test_figures_are_closed():
    import matplotlib
    import matplotlib.pyplot as plt

    assert matplotlib.get_backend().lower() == "agg"
    plt.close("all")
    report = render.Report("t")
    fig, ax = plt.subplots()
    ax.plot([1, 2])
    report.section("s").figure(fig, "f")
    assert plt.get_fignums() == []


def _chart(unpicklable: bool = False, label: str = ""):
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, ax = plt.subplots()
    ax.plot([1, 3, 2], label="line")
    ax.set_ylabel(label)
    ax.legend()
    if unpicklable:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0%}"))
    return fig


def test_a_chart_is_drawn_whole_even_when_a_label_runs_past_its_edge():
    """A chart that fits is its figure's size at FIGURE_DPI; one whose y label is longer than
    the figure is tall is cropped to its artists instead (savefig's tight box), so the label is
    not cut off: drawn on the figure's own canvas it would be."""
    from io import BytesIO

    from PIL import Image

    def drawn(label: str) -> tuple[int, int]:
        fig = render.new_figure(figsize=(4.0, 2.0))
        ax = fig.add_subplot()
        ax.plot([1, 3, 2])
        ax.set_ylabel(label)
        return Image.open(BytesIO(render.render_png(fig))).size

    assert drawn("IP") == (4 * render.FIGURE_DPI, 2 * render.FIGURE_DPI)
    width, height = drawn("a y label far longer than two inches of figure, " * 2)
    assert height > 2 * render.FIGURE_DPI + 20  # the whole label, beyond the figure's edge


def test_charts_render_in_workers_to_the_same_bytes(monkeypatch):
    """A chart drawn in the pool (pickled) has the bytes of one drawn here; one that cannot be
    pickled (a lambda formatter) is drawn here, and so is every chart with
    ABYSS_MC_RENDER_INLINE=1."""
    import matplotlib.pyplot as plt

    for unpicklable in (False, True):
        here = render.render_png(_chart(unpicklable))
        assert render.render_png_soon(_chart(unpicklable)).result() == here
    overflowing = lambda: _chart(label="a y label far longer than the figure is tall, " * 3)  # noqa: E731
    assert render.render_png_soon(overflowing()).result() == render.render_png(overflowing())
    plain = render.render_png(_chart())
    assert render._render_pool() is not None  # (not a daemon here: the pool was used)
    monkeypatch.setattr(render, "_POOL", [])
    monkeypatch.setenv(render.RENDER_INLINE_ENV, "1")
    assert render._render_pool() is None
    assert render.render_png_soon(_chart()).result() == plain
    assert plt.get_fignums() == []


def _killed_worker(data: bytes) -> bytes:
    import os

    os._exit(1)


def test_a_chart_whose_worker_dies_is_drawn_here(monkeypatch):
    """A worker killed while drawing breaks the pool: the chart is drawn here from its pickle,
    the same bytes, and the report does not fail."""
    plain = render.render_png(_chart())
    monkeypatch.setattr(render, "_POOL", [])
    monkeypatch.setattr(render, "_render_pickled", _killed_worker)  # (the forked worker's)
    rendering = render.render_png_soon(_chart())
    assert render._POOL[0] is not None
    assert rendering.result() == plain
    render._POOL[0].shutdown(wait=True)


_MADE: list[tuple] = []


def _pure_chart(height: float, label: str, line: bool = False):
    _MADE.append((height, label))
    fig = render.new_figure(figsize=(3.0, 2.0))
    ax = fig.add_subplot()
    (ax.plot if line else ax.bar)([0, 1], [1.0, height], label=label)
    ax.legend()
    return fig


def _other_pure_chart(height: float, label: str):
    return _pure_chart(height, label, line=True)


def test_a_pure_chart_is_drawn_once_per_process_and_its_inputs_are_the_key(monkeypatch):
    """`Section.pure_figure`: the same chart with the same inputs in two reports is made and
    drawn once, both showing the PNG it would draw anew; other inputs, another chart function,
    another resolution or other matplotlib settings make it again; the memory of drawn charts
    is bounded."""
    monkeypatch.setattr(render, "_DRAWN", {})
    _MADE.clear()
    first, second = render.Report("a"), render.Report("b")
    first.section("s").pure_figure(_pure_chart, 2.0, "x", name="bars", caption="c")
    second.section("s").pure_figure(_pure_chart, 2.0, "x", name="bars", caption="other")
    assert _MADE == [(2.0, "x")]
    png = render.render_png(_pure_chart(2.0, "x"))
    (a,), (b,) = first.sections[0].blocks, second.sections[0].blocks
    assert a.png == b.png == png and b.caption == "other"
    others = second.section("t")
    others.pure_figure(_pure_chart, 2.5, "x", name="bars")
    others.pure_figure(_pure_chart, 2.0, "y", name="bars")
    assert _MADE[1:] == [(2.0, "x"), (2.5, "x"), (2.0, "y")]  # (the first: `png` above)
    assert len({block.png for block in others.blocks} | {png}) == 3
    monkeypatch.setattr(render, "FIGURE_DPI", 50)  # (the key only: the pool's workers keep 150)
    others.pure_figure(_pure_chart, 2.0, "x", name="bars")
    assert _MADE[-1] == (2.0, "x") and len(_MADE) == 5
    import matplotlib

    with matplotlib.rc_context({"font.size": 7}):  # (another style: drawn again)
        others.pure_figure(_pure_chart, 2.0, "x", name="bars")
    assert len(_MADE) == 6
    others.pure_figure(_other_pure_chart, 2.0, "x", name="bars")  # another chart, same inputs
    assert len(_MADE) == 7 and others.blocks[-1].png != png
    monkeypatch.setattr(render, "_DRAWN_MAX", 2)
    for k in range(5):
        others.pure_figure(_pure_chart, float(k), "z", name="bars")
    assert len(render._DRAWN) == 2


def test_a_chart_whose_drawing_was_cancelled_is_drawn_here():
    """A chart queued when a report was interrupted (`stop_pool` cancels it) and shown again
    later (a pure chart is reused by the next report in the process) is drawn here from its
    pickle: the same bytes, not an error."""
    import pickle
    from concurrent.futures import Future

    rendering = render._Rendering.__new__(render._Rendering)  # (as the pool left it)
    rendering._png, rendering._pickled = None, pickle.dumps(_chart())
    rendering._future = Future()
    rendering._future.cancel()  # (what `stop_pool` leaves of a chart still queued)
    assert rendering.result() == render.render_png(_chart())


def _pid_and_square(x: int) -> tuple[int, int]:
    import os

    return os.getpid(), x * x


def _refuses(x: int) -> int:
    raise ValueError(f"no {x}")


def test_a_part_computed_soon_is_the_same_value_in_a_worker_or_here(monkeypatch):
    """Issue 54: `compute_soon` runs a report's independent part (a tier's verdicts) in the
    chart pool's worker: the same value as here, a worker's exception raised here; without a
    pool (ABYSS_MC_RENDER_INLINE=1) or with a dead worker, computed here."""
    import os

    monkeypatch.setattr(render, "_POOL", [])
    pid, value = render.compute_soon(_pid_and_square, 7)()
    assert value == 49 and pid != os.getpid()  # (in a worker)
    with pytest.raises(ValueError, match="no 3"):
        render.compute_soon(_refuses, 3)()
    render._POOL[0].shutdown(wait=True)
    monkeypatch.setattr(render, "_POOL", [])
    later = render.compute_soon(_killed_worker_or_square, 5)
    assert later() == 25  # the worker died: computed here
    render._POOL[0].shutdown(wait=True)
    monkeypatch.setattr(render, "_POOL", [])
    monkeypatch.setenv(render.RENDER_INLINE_ENV, "1")
    assert render.compute_soon(_pid_and_square, 2)() == (os.getpid(), 4)


def _killed_worker_or_square(x: int) -> int:
    import multiprocessing as mp
    import os

    if mp.current_process().name != "MainProcess":  # a worker of the pool dies
        os._exit(1)
    return x * x


#: A SIGTERM that lands while the pool forks its workers: right after the first worker starts,
#: before the thread that will end the workers does (`ProcessPoolExecutor` forks them all first).
_SIGTERM_WHILE_FORKING = """
import os, signal, sys
from multiprocessing.process import BaseProcess
from sim.core import interrupts
interrupts.install()
signal.signal(signal.SIGTERM, interrupts.on_sigterm)
start = BaseProcess.start
def start_then_signal(self):
    start(self)
    os.kill(os.getpid(), signal.SIGTERM)
BaseProcess.start = start_then_signal
from reports.render.report import compute_soon
compute_soon(abs, -1)()
"""


@pytest.mark.skipif(os.name != "posix", reason="forks the chart pool's workers")
def test_a_sigterm_while_the_pool_forks_stops_the_command():
    """CI: a report sent SIGTERM just as its chart pool started was still running 600 s later.
    The signal unwound the first submit between the workers' fork and the start of the thread
    that ends them; at exit, multiprocessing waited for a worker no one would end. The submit
    now holds the signal until it returns, then stops (exit 143), workers and all."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    p = subprocess.Popen([sys.executable, "-c", _SIGTERM_WHILE_FORKING], cwd=root, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)  # fmt: skip
    try:
        _, err = p.communicate(timeout=30)
    finally:
        left = _in_session(p.pid)  # its workers, if any outlived it
        for pid in left:
            os.kill(pid, 9)
        if p.poll() is None:
            p.kill()
    assert p.returncode == 143, err
    assert "Traceback" not in err, err
    assert not left, "a worker outlived the command"


def _in_session(sid: int) -> list[int]:
    """The live processes of session `sid` (a command started in a session of its own)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(d.name))
    return found


def _nap(x: int) -> int:
    import time

    time.sleep(0.3)
    return x


def test_an_interrupted_report_drops_its_queued_charts(monkeypatch):
    """`stop_pool` (an interrupted command's exit, `cli.app`) cancels the work queued in the
    chart pool, so the exit waits for the charts being drawn, not for every one queued; the next
    report makes a new pool."""
    monkeypatch.setattr(render, "_POOL", [])
    pool = render._render_pool()
    if pool is None:
        pytest.skip("no process pool here")
    import time

    futures = [submit(pool, _nap, i) for i in range(20)]
    render.stop_pool()
    assert render._POOL == []
    # the pool's thread cancels, soon, not within `stop_pool`; polled, since `wait` does not
    # count a future the shutdown cancelled as done (it waited out its whole timeout, 60 s)
    deadline = time.monotonic() + 60
    while not all(f.done() for f in futures) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sum(f.cancelled() for f in futures) >= 10  # (2 workers, a few calls queued to them)
    assert all(f.result() == i for i, f in enumerate(futures) if not f.cancelled())


# --- HTML --------------------------------------------------------------------------------------


def test_html_escapes_hostile_strings(written):
    _, paths, frame = written
    text = paths["html"].read_text("utf-8")
    page = _Page(text)
    tags = {tag for tag, _ in page.tags}
    assert "script" not in tags
    assert tags <= {
        "html", "head", "meta", "link", "title", "style", "body", "header", "h1", "h2", "p",
        "nav", "ol", "li", "a", "main", "section", "div", "table", "caption", "thead", "tbody",
        "tr", "th", "td", "figure", "img", "figcaption", "footer", "strong", "code",
    }  # fmt: skip
    assert len(page.named("img")) == 2  # the hostile <img> is text, not an element
    for _, attrs in page.tags:
        assert not any(name.startswith("on") for name in attrs), attrs
        assert "x" not in attrs  # the attribute break-out of HOSTILE["attr"] failed
    # every hostile string is on the page as text, exactly
    for value in HOSTILE.values():
        if "\n" not in value:
            assert value in page.text, value
    assert "two\nlines" in page.text
    assert html.escape(HOSTILE["script"]) in text
    assert "&amp;lt;not a tag&amp;gt;" in text
    # the only markup honoured: **bold** and `code`
    assert "<strong>bold</strong>" in text and "<code>code</code>" in text
    assert "**not bold**" in page.text
    # title and alt attributes keep the hostile text
    assert page.named("img")[0]["alt"] == HOSTILE["img"]
    # table cells: one row per frame row, index and column names as header cells
    assert page.text.count("<script>alert(1)</script>") >= 3


def test_html_is_self_contained(written):
    out, paths, _ = written
    text = paths["html"].read_text("utf-8")
    assert "http://" not in text and "https://" not in text
    assert 'src="figures' not in text and "figures/" not in text
    assert "<script" not in text.lower()
    page = _Page(text)
    imgs = page.named("img")
    assert len(imgs) == 2
    files = {p.read_bytes() for p in (out / "figures").iterdir()}
    for attrs in imgs:
        src = attrs["src"]
        assert src.startswith("data:image/png;base64,")
        png = base64.b64decode(src.split(",", 1)[1], validate=True)
        assert png.startswith(PNG_MAGIC)
        assert png in files
    assert [a["rel"] for a in page.named("link")] == ["icon"]
    assert page.named("link")[0]["href"] == "data:,"
    for attrs in page.named("a"):
        target = attrs["href"]
        assert target.startswith("#")
        assert f'id="{target[1:]}"' in text


def test_html_links_and_urls_in_text_are_not_links():
    report = render.Report("https://example.invalid/")
    report.section("s", "See https://example.invalid/x.png and <a href='https://x.invalid'>x</a>")
    page = _Page(report.to_html())
    for tag, attrs in page.tags:
        for name in ("href", "src"):
            value = attrs.get(name)
            assert value is None or value.startswith(("#", "data:")), (tag, attrs)


def test_html_table_layout_and_number_format():
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(
        {"name": ["x", "y"], "rate": [0.12345, np.nan], "n": [1, 2], "ok": [True, False]},
        index=pd.Index([0.7, 0.9], name="fight_p"),
    )
    report = render.Report("t")
    report.section("s").table(frame, caption="c", float_format="{:.1%}")
    text = report.to_html()
    assert '<th scope="col" class="num">fight_p</th>' in text
    assert '<th scope="row" class="num">0.7</th>' in text  # labels are not float-formatted
    assert '<td class="num">12.3%</td>' in text
    assert f'<td class="num">{render.MISSING}</td>' in text
    assert '<td class="num">2</td>' in text
    assert "<td>True</td>" in text
    assert "<caption>c</caption>" in text
    # a default RangeIndex is not shown
    report = render.Report("t")
    report.section("s").table(pd.DataFrame({"a": [1.0]}), float_format=lambda v: f"<{v}>")
    text = report.to_html()
    assert 'scope="row"' not in text and '<td class="num">&lt;1.0&gt;</td>' in text


def test_html_footer_and_toc(written):
    _, paths, _ = written
    text = paths["html"].read_text("utf-8")
    assert "<footer>Generated 2024-05-01 12:30:00 UTC by abyss-mc</footer>" in text
    assert text.count('<nav class="toc"') == 1
    assert re.findall(r'<section id="([^"]+)">', text) == re.findall(r'href="#([^"]+)"', text)


# --- Markdown ----------------------------------------------------------------------------------


def test_markdown_table_escapes_pipes_backslashes_newlines(written):
    _, paths, frame = written
    md = paths["markdown"].read_text("utf-8")
    rows = _md_table_rows(md)
    n_cols = 1 + frame.shape[1]  # index + columns
    assert len(rows) == 2 + len(frame)  # header, alignment, rows
    assert all(len(row) == n_cols for row in rows), rows
    assert rows[0] == [HOSTILE["pipe"], "win rate", "games", HOSTILE["script"]]
    assert rows[1] == ["---", "---:", "---:", "---"]
    for row, (label, value) in zip(rows[2:], frame.iloc[:, 2].items(), strict=True):
        assert row[0] == label.replace("\n", "<br>")
        assert row[3] == value.replace("\n", "<br>")
    assert rows[2][1] == "0.100" and rows[2][2] == "0"


def test_markdown_escapes_text(written):
    _, paths, _ = written
    md = paths["markdown"].read_text("utf-8")
    # no raw HTML but our own <br>: every other < is backslash-escaped
    assert re.findall(r"(?<!\\)<(?!br>)", md) == []
    assert md.startswith("# Report \\<script\\>alert(1)\\</script\\>\n")
    assert "\\*\\*not bold\\*\\*" in md and "\\[link\\](javascript:alert(3))" in md
    assert "\\!" not in md and "\\_x\\_" in md
    assert "Intro with **bold** and `code`." in md
    assert "> A note back\\\\slash\\\\\\|x" in md
    # a title with a newline stays one heading line
    assert "\n## two lines\n" in md


def test_markdown_paragraph_line_starts_escaped():
    report = render.Report("t")
    report.section("s", "- a\n+ b\n= c\n12. d\n3) e\n# f\n> g\n    h\nfight_p_x")
    md = report.to_markdown()
    body = md.split("## s\n\n", 1)[1].split("\n\n", 1)[0]
    assert body.splitlines() == [
        "\\- a",
        "\\+ b",
        "\\= c",
        "12\\. d",
        "3\\) e",
        "\\# f",
        "\\> g",
        "h",
        "fight_p_x",
    ]


def test_markdown_images_point_to_existing_files(written):
    out, paths, _ = written
    md = paths["markdown"].read_text("utf-8")
    links = re.findall(r"!\[(?:[^\]\\]|\\.)*\]\(([^)]*)\)", md)
    assert len(links) == 2
    assert sorted(out / link for link in links) == sorted(paths["figures"])
    for link in links:
        assert link.startswith("figures/") and link.endswith(".png")
        assert (out / link).is_file()


def test_markdown_toc_uses_github_anchors():
    report = render.Report("Report")
    for title in ("Win rates", "Win rates", "Seat 1: effects!", "Contents"):
        report.section(title)
    md = report.to_markdown()
    assert re.findall(r"\]\(#([^)]*)\)", md) == [
        "win-rates",
        "win-rates-1",
        "seat-1-effects",
        "contents-1",
    ]


# --- atomic writes -----------------------------------------------------------------------------


def test_interrupted_write_leaves_no_report_html(tmp_path, monkeypatch):
    report, _ = sample_report()
    real_replace = os.replace

    def failing_replace(src, dst):
        if Path(dst).name == "report.html":
            raise OSError("disk full")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        report.write(tmp_path)
    assert not (tmp_path / "report.html").exists()
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".")]  # no temporary files


def test_interrupted_rewrite_keeps_previous_report(tmp_path, monkeypatch):
    first = render.Report("first")
    first.section("s", "old")
    first.write(tmp_path, generated=GENERATED)
    before = (tmp_path / "report.html").read_bytes()

    def failing_replace(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", failing_replace)
    second = render.Report("second")
    second.section("s", "new")
    with pytest.raises(KeyboardInterrupt):
        second.write(tmp_path)
    assert (tmp_path / "report.html").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html", "report.md"]


# --- figure names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, expected",
    [
        ("win-rates", "win-rates"),
        ("Win Rates 2024", "win-rates-2024"),
        ("../../etc/passwd", "etc-passwd"),
        ("/abs/path.png", "abs-path.png"),
        ("..", "figure"),
        ("", "figure"),
        (".hidden", "hidden"),
        ("<script>alert(1)</script>", "script-alert-1-script"),
        ('a|b\\c:d*e?f"g', "a-b-c-d-e-f-g"),
        ("Éléphant ñ", "elephant-n"),
        ("名前", "figure"),
        ("CON", "con-fig"),
        ("nul.txt", "nul.txt-fig"),
        ("x" * 200, "x" * 80),
        ("line\nbreak\x00nul", "line-break-nul"),
    ],
)
def test_safe_name(name, expected):
    assert render.safe_name(name) == expected
    assert re.fullmatch(r"[a-z0-9][a-z0-9._-]*", expected)


def test_figure_names_are_unique_and_safe(tmp_path):
    report = render.Report("t")
    sec = report.section("s")
    for name in ("a/b", "a b", "A-B", "../x"):
        fig = render.new_figure((2, 2))
        fig.add_subplot().plot([0, 1])
        sec.figure(fig, name)
    paths = report.write(tmp_path)
    assert [p.name for p in paths["figures"]] == ["a-b.png", "a-b-2.png", "a-b-3.png", "x.png"]
    assert all(p.parent == tmp_path / "figures" for p in paths["figures"])


def test_table_edge_cases():
    import pandas as pd

    report = render.Report("t")
    sec = report.section("s")
    sec.table(pd.DataFrame())
    sec.table(pd.DataFrame({"a": []}))
    multi = pd.DataFrame(
        [[1, 2.5]],
        index=pd.MultiIndex.from_tuples([("greedy", 1)], names=["strategy", "seat"]),
        columns=pd.MultiIndex.from_tuples([("score", "lords"), ("score", "a|b")]),
    )
    sec.table(multi)
    text, md = report.to_html(), report.to_markdown()
    assert "(no rows)" in text and "*(empty table)*" in md
    assert '<th scope="col">strategy</th><th scope="col" class="num">seat</th>' in text
    assert '<th scope="col" class="num">score / a|b</th>' in text
    assert "| strategy | seat | score / lords | score / a\\|b |" in md
    assert "| greedy | 1 | 1 | 2.500 |" in md


def _signals_here() -> tuple[str, str]:
    import signal

    return str(signal.getsignal(signal.SIGINT)), str(signal.getsignal(signal.SIGTERM))


def test_a_chart_worker_sets_its_own_signals(monkeypatch):
    """A worker is forked while the command holds its signals (`sim.core.forkpool.submit`): it
    inherited the holding handler, and a SIGTERM to it (a batch scheduler's, to the process
    group) was only remembered. It now ignores Ctrl-C (the command's to answer) and ends on
    SIGTERM."""
    import signal

    from sim.core import interrupts

    monkeypatch.setattr(render, "_POOL", [])
    if render._render_pool() is None:
        pytest.skip("no process pool here")
    with interrupts.deferred():  # (as `submit` forks the workers)
        later = render.compute_soon(_signals_here)
    assert later() == (str(signal.SIG_IGN), str(signal.SIG_DFL))
    render._POOL[0].shutdown(wait=True)
