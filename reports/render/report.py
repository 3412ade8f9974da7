"""Report writer: one self-contained ``report.html``, a GitHub ``report.md`` and ``figures/*.png``.

Analyses build a `Report` out of sections holding paragraphs, notes, tables (pandas DataFrames)
and figures (matplotlib), then `Report.write` writes it::

    report = Report("Greedy vs random", subtitle="10,000 games, seed 7")
    sec = report.section("Win rates", "Wilson 95% intervals.\\n\\nTies count for **every** seat.")
    sec.table(df, caption="Win rate by strategy", float_format="{:.1%}")
    fig = new_figure()
    fig.add_subplot().plot(x, y)
    sec.figure(fig, "win-rates", caption="Win rate by seat")
    paths = report.write(out_dir)   # {"html": ..., "markdown": ..., "figures": [...]}

Text is plain text: paragraphs are separated by blank lines, and the only markup recognised is
``**bold**`` and ```code``` (in paragraphs and notes, not in titles, captions or table cells).
Everything else that the caller supplies (titles, captions, cells, column and index names) is
escaped: HTML-escaped in report.html, backslash-escaped in report.md, where table cells also
have ``|`` and backslashes escaped and newlines turned into ``<br>``. Figure names become safe
file names (`safe_name`).

report.html needs nothing else: the CSS is inline, every chart is a ``data:image/png;base64``
URI, there is no JavaScript and no external URL, and its Content-Security-Policy forbids loading
anything but those data URIs. Every file is written to a temporary name in its directory and
renamed into place (`sim.core.runs.atomic_write_bytes`); report.html is written last, so a
complete report.html means the whole report was written.

A figure is rendered to PNG with matplotlib's Agg renderer as soon as `Section.figure` is called,
and closed; later changes to it are not seen. Importing this module selects the Agg backend
unless pyplot was already imported (switching then would close the caller's open figures).
"""

from __future__ import annotations

import abc
import base64
import dataclasses
import datetime as _dt
import io
import numbers
import re
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib

from reports.render.markup import (
    GitHubSlugger,
    html_inline,
    html_text,
    md_line,
    md_paragraph,
    md_row,
    num_class,
    paragraphs,
    slug_ascii,
)
from sim.core.forkpool import submit
from sim.core.interrupts import raise_if_interrupted
from sim.core.runs import atomic_write_bytes

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

if "matplotlib.pyplot" not in sys.modules:
    matplotlib.use("Agg")

#: Resolution of the PNG files; report.html shows them at `_CSS_DPI` (sharp on HiDPI and paper).
FIGURE_DPI = 150
_CSS_DPI = 100
#: zlib's level for the PNG files: 4% more bytes than level 9, half the time to encode
#: (docs/benchmarks.md, 2026-12-07 (20:15))
PNG_COMPRESS_LEVEL = 8
#: Shown for missing values (None, NaN, NaT, pd.NA) in tables.
MISSING = "\u2014"

FloatFormat = str | Callable[[float], str]


# --- public API --------------------------------------------------------------------------------


def new_figure(figsize: tuple[float, float] = (7.0, 4.0), **kwargs: Any) -> Figure:
    """A matplotlib Figure that pyplot does not track (nothing to close, no display needed)."""
    from matplotlib.figure import Figure

    kwargs.setdefault("layout", "constrained")
    return Figure(figsize=figsize, **kwargs)


