"""A tiny game, defined outside the package and registered through the same spec as the real
ones (tests/cli/test_games.py): the proof that a new game needs no change to any command.

High card: each player is dealt `hand` cards from a shuffled deck of numbered cards and keeps
one; the highest kept card wins (ties share the win). `best` keeps its highest card, `random`
a random one, and `aim` its highest with a chance that peaks at known parameter values (the
planted optimum of the tuner's tests). Card data, rules, play API and strategies, all here.

`--set rules.rps=1` plays hand signs instead (issue 31's planted cycle): a card's sign is its
number modulo 3 (rock, paper, scissors); paper beats rock, scissors paper, rock scissors, and
the same sign is decided by the higher card; a player scores the opponents it beats. `sign`
keeps a card of its preferred sign when it holds one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reports.sections.generic import summary, write_report  # noqa: F401  (its report hooks)
from sim.core.carddata import CardDataError
from sim.core.game import GameSpec, Played
from sim.core.results import win_shares
from strategies.registry import Registry, check_parameters, param


@dataclass(frozen=True)
class TinyTables:
    deck: tuple[int, ...]
    hand: int = 2
    rps: bool = False  # hand signs: see the module's docstring


def load_cards(data_dir=None, overrides=None) -> TinyTables:
    size = (overrides or {}).get("deck.size", 12)
    if not isinstance(size, int) or not 1 <= size <= 20:
        raise CardDataError(f"--set deck.size: expected 1..20, got {size!r}")
    hand = (overrides or {}).get("rules.hand", 2)  # 1: no decision, a game of pure chance
    if not isinstance(hand, int) or not 1 <= hand <= 5:
        raise CardDataError(f"--set rules.hand: expected 1..5, got {hand!r}")
    rps = (overrides or {}).get("rules.rps", 0)
    if rps not in (0, 1):
        raise CardDataError(f"--set rules.rps: expected 0 or 1, got {rps!r}")
    return TinyTables(tuple(range(1, size + 1)), hand, bool(rps))


#: the values of the keys `--set` takes, as printed
SET_DEFAULTS = {"deck.size": 12, "rules.hand": 2, "rules.rps": 0}


def set_value(data_dir, overrides, key):
    """The value of a `--set` key after `overrides` (`abyss-mc design`)."""
    if key not in SET_DEFAULTS:
        raise CardDataError(f"--vary: {key!r}: unknown key; known: {', '.join(SET_DEFAULTS)}")
    return (overrides or {}).get(key, SET_DEFAULTS[key])


def describe(t: TinyTables) -> str:
    return f"Tiny: {len(t.deck)} cards, {', '.join(map(str, t.deck))}"


def _forbid():
    """Restricted play (`abyss-mc restrict`): a card the strategy may not keep."""
    return param(0, "A card it may not keep (0: none), unless its hand holds nothing else.",
                 "restricted play: the card's value is the win rate lost without it.",
                 low=0, high=20, tune=False)  # fmt: skip


@dataclass(frozen=True)
class Best:
    """Keeps its highest card."""

    name: str = "best"
    forbid: int = _forbid()


@dataclass(frozen=True)
class Random:
    """Keeps a random card."""

    name: str = "random"
    forbid: int = _forbid()


@dataclass(frozen=True)
class Aim:
    """Keeps its highest card with the chance `keep_chance`, else a random one."""

    name: str = "aim"
    knob: int = param(0, "A dial; the chance peaks at 13.", "nearer 13 keeps the best card more.",
                      low=0, high=40, search=(0, 20))  # fmt: skip
    lean: float = param(0.0, "A lean; the chance peaks at 0.7.", "nearer 0.7 keeps it more.",
                        low=0.0, high=1.0, step=0.001)  # fmt: skip
    style: str = param("dull", "A style; sharp is best.", "sharp keeps the best card more.",
                       choices=("dull", "sharp", "odd"))  # fmt: skip
    forbid: int = _forbid()

    def __post_init__(self) -> None:
        check_parameters(self)

    def keep_chance(self) -> float:
        sharp = 1.0 if self.style == "sharp" else 0.6
        return (1 - abs(self.knob - 13) / 20) * (1 - abs(self.lean - 0.7)) * sharp


SIGNS = ("rock", "paper", "scissors")


@dataclass(frozen=True)
class Sign:
    """Keeps its highest card of its preferred sign (number modulo 3), else its highest."""

    name: str = "sign"
    prefer: str = param("rock", "The sign it plays when it can.", "plays another sign.",
                        choices=SIGNS, tune=False)  # fmt: skip
    forbid: int = _forbid()
    #: a planted player of the hand-signs rule: never in `tune`'s screened field
    SCREENED = False


#: Its hand-written presets (two archetypes of `aim`) and their tuned versions at 2 players.
PRESETS = tuple(Path(__file__).with_name(f"tiny_{k}.toml") for k in ("presets", "tuned"))
REGISTRY = Registry({"best": Best, "random": Random, "aim": Aim, "sign": Sign}, PRESETS)


def rotation(games, n_players: int):
    """Seat s of game g plays entry (s + g) mod n of the line-up."""
    return (np.arange(n_players)[None, :] + np.asarray(games)[:, None]) % n_players


def player_counts(tables, expansions=()) -> tuple[int, ...]:
    return tuple(range(2, len(tables.deck) // tables.hand + 1))


def run_tables(tables, *, seed, games, seatings, strategies):
    """Game g seats strategies[seatings[i, s]] at seat s; its deal depends on (seed, g) only."""
    n = seatings.shape[1]
    kept = np.zeros((len(games), n), dtype=np.int64)
    for i, g in enumerate(games):
        rng = np.random.default_rng([seed, int(g)])
        hands = rng.permutation(tables.deck)[: n * tables.hand].reshape(n, tables.hand)
        for s in range(n):
            policy = strategies[seatings[i, s]]
            best = isinstance(policy, Best)
            if isinstance(policy, Aim):
                best = rng.random() < policy.keep_chance()
            allowed = hands[s][hands[s] != policy.forbid]
            allowed = allowed if len(allowed) else hands[s]  # the only option is kept
            if isinstance(policy, Sign):
                mine = allowed[allowed % 3 == SIGNS.index(policy.prefer)]
                kept[i, s] = (mine if len(mine) else allowed).max()
            else:
                kept[i, s] = allowed.max() if best else rng.choice(allowed)
    score = _beaten(kept) if tables.rps else kept
    ranks = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    seats = {
        "game": np.repeat(games, n),
        "seat": np.tile(np.arange(n), len(games)),
        "strategy": np.array([strategies[j].name for j in seatings.ravel()]),
        "score": score.ravel(),
        "rank": ranks.ravel(),
        "win": win_shares(ranks).ravel(),
    }
    return seats, {"game": np.asarray(games), "turns": np.ones(len(games), dtype=np.int64)}, None


def _beaten(kept: np.ndarray) -> np.ndarray:
    """Hand signs: the opponents each player's card beats (paper > rock > scissors > paper by
    sign, the higher card within a sign)."""
    sign = kept % 3
    # sign a beats sign b when a == (b + 1) % 3 (paper 1 > rock 0, scissors 2 > paper 1, ...)
    beats = (sign[:, :, None] == (sign[:, None, :] + 1) % 3) | (
        (sign[:, :, None] == sign[:, None, :]) & (kept[:, :, None] > kept[:, None, :]))
    return beats.sum(axis=2)


def run_games(tables, *, n_players, n_games, seed, policies, **_) -> Played:
    games = np.arange(n_games)
    seatings = rotation(games, n_players)
    seats, games_cols, _ = run_tables(tables, seed=seed, games=games, seatings=seatings,
                                      strategies=policies)  # fmt: skip
    return Played(pd.DataFrame(seats), pd.DataFrame(games_cols))


def tournament_frames(seats, games):
    return seats, games


def replay(tables, *, seed, game, n_players, policies, expansions=()):
    seats, _, _ = run_tables(tables, seed=seed, games=np.array([game]),
                             seatings=rotation([game], n_players), strategies=policies)  # fmt: skip
    rows = list(zip(seats["seat"] + 1, seats["strategy"], seats["score"], strict=True))
    text = "\n".join(f"seat {s} {name} keeps {score}" for s, name, score in rows)
    return text, [{"seat": int(s), "strategy": str(n), "kept": int(k)} for s, n, k in rows]


#: The play contract's constants (`sim.core.contract.PlayModule`): nothing to compile, no
#: reference engine to start on, no aggregates.
COMPILE_SECONDS = 0
REFERENCE_SECONDS = None
load_aggregates = None
oracle_values = None  # no state-value oracle (`abyss-mc drama`)


# --- what the reports add (`sim.core.contract.ReportModule`): the generic summary and report
# # (`summary`, `write_report`, imported above), and restricted play of every card


compile_ahead = None  # nothing compiles apart from the tournament
tension_sample = None  # no rounds


def restrictions(tables) -> list[tuple[str, str, str]]:
    """Every card, forbidden in turn: (kind, label, the strategy parameter that forbids it)."""
    return [("card", f"card {c}", f"forbid={c}") for c in tables.deck]


tournament_extras = None
SIGNATURE = None
LEARN = None

SPEC = GameSpec(name="tiny", title="Tiny", cards_module=__name__, play_module=__name__,
                strategies_module=__name__, report_module=__name__, engines=("fast",),
                default_strategies="best,random", default_tournament="best,random",
                resumable_engines=())  # fmt: skip
