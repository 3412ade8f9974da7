"""The commands that describe without playing: `abyss-mc cards` (the card data, checked),
`abyss-mc strategies` (the policies, presets and parameters) and `abyss-mc report RUN_DIR` (the
balance report of a run directory, written again)."""

from __future__ import annotations

import json
from pathlib import Path

from reports.runs import setup as S
from reports.runs.options import CardsOptions, ReportOptions, StrategiesOptions


def cards(o: CardsOptions) -> S.Output:
    """The card data (after any overrides), validated and described."""
    spec = S.game_spec(o.game)
    tables = spec.load_cards(o.cards, o.set_, S.game_expansions(spec, o.expansions))
    return S.Output(spec.describe(tables))


def strategies(o: StrategiesOptions) -> S.Output:
    """Every strategy, what it does and its parameter values, then each parameter explained (or
    one strategy in full)."""
    return S.Output(registry(o).text(o.strategy))


def registry(o: StrategiesOptions):
    """The game's strategies (`strategies.Registry`), the presets of `o.presets` added."""
    import strategies as generic

    found = generic.for_game(S.game_spec(o.game).name)
    found.use_presets(o.presets)
    return found


def report(o: ReportOptions) -> S.Output:
    """The balance report of a run (for an analysis of its own, e.g. a rollout run: its page);
    `frames["paths"]`: the files written (html, markdown, ...)."""
    spec = S.game_spec(run_game(o.run_dir))
    module = spec.analysis() or spec.report()
    paths = module.write_report(o.run_dir, o.out)
    return S.Output("", Path(o.run_dir),
                    (f"report: {paths['html']}", f"markdown: {paths['markdown']}"),
                    {"paths": paths})  # fmt: skip


def run_game(run_dir: Path) -> str:
    """The `game` a run directory's manifest names ("abyss" when it names none)."""
    try:
        config = json.loads((Path(run_dir) / "manifest.json").read_text()).get("config", {})
    except (OSError, ValueError):
        return "abyss"
    return config.get("game", "abyss")