class Report:
    """A report: a title, an optional subtitle and a list of sections."""

    def __init__(self, title: str, subtitle: str = "") -> None:
        self.title = str(title)
        self.subtitle = str(subtitle)
        self.sections: list[Section] = []
        self._figure_names: set[str] = set()
        #: files written beside the report (name -> text), e.g. the verdict table as text
        self.attachments: dict[str, str] = {}

    def section(self, title: str, text: str = "", *, lead: bool = False) -> Section:
        """Add a section; `text` (optional) becomes its first paragraphs. A `lead` section (the
        verdicts) comes first, before the table of contents, whenever it is added."""
        raise_if_interrupted()  # a report has no chunks: each part it adds is a safe point
        sec = Section(self, str(title), len(self.sections) + 1)
        sec.lead = lead
        at = sum(s.lead for s in self.sections) if lead else len(self.sections)
        self.sections.insert(at, sec)
        if text:
            sec.paragraph(text)
        return sec

    def _parts(self) -> tuple[list[Section], list[Section]]:
        """(lead sections, the others: the contents)."""
        return [s for s in self.sections if s.lead], [s for s in self.sections if not s.lead]

    def write(self, out_dir: Path | str, *, generated: _dt.datetime | None = None) -> dict:
        """Write ``figures/NAME.png``, ``report.md`` and, last, ``report.html`` into `out_dir`
        (created if missing; files of the same names are replaced).

        Returns ``{"html": Path, "markdown": Path, "figures": [Path, ...]}``. `generated` is the
        time shown in the footer (default: now, UTC).
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        figures = [b for sec in self.sections for b in sec.blocks if isinstance(b, _Figure)]
        figure_paths = []
        if figures:
            (out / "figures").mkdir(exist_ok=True)
            for fig in figures:
                path = out / "figures" / f"{fig.name}.png"
                atomic_write_bytes(path, fig.png)
                figure_paths.append(path)
        for name, text in self.attachments.items():
            atomic_write_bytes(out / name, text.encode("utf-8"))
        generated = generated or _dt.datetime.now(_dt.UTC)
        md_path, html_path = out / "report.md", out / "report.html"
        atomic_write_bytes(md_path, self.to_markdown(generated=generated).encode("utf-8"))
        atomic_write_bytes(html_path, self.to_html(generated=generated).encode("utf-8"))
        return {"html": html_path, "markdown": md_path, "figures": figure_paths}

    def to_html(self, *, generated: _dt.datetime | None = None) -> str:
        """The self-contained HTML page (what `write` saves as report.html)."""
        generated = generated or _dt.datetime.now(_dt.UTC)
        out = [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="abyss-mc">',
            '<link rel="icon" href="data:,">',
            f"<title>{html_text(self.title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            "<header>",
            f"<h1>{html_text(self.title)}</h1>",
        ]
        if self.subtitle:
            out.append(f'<p class="subtitle">{html_text(self.subtitle)}</p>')
        out.append("</header>")
        lead, rest = self._parts()
        out.append("<main>")
        out += [sec._html() for sec in lead]
        if rest:
            out += ['<nav class="toc" aria-label="Contents">', "<h2>Contents</h2>", "<ol>"]
            out += [f'<li><a href="#{s.anchor}">{html_text(s.title)}</a></li>' for s in rest]
            out += ["</ol>", "</nav>"]
        out += [sec._html() for sec in rest]
        out.append("</main>")
        out.append(f"<footer>Generated {html_text(_stamp(generated))} by abyss-mc</footer>")
        out += ["</body>", "</html>", ""]
        return "\n".join(out)

    def to_markdown(self, *, generated: _dt.datetime | None = None) -> str:
        """The GitHub Markdown page (what `write` saves as report.md); images are relative
        links to ``figures/NAME.png``."""
        generated = generated or _dt.datetime.now(_dt.UTC)
        slugs = GitHubSlugger()
        slugs.slug(self.title)
        out = [f"# {md_line(self.title)}", ""]
        if self.subtitle:
            out += [f"*{md_line(self.subtitle)}*", ""]
        lead, rest = self._parts()
        for sec in lead:
            slugs.slug(sec.title)
            out.append(sec._markdown())
        if rest:
            out += ["## Contents", ""]
            slugs.slug("Contents")
            out += [
                f"{i}. [{md_line(s.title)}](#{slugs.slug(s.title)})"
                for i, s in enumerate(rest, 1)
            ]
            out.append("")
        for sec in rest:
            out.append(sec._markdown())
        out += ["---", "", f"*Generated {md_line(_stamp(generated))} by abyss-mc*", ""]
        return "\n".join(out)


class Section:
    """One section of a `Report`; made by `Report.section`."""

    def __init__(self, report: Report, title: str, number: int) -> None:
        self._report = report
        self.title = title
        self.anchor = f"s{number}" + (f"-{slug_ascii(title)}" if slug_ascii(title) else "")
        self.blocks: list[_Block] = []
        self.lead = False

    def paragraph(self, text: str) -> Section:
        """Add text: one paragraph per blank-line-separated block."""
        self.blocks += [_Paragraph(p) for p in paragraphs(text)]
        return self

    def note(self, text: str) -> Section:
        """Add a highlighted note (same markup as `paragraph`)."""
        paras = paragraphs(text)
        if paras:
            self.blocks.append(_Note(paras))
        return self

    def table(
        self,
        df: pd.DataFrame,
        caption: str = "",
        float_format: FloatFormat = "{:.3f}",
        row_classes: list[str] | None = None,
        css_class: str | None = None,
    ) -> Section:
        """Add a table. Floats are formatted with `float_format` (a ``str.format`` pattern or a
        function); numbers are right-aligned. The index is shown unless it is a default
        0..n-1 RangeIndex without a name. `row_classes`: a CSS class per row (the HTML page's
        colours, e.g. the verdict table's `v-holds`); `css_class`: the table's (HTML only)."""
        raise_if_interrupted()
        table = _table_from_frame(df, str(caption), float_format)
        table.row_classes = list(row_classes) if row_classes is not None else None
        table.css_class = css_class
        self.blocks.append(table)
        return self

    def attach(self, name: str, text: str) -> Section:
        """Write `text` as the file `name` beside the report (`Report.write`)."""
        self._report.attachments[name] = text
        return self

    def figure(self, fig: Figure, name: str, caption: str = "") -> Section:
        """Add a figure: render `fig` to PNG now (Agg) and close it. `name` becomes the file
        ``figures/<safe_name(name)>.png``, made unique within the report."""
        raise_if_interrupted()  # (a SIGTERM swallowed by matplotlib's finalizers stops here)
        return self._add_figure(render_png_soon(fig), name, caption)

    def pure_figure(self, chart: Callable[..., Figure], *inputs: Any, name: str,
                    caption: str = "") -> Section:
        """`figure(chart(*inputs), name, caption)` for a chart that is a pure function of its
        inputs and of constants (the exact odds of the rules' cards): made and drawn once in
        this process for the same chart function, inputs (which must pickle: their bytes are
        the key) and matplotlib's settings, then its PNG reused (`_drawn_once`)."""
        raise_if_interrupted()
        return self._add_figure(_drawn_once(chart, inputs), name, caption)

    def _add_figure(self, png: _Rendering, name: str, caption: str) -> Section:
        name = _unique(safe_name(name), self._report._figure_names)
        self._report._figure_names.add(name)
        number = 1 + sum(isinstance(b, _Figure) for s in self._report.sections for b in s.blocks)
        self.blocks.append(_Figure(name, str(caption), png, number))
        return self

    def _html(self) -> str:
        out = [f'<section id="{self.anchor}">', f"<h2>{html_text(self.title)}</h2>"]
        out += [b.html() for b in self.blocks]
        out.append("</section>")
        return "\n".join(out)

    def _markdown(self) -> str:
        out = [f"## {md_line(self.title)}", ""]
        for b in self.blocks:
            out += [b.markdown(), ""]
        return "\n".join(out)


def safe_name(name: str) -> str:
    """A file-name stem made of ``[a-z0-9._-]`` only, at most 80 characters, that is not empty,
    does not start with a dot or dash, and is not a reserved Windows device name."""
    text = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^a-z0-9._-]+", "-", text.lower())
    text = re.sub(r"-{2,}", "-", text)
    text = re.sub(r"\.{2,}", ".", text)
    text = text.strip(".-_")[:80].rstrip(".-_")
    if not text:
        return "figure"
    if text.split(".")[0] in _WINDOWS_RESERVED:
        text = f"{text}-fig"
    return text


# --- blocks ------------------------------------------------------------------------------------


class _Block(abc.ABC):
    """A piece of a section, rendered both ways."""

    @abc.abstractmethod
    def html(self) -> str: ...

    @abc.abstractmethod
    def markdown(self) -> str: ...


@dataclasses.dataclass
class _Paragraph(_Block):
    text: str

    def html(self) -> str:
        return f"<p>{html_inline(self.text)}</p>"

    def markdown(self) -> str:
        return md_paragraph(self.text)


@dataclasses.dataclass
class _Note(_Block):
    paragraphs: list[str]

    def html(self) -> str:
        body = "".join(f"<p>{html_inline(p)}</p>" for p in self.paragraphs)
        return f'<div class="note" role="note">{body}</div>'

    def markdown(self) -> str:
        parts = [md_paragraph(p) for p in self.paragraphs]
        lines = "\n\n".join(parts).split("\n")
        return "\n".join(f"> {line}" if line else ">" for line in lines)


@dataclasses.dataclass
class _Cell:
    text: str
    numeric: bool


@dataclasses.dataclass
class _Table(_Block):
    caption: str
    header: list[str]  # index names first, then column names
    n_index: int  # how many leading columns are the index (row headers)
    rows: list[list[_Cell]]
    row_classes: list[str] | None = None  # a CSS class per row (HTML only)
    css_class: str | None = None  # the table's CSS class (HTML only)

    def _numeric_columns(self) -> list[bool]:
        cols = []
        for j in range(len(self.header)):
            cells = [r[j] for r in self.rows if r[j].text not in ("", MISSING)]
            cols.append(bool(cells) and all(c.numeric for c in cells))
        return cols

    def html(self) -> str:
        numeric = self._numeric_columns()
        cls = f' class="{html_text(self.css_class)}"' if self.css_class else ""
        wrap = f"table-wrap {html_text(self.css_class)}-wrap" if self.css_class else "table-wrap"
        out = [f'<div class="{wrap}">', f"<table{cls}>"]
        if self.caption:
            out.append(f"<caption>{html_text(self.caption)}</caption>")
        head = "".join(
            f'<th scope="col"{num_class(numeric[j])}>{html_text(name)}</th>'
            for j, name in enumerate(self.header)
        )
        out += ["<thead>", f"<tr>{head}</tr>", "</thead>", "<tbody>"]
        for i, row in enumerate(self.rows):
            cells = []
            for j, cell in enumerate(row):
                tag = "th" if j < self.n_index else "td"
                scope = ' scope="row"' if j < self.n_index else ""
                cls = num_class(numeric[j])  # per column, as in report.md
                cells.append(f"<{tag}{scope}{cls}>{html_text(cell.text)}</{tag}>")
            cls = f' class="{html_text(self.row_classes[i])}"' if self.row_classes else ""
            out.append(f"<tr{cls}>{''.join(cells)}</tr>")
        if not self.rows:
            out.append(
                f'<tr><td class="empty" colspan="{len(self.header) or 1}">(no rows)</td></tr>'
            )
        out += ["</tbody>", "</table>", "</div>"]
        return "\n".join(out)

    def markdown(self) -> str:
        numeric = self._numeric_columns()
        out = []
        if self.caption:
            out += [f"*{md_line(self.caption)}*", ""]
        if not self.header:
            return "\n".join([*out, "*(empty table)*"])
        out.append(md_row(self.header))
        out.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
        out += [md_row([c.text for c in row]) for row in self.rows]
        if not self.rows:
            out += ["", "*(no rows)*"]
        return "\n".join(out)


@dataclasses.dataclass
class _Figure(_Block):
    name: str
    caption: str
    rendering: _Rendering  # the PNG's bytes (`render_png_soon`)
    number: int

    @property
    def png(self) -> bytes:
        return self.rendering.result()

    def _label(self) -> str:
        return f"Figure {self.number}." + (f" {self.caption}" if self.caption else "")

    def html(self) -> str:
        width, height = _png_size(self.png)
        w, h = round(width * _CSS_DPI / FIGURE_DPI), round(height * _CSS_DPI / FIGURE_DPI)
        data = base64.b64encode(self.png).decode("ascii")
        alt = self.caption or self.name
        return (
            f'<figure id="fig-{self.name}">'
            f'<img src="data:image/png;base64,{data}" width="{w}" height="{h}" '
            f'alt="{html_text(alt)}">'
            f"<figcaption>{html_text(self._label())}</figcaption>"
            "</figure>"
        )

    def markdown(self) -> str:
        alt = md_line(self.caption or self.name)
        return f"![{alt}](figures/{self.name}.png)\n\n*{md_line(self._label())}*"


# --- tables ------------------------------------------------------------------------------------


def _table_from_frame(df: pd.DataFrame, caption: str, float_format: FloatFormat) -> _Table:
    import pandas as pd

    fmt = _float_formatter(float_format)
    show_index = not (
        isinstance(df.index, pd.RangeIndex)
        and df.index.start == 0
        and df.index.step == 1
        and all(n is None for n in df.index.names)
    )
    header: list[str] = []
    n_index = 0
    if show_index:
        n_index = df.index.nlevels
        header += ["" if n is None else str(n) for n in df.index.names]
    for col in df.columns:
        parts = col if isinstance(col, tuple) else (col,)
        header.append(" / ".join(str(p) for p in parts))
    rows = []
    for idx, values in zip(df.index, df.itertuples(index=False, name=None), strict=True):
        row = []
        if show_index:
            labels = idx if isinstance(idx, tuple) else (idx,)
            row += [_cell_text(v, str) for v in labels]  # labels as they are: 0.7, not 0.700
        row += [_cell_text(v, fmt) for v in values]
        rows.append(row)
    return _Table(caption, header, n_index, rows)


def _float_formatter(float_format: FloatFormat) -> Callable[[float], str]:
    if callable(float_format):
        return float_format
    return float_format.format


def _cell_text(value: Any, fmt: Callable[[float], str]) -> _Cell:
    import numpy as np

    if _is_missing(value):
        return _Cell(MISSING, False)
    if isinstance(value, bool | np.bool_):
        return _Cell(str(bool(value)), False)
    if isinstance(value, numbers.Integral):
        return _Cell(str(int(value)), True)
    if isinstance(value, numbers.Real):
        return _Cell(str(fmt(float(value))), True)
    text = str(value)
    return _Cell(text, bool(_NUMERIC_TEXT.match(text)))


def _is_missing(value: Any) -> bool:
    import pandas as pd

    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # list-likes: pd.isna is element-wise
        return False


# --- figures -----------------------------------------------------------------------------------


def render_png(fig: Figure) -> bytes:
    """The chart as a PNG (`FIGURE_DPI`, white, a 256-colour palette). Drawn once onto an Agg
    canvas the figure's size: its constrained layout keeps the artists inside. A figure whose
    artists still reach past its edge (a label longer than its axes) is saved cropped to them
    instead (`savefig`'s tight box, which draws it twice): a third of the rendering time is
    that second draw and a PNG encoded only to be decoded again (docs/benchmarks.md)."""
    try:
        image = _drawn_inside(fig)
        if image is None:
            buf = io.BytesIO()
            # savefig renders PNG with Agg whatever canvas (GUI or none) the figure has
            fig.savefig(buf, format="png", dpi=FIGURE_DPI, bbox_inches="tight", pad_inches=0.1,
                        facecolor="white")  # fmt: skip
            from PIL import Image

            buf.seek(0)
            image = Image.open(buf)
    finally:
        _close(fig)
    return _palette_png(image)


def _drawn_inside(fig: Figure):
    """The figure drawn at `FIGURE_DPI` on a white ground as an RGB image, or None when its
    artists reach past its edge (drawn here, they would be cut off)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    face = fig.get_facecolor()
    fig.set_dpi(FIGURE_DPI)
    fig.set_facecolor("white")
    canvas = FigureCanvasAgg(fig)  # (the figure's own canvas may be a GUI's: Agg draws it here)
    try:
        canvas.draw()
        box = fig.get_tightbbox(canvas.get_renderer())
        width, height = fig.get_size_inches()
        slack = 0.5 / FIGURE_DPI  # half a pixel
        if box.x0 < -slack or box.y0 < -slack or box.x1 > width + slack or box.y1 > height + slack:
            return None
        size = canvas.get_width_height(physical=True)
        return Image.frombuffer("RGBA", size, canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    finally:
        fig.set_facecolor(face)


#: the pure charts drawn in this process (`Section.pure_figure`), by the chart function (kept:
#: a reloaded or new one draws again) and the digest of its inputs, resolution and settings
_DRAWN: dict[tuple[Callable, str], _Rendering] = {}
_DRAWN_MAX = 64


def _drawn_once(chart: Callable[..., Figure], inputs: tuple) -> _Rendering:
    """The rendering of `chart(*inputs)`, made at the first call with this chart, these inputs
    and matplotlib's settings (every report drew the same four charts again: docs/benchmarks.md,
    2026-12-07 (20:15))."""
    import hashlib
    import pickle

    digest = hashlib.sha256(pickle.dumps(
        (FIGURE_DPI, dict(matplotlib.rcParams), inputs))).hexdigest()  # fmt: skip
    rendering = _DRAWN.get((chart, digest))
    if rendering is None:
        rendering = render_png_soon(chart(*inputs))
        while len(_DRAWN) >= _DRAWN_MAX:  # (the oldest first)
            _DRAWN.pop(next(iter(_DRAWN)))
        _DRAWN[chart, digest] = rendering
    return rendering


def render_png_soon(fig: Figure) -> _Rendering:
    """`render_png(fig)` in a worker process (the figure pickled, then closed here): the report
    goes on building while its charts render on the other cores, the same bytes (a test
    compares them). Rendering is about a fifth of a report's time on one core: 55 charts, 21 of
    the default report's 150 s before (docs/benchmarks.md)."""
    return _Rendering(fig)


