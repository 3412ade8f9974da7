"""The commands are thin (issue 51): each command-line function parses its flags into its
options object, calls `abyss_mc.run` and prints; none is over 60 lines."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "cli"
LIMIT = 60


def long_functions(root: Path) -> list[str]:
    """The functions of `root` (a folder) over LIMIT lines, as "path:name lines"."""
    out = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > LIMIT:
                    out.append(f"{path.relative_to(root.parent)}:{node.name} {lines}")
    return out


def test_no_command_line_function_is_over_60_lines() -> None:
    assert long_functions(CLI) == []


def test_the_check_sees_a_long_function(tmp_path) -> None:
    (tmp_path / "cli").mkdir()
    body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT))
    (tmp_path / "cli" / "long.py").write_text(f"def f():\n{body}")
    assert long_functions(tmp_path / "cli") == [f"cli/long.py:f {LIMIT + 1}"]


def test_every_command_calls_the_api_once() -> None:
    """A command of cli/commands is its options' fields (`common.command`) and one call:
    `common.run`, which builds the options and calls `abyss_mc.run`; nothing else of the
    library."""
    for path in sorted((CLI / "commands").glob("*.py")):
        if path.stem in ("__init__", "common"):
            continue
        tree = ast.parse(path.read_text())
        commands = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert len(commands) == 1, path.name
        (fn,) = commands
        assert [ast.unparse(d.func) for d in fn.decorator_list] == ["c.command"], path.name
        calls = [ast.unparse(n.func) for statement in fn.body for n in ast.walk(statement)
                 if isinstance(n, ast.Call)]  # fmt: skip
        assert calls == ["c.run"], (path.name, calls)


def test_every_command_has_its_options_and_defaults() -> None:
    """The parameters of a command are the fields of its options, with their defaults (the
    same as `abyss_mc`'s, tests/api/test_api.py)."""
    import inspect

    from cli.app import app

    for info in app.registered_commands:
        fn = info.callback
        kind = inspect.getclosurevars(fn.__wrapped__).globals["O"]
        fields = {k: v for k, v in kind.defaults().items() if k != "progress"}
        params = inspect.signature(fn).parameters
        assert list(params) == list(fields), fn.__name__
        for name, param in params.items():
            if param.default is not inspect.Parameter.empty:
                assert param.default == fields[name], (fn.__name__, name)
