"""Restricted play plays only the tables a restriction can change (`reports.probe`, issue 54):
the card values are the same bytes with the skip as without it.

Exactness: every row's win shares, skipped or not, for strategies of each kind (greedy, a
heuristic preset, the learned player), the base game and Leviathan, several seeds; on several
chunks, resumed, and for the `--minutes` path's rows (`play_rows`). The test has teeth: with the
marks of one forbid dropped (as a probe that missed its decisions would), the shares differ.

The probe marks exactly what `restricted` changes: on the decisions of random games (the
action, recruiting, the Location source and keep, the Monster's choice are asserted met), each
Lord, Location and "no fights" forbidden alone changes the options exactly where the probing
seat marked it; the rare routes (the Illusionist, Black Smokers, the Traitor) from hand-made
states.
"""

from __future__ import annotations

import numpy as np
import pytest
from abyss_helpers import (
    give_location,
    give_lord,
    lev_tables,
    location_id,
    new_game,
    put_in_court,
    tables,
)

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.policy_params import G_FORBID_FIGHT, G_FORBID_LOCATION, G_FORBID_LORD
from games.abyss.engine.rules.base import DECLINE
from games.abyss.engine.rules.game import Game
from games.abyss.strategies.baseline import GreedyPolicy
from reports import probe as Pr
from reports import restrict as R
from reports.play import blocks as B
from reports.tune import Problem, evaluate
from sim import games

SPEC = games.get("abyss")


def problem(t, strategy: str, n: int, seed: int) -> tuple[Problem, list]:
    registry = SPEC.strategies()
    p = Problem("abyss", t, n, strategy, "", {}, {}, [strategy] * (n - 1), seed, registry)
    return p, SPEC.report().restrictions(t)


CASES = [("greedy", 4, False, 11), ("leviathan_hunter", 4, True, 12),
         ("key_hunter_tuned_3p", 3, False, 13), ("learned", 4, True, 14)]  # fmt: skip


@pytest.mark.parametrize(("strategy", "n", "lev", "seed"), CASES)
def test_card_values_are_the_same_bytes_with_the_skip(strategy, n, lev, seed) -> None:
    p, cards = problem(lev_tables() if lev else tables(), strategy, n, seed)
    assert Pr.columns(p, R.restricted_specs(strategy, cards)) is not None  # (it does skip)
    full = R.play_restricted(p, cards, blocks=6, seed=seed, skip=False)
    skipped = R.play_restricted(p, cards, blocks=6, seed=seed)
    assert skipped.tobytes() == full.tobytes()
    assert (full[1:] != full[:1]).any()  # some restriction changed a game


def test_the_same_bytes_on_small_chunks_resumed_and_for_any_rows(monkeypatch) -> None:
    t = lev_tables()
    p, cards = problem(t, "leviathan_hunter", 4, 21)
    full = R.play_restricted(p, cards, blocks=5, seed=21, skip=False)
    monkeypatch.setattr(B, "CHUNK_GAMES", 9)  # chunks of 2 blocks (row 0) or fewer
    done = {0: full[:1], 9: full[9:17]}  # a resumed run: batches 0 and 9 stored
    assert R.play_restricted(p, cards, blocks=5, seed=21, done=done).tobytes() == full.tobytes()
    specs = R.restricted_specs(p.start, cards)
    rows = [specs[r] for r in (0, 3, 40, len(cards))]  # the --minutes path's rows, other blocks
    want = evaluate(p, rows, seed=22, first_block=3, n_blocks=4)
    got = Pr.play_rows(p, rows, seed=22, first_block=3, n_blocks=4)
    assert got.tobytes() == want.tobytes()


def test_a_probe_that_misses_a_forbid_changes_the_shares(monkeypatch) -> None:
    """The exactness test has teeth: the marks of the forbid that marks most tables dropped
    (a probe missing the decisions where it acts), its row's shares differ."""
    p, cards = problem(lev_tables(), "leviathan_hunter", 4, 31)
    specs = R.restricted_specs(p.start, cards)
    marks = Pr.columns(p, specs)
    found = Pr.probe(p, specs[0], seed=31, n_blocks=6)
    row = int(np.argmax([found.marks[:, :, c].sum() for c in marks]))
    found.marks[:, :, marks[row]] = 0
    full = evaluate(p, [specs[1 + row]], seed=31, n_blocks=6)
    missed = Pr.touched(p, [specs[1 + row]], [marks[row]], found, seed=31, n_blocks=6)
    assert missed.tobytes() != full.tobytes()


def test_no_skip_where_a_row_is_not_one_forbid_added() -> None:
    p, cards = problem(tables(), "greedy", 3, 41)
    assert Pr.columns(p, ["greedy", "greedy:forbid_lord=2:forbid_location=1"]) is None
    assert Pr.columns(p, ["greedy", "greedy:buy_min=2"]) is None
    assert Pr.columns(p, ["greedy:forbid_fight=1", "greedy:forbid_fight=1:forbid_lord=2"]) is None
    assert Pr.columns(p, ["greedy", "greedy:forbid_location=3"]) == [S.MAX_LORDS + 3]


