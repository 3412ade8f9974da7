"""The shape of the source, read from its files (issue 51): `reports/` keeps its modules in layers
(at most 12 at its top level), commands stay thin (no command-line function over 60 lines),
modules stay readable (none over 800 lines) and the source does not repeat itself (at most 15
pairs of places found by the `duplicates` tool). Each check is shown failing on a planted tree.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the packages of the source (`abyss_mc` once it exists); tests, docs, scripts and notebooks
#: are not the source
SOURCE = ("sim", "strategies", "reports", "cli", "games", "abyss_mc")
MAX_REPORTS_TOP = 12
MAX_COMMAND_LINES = 60
MAX_MODULE_LINES = 800
MAX_DUPLICATE_PAIRS = 15
#: one row of `duplicates`: "D3 a.py:10-24 ~ b.py:40-54 ..."
_PAIR = re.compile(r"^D\d+ (\S+):\d+-\d+ ~ (\S+):\d+-\d+")


def reports_top_modules(root: Path = ROOT) -> list[str]:
    """The modules at `reports/`' top level (its sub-packages are its layers)."""
    return sorted(p.name for p in (root / "reports").glob("*.py") if p.name != "__init__.py")


def command_files(root: Path = ROOT) -> list[Path]:
    """The command line: `cli/` and each game's `commands/`."""
    folders = [root / "cli", *sorted((root / "games").glob("*/commands"))]
    return [p for folder in folders if folder.is_dir() for p in sorted(folder.rglob("*.py"))]


def long_functions(paths: list[Path], root: Path = ROOT, limit: int = MAX_COMMAND_LINES):
    """'path:line name (n lines)' for every function (nested ones too) whose body is longer than
    `limit` lines, from its docstring to its last line: a command's signature declares its
    options, one or more lines each, and is not counted."""
    out = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.body[0].lineno + 1
                if n > limit:
                    out.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({n} lines)")
    return out


def source_files(root: Path = ROOT) -> list[Path]:
    return [p for package in SOURCE if (root / package).is_dir()
            for p in sorted((root / package).rglob("*.py"))]  # fmt: skip


def long_modules(root: Path = ROOT, limit: int = MAX_MODULE_LINES) -> list[str]:
    out = []
    for path in source_files(root):
        n = len(path.read_text().splitlines())
        if n > limit:
            out.append(f"{path.relative_to(root)} ({n} lines)")
    return out


def is_source(path: str) -> bool:
    return path.split("/")[0] in SOURCE and path.endswith(".py")


def duplicate_pairs(root: Path = ROOT) -> list[str]:
    """The pairs of places `duplicates` finds in the tree whose two sides are both source files.
    Rows cut by --most or a run that did not read everything would hide pairs: they fail."""
    run = subprocess.run(["duplicates", "--repo", str(root), "--most", "200", "--seconds", "300"],
                         capture_output=True, text=True, timeout=400, check=True)  # fmt: skip
    lines = run.stdout.splitlines()
    cut = [line for line in lines if line.startswith(("incomplete:", "(+"))]
    assert not cut, f"duplicates did not list every pair: {cut}"
    return [line for line in lines
            if (m := _PAIR.match(line)) and is_source(m[1]) and is_source(m[2])]  # fmt: skip



def documented_reports(doc: str) -> set[str]:
    """The modules of `reports/` that the architecture's tree lists (a sub-package at two spaces,
    `*.py` for the top level; its modules at four)."""
    lines = doc[doc.index("\nreports/ ") + 1:].splitlines()[1:]
    out, folder = set(), ""
    for line in lines:
        if not line.startswith("  "):
            break
        name = line.split()[0]
        if not line.startswith("   "):
            folder = "" if name == "*.py" else name
        elif not line.startswith("     ") and name.endswith(".py"):
            out.add(folder + name)
    return out


def reports_modules(root: Path = ROOT) -> set[str]:
    return {p.relative_to(root / "reports").as_posix() for p in (root / "reports").rglob("*.py")
            if p.name != "__init__.py"}  # fmt: skip

# --- the checks on the project ------------------------------------------------------------------
def test_reports_keeps_at_most_12_modules_at_its_top_level() -> None:
    top = reports_top_modules()
    assert len(top) <= MAX_REPORTS_TOP, top


def test_no_command_line_function_over_60_lines() -> None:
    assert long_functions(command_files()) == []


def test_no_module_of_the_source_over_800_lines() -> None:
    assert long_modules() == []


