"""Dependencies flow one way (issue 18): `sim/core` <- `sim/<game>` <- `strategies` <- `reports`.

Every import of every module is read from its source (also imports inside functions), so a lazy
import cannot hide a crossing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted(p.name for p in (ROOT / "sim").iterdir() if (p / "__init__.py").is_file()
               and p.name != "core")  # fmt: skip


def imports_of(path: Path, root: Path = ROOT) -> set[str]:
    """The absolute module names `path` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            prefix = [*base] if node.level else []
            if node.module:
                out.add(".".join([*prefix, node.module]))
            else:  # `from . import x`: x is a module of the package
                out |= {".".join([*prefix, alias.name]) for alias in node.names}
    return out


def crossings(folder: str, forbidden, root: Path = ROOT) -> list[str]:
    return [
        f"{path.relative_to(root)} imports {name}"
        for path in sorted((root / folder).rglob("*.py"))
        for name in sorted(imports_of(path, root))
        if forbidden(path, name)
    ]


def test_there_are_games() -> None:
    assert {"abyss", "conspiracy", "wilds"} <= set(GAMES)


def test_sim_imports_neither_strategies_nor_reports() -> None:
    assert crossings("sim", lambda _, name: name.split(".")[0] in ("strategies", "reports")) == []


def test_sim_core_imports_no_game() -> None:
    assert crossings("sim/core", lambda _, name: name.split(".")[:2][-1] in GAMES) == []


@pytest.mark.parametrize("game", ["abyss", "conspiracy", "wilds"])
def test_no_game_imports_another_game(game: str) -> None:
    others = set(GAMES) - {game}

    def forbidden(_, name: str) -> bool:
        parts = name.split(".")
        return parts[0] == "sim" and len(parts) > 1 and parts[1] in others

    assert crossings(f"sim/{game}", forbidden) == []


def test_strategies_import_no_reports() -> None:
    assert crossings("strategies", lambda _, name: name.split(".")[0] == "reports") == []


def test_the_check_sees_a_crossing(tmp_path) -> None:
    """The reader finds a lazy import inside a function (the check can fail)."""
    (tmp_path / "sim" / "core").mkdir(parents=True)
    probe = tmp_path / "sim" / "core" / "probe.py"
    probe.write_text("from . import jit\n\ndef f():\n    from strategies.abyss import x\n")
    found = crossings("sim", lambda _, name: name.split(".")[0] == "strategies", tmp_path)
    assert found == ["sim/core/probe.py imports strategies.abyss"]
    assert imports_of(probe, tmp_path) == {"sim.core.jit", "strategies.abyss"}


def test_no_command_imports_another() -> None:
    """reports/commands: one thin module per command; what they share is `common`."""
    commands = {p.stem for p in (ROOT / "reports" / "commands").glob("*.py")} - {"__init__"}
    assert {"simulate", "tournament", "sweep", "plan", "report", "replay", "bench", "cards",
            "strategies", "common"} <= commands  # fmt: skip

    def forbidden(path: Path, name: str) -> bool:
        parts = name.split(".")
        return (
            parts[:2] == ["reports", "commands"]
            and len(parts) > 2
            and parts[2] not in ("common", path.stem)
        )

    assert crossings("reports/commands", forbidden) == []
    # only the console script's entry point imports the application
    users = crossings("reports", lambda _, name: name == "reports.cli")
    assert users == ["reports/entry.py imports reports.cli"]
