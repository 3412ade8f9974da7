"""What the reports add to Abyss runs: the summary from the aggregates, the balance report (or,
for a rollout run, the "Fight or explore?" page) and the tournament's fight-or-explore rollouts."""

from __future__ import annotations

import sys
from pathlib import Path


def summary(played, n_players: int) -> str:
    from games.abyss.report.summary_text import summarize_aggregates

    return summarize_aggregates(played.aggregates)


def write_report(run_dir: Path | str, out: Path | str | None = None) -> dict:
    from games.abyss.report.rollout import is_rollout_run

    if is_rollout_run(run_dir):
        from games.abyss.report.fight_report import write_fight_page
        from games.abyss.report.rollout import run_tables

        return write_fight_page(run_dir, out, run_tables(run_dir))
    from games.abyss.report.balance import write_report as balance_report

    return balance_report(run_dir, out)


#: The rollouts' first compile on a 2-core machine (README), to tell the user.
ROLLOUT_COMPILE_SECONDS = 30


def tournament_extras(tables, *, names: list[str], counts: list[int], seed: int,
                      expansions: tuple[str, ...], fight_points: int, run_dir: Path,
                      headline_only: bool = False) -> dict:  # fmt: skip
    """With Leviathan and `fight_points`: the fight-or-explore rollouts of the report (the
    tournament's strategies but random; 4 players if played), into run_dir / FIGHT_DIR. The
    search for a better rule (its rule rollouts: 25 candidates x 4 replicates a point on the
    even-numbered games, the chosen one and the own on the odd ones, against 32 forks for fight
    or explore) is made for the run's own line-up, on the first half of the points; a play
    strength's tier (`headline_only`) asks fight or explore, on `TIER_REPLICATES` forks each
    way, and takes its rule from the forks of that one decision (issue 54: docs/benchmarks.md).
    The manifest's entries."""
    if "leviathan" not in expansions:
        return {"fight_points": 0}
    if fight_points:
        from games.abyss.report.balance import FIGHT_DIR
        from games.abyss.report.rollout import run_rollouts, save_rollouts
        from sim.core.firstrun import first_compile

        n = 4 if 4 in counts else counts[0]
        lineup = rollout_lineup(names)
        if not lineup:
            return {"fight_points": 0}
        lineup = [lineup[i % len(lineup)] for i in range(max(n, len(lineup)))]
        with first_compile(FIGHT_COMPILE, ROLLOUT_COMPILE_SECONDS):
            found = run_rollouts(
                tables, n_players=n, strategies=lineup, seed=seed, n_points=fight_points,
                replicates=TIER_REPLICATES if headline_only else 16,
                rule_points=0 if headline_only else fight_points // 2,
                rule_replicates=4,
                progress=sys.stderr.isatty(),
            )  # fmt: skip
        (run_dir / FIGHT_DIR).mkdir()
        save_rollouts(found, run_dir / FIGHT_DIR)
    return {"fight_points": fight_points}


#: a play strength's tier plays each point on 8 times each way, not 16: half the forks, for
#: wider intervals of fight or explore and of its one-decision rule (issue 54: measured in
#: docs/benchmarks.md)
TIER_REPLICATES = 8

#: what the fight rollouts' compile is called (`first_compile`)
FIGHT_COMPILE = "fight-or-explore rollouts"


def tension_sample(aggregates):
    """A tournament's sampled games with their running IP (`sim.core.contract.ReportModule`)."""
    from games.abyss.report.balance import tension_sample as sample

    return sample(aggregates)


def compile_ahead(expansions: tuple[str, ...], fight_points: int) -> dict[str, str]:
    """The fight rollouts (their own kernels, about 30 s): compiled in the background while a
    cold `tournament --report` compiles its tournament."""
    if "leviathan" in expansions and fight_points:
        return {FIGHT_COMPILE: "games.abyss.report:warm_fight"}
    return {}


def warm_fight() -> None:
    """Compile the fight rollouts as the report calls them: a few decision points of the
    default game (Leviathan, 4 players)."""
    from games.abyss.report.rollout import run_rollouts
    from sim import games
    from sim.core.firstrun import first_compile

    spec = games.get("abyss")
    tables = spec.load_cards(None, [], ("leviathan",))
    lineup = rollout_lineup(spec.default_tournament.split(","))
    with first_compile(FIGHT_COMPILE, ROLLOUT_COMPILE_SECONDS):
        run_rollouts(tables, n_players=4, strategies=[lineup[i % len(lineup)] for i in
                     range(max(4, len(lineup)))], seed=0, n_points=2, replicates=2,
                     rule_points=2, rule_replicates=1, progress=False)  # fmt: skip


def rollout_lineup(names: list[str]) -> list[str]:
    """The strategies the fight-or-explore rollouts fork: the tournament's but random, and never
    a player that looks ahead (the search player: a fork plays on without searching)."""
    from games.abyss.strategies import REGISTRY

    forkable = [s for s in names if not getattr(REGISTRY.make_policy(s), "LOOKS_AHEAD", False)]
    return [s for s in forkable if s.split(":")[0] != "random"] or forkable


#: the benchmark's line-up unless told (docs/benchmarks.md's history plays it)
BENCH_STRATEGIES = "greedy"


def bench(tables, *, players: int, lineup: list[str], games: int, reference_games: int,
          memory_games: int, seed: int, expansions: tuple[str, ...], starts: bool,
          progress):  # fmt: skip
    from games.abyss.report.benchmark import run_bench

    return run_bench(
        tables=tables, expansions=expansions, players=players, lineup=lineup, fast_games=games,
        reference_games=reference_games, memory_games=memory_games, seed=seed, starts=starts,
        progress=progress,
    )  # fmt: skip


#: What a strategy's behavioural signature counts (`reports.sections.signature`).
SIGNATURE = "games.abyss.report.signature"
LEARN = "games.abyss.report.learn"


def restrictions(tables) -> list[tuple[str, str, str]]:
    """Restricted play (`abyss-mc restrict`): every Lord and every Location, and with Leviathan
    the rules question "no Leviathan fights", each as (kind, name, the strategy parameters that
    forbid it)."""
    lords = [("lord", name, f"forbid_lord={i}") for i, name in enumerate(tables.lord_name)]
    places = [("location", name, f"forbid_location={i}")
              for i, name in enumerate(tables.location_name)]  # fmt: skip
    rules = [("rule", "no Leviathan fights", "forbid_fight=1")]
    return lords + places + (rules if "leviathan" in tables.expansions else [])
