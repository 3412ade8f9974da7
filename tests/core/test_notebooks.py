"""The notebooks run top to bottom (on small counts)."""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


#: Small counts for CI: tournament blocks (strategy_comparison), rollout decision points x
#: replicates (fight_or_explore) and tournament blocks per player count and rules reading
#: (conspiracy).
SMALL_COUNTS = {
    "ABYSS_NB_BLOCKS": "20",
    "ABYSS_NB_POINTS": "200",
    "ABYSS_NB_REPLICATES": "4",
    "ABYSS_NB_CONSPIRACY_BLOCKS": "20",
}


@pytest.mark.parametrize(
    "name", ["strategy_comparison.ipynb", "fight_or_explore.ipynb", "conspiracy.ipynb"]
)
def test_notebook_runs(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in SMALL_COUNTS.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.execute()
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors
