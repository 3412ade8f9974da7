"""Dependencies flow one way (issues 18, 29): `sim/core` <- `sim/<game>` <- `strategies` <-
`reports` <- `cli`, and nothing imports the command line but itself.

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


def imports_of(path: Path, root: Path = ROOT, typing: bool = True) -> set[str]:
    """The absolute module names `path` imports (relative imports resolved); without `typing`,
    not those under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    tree = ast.parse(path.read_text(), str(path))
    if not typing:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                node.body = []
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
    assert crossings("strategies", lambda _, name: name.split(".")[0] in ("reports", "cli")) == []


@pytest.mark.parametrize("folder", ["sim", "strategies", "reports"])
def test_no_library_module_imports_the_command_line(folder: str) -> None:
    assert crossings(folder, lambda _, name: name.split(".")[0] == "cli") == []


def test_the_command_line_check_can_fail(tmp_path) -> None:
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "probe.py").write_text("def f():\n    from cli.commands import c\n")
    found = crossings("reports", lambda _, name: name.split(".")[0] == "cli", tmp_path)
    assert found == ["reports/probe.py imports cli.commands"]


def test_the_check_sees_a_crossing(tmp_path) -> None:
    """The reader finds a lazy import inside a function (the check can fail)."""
    (tmp_path / "sim" / "core").mkdir(parents=True)
    probe = tmp_path / "sim" / "core" / "probe.py"
    probe.write_text("from . import jit\n\ndef f():\n    from strategies.abyss import x\n")
    found = crossings("sim", lambda _, name: name.split(".")[0] == "strategies", tmp_path)
    assert found == ["sim/core/probe.py imports strategies.abyss"]
    assert imports_of(probe, tmp_path) == {"sim.core.jit", "strategies.abyss"}


def test_no_command_imports_another() -> None:
    """cli/commands: one thin module per command; what they share is `common`."""
    commands = {p.stem for p in (ROOT / "cli" / "commands").glob("*.py")} - {"__init__"}
    assert {"simulate", "tournament", "sweep", "plan", "report", "replay", "bench", "cards",
            "strategies", "common"} <= commands  # fmt: skip

    def forbidden(path: Path, name: str) -> bool:
        parts = name.split(".")
        return (
            parts[:2] == ["cli", "commands"]
            and len(parts) > 2
            and parts[2] not in ("common", path.stem)
        )

    assert crossings("cli/commands", forbidden) == []
    # only the console script's entry point imports the application
    users = crossings("cli", lambda _, name: name == "cli.app")
    assert users == ["cli/entry.py imports cli.app"]


# --- no import circle anywhere (issue 29) ---------------------------------------------------
PACKAGES = ("sim", "strategies", "reports", "cli")


def module_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports (at run time: function-level imports included,
    `TYPE_CHECKING` ones not), each import resolved to the longest module that exists."""
    mods = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in mods.items():
        found = set()
        for imported in imports_of(path, root, typing=False) | _from_names(path, root):
            parts = imported.split(".")
            target = next((".".join(parts[:k]) for k in range(len(parts), 0, -1)
                           if ".".join(parts[:k]) in mods), None)  # fmt: skip
            if target is not None and target != name:
                found.add(target)
        graph[name] = found
    return graph


def _from_names(path: Path, root: Path) -> set[str]:
    """``from package import name``: package.name, in case the name is a module (then the
    import runs it); `module_graph` keeps only names that are modules."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    package = path.relative_to(root).with_suffix("").parts[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            out |= {".".join([*base, node.module, a.name]) for a in node.names}
    return out


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_anywhere() -> None:
    assert circles(module_graph()) == []


def test_the_circle_check_can_fail(tmp_path) -> None:
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "a.py").write_text("from reports import b\n")
    (tmp_path / "reports" / "b.py").write_text("def f():\n    import reports.a\n")
    (tmp_path / "reports" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from reports import a\n"
    )
    for package in ("sim", "strategies", "cli"):
        (tmp_path / package).mkdir()
    assert circles(module_graph(tmp_path)) == [["reports.a", "reports.b"]]


# --- the generic layer imports no game (issue 29) ---------------------------------------------
#: The modules of `reports` that belong to one game (until each game is one package).
GAME_REPORTS = {
    "abyss": {"balance", "summary", "rollout", "fight_odds", "fight_report", "fight_rollouts",
              "fight_rule", "search_check", "signature", "bench"},
    "conspiracy": {"conspiracy_piles", "conspiracy_report", "conspiracy_run", "conspiracy_stats"},
    "wilds": {"wilds"},
}  # fmt: skip


def _game_bound(name: str) -> bool:
    parts = name.split(".")
    own = set().union(*GAME_REPORTS.values())
    return (
        (parts[0] == "sim" and len(parts) > 1 and parts[1] in GAMES)
        or (parts[0] == "strategies" and len(parts) > 1 and parts[1] in GAMES)
        or (parts[0] == "reports" and len(parts) > 1 and (parts[1] in own or parts[1] == "games"))
    )


def generic_crossings(root: Path = ROOT) -> list[str]:
    own = set().union(*GAME_REPORTS.values())
    return [
        f"{path.relative_to(root)} imports {name}"
        for path in sorted((root / "reports").glob("*.py"))
        if path.stem not in own
        for name in sorted(imports_of(path, root))
        if _game_bound(name)
    ]


def test_the_generic_layer_imports_no_game() -> None:
    assert generic_crossings() == []


def test_the_generic_check_can_fail(tmp_path) -> None:
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "stats.py").write_text("def f():\n    from reports.summary import x\n")
    (tmp_path / "reports" / "balance.py").write_text("from sim.abyss import cards\n")
    assert generic_crossings(tmp_path) == ["reports/stats.py imports reports.summary"]
