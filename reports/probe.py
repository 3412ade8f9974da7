"""Restricted play, only the tables a restriction can change (issue 54).

Restricted play (`reports.restrict`) plays each deal and seating once with the strategy
unrestricted (row 0) and once forbidden each card (row 1 + i). Most of those restricted tables
are the unrestricted one, move for move: the forbidden card never came up. A restricted table
equals the unrestricted one exactly when, at every decision of the restricted seat in the
unrestricted game, the restriction would have left the options as they were: the policy then
sees the same inputs (restricted play draws no random number), so it takes the same option, and
by induction the whole game is the same. So row 0 is played with its seat probing (the game's
`probing` policy: it plays as the strategy does, and marks at each of its decisions every single
forbid that would have changed the options there, by the very rules restricted play applies),
and each restricted row plays only the tables its forbid marked; the others take row 0's result.
The shares are then the same bytes as when every table is played (tests/core/
test_card_probe.py), on any chunking and backend.

A game whose play module has no `probing`, a strategy that cannot probe (one that forbids a
card itself, the search player) or a row that is not the start with one forbid added plays every
table (`reports.tune.evaluate`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reports.tune import AgainstField, evaluate


@dataclass
class Probed(AgainstField):
    """Row 0 (`specs`: the unrestricted strategy alone) as `AgainstField` plays it, its seat
    probing. Part: (shares [1, blocks], the seat's win per table [blocks, rotation, seat] (0 at
    the other seats), its marks [blocks, rotation, mark])."""

    def policies(self, spec) -> list:
        policies = super().policies(spec)
        return [spec.play().probing(policies[0]), *policies[1:]]

    def part(self, first: int, n: int, seatings, seats: dict, cols: dict, aggregates):
        p = self.n_players
        wins = candidate_wins(seats, seatings, 1, n, p)
        marks = np.asarray(cols["probe_marks"]).reshape(n, p, -1)
        return shares_of(wins, p), wins[0], marks


@dataclass
class Touched(AgainstField):
    """Rows `specs` (each the start with one forbid: its `columns` of the marks) on only the
    tables their forbid marked (`marked[row, block, rotation]`, blocks from `first_block`);
    every other table is row 0's (`base`: its seat's wins [block, rotation, seat]). Part:
    (rows, blocks) win shares, as `AgainstField`'s."""

    marked: np.ndarray = None
    base: np.ndarray = None
    first_block: int = 0

    def deals(self, first: int, n: int):
        games, seatings = super().deals(first, n)
        played = self._played(first, n)
        return games[played], seatings[played]

    def _played(self, first: int, n: int) -> np.ndarray:
        """Which of `AgainstField.deals`' tables (row, block, rotation, in that order) play."""
        at = first - self.first_block
        return self.marked[:, at:at + n].ravel()

    def part(self, first: int, n: int, seatings, seats: dict, cols: dict, aggregates):
        p, q, at = self.n_players, len(self.specs), first - self.first_block
        wins = np.broadcast_to(self.base[at:at + n], (q, n, p, p)).copy()
        played = self._played(first, n)
        if played.any():  # the played tables' wins in their places, as AgainstField keeps them
            mine = (super().deals(first, n)[1][: n * p] == 0)  # the candidate's seats
            won = np.asarray(seats["win"], dtype=np.float64).reshape(-1, p)
            wins.reshape(-1, p)[played] = won * np.tile(mine, (q, 1))[played]
        return shares_of(wins, p)


def candidate_wins(seats: dict, seatings, q: int, n: int, p: int) -> np.ndarray:
    """The candidates' win per table [row, block, rotation, seat], 0 outside their seats:
    `AgainstField.part`'s terms."""
    win = np.asarray(seats["win"], dtype=np.float64).reshape(q, n, p, p)
    mine = (seatings[: n * p] == 0).reshape(n, p, p)  # the first candidate's seats
    return win * mine


