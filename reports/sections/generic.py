"""What every game's runs get without report code of their own: the summary printed after a run
(win rate with its Wilson 95% interval and mean scores, per strategy) and a report of the
strategies and the seats (`sim.core.game`: a spec without a `report_module`)."""

from __future__ import annotations

import json
from pathlib import Path

from sim.core.runs import read_table


def summary_text(seats, n_games: int, n_players: int, columns: dict[str, str] | None = None) -> str:
    """One line per strategy: seats played, win rate [95% CI] and the mean of each seat column
    in `columns` (label -> column; default the score)."""
    from reports.stats.intervals import wilson_interval

    columns = columns or {"score": "score"}
    widths = {label: max(6, len(label)) for label in columns}
    fair = f"equal-strength win rate {1 / n_players:.1%}"
    lines = [f"{n_games:,} games, {n_players} players ({fair})"]
    header = f"  {'strategy':<20} {'seats':>8} {'win rate [95% CI]':>24} " + " ".join(
        f"{label:>{widths[label]}}" for label in columns
    )
    lines += [header, "  " + "-" * (len(header) - 2)]
    for name, part in seats.groupby("strategy", sort=True):
        n = len(part)
        wins = float(part["win"].sum())
        lo, hi = wilson_interval(wins, n)
        means = " ".join(
            f"{part[column].mean():>{widths[label]}.1f}" for label, column in columns.items()
        )
        lines.append(f"  {name:<20} {n:>8,} {wins / n:>9.1%} [{lo:.1%}, {hi:.1%}] {means}")
    return "\n".join(lines) + "\n"


def summary(played, n_players: int) -> str:
    """The summary of `run_games`' result (`sim.core.game.Played`)."""
    return summary_text(played.seats, len(played.games), n_players)


def write_report(run_dir: Path | str, out: Path | str | None = None) -> dict:
    """The report of a run of any game: its strategies (win rate and mean score, with 95%
    intervals) and its seats (win rate of each seat, numbered from 1)."""

    from reports.render.report import Report

    run_dir = Path(run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    config = manifest.get("config", {})
    seats = _with_players(read_table(run_dir / "seats.parquet"))
    title = f"{config.get('game', 'abyss')}: {config.get('command', 'run')}"
    report = Report(title, " ".join(manifest.get("command") or []))

    from types import SimpleNamespace

    from reports.sections import tiers as strength_report

    # each play strength's verdicts, and the card values' where restricted play was played
    strength_report.add_verdicts(
        report, SimpleNamespace(dir=run_dir, config=config),
        lambda d, main: verdicts(seats if main else _with_players(
            read_table(Path(d) / "seats.parquet")), _config(d)),
    )  # fmt: skip
    for n_players, part in seats.groupby("n_players", sort=True):
        games = len(part) // n_players
        report.section(
            f"Strategies, {n_players} players",
            f"{games:,} games; win rate (a tie shares the win) with its Wilson 95% interval, "
            "mean score.",
        ).table(rates(part.groupby("strategy", sort=True)).rename_axis("strategy"))
        by_seat = rates(part.groupby("seat", sort=True))
        by_seat.index = by_seat.index + 1  # seats as people count them
        report.section(
            f"Seats, {n_players} players",
            f"Win rate of each seat (seat 1 plays first); equal seats win {1 / n_players:.1%}.",
        ).table(by_seat.rename_axis("seat"))
    strength_report.add_head_to_head(report, SimpleNamespace(dir=run_dir, config=config))
    return report.write(Path(out) if out is not None else run_dir / "report")


def rates(groups):
    """Per group (strategy or seat): seat-games, win rate with its Wilson 95% interval (`lo`,
    `hi`), mean score."""
    import pandas as pd

    from reports.stats.intervals import wilson_interval

    rows = {}
    for key, part in groups:
        wins, n = float(part["win"].sum()), len(part)
        lo, hi = wilson_interval(wins, n)
        rows[key] = {"seats": n, "win rate": wins / n, "lo": lo, "hi": hi,
                     "mean score": part["score"].mean()}  # fmt: skip
    return pd.DataFrame.from_dict(rows, orient="index")


def _with_players(seats):
    """The seats with `n_players` (a simulate run has one player count) and string strategies."""
    seats["strategy"] = seats["strategy"].astype(str)
    if "n_players" not in seats:
        seats["n_players"] = int(seats.groupby("game").size().max())
    return seats


def _config(run_dir) -> dict:
    return json.loads((Path(run_dir) / "manifest.json").read_text()).get("config", {})


def verdicts(seats, config: dict | None = None) -> list:
    """Per player count, the best strategy and the seat advantage (`reports.sections.verdicts`):
    paired by
    deal over a tournament's blocks, else from Wilson intervals over games; seat intervals
    simultaneous over the seats (Bonferroni)."""
    from reports.sections import verdicts as V
    from reports.sections.seat_tables import seat_advantage_blocks, seat_rates
    from reports.sections.skill import skill_verdict

    out = []
    blocks = "block" in seats
    for n, part in seats.groupby("n_players", sort=True):
        n = int(n)
        if part["strategy"].nunique() > 1:
            if blocks:
                out.append(V.best_strategy_blocks(part.rename(columns={"score": "ip"}), n,
                                                  V.pair_conf(config or {}, n)))
            else:
                table = rates(part.groupby("strategy", sort=True))
                out.append(V.best_strategy_rates(
                    table.rename(columns={"lo": "win lo", "hi": "win hi"}), n))
        level = 1 - 0.05 / n
        if blocks:
            table = seat_advantage_blocks(part, level, se=True)
        else:
            by_seat = part.groupby("seat", sort=True)["win"]
            table = seat_rates(by_seat.size(), by_seat.sum(), level, se=True)
        out.append(V.seat_verdict(table, n))
    skill = skill_verdict({int(n): part for n, part in seats.groupby("n_players", sort=True)})
    return out + ([skill] if skill else [])


#: A game without report code of its own adds nothing to a tournament and has no restricted play
#: (`sim.core.contract.ReportModule`).
tournament_extras = None
SIGNATURE = None
LEARN = None
restrictions = None


#: nothing compiles apart from the tournament (`sim.core.contract.ReportModule`)
compile_ahead = None
#: no per-round scores (`sim.core.contract.ReportModule`)
tension_sample = None
