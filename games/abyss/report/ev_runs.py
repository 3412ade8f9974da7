"""`abyss-mc ev rollout` and `ev search` as runs: the line-up, the run directory, the rollouts or
the search check, the manifest, the summary and the page (the commands parse and print)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from reports.run_dir import Run, card_digest, data_options
from sim.core.errors import UserError

#: the expansion the fight-or-explore decision belongs to
EXPANSIONS = ("leviathan",)


def lineup_of(spec: Any, strategies: str, players: int) -> tuple[list[str], list[str]]:
    """``--strategies``: the names given, and the line-up (the names repeated to at least
    `players`); every name is checked before any work."""
    names = [p.strip() for p in strategies.split(",") if p.strip()]
    if not names:
        raise UserError("--strategies is empty; give at least one strategy name")
    for name in names:
        spec.strategies().make_policy(name)  # unknown names and parameters fail before any work
    return names, [names[i % len(names)] for i in range(max(players, len(names)))]


def rollout_run(spec, *, players: int, names: list[str], lineup: list[str], points: int,
                replicates: int, seed: int, rule_points: int, rule_replicates: int,
                verify_blocks: int, unpaired_check: bool, report: bool, out: Path | None,
                cards, set_, threads, presets) -> tuple[str, Path]:  # fmt: skip
    """Fork `points` decision points both ways and play them out (`rollout.run_rollouts`), learn
    and check a fight rule, write the run; returns (the summary, the run directory)."""
    t_start = time.perf_counter()
    from sim.core.batch import set_threads
    from sim.core.runs import write_manifest

    set_threads(threads)
    run = Run.start("ev rollout", out, seed, resumable=False)
    out_dir = run.out
    with run:
        tables = spec.load_cards(cards, set_, EXPANSIONS)
        from games.abyss.report import FIGHT_COMPILE, ROLLOUT_COMPILE_SECONDS
        from games.abyss.report.rollout import rollout_text, run_rollouts, save_rollouts
        from sim.core.firstrun import first_compile

        with first_compile(FIGHT_COMPILE, ROLLOUT_COMPILE_SECONDS):
            found = run_rollouts(
                tables, n_players=players, strategies=lineup, seed=seed, n_points=points,
                replicates=replicates, unpaired_check=unpaired_check, rule_points=rule_points,
                rule_replicates=rule_replicates, progress=sys.stderr.isatty())  # fmt: skip
        command = _command()
        found.meta["command"] = " ".join(command)
        if found.rules is not None and verify_blocks:
            from games.abyss.report.rollout import learn_rule, verify_rule

            rule = learn_rule(found.rules)["spec"]
            if rule:
                from reports.play.seeds import EV_VERIFY, derived_seed

                found.verify = verify_rule(
                    tables,
                    names,
                    rule,
                    n_players=players,
                    seed=derived_seed(seed, EV_VERIFY),  # deals no rule rollout played
                    blocks=verify_blocks,
                    progress=sys.stderr.isatty(),
                )
        summary = save_rollouts(found, run.dir)

        write_manifest(
            run.dir,
            command=command,
            seed=seed,
            config={
                "command": "ev rollout",
                "n_players": players,
                "strategies": lineup,
                "points": points,
                "replicates": replicates,
                "unpaired_check": unpaired_check,
                "rule_points": rule_points,
                "rule_replicates": rule_replicates,
                "verify_blocks": verify_blocks,
                **data_options(cards, set_, presets, out_dir),
            },
            card_digest=card_digest(tables, cards, set_),
            timings={"total": time.perf_counter() - t_start, "rollouts": found.meta["seconds"]},
        )
        if report:
            from games.abyss.report.fight_report import fight_page

            fight_page(tables, found).write(run.dir / "report")
        text = rollout_text(found, summary)
        from sim.core.runs import atomic_write_text

        atomic_write_text(run.dir / "summary.txt", text)
        run.finish()
    return text, out_dir


def search_run(spec, *, players: int, lineup: list[str], rule: str, games: int,
               replicates: int, seed: int, out: Path | None, cards, set_, threads,
               presets) -> tuple[str, Path]:  # fmt: skip
    """Games with the search player, its fight-or-explore decisions checked against `rule`
    (`search_check`); returns (the summary, the run directory)."""
    from games.abyss.report.search_check import (
        check_summary,
        check_text,
        run_search_check,
        save_check,
    )
    from sim.core.batch import set_threads
    from sim.core.runs import atomic_write_text, write_manifest

    set_threads(threads)
    run = Run.start("ev search", out, seed, resumable=False)
    out_dir = run.out
    with run:
        tables = spec.load_cards(cards, set_, EXPANSIONS)
        check = run_search_check(tables, n_players=players, strategies=lineup, seed=seed,
                                 n_games=games, replicates=replicates,
                                 progress=sys.stderr.isatty())  # fmt: skip
        command = _command()
        check.meta["command"] = " ".join(command)
        found = check_summary(check.points, rule)
        text = check_text(check, found)
        save_check(check, found, run.dir)
        write_manifest(
            run.dir,
            command=command,
            seed=seed,
            config={
                "command": "ev search",
                "n_players": players,
                "strategies": lineup,
                "rule": rule,
                "games": games,
                "replicates": replicates,
                **data_options(cards, set_, presets, out_dir),
            },
            card_digest=card_digest(tables, cards, set_),
            timings={"total": check.meta["seconds"]},
        )
        atomic_write_text(run.dir / "summary.txt", text)
        run.finish()
    return text, out_dir


def _command() -> list[str]:
    """The command line as the user typed it (for a run's record)."""
    return ["abyss-mc", *sys.argv[1:]]