def shares_of(wins: np.ndarray, p: int) -> np.ndarray:
    """Each row's win share per block from its seat's wins [row, block, rotation, seat]: the
    sum `AgainstField.part` takes, in the same order (the same bytes)."""
    return wins.sum(axis=(2, 3)) / p


def columns(problem, specs: list[str]) -> list[int] | None:
    """The marks column of each restricted row (`specs[1:]`, the start first), or None when
    they cannot be skipped: the game has no probe, the start or an opponent cannot probe (a
    search player's rollouts switch the seats' strategies: the probed kernel is not used), or a
    row is not the start with one forbid added."""
    from sim import games

    spec = games.get(problem.game)
    play = spec.play()
    if getattr(play, "probing", None) is None:
        return None
    policies = spec.strategies().table_policies([*specs, *problem.opponents], problem.n_players)
    if any(play.probing(p) is None for p in [policies[0], *policies[len(specs):]]):
        return None
    out = [play.forbid_mark(policies[0], p) for p in policies[1:len(specs)]]
    return None if any(c is None for c in out) else out


@dataclass
class Probe:
    """Row 0 played probing on blocks first_block .. + n_blocks - 1: its shares [1, blocks], its
    seat's wins [block, rotation, seat] and marks [block, rotation, mark]."""

    shares: np.ndarray
    wins: np.ndarray
    marks: np.ndarray
    first_block: int


def probe(problem, start: str, *, seed: int, first_block: int = 0, n_blocks: int,
          client=None) -> Probe:  # fmt: skip
    """Row 0 (`start`) on the blocks, probing (`Probed`)."""
    from reports.play import blocks

    plan = Probed(problem.game, problem.n_players, [start], list(problem.opponents), seed)
    parts = blocks.play(plan, problem.tables, n_blocks, first_block=first_block, client=client)
    shares, wins, marks = zip(*parts, strict=True)
    return Probe(np.concatenate(shares, axis=1), np.concatenate(wins), np.concatenate(marks),
                 first_block)  # fmt: skip


def touched(problem, specs: list[str], marks: list[int], found: Probe, *, seed: int,
            first_block: int = 0, n_blocks: int, client=None) -> np.ndarray:  # fmt: skip
    """The win shares of the restricted rows `specs` (their `marks` columns), as
    `reports.tune.evaluate` gives them, played only where their forbid marked (`found`: row 0
    probed on blocks that include these)."""
    from reports.play import blocks

    at = first_block - found.first_block
    marked = found.marks[at:at + n_blocks][:, :, marks].transpose(2, 0, 1) > 0
    plan = Touched(problem.game, problem.n_players, list(specs), list(problem.opponents), seed,
                   marked=marked, base=found.wins[at:at + n_blocks],
                   first_block=first_block)  # fmt: skip
    parts = blocks.play(plan, problem.tables, n_blocks, first_block=first_block, client=client)
    return np.concatenate(parts, axis=1)


def play_rows(problem, specs: list[str], *, seed: int, first_block: int = 0, n_blocks: int,
              client=None, skip: bool = True) -> np.ndarray:  # fmt: skip
    """`reports.tune.evaluate(problem, specs, ...)` for restricted play (specs[0] the
    unrestricted strategy, the rest it with one forbid each), the same bytes: with `skip`,
    the restricted rows play only the tables their forbid can change."""
    marks = columns(problem, specs) if skip and len(specs) > 1 else None
    if marks is None:
        return evaluate(problem, specs, seed=seed, first_block=first_block, n_blocks=n_blocks,
                        client=client)  # fmt: skip
    found = probe(problem, specs[0], seed=seed, first_block=first_block, n_blocks=n_blocks,
                  client=client)  # fmt: skip
    rest = touched(problem, specs[1:], marks, found, seed=seed, first_block=first_block,
                   n_blocks=n_blocks, client=client)  # fmt: skip
    return np.concatenate([found.shares, rest])
