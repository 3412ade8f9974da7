"""Sampled games kept whole, for the tension metrics (docs/metrics.md): every `EVERY`-th game of a
run (by game index, so a tournament keeps every table of those deals) with each seat's running
score after every round, for a game whose engine keeps no trajectories of its own (Abyss keeps
them in its aggregates).

`GameSamples` is what a game's `run_tables` may return as its aggregates
(`sim.core.contract.PlayModule`): chunks merge by joining, in a canonical order (by game, then
line-up), so the same run gives the same bytes whatever its chunking, threads or backend.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: one game in this many is sampled (the game index modulo EVERY is 0)
EVERY = 16
#: the score of a seat that had no turn in a round (its game had ended): the one sentinel of every
#: trajectory (the games' engines and kernels, `reports.metrics.tension`)
NOT_PLAYED = -(1 << 30)
FIELDS = ("game", "strategy", "scores", "final", "rank")


def sampled(games: np.ndarray) -> np.ndarray:
    """The positions of the sampled games among `games` (game indices)."""
    return np.flatnonzero(np.asarray(games) % EVERY == 0)


@dataclass
class GameSamples:
    """game [g], strategy [g, seat] (index into the run's line-up), scores [g, round, seat]
    (running score after each round; NOT_PLAYED after the game's end), final and rank [g, seat]."""

    game: np.ndarray
    strategy: np.ndarray
    scores: np.ndarray
    final: np.ndarray
    rank: np.ndarray

    def __len__(self) -> int:
        return len(self.game)

    def merge(self, other: GameSamples) -> GameSamples:
        width = max(self.scores.shape[1], other.scores.shape[1])
        scores = [np.pad(x.scores, ((0, 0), (0, width - x.scores.shape[1]), (0, 0)),
                         constant_values=NOT_PLAYED) for x in (self, other)]  # fmt: skip
        joined = {f: np.concatenate([getattr(self, f), getattr(other, f)]) for f in FIELDS
                  if f != "scores"}  # fmt: skip
        joined["scores"] = np.concatenate(scores)
        return GameSamples(**joined)._ordered()

    def _ordered(self) -> GameSamples:
        keys = [*self.strategy.T[::-1], self.game]
        order = np.lexsort(keys) if len(self.game) else np.arange(0)
        return GameSamples(**{f: getattr(self, f)[order] for f in FIELDS})

    def save(self, file) -> None:
        np.savez(file, **{f: getattr(self, f) for f in FIELDS})

    @classmethod
    def load(cls, path) -> GameSamples:
        with np.load(path, allow_pickle=False) as z:
            return cls(**{f: z[f] for f in FIELDS})
