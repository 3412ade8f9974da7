"""A game's contract is one typed Protocol per module (`sim.core.contract`), every hook declared
(issue 29: "A game's contract is one typed Protocol in one module, every hook listed there,
optional ones marked; no `getattr` discovery")."""

from __future__ import annotations

import types

import pytest
from tiny_game import SPEC as TINY

from sim import games
from sim.core.contract import PlayModule, ReportModule, missing_hooks
from sim.core.game import GameSpec


@pytest.mark.parametrize("name", list(games.GAMES))
def test_every_registered_game_keeps_the_contract(name: str) -> None:
    assert missing_hooks(games.get(name)) == []


def test_the_tiny_game_keeps_the_contract() -> None:
    assert missing_hooks(TINY) == []


def test_a_missing_hook_is_named(tmp_path, monkeypatch) -> None:
    """The check can fail: a play module without `tournament_frames` nor `load_aggregates`."""
    module = types.ModuleType("half_a_game")
    for hook in ("COMPILE_SECONDS", "REFERENCE_SECONDS", "player_counts", "run_games",
                 "run_tables", "replay", "oracle_values"):  # fmt: skip
        setattr(module, hook, None)
    monkeypatch.setitem(__import__("sys").modules, "half_a_game", module)
    spec = GameSpec(name="half", title="Half", cards_module="tiny_game",
                    play_module="half_a_game",
                    report_module="reports.sections.generic")  # fmt: skip
    assert missing_hooks(spec) == ["half_a_game: tournament_frames",
                                   "half_a_game: load_aggregates"]  # fmt: skip


def test_the_protocols_list_the_optional_hooks() -> None:
    assert {"REFERENCE_SECONDS", "load_aggregates", "oracle_values"} <= set(
        PlayModule.__annotations__)
    assert {"tournament_extras", "restrictions"} <= set(ReportModule.__annotations__)


def test_no_command_discovers_a_hook_by_getattr() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = [f"{p.relative_to(root)}: {line.strip()}"
             for p in sorted((root / "cli").rglob("*.py"))
             for line in p.read_text().splitlines()
             if "getattr(spec" in line or "getattr(play" in line]  # fmt: skip
    assert found == []


def test_a_hook_shadowed_by_a_submodule_is_named(tmp_path, monkeypatch) -> None:
    """A report package whose hook `summary` shares its name with a module `summary.py`: once
    `package.summary` is imported, the package's attribute is that module, not the hook."""
    package = tmp_path / "shadowed_report"
    package.mkdir()
    (package / "__init__.py").write_text(
        "def summary(played, n):\n    return ''\n\ndef write_report(run_dir, out=None):\n"
        "    return {}\n\ntournament_extras = restrictions = SIGNATURE = LEARN = None\n"
        "compile_ahead = tension_sample = None\n")
    (package / "summary.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = GameSpec(name="shadowed", title="Shadowed", cards_module="tiny_game",
                    report_module="shadowed_report")  # fmt: skip
    assert missing_hooks(spec) == [
        "shadowed_report: summary (a submodule of that name replaces it once imported)"]
