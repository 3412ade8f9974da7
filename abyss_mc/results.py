"""What the functions of `abyss_mc` return: one small result per command, holding what its run
wrote as pandas DataFrames.

Every result has `text` (the summary the command prints), `run_dir` (the run directory, when
the command writes one) and `output` (all the command prints). The tables of a run directory
are read from it the first time they are used (a run's seats can be large), then kept; a
command that writes no run directory holds its tables in memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from sim.core.runs import read_table


@dataclass
class Result:
    """A command's result: its summary, run directory, the lines printed after the summary, and
    its tables when it writes no run directory."""

    text: str
    run_dir: Path | None = None
    notes: tuple[str, ...] = ()
    frames: dict = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, output) -> Result:
        """The result of a run's `reports.runs.setup.Output`."""
        return cls(output.text, output.out, tuple(output.notes), dict(output.frames or {}))

    @property
    def output(self) -> str:
        """Everything the command prints."""
        return self.text + "".join(note + "\n" for note in self.notes)

    @cached_property
    def manifest(self) -> dict:
        """The run's manifest.json (what was played, with which options, seeds and timings)."""
        return json.loads(self._path("manifest.json").read_text())

    def _path(self, name: str) -> Path:
        if self.run_dir is None:
            raise ValueError("this result has no run directory")
        return Path(self.run_dir) / name

    def _table(self, name: str):
        """The Parquet table `name` of the run directory, or None if the run wrote none."""

        path = self._path(name)
        return read_table(path) if path.is_file() else None

    def __str__(self) -> str:
        return self.output


@dataclass
class SimulateResult(Result):
    """`simulate`: `seats` (one row per seat of every game) and `games` (one row per game), as
    seats.parquet and games.parquet (None with ``per_game=False``)."""

    @cached_property
    def seats(self):
        return self._table("seats.parquet")

    @cached_property
    def games(self):
        return self._table("games.parquet")


@dataclass
class TournamentResult(SimulateResult):
    """`tournament`: `seats` and `games` (with `block`, `table`, `n_players`, `win`) and
    `summary`: each strategy's win rate and mean score with intervals over blocks (the printed
    ranking's table; with several player counts indexed by (players, strategy))."""

    @cached_property
    def summary(self):
        import pandas as pd

        parts = {int(n): _strategy_summary(part)
                 for n, part in self.seats.groupby("n_players", sort=True)}  # fmt: skip
        if len(parts) == 1:
            return next(iter(parts.values()))
        return pd.concat(parts, names=["players"])

    def frame(self, players: int | None = None):
        """The long-form frame `abyss_mc.stats` reads (block, table, seat, strategy, win, ip,
        rank) of one player count (`players`: needed when the tournament played several)."""
        seats = self.seats
        if players is not None:
            seats = seats[seats["n_players"] == players]
        elif seats["n_players"].nunique() > 1:
            raise ValueError("this tournament played several player counts: say which one")
        return _frame(seats)


def _frame(seats):
    from types import SimpleNamespace

    from reports.play.tournament import tournament_frame

    return tournament_frame(SimpleNamespace(seats=seats.reset_index(drop=True)))


def _strategy_summary(seats):
    from reports.stats.blocks import strategy_summary

    return strategy_summary(_frame(seats))


@dataclass
class SweepResult(SimulateResult):
    """`sweep`: `points` (each point's settings), `seats` and `games` (with `point`) and
    `differences` (each point minus the default, paired by game, Holm-adjusted)."""

    @cached_property
    def points(self):
        return self._table("points.parquet")

    @cached_property
    def differences(self):
        return self._table("differences.parquet")


@dataclass
class TuneResult(Result):
    """`tune`: `trace` (every candidate tried, with its win share), `preset` (the tuned
    preset's name) and `presets` (the tuned.toml to play it with: ``presets=r.presets``)."""

    @cached_property
    def trace(self):
        return self._table("trace.parquet")

    @property
    def presets(self) -> Path:
        return self._path("tuned.toml")

    @property
    def preset(self) -> str:
        return self.manifest["config"]["preset"]


@dataclass
class RestrictResult(Result):
    """`restrict`: `impact`, each card's value (the win share the strategy loses without it)."""

    @cached_property
    def impact(self):
        return self._table("impact.parquet")


@dataclass
class DesignResult(Result):
    """`design`: `candidates`, every candidate's values, estimates and stage."""

    @cached_property
    def candidates(self):
        return self._table("candidates.parquet")


@dataclass
class LearnResult(Result):
    """`learn`: `curve` (the learning curve, a row per iteration) and `weights` (the shipped
    player's file: ``strategies=[f"learned:weights={r.weights}", ...]``)."""

    @cached_property
    def curve(self):
        import pandas as pd

        return pd.read_csv(self._path("curve.csv"))

    @property
    def weights(self) -> Path:
        return self._path("learned.npz")


@dataclass
class ReportResult(Result):
    """`report`: `html` and `markdown`, the report's files."""

    @property
    def html(self) -> Path:
        return Path(self.frames["paths"]["html"])

    @property
    def markdown(self) -> Path:
        return Path(self.frames["paths"]["markdown"])


@dataclass
class CardsResult(Result):
    """`cards`: `text`, the card data described."""


@dataclass
class StrategiesResult(Result):
    """`strategies`: `text`, and `table`: every strategy (policies, then presets) with its
    kind, what it does and its parameter values."""

    game: str = "abyss"
    presets_file: Path | None = None

    @cached_property
    def table(self):
        import pandas as pd

        from reports.runs.describe import registry
        from reports.runs.options import StrategiesOptions

        found = registry(StrategiesOptions(game=self.game, presets=self.presets_file))
        rows = [(name, "policy" if name in found.policies else "preset", *found.describe(name))
                for name in found.strategy_names()]  # fmt: skip
        columns = ["strategy", "kind", "what it does", "parameters"]
        return pd.DataFrame(rows, columns=columns).set_index("strategy")


@dataclass
class PlanResult(Result):
    """`plan`: `plan`, a row per mode (with and without common random numbers): the sd of the
    per-block difference, the blocks and games needed, the interval's half-width, the time."""

    @property
    def plan(self):
        return self.frames["plan"]


@dataclass
class BenchResult(Result):
    """`bench`: `text`, the Markdown table, and `figures` (figure, value)."""

    @property
    def figures(self):
        return self.frames["figures"]


@dataclass
class ReplayResult(Result):
    """`replay`: `text`, the game move by move (JSON with ``json_out=True``), and `events`, its
    event log (a list of dicts)."""

    @property
    def events(self) -> list:
        return self.frames["events"]


@dataclass
class DramaResult(Result):
    """`drama`: `drama`, each play strength's and player count's measures."""

    @property
    def drama(self):
        return self.frames["drama"]


@dataclass
class SkillResult(Result):
    """`skill`: `steps`, each player count's skill steps (by count)."""

    @property
    def steps(self) -> dict:
        return {int(k[:-1]): v for k, v in self.frames.items()}