class _Rendering:
    """A chart's PNG: drawn in the pool (`_render_pool`) when it can be, else here: a figure
    that will not pickle, no pool, or a pool that failed (a worker killed) draws here from its
    pickle."""

    def __init__(self, fig: Figure):
        import pickle

        self._png: bytes | None = None
        self._pickled: bytes | None = None
        self._future = None
        pool = _render_pool()
        if pool is not None:
            try:
                self._pickled = pickle.dumps(fig)
            except Exception:  # noqa: BLE001 (an artist that will not pickle: draw it here)
                pass
        if self._pickled is None:
            self._png = render_png(fig)
            return
        _close(fig)
        try:
            self._future = submit(pool, _render_pickled, self._pickled)
        except (RuntimeError, OSError):  # a broken or shut-down pool, no process to fork
            pass

    def result(self) -> bytes:
        if self._png is None:
            from concurrent.futures import CancelledError
            from concurrent.futures.process import BrokenProcessPool

            try:
                self._png = self._future.result() if self._future is not None else None
            except (BrokenProcessPool, OSError, CancelledError):  # (cancelled: `stop_pool`)
                pass
            if self._png is None:
                import pickle

                self._png = render_png(pickle.loads(self._pickled))
            self._pickled = self._future = None
        return self._png


def compute_soon(fn, *args):
    """`fn(*args)` in the chart pool's workers (`_render_pool`, forked: `fn` a module-level
    function), so a report's independent parts run on the other core while it goes on
    building; returns a function that waits for the result, the same value. `fn` is computed
    here instead when there is no pool or the pool broke (a worker died); an exception `fn`
    raises in the worker (or a result that will not pickle) is raised here. The pool may be
    forked here, after a tournament played in this process: its workers run only Python
    (`fn`, charts), never the compiled kernels' threads."""
    from concurrent.futures.process import BrokenProcessPool

    pool = _render_pool()
    future = None
    if pool is not None:
        try:
            future = submit(pool, fn, *args)
        except (BrokenProcessPool, OSError, RuntimeError):
            future = None

    def result():
        if future is not None:
            try:
                return future.result()
            except (BrokenProcessPool, OSError):
                pass
        return fn(*args)

    return result


