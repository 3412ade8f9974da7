"""What the reports add to Conspiracy runs: the summary with Influence Points by source and the
Conspiracy report."""

from __future__ import annotations

from pathlib import Path

#: label -> seat column of the summary
SUMMARY_COLUMNS = {"IP": "score", "lords": "score_lords", "locations": "score_locations",
                   "coalition": "score_coalition", "master": "score_pearl_master"}  # fmt: skip


def summary(played, n_players: int) -> str:
    from reports.sections.generic import summary_text

    return summary_text(played.seats, len(played.games), n_players, SUMMARY_COLUMNS)


def write_report(run_dir: Path | str, out: Path | str | None = None) -> dict:
    from games.conspiracy.report.balance import write_report as conspiracy_report

    return conspiracy_report(run_dir, out)


#: the benchmark's line-up unless told (docs/benchmarks.md's history plays it)
#: A Conspiracy tournament plays its games only (`sim.core.contract.ReportModule`).
tournament_extras = None

BENCH_STRATEGIES = "coalition_builder,key_hunter,pearl_master,pile_raider"


def bench(tables, *, players: int, lineup: list[str], games: int, reference_games: int,
          memory_games: int, seed: int, expansions: tuple[str, ...], starts: bool,
          progress):  # fmt: skip
    """Both engines on the same games, and Abyss's fast path in the same run for the ratio."""
    from games.conspiracy.report.benchmark import run_conspiracy_bench

    return run_conspiracy_bench(
        tables=tables, players=players, lineup=lineup, fast_games=games,
        reference_games=reference_games, seed=seed, abyss_games=games, progress=progress,
    )  # fmt: skip


#: What a strategy's behavioural signature counts (`reports.sections.signature`).
SIGNATURE = "games.conspiracy.report.signature"
LEARN = "games.conspiracy.report.learn"


def restrictions(tables) -> list[tuple[str, str, str]]:
    """Restricted play (`abyss-mc restrict`): the Lords by colour and value (IP), and every
    Location, each as (kind, name, the strategy parameters that forbid it)."""
    groups = sorted({(int(c), int(ip)) for c, ip in zip(tables.lord_colour, tables.lord_ip,
                                                               strict=True)})
    lords = [("lord", f"{tables.colour_names[c]} {ip}", f"forbid_colour={c}:forbid_ip={ip}")
             for c, ip in groups]  # fmt: skip
    places = [("location", name, f"forbid_location={i}")
              for i, name in enumerate(tables.location_names)]  # fmt: skip
    return lords + places


#: nothing compiles apart from the tournament (`sim.core.contract.ReportModule`)
compile_ahead = None


def tension_sample(aggregates):
    """A tournament's kept games with their running IP (`sim.core.contract.ReportModule`)."""
    from games.conspiracy.report.balance import tension_sample as sample

    return sample(aggregates)
