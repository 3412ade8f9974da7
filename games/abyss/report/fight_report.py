"""Fight or explore? The report section on the Leviathan decision, and a standalone page.

`add_fight_section` appends one section to a `reports.render.report.Report`: the exact odds of one
attack (`games.abyss.engine.odds.fight_table`), the exact risk of exploring on, and, given forked
rollouts
(`games.abyss.report.rollout`), what fighting instead of exploring is worth and the rule learnt
from it (`recommended_rule`: the rule rollouts' choice when the run has them, else the one-decision
forks'). `fight_page` wraps the section in a report of its own; `write_fight_page` writes it.
This module puts the section together; its parts are `games.abyss.report.fight_odds` (exact),
`games.abyss.report.fight_rollouts` (estimated) and `games.abyss.report.fight_rule` (the rule
learnt).

Two kinds of numbers, kept apart in every caption: the odds are **exact** (enumerated dice, each
chance a count of the 36 outcomes of two dice); the rollout differences are **estimated**, with
95% Student t intervals over decision points (the unit: points come from different games and
are independent; the replicates of a point are averaged first).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from games.abyss.report.fight_odds import add_exact_explore, add_exact_fight
from games.abyss.report.fight_rollouts import add_rollout_results
from games.abyss.report.fight_rule import recommended_rule, risk_threshold_36

if TYPE_CHECKING:
    from games.abyss.engine.cards.tables import CardTables
    from games.abyss.report.rollout import Rollouts
    from reports.render.report import Report, Section

PAGE_TITLE = "Fight or explore? Leviathans in Abyss"
ROLLOUT_COMMAND = "abyss-mc ev rollout"


# ------------------------------------------------------------------------------ the section
def add_fight_section(
    report: Report,
    tables: CardTables,
    rollouts: Rollouts | None = None,
    *,
    title: str = "Fight or explore?",
    rule: dict | None = None,
) -> Section:
    """Append the fight-or-explore section to `report` (exact odds; with `rollouts`, the
    estimated value of fighting and the learnt rule, `rule` if the caller has it) and return
    it."""
    from games.abyss.engine.odds import fight_table

    sec = report.section(title)
    if rollouts is not None and rollouts.n_points:
        rule = rule or recommended_rule(rollouts)
        _rule_headline(sec, rule, rollouts.meta)
    else:
        rollouts = None
        sec.note(
            f"No rollouts given: the section shows the exact odds only. The recommended rule "
            f"comes from forked rollouts (`{ROLLOUT_COMMAND}`)."
        )
    _intro(sec)
    table = fight_table(tables)
    add_exact_fight(sec, table, tables)
    threshold = None if rule is None else risk_threshold_36(rule["rule"])
    add_exact_explore(sec, tables, rollouts, threshold)
    if rollouts is not None:
        add_rollout_results(sec, rollouts, rule)
    return sec


def _ci_text(gain: tuple[float, float, float], scale: float, unit: str) -> str:
    mean, lo, hi = (v * scale for v in gain)
    # a bound that rounds to 0.0 gets a second decimal: an interval that excludes 0 reads so
    d = 2 if any(0 < abs(v) < 0.05 for v in (lo, hi)) else 1
    return f"{mean:+.{d}f} {unit} (95% interval {lo:+.{d}f} to {hi:+.{d}f})"


def _rule_headline(sec: Section, rule: dict, meta: dict) -> None:
    if rule["gain_win"][1] > 0:  # a finding only when its out-of-sample gain is significant
        sec.paragraph(f"**{rule['sentence']}**")
    else:
        sec.paragraph(
            f"The data cannot tell a better rule than the strategies' own. The best candidate: "
            f"{rule['sentence'][0].lower()}{rule['sentence'][1:]}"
        )
    gains = _ci_text(rule["gain_win"], 100, "percentage points in win probability")
    if rule["gain_ip"] is not None:
        gains += " and " + _ci_text(rule["gain_ip"], 1, "IP")
    if rule["source"] == "rule rollouts":
        how = (
            f"The best of {len(rule['learnt']['table'])} candidate rules (the strategies' own "
            f"included), each played by the deciding player from its game's first decision "
            f"point to the end of the game, on the even-numbered of the first "
            f"{meta.get('rule_points', '?')} games ({meta.get('rule_replicates', '?')} "
            f"replicates)."
        )
    else:
        how = (
            "Suggested by the one-decision forks alone (this run has no rule rollouts): only "
            "the decision at the point changes, the rest of the game follows the strategy's own "
            "rule."
        )
    own = "rules" if rule["source"] == "rule rollouts" else "choices"
    if rule["rule"] == "own":
        text = (f"{how} No candidate beat the strategies' own rules on the even-numbered games, "
                f"which choose, so none was measured on the odd ones.")  # fmt: skip
    elif not rule["held_out_points"]:
        text = (f"{how} The choice was made on the even-numbered games; no odd-numbered game "
                f"measured it, so it is not checked out of sample.")  # fmt: skip
    else:
        text = (
            f"{how} The choice was made on the even-numbered games and checked out of sample: "
            f"on the {rule['held_out_points']:,} decision points of the odd-numbered games, "
            f"which did not choose it, it changed the deciding player's result by {gains} "
            f"compared with the strategies' own {own} (intervals over decision points)."
        )
    if rule["spec"]:
        text += (
            f" As a strategy parameter (greedy and heuristic strategies): `{rule['spec']}`, "
            f"e.g. `--strategies greedy:{rule['spec']}`."
        )
    sec.paragraph(text)


def _intro(sec: Section) -> None:
    sec.paragraph(
        "With the Leviathan expansion, a Monster revealed while exploring the Depths offers a "
        "choice. **Continue** the Exploration: a new Leviathan joins the Border in the zone "
        "two dice pick; if a Leviathan already sits there it attacks you first (Wound tokens, "
        "3 Pearls, 3 Allies or a free Lord, as printed on its card). Or **fight**: discard one "
        "Ally of the Leviathan's race and roll one die; Attack Power = die + Ally value (an "
        "Ally adding Pearls: +1 per Pearl spent after the roll; a two-dice Ally: the higher of "
        "two dice). Reaching the Resistance of the Life space the token is on removes a Life "
        "Point and earns the Monster tokens printed next to it (several spaces when the power "
        "covers their sum); a miss still earns 1 Pearl."
    )
    sec.paragraph(
        "The odds below are **exact**: every chance is enumerated over the dice, a count of "
        "the 36 outcomes of two dice. What a fight is worth over a whole game is "
        "**estimated** from forked rollouts: the same game played on both ways from the same "
        "decision point."
    )


# ------------------------------------------------------------------------------ the page
def fight_page(tables: CardTables, rollouts: Rollouts | None = None) -> Report:
    """A standalone report: the fight-or-explore section and how it was made."""
    from reports.render.report import Report

    subtitle = "exact odds"
    if rollouts is not None:
        subtitle += f" and {rollouts.n_points:,} forked decision points"
    report = Report(PAGE_TITLE, subtitle)
    add_fight_section(report, tables, rollouts)
    how = report.section("How this was made")
    how.paragraph(how_made(rollouts))
    return report


def how_made(rollouts: Rollouts | None) -> str:
    """The "How this was made" text, from `rollouts.meta`."""
    exact = ("The odds are enumerated from the card data (`games.abyss.engine.odds`), with no "
             "sampling.")
    if rollouts is None:
        return exact + f" No rollouts were given (`{ROLLOUT_COMMAND}` makes them)."
    meta = rollouts.meta
    strategies = ", ".join(f"`{s}`" for s in meta.get("strategies", [])) or "?"
    text = (
        f"{exact} Rollouts: seed {meta.get('seed', '?')}, {meta.get('players', '?')} players, "
        f"strategies {strategies}; {meta.get('points', rollouts.n_points):,} decision points x "
        f"{meta.get('replicates', '?')} replicates each way"
        f"{'' if meta.get('paired', True) else ' (unpaired)'}, "
        f"{_count(meta.get('games_played'))} games played in {_seconds(meta.get('seconds'))}"
    )
    if meta.get("rule_points"):
        n_rules = len(meta.get("rule_candidates") or []) or "?"
        odd = (": {} candidate rules on the even-numbered games, the chosen one (unless the "
               "own) and the own rules on the odd ones" if meta.get("rule_test") == "chosen"
               else " x {} candidate rules").format(n_rules)  # (a run made before 2026-12-07)
        text += (
            f", rule rollouts included ({meta['rule_points']:,} games x "
            f"{meta.get('rule_replicates', '?')} replicates{odd})"
        )
    text += "."
    command = meta.get("command")
    if command:
        shown = " ".join(command) if isinstance(command, list | tuple) else str(command)
        text += f" Command: `{shown}`"
    return text


def _count(value: Any) -> str:
    return f"{int(value):,}" if isinstance(value, int | float) else "?"


def _seconds(value: Any) -> str:
    return f"{float(value):,.1f} s" if isinstance(value, int | float) else "? s"


def write_fight_page(
    run_dir: Path | str | None,
    out_dir: Path | str | None,
    tables: CardTables,
    rollouts: Rollouts | None = None,
) -> dict:
    """Write the standalone page (report.html, report.md, figures/*.png; atomically, by
    `Report.write`). `rollouts` default: read from the rollout run `run_dir` when given;
    `out_dir` default: ``run_dir/report``. Returns `Report.write`'s paths."""
    if rollouts is None and run_dir is not None:
        from games.abyss.report.rollout import load_rollouts

        rollouts = load_rollouts(run_dir)
    if out_dir is None:
        if run_dir is None:
            raise ValueError("give out_dir, or run_dir to write into run_dir/report")
        out_dir = Path(run_dir) / "report"
    return fight_page(tables, rollouts).write(out_dir)