def _render_pickled(data: bytes) -> bytes:
    import pickle

    return render_png(pickle.loads(data))


def _close(fig: Figure) -> None:
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close(fig)


def stop_pool() -> None:
    """Drop the chart pool's queued work (an interrupted report: the exit then waits only for
    the charts being drawn, not for every one queued) and let the next report make a new pool."""
    if _POOL and _POOL[0] is not None:
        _POOL[0].shutdown(wait=False, cancel_futures=True)
    _POOL.clear()


_POOL: list = []  # [the pool] once made; [None] where there can be none


def _render_pool():
    """Two processes that render charts (`render_png_soon`), started at the first chart and shut
    down at exit; None where a process cannot have children of its own."""
    if _POOL:
        return _POOL[0]
    import atexit
    import os

    from sim.core.forkpool import new_pool

    pool = None
    if os.environ.get(RENDER_INLINE_ENV) != "1":  # (`new_pool`: None in a daemon process)
        # the workers draw charts and compute report parts (`compute_soon`)
        pool = new_pool(max(1, min(2, os.cpu_count() or 1)))
        if pool is not None:
            atexit.register(pool.shutdown, wait=True, cancel_futures=True)
    _POOL.append(pool)
    return pool


#: ABYSS_MC_RENDER_INLINE=1 renders every chart in the process that makes it
RENDER_INLINE_ENV = "ABYSS_MC_RENDER_INLINE"


