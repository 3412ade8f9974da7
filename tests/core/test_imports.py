"""Dependencies flow one way (issues 18, 29). The generic layers: `sim/core` <- `strategies` <-
`reports` <- `cli`; each game is one package, `games/<game>/` with `engine/` (on `sim/core`),
`strategies/` (on the generic strategies and its engine), `report/` (on the generic reports and
its strategies) and `commands/` (on `cli`). No generic module imports a game, no game imports
another, nothing imports the command line but itself and a game's own commands.

Every import of every module is read from its source (also imports inside functions), so a lazy
import cannot hide a crossing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted(p.name for p in (ROOT / "games").iterdir() if (p / "__init__.py").is_file())
#: A game's parts, in layer order: each may import the ones before it, not those after.
PARTS = ("engine", "strategies", "report", "commands")
#: The generic layers, in order, and the top-level packages each may not import. `abyss_mc`, the
#: public Python API, sits on `reports` (and may hand over a game's own analyses, as its
#: `leviathan` module does); the command line calls it; nothing below imports it.
GENERIC_FORBIDS = {
    "sim": ("strategies", "reports", "abyss_mc", "cli", "games"),
    "strategies": ("reports", "abyss_mc", "cli", "games"),
    "reports": ("abyss_mc", "cli", "games"),
    "abyss_mc": ("cli",),
    "cli": ("games",),
}


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


def _generic_forbidden(layer: str):
    """A module of `layer` imports a layer above it, or a game (the bare `games` package, which
    holds no game, only says where they are)."""
    forbids = GENERIC_FORBIDS[layer]
    return lambda _, name: name.split(".")[0] in forbids and name != "games"


def test_no_game_imports_the_public_api() -> None:
    """A game is played through the API, never the other way round."""
    assert crossings("games", lambda _, name: name.split(".")[0] == "abyss_mc") == []


@pytest.mark.parametrize("layer", list(GENERIC_FORBIDS))
def test_the_generic_layers_import_no_game_and_nothing_above(layer: str) -> None:
    assert crossings(layer, _generic_forbidden(layer)) == []


@pytest.mark.parametrize("game", ["abyss", "conspiracy", "wilds"])
def test_no_game_imports_another_game(game: str) -> None:
    others = set(GAMES) - {game}

    def forbidden(_, name: str) -> bool:
        parts = name.split(".")
        return parts[0] == "games" and len(parts) > 1 and parts[1] in others

    assert crossings(f"games/{game}", forbidden) == []


def _above(part: str):
    """Within a game: `part` imports none of its game's parts after it, nor the generic layers
    above it (the engine no strategies or reports, nothing but commands the command line)."""
    later = PARTS[PARTS.index(part) + 1:]
    generic = {"engine": ("strategies", "reports", "cli"), "strategies": ("reports", "cli"),
               "report": ("cli",), "commands": ()}[part]  # fmt: skip

    def forbidden(_, name: str) -> bool:
        parts = name.split(".")
        return parts[0] in generic or (parts[0] == "games" and len(parts) > 2
                                       and parts[2] in later)  # fmt: skip

    return forbidden


@pytest.mark.parametrize("game", ["abyss", "conspiracy", "wilds"])
@pytest.mark.parametrize("part", PARTS)
def test_a_games_parts_import_downward(game: str, part: str) -> None:
    folder = ROOT / "games" / game / part
    if not folder.is_dir():
        pytest.skip(f"{game} has no {part}")
    assert crossings(f"games/{game}/{part}", _above(part)) == []


def test_the_checks_can_fail(tmp_path) -> None:
    """Each check sees its crossing, also in a lazy import inside a function."""
    (tmp_path / "sim" / "core").mkdir(parents=True)
    probe = tmp_path / "sim" / "core" / "probe.py"
    probe.write_text("from . import jit\n\ndef f():\n    from games.abyss import engine\n")
    found = crossings("sim", _generic_forbidden("sim"), tmp_path)
    assert found == ["sim/core/probe.py imports games.abyss"]
    assert imports_of(probe, tmp_path) == {"sim.core.jit", "games.abyss"}
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "stats.py").write_text("def f():\n    from cli.commands import c\n")
    found = crossings("reports", _generic_forbidden("reports"), tmp_path)
    assert found == ["reports/stats.py imports cli.commands"]
    engine = tmp_path / "games" / "abyss" / "engine"
    engine.mkdir(parents=True)
    (engine / "rules.py").write_text("from games.abyss.report import balance\n"
                                     "from games.conspiracy.engine import rules\n")  # fmt: skip
    assert crossings("games/abyss/engine", _above("engine"), tmp_path) == [
        "games/abyss/engine/rules.py imports games.abyss.report"]  # fmt: skip
    other = crossings("games/abyss", lambda _, n: n.startswith("games.conspiracy"), tmp_path)
    assert other == ["games/abyss/engine/rules.py imports games.conspiracy.engine"]


# --- the layers of `reports` (issue 51) ---------------------------------------------------------
#: `reports`' sub-packages, lowest first; "" is the modules at its top level (the procedures:
#: tune, restrict, design, ...). A module may import its own layer and those below, never above.
REPORT_LAYERS = ("stats", "render", "play", "metrics", "", "sections", "runs")


def report_layer(name: str) -> int | None:
    """The layer of module `name` of `reports` (None for the package itself or another one)."""
    parts = name.split(".")
    if parts[0] != "reports" or len(parts) < 2:
        return None
    return REPORT_LAYERS.index(parts[1] if parts[1] in REPORT_LAYERS else "")


def _reaches_up(path: Path, name: str, root: Path = ROOT) -> bool:
    mine = report_layer(".".join(path.relative_to(root).with_suffix("").parts))
    theirs = report_layer(name)
    return mine is not None and theirs is not None and theirs > mine


def test_the_layers_of_reports_import_downward() -> None:
    assert crossings("reports", _reaches_up) == []


def test_every_module_of_reports_is_in_a_layer() -> None:
    """A sub-package of `reports` not in REPORT_LAYERS would be counted as the top level."""
    packages = {p.parent.name for p in (ROOT / "reports").glob("*/__init__.py")}
    assert packages == set(REPORT_LAYERS) - {""}


def test_the_layer_check_can_fail(tmp_path) -> None:
    """A statistic that draws a chart, a metric that writes a section, a procedure that starts a
    command's run: each seen, also lazily; downward and same-layer imports pass."""
    for folder in ("stats", "metrics", "sections", "runs"):
        (tmp_path / "reports" / folder).mkdir(parents=True)
    (tmp_path / "reports" / "stats" / "blocks.py").write_text(
        "def f():\n    from reports.render.report import Report\n")
    (tmp_path / "reports" / "metrics" / "drama.py").write_text(
        "from reports.sections import verdicts\nfrom reports.stats import blocks\n")
    (tmp_path / "reports" / "design.py").write_text(
        "from reports.runs.tune import search_space\nfrom reports import tune\n")
    (tmp_path / "reports" / "sections" / "tension.py").write_text(
        "from reports.metrics.tension import lead_growth\nfrom . import verdicts\n")
    found = crossings("reports", lambda p, n: _reaches_up(p, n, tmp_path), tmp_path)
    assert found == ["reports/design.py imports reports.runs.tune",
                     "reports/metrics/drama.py imports reports.sections",
                     "reports/stats/blocks.py imports reports.render.report"]  # fmt: skip


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
PACKAGES = ("sim", "strategies", "reports", "abyss_mc", "cli", "games")


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
    for package in ("sim", "strategies", "abyss_mc", "cli", "games"):
        (tmp_path / package).mkdir()
    assert circles(module_graph(tmp_path)) == [["reports.a", "reports.b"]]
