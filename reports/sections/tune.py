"""What `abyss-mc tune` writes: the tuned preset (`tuned.toml`), the trace, the summary and the
charts of the search's progress and of each parameter's effect."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass

import numpy as np


@dataclass
class Outcome:
    """A finished tune: its problem (`reports.tune.Problem`), every candidate of the search,
    the finalists with their re-evaluated win rates, the chosen one and the held-out check."""

    problem: object
    rows: list[dict]
    finalists: list[dict]
    reeval: np.ndarray  # win rate of each finalist on the fresh deals
    reeval_games: int
    chosen: dict
    held: object  # reports.tune.HeldOut
    name: str  # the tuned preset's name
    command: str  # the command that makes it again (`reports.runs.tune.recorded_command`)
    provenance: dict | None = None  # the code and card data it ran on


def preset_name(start: str, n_players: int | None = None, open_tune: bool = False) -> str:
    """`<start>_tuned` (within its archetype) or `<start>_open` (every parameter searched), with
    `_<N>p` where the presets differ by player count (`n_players`)."""
    name = f"{start.split(':')[0]}_{'open' if open_tune else 'tuned'}"
    return f"{name}_{n_players}p" if n_players is not None else name


#: A command a presets file records: "# Made by: abyss-mc tune ..." above a preset, or
#: "# Made by (a note): ..." for a tune that was not kept (scripts/tune_presets.py).
MADE_BY = re.compile(r"^# Made by(?: \((?P<note>[^)]*)\))?: (?P<command>abyss-mc tune .+)$", re.M)
#: The options of `abyss-mc tune` that take no value.
FLAGS = ("--open",)


def recorded_commands(text: str) -> list[str]:
    """The tune commands recorded in a presets file's text, in order."""
    return [m["command"] for m in MADE_BY.finditer(text)]


def command_options(command: str) -> dict[str, str | bool]:
    """The options of a recorded tune command: `--players 4` -> {"players": "4"}, `--open` ->
    {"open": True}."""
    words = shlex.split(command)[2:]
    out: dict[str, str | bool] = {}
    i = 0
    while i < len(words):
        key = words[i].removeprefix("--").replace("-", "_")
        if words[i] in FLAGS:
            out[key], i = True, i + 1
        else:
            out[key], i = words[i + 1], i + 2
    return out


def how_tuned(problem) -> str:
    """How the preset was searched: within its archetype (and what was held), or open."""
    if problem.open:
        return f"{problem.start} tuned with every parameter free (open)"
    if problem.held:
        rules = ", ".join(f"{k} {v}" for k, v in problem.held.items())
        return f"{problem.start} tuned within its archetype ({rules})"
    return f"{problem.start} tuned"


def changed_params(problem, params: dict) -> dict:
    """The parameters of `params` whose value differs from the starting strategy's (brought
    into the search ranges, `Problem.start_params`)."""
    start = problem.start_params()
    return {k: v for k, v in params.items() if start.get(k) != v}


