"""The notebooks use only the public API: they import `abyss_mc` (and numpy, pandas,
matplotlib, the standard library), never a module of the project's inside; they run in
tests/core/test_notebooks.py."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ALLOWED = {"abyss_mc", "numpy", "pandas", "matplotlib"}


def imported(source: str) -> set[str]:
    """The top-level packages a cell's code imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def outside(path: Path) -> set[str]:
    cells = json.loads(path.read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    names = set().union(*(imported(c) for c in code))
    return names - ALLOWED - set(sys.stdlib_module_names)


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_a_notebook_imports_only_the_public_api(path: Path) -> None:
    assert outside(path) == set()


def test_the_check_sees_an_inside_import(tmp_path) -> None:
    cell = {"cell_type": "code", "source": ["import os\n", "from reports.stats import blocks\n"]}
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps({"cells": [cell]}))
    assert outside(path) == {"reports"}
