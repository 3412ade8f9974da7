"""Every `python` block of docs/api.md runs, in order, in one namespace (what a reader would type
into one session), its runs under the test's temporary directory."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)


def test_the_page_has_examples_of_every_function() -> None:
    code = "\n".join(blocks(DOC.read_text()))
    for name in ("tournament", "simulate", "sweep", "tune", "restrict", "design", "learn",
                 "report", "cards", "strategies", "plan", "replay", "skill", "run"):  # fmt: skip
        assert f"amc.{name}(" in code, name


def test_every_example_of_the_api_page_runs(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    namespace: dict = {}
    for i, code in enumerate(blocks(DOC.read_text())):
        exec(compile(code, f"docs/api.md, python block {i + 1}", "exec"), namespace)
    assert not (tmp_path / "runs").exists()  # every run went where the page says