@pytest.mark.skipif(shutil.which("duplicates") is None,
                    reason="the `duplicates` tool is not installed on this machine")  # fmt: skip
def test_at_most_15_duplicate_pairs_in_the_source() -> None:
    pairs = duplicate_pairs()
    assert len(pairs) <= MAX_DUPLICATE_PAIRS, "\n".join(pairs)



def test_the_architecture_lists_every_module_of_reports() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text()
    assert documented_reports(doc) == reports_modules()

# --- each check fails on a planted tree ---------------------------------------------------------
def test_the_reports_check_can_fail(tmp_path) -> None:
    (tmp_path / "reports" / "stats").mkdir(parents=True)
    for name in ["__init__", *(f"m{i:02}" for i in range(13))]:
        (tmp_path / "reports" / f"{name}.py").write_text("")
    (tmp_path / "reports" / "stats" / "blocks.py").write_text("")
    assert reports_top_modules(tmp_path) == [f"m{i:02}.py" for i in range(13)]


def planted(name: str, lines: int, indent: str = "") -> str:
    """A function whose body has `lines` lines, after a signature of three."""
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines))
    return f"{indent}def {name}(\n{indent}    seed: int = 1,\n{indent}) -> None:\n{body}"


def test_the_command_check_can_fail(tmp_path) -> None:
    """A long body in a command, one nested in it and one in a game's commands are seen; one of
    60 lines, or outside the command line, is not."""
    for folder in ("cli/commands", "games/abyss/commands", "games/abyss/engine"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "cli" / "commands" / "tune.py").write_text(
        planted("short", 60) + "def outer():\n" + planted("inner", 60, "    "))
    (tmp_path / "games" / "abyss" / "commands" / "ev.py").write_text(planted("ev", 61))
    (tmp_path / "games" / "abyss" / "engine" / "kernel.py").write_text(planted("k", 200))
    assert long_functions(command_files(tmp_path), tmp_path) == [
        "cli/commands/tune.py:64 outer (63 lines)",
        "games/abyss/commands/ev.py:1 ev (61 lines)",
    ]


def test_the_module_check_can_fail(tmp_path) -> None:
    for folder in ("reports/stats", "games/abyss/engine", "tests", "scripts"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "reports" / "stats" / "blocks.py").write_text("x = 1\n" * 801)
    (tmp_path / "games" / "abyss" / "engine" / "state.py").write_text("x = 1\n" * 800)
    (tmp_path / "tests" / "test_long.py").write_text("x = 1\n" * 900)
    (tmp_path / "scripts" / "long.py").write_text("x = 1\n" * 900)
    assert long_modules(tmp_path) == ["reports/stats/blocks.py (801 lines)"]


@pytest.mark.skipif(shutil.which("duplicates") is None,
                    reason="the `duplicates` tool is not installed on this machine")  # fmt: skip
def test_the_duplicates_check_can_fail(tmp_path) -> None:
    """A function written twice in the source is a pair; a source function copied into a test
    or a script is not."""
    body = "".join(f"    total = total * {i} + value_{i}(seed, step)\n" for i in range(8))
    fn = f"def {{}}(seed, step):\n    total = 0\n{body}    return total\n"
    for folder in ("sim/core", "reports", "tests", "scripts"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "sim" / "core" / "mix.py").write_text(fn.format("mix"))
    (tmp_path / "reports" / "blend.py").write_text(fn.format("blend"))
    (tmp_path / "tests" / "test_mix.py").write_text(fn.format("mix_again"))
    (tmp_path / "scripts" / "mix.py").write_text(fn.format("mix_script"))
    pairs = duplicate_pairs(tmp_path)
    assert len(pairs) == 1
    assert {"reports/blend.py", "sim/core/mix.py"} == set(re.findall(r"[\w/]+\.py", pairs[0]))


def test_the_architecture_check_can_fail(tmp_path) -> None:
    """A module missing from the tree, or listed in the wrong layer, is seen."""
    for path in ("reports/stats/blocks.py", "reports/tune.py", "reports/runs/tune.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    doc = ("cli/      the command line\nreports/  analyses\n  runs/     runs\n"
           "    tune.py   `tune`\n                    its second line\n  *.py      procedures\n"
           "    blocks.py     misplaced\nsim/\n  core/\n")  # fmt: skip
    assert documented_reports(doc) == {"runs/tune.py", "blocks.py"}
    assert documented_reports(doc) != reports_modules(tmp_path)
