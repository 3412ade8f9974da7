"""Abyss's Leviathan decision from Python, fight or explore (`abyss-mc ev`;
docs/fight-or-explore.md): the exact odds of a fight and of exploring on, and forked rollouts of
real decision points with the rule they teach. The functions are Abyss's own, under stable names:

- `tables(cards=None, set=None)`: Abyss's card data with the Leviathan expansion, what the
  functions below read;
- exact odds: `fight_table`, `fight_rows`, `token_ip_mean`, `explore_risk`, `SPENDING_RULE`;
  their tables: `damage_by_resistance`, `damage_table`, `damage_by_pearls`, `in_36ths`,
  `border_risk`, `border_risk_display`;
- rollouts: `run_rollouts`, `overall`, `all_situations`, `by_situation`, `heatmap_table`,
  `SITUATIONS`, `one_step_rule`, `learn_rule`, `rule_candidates`, `pairing_gain`;
  their tables and charts: `pairing_table`, `rule_rollout_table`, `chart_rule_grid`,
  `recommended_rule`, and `write_fight_page` (the report's page).

Imported on first use, so ``import abyss_mc.leviathan`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module

_REPORT = "games.abyss.report."

#: name -> (module, name there)
NAMES = {
    **{n: ("games.abyss.engine.odds", n) for n in (
        "fight_table", "fight_rows", "token_ip_mean", "explore_risk", "SPENDING_RULE")},
    **{n: (_REPORT + "fight_odds", n) for n in (
        "damage_by_resistance", "damage_table", "damage_by_pearls", "in_36ths", "border_risk",
        "border_risk_display")},
    **{n: (_REPORT + "rollout", n) for n in (
        "run_rollouts", "overall", "all_situations", "by_situation", "heatmap_table",
        "SITUATIONS", "one_step_rule", "learn_rule", "rule_candidates", "pairing_gain")},
    **{n: (_REPORT + "fight_rule", n) for n in (
        "chart_rule_grid", "rule_rollout_table", "recommended_rule")},
    "pairing_table": (_REPORT + "fight_rollouts", "pairing_table"),
    "write_fight_page": (_REPORT + "fight_report", "write_fight_page"),
}  # fmt: skip

__all__ = sorted([*NAMES, "tables"])


def tables(cards=None, set=None):
    """Abyss's card data with the Leviathan expansion (`cards`: a directory of card files;
    `set`: overrides, as `abyss_mc.simulate`'s), validated."""
    from reports.runs.options import settings
    from sim import games

    return games.get("abyss").load_cards(cards, settings(set), ("leviathan",))


def __getattr__(name: str):
    if name not in NAMES:
        raise AttributeError(f"module 'abyss_mc.leviathan' has no attribute {name!r}")
    module, attr = NAMES[name]
    return getattr(import_module(module), attr)


def __dir__() -> list[str]:
    return __all__