# ------------------------------------------------------------------ the probe, decision by decision
class Checker:
    """A seat that plays at random and, at each decision of two or more options, checks that
    the probe marks exactly the single forbids that `restricted` changes."""

    name = "checker"

    def __init__(self, met: dict):
        self.met = met

    def choose(self, game, seat: int, decision, options: list[int]) -> int:
        if len(options) >= 2:
            check(game, seat, int(decision), options, self.met)
        return options[game.policy_below(len(options))]


def kept(w0: np.ndarray, seat: int, decision: int, options: list[int], slot: int, value: int):
    """The options `restricted` leaves the seat with its greedy vector's `slot` set to `value`,
    and the workspace after."""
    w = w0.copy()
    n = len(options)
    w[W.OPT : W.OPT + n] = options
    vec = GreedyPolicy().params()
    vec[slot] = value
    w[W.POLICY_KIND + seat] = P.GREEDY
    w[W.POLICY_PARAMS + seat * W.N_PARAMS : W.POLICY_PARAMS + (seat + 1) * W.N_PARAMS] = vec
    m = P.restricted(w, np.int64(seat), np.int64(decision), np.int64(n))
    return [int(x) for x in w[W.OPT : W.OPT + m]], w


def check(game, seat: int, decision: int, options: list[int], met: dict) -> None:
    w0 = GreedyPolicy().workspace(game)
    w0[W.PROBE_MARKS : W.PROBE_MARKS + W.N_PROBE_MARKS] = 0
    left, w = kept(w0, seat, decision, options, G_FORBID_LORD, P.PROBE)
    assert left == options  # probing forbids nothing
    marks = w[W.PROBE_MARKS : W.PROBE_MARKS + W.N_PROBE_MARKS]
    forbids = [(G_FORBID_LORD, c, c) for c in range(game.t.n_lords)]
    forbids += [(G_FORBID_LOCATION, c, S.MAX_LORDS + c) for c in range(game.t.n_locations)]
    forbids.append((G_FORBID_FIGHT, 1, S.MAX_LORDS + S.MAX_LOCATIONS))
    for slot, value, mark in forbids:
        changed = kept(w0, seat, decision, options, slot, value)[0] != options
        assert bool(marks[mark]) == changed, (decision, slot, value, options)
        if changed:
            met[decision] = met.get(decision, 0) + 1
    unused = np.ones(W.N_PROBE_MARKS, bool)
    unused[[m for _, _, m in forbids]] = False
    assert not marks[unused].any()


@pytest.mark.parametrize(("lev", "n", "seeds"), [(False, 4, range(3)), (True, 5, range(3))])
def test_the_probe_marks_exactly_what_restricted_changes(lev, n, seeds) -> None:
    t = lev_tables() if lev else tables()
    met: dict = {}
    for seed in seeds:
        Game(t, [Checker(met) for _ in range(n)], seed=100 + seed, game=seed).play()
    routes = {P.D_ACTION, P.D_RECRUIT_LORD, P.D_LOCATION_SOURCE, P.D_LOCATION_KEEP}
    if lev:
        routes |= {P.D_MONSTER_CHOICE}
    assert routes <= set(met), met  # the common routes were met, and marked


def test_the_probe_marks_the_rare_routes() -> None:
    """The routes random games seldom meet (tests/abyss/test_restricted_routes.py's states):
    the Illusionist's exchange, Black Smokers' swap, the Traitor's replacement."""
    g = new_game()
    met: dict = {}
    jail = give_location(g, 0, "The Jail")
    parliament, bs = location_id(g, "Parliament"), location_id(g, "Black Smokers")
    check(g, 0, P.D_ILLUSIONIST_TAKE, [*g.locations_available, parliament], met)
    check(g, 0, P.D_BLACK_SMOKERS, [bs, *sorted(x for x in g.location_deck if x != bs)], met)
    g.location_deck.extend(g.locations_available)
    g.locations_available[:] = [parliament]
    g.location_deck.remove(parliament)
    check(g, 0, P.D_ILLUSIONIST_GIVE, [DECLINE, jail], met)
    keeper = give_lord(g, 0, "Keeper")
    put_in_court(g, "Miller", clear=True)
    give_lord(g, 0, "Traitor")
    check(g, 0, P.D_OWN_LORD, [DECLINE, keeper], met)
    assert set(met) == {P.D_ILLUSIONIST_TAKE, P.D_BLACK_SMOKERS, P.D_ILLUSIONIST_GIVE,
                        P.D_OWN_LORD}, met  # fmt: skip


def test_the_same_bytes_on_a_dask_cluster() -> None:
    distributed = pytest.importorskip("distributed")
    p, cards = problem(tables(), "key_hunter", 3, 51)
    full = R.play_restricted(p, cards, blocks=4, seed=51, skip=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as c:  # fmt: skip
        with distributed.Client(c) as client:
            there = R.play_restricted(p, cards, blocks=4, seed=51, client=client)
    assert there.tobytes() == full.tobytes()