def preset_toml(outcome: Outcome) -> str:
    """`tuned.toml`: one preset, every parameter of its policy written out, with a description
    of how it was made (usable with `--presets`)."""
    p, held = outcome.problem, outcome.held
    policy = p.registry.make_policy(outcome.chosen["spec"])
    values = {name: getattr(policy, name) for name in p.registry.parameters(p.policy)}
    description = (
        f"{how_tuned(p)} at {p.n_players} players against {', '.join(p.opponents)}: held-out "
        f"win rate {held.tuned:.1%} against {held.start:.1%} for {p.start} "
        f"(difference {held.diff:+.1%}, 95% CI [{held.lo:+.1%}, {held.hi:+.1%}], "
        f"{held.games:,} games each)."
    )
    lines = [f"# Made by: {outcome.command}"]
    if outcome.provenance:
        code = outcome.provenance
        commit = (code["git_commit"] or "none") + (" (changed)" if code["git_dirty"] else "")
        lines.append(f"# On: abyss-mc {code['abyss_mc_version']}, git {commit}, source "
                     f"{code['source_digest']}, card data {code['cards']}")  # fmt: skip
    lines += [
        f"# The search: {len(outcome.rows)} candidates; the finalists re-evaluated on "
        f"{outcome.reeval_games:,} fresh games each; the held-out check on deals of its own.",
        f"[{outcome.name}]",
        f"description = {json.dumps(description)}",
        f'policy = "{p.policy}"',
    ]
    for name, value in values.items():
        lines.append(f"{name} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _toml_value(value) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float):
        return repr(round(value, 3))
    return str(int(value))


def trace_frame(outcome: Outcome):
    """`trace.parquet`: one row per candidate of the search (stage "search"), per finalist
    (stage "reeval") and per arm of the held-out check (stage "heldout"), with its parameters
    (one column each, the archetype's held ones too), the games it played and its win rate."""
    import pandas as pd

    p = outcome.problem
    records = []
    for r in outcome.rows:
        records.append({"stage": "search", "candidate": r["candidate"], "batch": r["batch"],
                        "spec": r["spec"], **r["params"], "games": r["games"],
                        "win_rate": r["win_rate"]})  # fmt: skip
    for r, value in zip(outcome.finalists, outcome.reeval, strict=True):
        records.append({"stage": "reeval", "candidate": r["candidate"], "batch": r["batch"],
                        "spec": r["spec"], **r["params"], "games": outcome.reeval_games,
                        "win_rate": float(value)})  # fmt: skip
    held = outcome.held
    for r, value in ((outcome.chosen, held.tuned), (outcome.rows[0], held.start)):
        records.append({"stage": "heldout", "candidate": r["candidate"], "batch": r["batch"],
                        "spec": r["spec"], **r["params"], "games": held.games,
                        "win_rate": value})  # fmt: skip
    df = pd.DataFrame.from_records(records)
    for name, space in p.space.items():
        if space[0] == "choice":
            df[name] = df[name].astype(str)
    for name in p.held:  # the archetype's held parameters, at their one value
        if name not in df.columns:
            df[name] = p.values[name]
    return df


def summary_text(outcome: Outcome) -> str:
    p, held = outcome.problem, outcome.held
    start_row = outcome.rows[0]
    best = max(outcome.rows, key=lambda r: r["win_rate"])
    lines = [
        f"Tuning {p.start} ({p.policy}) at {p.n_players} players against "
        f"{', '.join(p.opponents)}",
        "  " + ("every parameter searched (open)" if p.open else
                "within its archetype: " + (", ".join(f"{k} {v}" for k, v in p.held.items())
                                            or "nothing held")),
        f"parity (an equal share of the win): {1 / p.n_players:.1%}",
        "",
        f"search: {len(outcome.rows)} candidates x {start_row['games']:,} games on the same "
        f"deals; the start {start_row['win_rate']:.1%}, the best {best['win_rate']:.1%} "
        f"(candidate {best['candidate']})",
        f"finalists, played again on {outcome.reeval_games:,} fresh games each "
        "(the search's best are luckier than they are good):",
        f"  {'candidate':>9}  {'search':>7}  {'fresh':>7}  changed",
    ]
    for r, value in zip(outcome.finalists, outcome.reeval, strict=True):
        mark = "  <- chosen" if r is outcome.chosen else ""
        changed = _params_text(changed_params(p, r["params"])) or "(the start)"
        lines.append(f"  {r['candidate']:>9}  {r['win_rate']:>7.1%}  {value:>7.1%}  "
                     f"{changed}{mark}")  # fmt: skip
    lines += [
        "",
        f"held out ({held.games:,} games each on deals the search never saw, paired by deal):",
        f"  {outcome.name}: {held.tuned:.1%}   {p.start}: {held.start:.1%}",
        f"  difference {held.diff:+.2%}, 95% CI [{held.lo:+.2%}, {held.hi:+.2%}], p = {held.p:.3g}",
        "  " + verdict_sentence(outcome),
        "",
        f"{outcome.name}: "
        + (_params_text(changed_params(p, outcome.chosen["params"])) or "(unchanged)"),
    ]
    return "\n".join(lines) + "\n"


def verdict_sentence(outcome: Outcome) -> str:
    held, start = outcome.held, outcome.problem.start
    if outcome.chosen["spec"] == start:
        return (f"no candidate beat {start} on the fresh deals: the tuned preset is {start} "
                "itself.")
    if held.verdict == "better":
        return f"the tuned preset wins more than {start}: its interval lies above 0."
    if held.verdict == "worse":
        return f"the tuned preset wins less than {start} on fresh deals: keep {start}."
    return (f"the data cannot tell the tuned preset from {start}: the interval includes 0 "
            "(the parameters barely matter against this field, or more games are needed).")


def _params_text(params: dict) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in params.items())  # fmt: skip


def chart_png(outcome: Outcome) -> bytes:
    """The search's progress (each candidate's win rate, the best so far, the finalists on fresh
    deals) above each parameter's effect (win rate against its value)."""
    from reports.render.charts import figure
    from reports.render.report import render_png

    p = outcome.problem
    names = list(p.space)
    cols = 4
    rows = 1 + -(-len(names) // cols)
    fig = figure(figsize=(11.0, 2.6 * rows))
    grid = fig.add_gridspec(rows, cols)
    ax = fig.add_subplot(grid[0, :])
    x = np.array([r["candidate"] for r in outcome.rows])
    y = np.array([r["win_rate"] for r in outcome.rows]) * 100
    ax.scatter(x, y, s=12, color="#8a9bb0", label="candidate (search deals)")
    ax.plot(x, np.maximum.accumulate(y), color="#1f4e79", label="best so far")
    fx = [r["candidate"] for r in outcome.finalists]
    ax.scatter(fx, np.asarray(outcome.reeval) * 100, marker="D", s=30, color="#c0392b",
               label="finalist on fresh deals", zorder=3)  # fmt: skip
    ax.axhline(100 / p.n_players, color="black", lw=0.8, ls=":", label="parity")
    ax.set_xlabel("candidate (in the order the optimiser proposed them)")
    ax.set_ylabel("win rate (%)")
    ax.set_title(f"Tuning {p.start} at {p.n_players} players")
    ax.legend(loc="lower right", fontsize=7, ncols=2)
    for i, name in enumerate(names):
        sub = fig.add_subplot(grid[1 + i // cols, i % cols])
        values = [r["params"][name] for r in outcome.rows]
        if p.space[name][0] == "choice":
            kinds = list(p.space[name][1])
            means = [np.mean([w for v, w in zip(values, y, strict=True) if v == k] or [np.nan])
                     for k in kinds]  # fmt: skip
            sub.bar(range(len(kinds)), means, color="#8a9bb0")
            sub.set_xticks(range(len(kinds)), kinds, rotation=45, fontsize=6)
            low = np.nanmin(means) if np.isfinite(means).any() else 0
            sub.set_ylim(bottom=max(0.0, low - 2))
        else:
            sub.scatter(values, y, s=6, color="#8a9bb0")
            sub.axvline(p.start_params()[name], color="black", lw=0.8, ls=":")
        sub.set_title(name, fontsize=8)
        sub.tick_params(labelsize=6)
    return render_png(fig)
