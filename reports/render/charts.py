"""What the charts of every report share: a figure, error bars and an annotated heatmap.

Only numpy is imported here: `reports.render.report` (and with it matplotlib) is imported when a
chart
is drawn, so importing a report module stays cheap for the command line.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def figure(**kw: Any) -> Figure:
    """`reports.render.report.new_figure`: a figure pyplot does not track."""
    from reports.render.report import new_figure

    return new_figure(**kw)


def legend_outside(ax, **kw: Any) -> None:
    """The legend to the right of the plot, never over its data (the saved figure grows to hold
    it: `render_png` saves with a tight bounding box)."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False, **kw)


def legend_of_panels(axes) -> None:
    """One legend, right of the last panel, of every label any panel draws (a series may be
    missing from some panels)."""
    handles: dict = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    legend_outside(axes[-1], handles=list(handles.values()), labels=list(handles))


def legend_below(ax, ncol: int, **kw: Any) -> None:
    """The legend in a row under the plot, never over its data."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=ncol, fontsize=7,
              frameon=False, **kw)  # fmt: skip


def error_bars(value, lo, hi) -> np.ndarray:
    """Error-bar lengths below and above `value` (never negative, NaN as 0)."""
    value = np.asarray(value, dtype=float)
    below = np.nan_to_num(value - np.asarray(lo, dtype=float)).clip(0)
    above = np.nan_to_num(np.asarray(hi, dtype=float) - value).clip(0)
    return np.vstack([below, above])


def heatmap(
    ax: Axes,
    values: np.ndarray,
    rows: list[str],
    columns: list[str],
    text: list[list[str]],
    *,
    cmap: str = "viridis",
    vmin: float = 0.0,
    vmax: float = 1.0,
    fontsize: float = 8,
):
    """An annotated heatmap (row 0 at the top); NaN cells are left blank."""
    import matplotlib as mpl

    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    norm, colours = mpl.colors.Normalize(vmin, vmax), mpl.colormaps[cmap]
    for i, j in itertools.product(range(values.shape[0]), range(values.shape[1])):
        if np.isfinite(values[i, j]) and text[i][j]:
            r, g, b, _ = colours(norm(values[i, j]))
            ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"  # luminance
            ax.text(j, i, text[i][j], ha="center", va="center", color=ink, fontsize=fontsize)
    ax.set_xticks(range(len(columns)), columns)
    ax.set_yticks(range(len(rows)), rows)
    return image