def _palette_png(image) -> bytes:
    """The chart (a PIL image) as a PNG with a 256-colour palette: a third of the bytes of full
    colour for flat charts (the default report: 5.3 MB -> about 2 MB), no visible change;
    deterministic (no timestamp or software in its metadata)."""
    from PIL import Image

    quantized = image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                                              dither=Image.Dither.NONE)  # fmt: skip
    out = io.BytesIO()
    quantized.save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


def _png_size(png: bytes) -> tuple[int, int]:
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    n = 2
    while f"{name}-{n}" in taken:
        n += 1
    return f"{name}-{n}"


def _stamp(when: _dt.datetime) -> str:
    if when.tzinfo is not None:
        when = when.astimezone(_dt.UTC)
        return when.strftime("%Y-%m-%d %H:%M:%S UTC")
    return when.strftime("%Y-%m-%d %H:%M:%S")


_NUMERIC_TEXT = re.compile(r"^[\s+\-\u2212\u00b1]*\.?\d[^A-DF-Za-df-z]*$")
_WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"com{i}" for i in range(10)] + [f"lpt{i}" for i in range(10)]
)
_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'"
)
_CSS = """
:root { color-scheme: light; --fg: #1d232b; --muted: #5b6570; --rule: #d6dce3;
  --zebra: #f3f6f9; --accent: #1f5f99; --note: #fff8e1; --note-rule: #e0b84c; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0 auto; max-width: 60rem; padding: 1.5rem 1.25rem 3rem; color: var(--fg);
  background: #fff; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto,
  "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 1.9rem; line-height: 1.2; margin: 0 0 .25rem; }
h2 { font-size: 1.4rem; margin: 2.25rem 0 .75rem; padding-bottom: .25rem;
  border-bottom: 1px solid var(--rule); }
.subtitle { color: var(--muted); margin: 0 0 1rem; font-size: 1.1rem; }
header { border-bottom: 2px solid var(--fg); padding-bottom: .75rem; margin-bottom: 1rem; }
a { color: var(--accent); }
p { margin: .6rem 0; }
code { font: .9em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  background: var(--zebra); padding: .05em .3em; border-radius: 3px; }
nav.toc h2 { font-size: 1.1rem; margin: 1rem 0 .25rem; border: 0; }
nav.toc ol { margin: 0; padding-left: 1.5rem; }
nav.toc li { margin: .15rem 0; }
.table-wrap { overflow-x: auto; margin: 1rem 0; }
table { border-collapse: collapse; font-size: .92rem; font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: 0 0 .4rem; }
th, td { padding: .3rem .65rem; border-bottom: 1px solid var(--rule); text-align: left;
  vertical-align: top; white-space: pre-wrap; }
thead th { border-bottom: 2px solid var(--fg); vertical-align: bottom; }
tbody th { font-weight: 600; }
tbody tr:nth-child(even) { background: var(--zebra); }
.num { text-align: right; }
td.empty { color: var(--muted); font-style: italic; }
.verdicts-wrap { width: min(100vw - 2rem, 80rem); position: relative; left: 50%;
  transform: translateX(-50%); }
table.verdicts { font-size: .85rem; margin: 0 auto; }
table.verdicts th, table.verdicts td { padding: .12rem .5rem; white-space: nowrap; }
tbody tr.v-holds { background: #e3f4e6; } tr.v-holds th { border-left: 5px solid #2e8540; }
tbody tr.v-differs { background: #fde9d9; } tr.v-differs th { border-left: 5px solid #c0561e; }
tbody tr.v-partial { background: #fff6d6; } tr.v-partial th { border-left: 5px solid #c9a227; }
tbody tr.v-none { background: #f1f2f4; color: var(--muted); }
tr.v-none th { border-left: 5px solid #b3b9c0; }
figure { margin: 1.25rem 0; }
figure img { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: .92rem; margin-top: .4rem; }
.note { background: var(--note); border-left: 4px solid var(--note-rule);
  padding: .4rem 1rem; margin: 1rem 0; }
footer { margin-top: 3rem; padding-top: .5rem; border-top: 1px solid var(--rule);
  color: var(--muted); font-size: .85rem; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  a { color: inherit; text-decoration: none; }
  h2 { break-after: avoid; }
  figure, tr, .note { break-inside: avoid; }
  thead { display: table-header-group; }
  .table-wrap { overflow: visible; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
""".strip()
