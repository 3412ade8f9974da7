"""`reports.play.blocks`: how blocks are cut into chunks, and where a chunk is played, never
changes a number, and the parts come back in block order; for every plan that plays through it
(tune's candidates against a field, a line-up in every rotation, a tournament's design)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest

from reports.play import blocks as B
from reports.play.tournament import InDesign, game_policies, make_design
from reports.tune import AgainstField
from sim import games
from sim.core import dask_backend

SEEDS = (0, 1, 7, 123, 2**40 + 5)
N_BLOCKS = 13


@cache
def tables():
    return games.get("abyss").load_cards(None, [], ("leviathan",))


def plans(seed: int) -> dict:
    design = make_design(["greedy", "farmer", "random", "leviathan_hunter"], 3, "balanced", seed)
    return {
        "against a field": AgainstField("abyss", 3, ["greedy", "greedy:buy_min=6"],
                                        ["leviathan_hunter", "farmer"], seed),  # fmt: skip
        "rotations": B.Rotations("abyss", ["greedy", "farmer", "greedy"], seed),
        "design": InDesign("abyss", design, game_policies("abyss", design.strategies, 3), seed,
                           "none"),  # fmt: skip
    }


def merged(parts: list) -> list[np.ndarray]:
    """Consecutive parts of a plan as arrays over all their blocks (blocks on the last axis of a
    candidate's shares, the first of everything else)."""
    first = parts[0]
    if isinstance(first, np.ndarray):  # (candidates, blocks)
        return [np.concatenate(parts, axis=1)]
    out = []
    for k, item in enumerate(first):
        if item is None or not isinstance(item, (np.ndarray, pd.DataFrame)):
            continue  # aggregates: their merge is theirs (`Aggregates.merge`)
        if isinstance(item, pd.DataFrame):
            out.append(pd.concat([p[k] for p in parts], ignore_index=True).to_numpy())
        else:
            out.append(np.concatenate([p[k] for p in parts]))
    return out


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_chunks_never_change_the_results(seed) -> None:
    for name, plan in plans(seed).items():
        whole = merged([B.play_chunk(0, N_BLOCKS, tables(), plan)])  # one chunk
        for size in (1, 2, 5, N_BLOCKS, 100):
            parts = B.in_chunks(B.play_chunk, N_BLOCKS, size, tables(), plan)
            assert len(parts) == -(-N_BLOCKS // size)
            assert same(merged(parts), whole), (name, size)
        # a Dask-shaped split: a resumed run's missing spans, chunked as the cluster cuts them,
        # the chunks arriving in any order and put back in block order
        spans = dask_backend.chunks(0, 4, spans=[(0, 6), (6, 2), (8, N_BLOCKS - 8)])
        arrived = {first: B.play_chunk(first, n, tables(), plan) for first, n in spans[::-1]}
        assert same(merged([arrived[f] for f in sorted(arrived)]), whole), name


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_later_blocks_are_the_same_blocks_played_alone(seed) -> None:
    for name, plan in plans(seed).items():
        whole = merged(B.play(plan, tables(), N_BLOCKS))
        later = merged(B.play(plan, tables(), N_BLOCKS - 4, first_block=4))
        axis = 1 if name == "against a field" else 0
        if name == "design":  # its frames' rows: every seat (or game) of every block
            rows = [len(w) // N_BLOCKS for w in whole]
            assert same(later, [w[4 * r:] for w, r in zip(whole, rows, strict=True)])
        else:
            assert same(later, [np.take(w, range(4, N_BLOCKS), axis=axis) for w in whole])


def test_the_parts_keep_block_order() -> None:
    for size in (1, 3, 4, 50):
        parts = B.in_chunks(_chunk_of, 12, size, "x", spans=[(2, 5), (9, 3)])
        firsts = [f for f, _, _ in parts]
        assert firsts == sorted(firsts) and sum(n for _, n, _ in parts) == 8
        assert [b for f, n, _ in parts for b in range(f, f + n)] == [2, 3, 4, 5, 6, 9, 10, 11]
    seen = []
    B.in_chunks(_chunk_of, 10, 3, "x", on_arrival=lambda f, n, part: seen.append(f))
    assert seen == [0, 3, 6, 9]
    design = plans(3)["design"]
    seats, games_, _ = merged_frames(B.play(design, tables(), 9))
    assert (np.diff(seats["block"]) >= 0).all() and list(games_["block"].unique()) == list(range(9))


def test_a_true_from_on_arrival_stops_the_local_loop() -> None:
    seen = []
    B.in_chunks(_chunk_of, 10, 2, "x", on_arrival=lambda f, n, part: seen.append(f) or f >= 4)
    assert seen == [0, 2, 4]


def merged_frames(parts):
    seats = pd.concat([p[0] for p in parts], ignore_index=True)
    return seats, pd.concat([p[1] for p in parts], ignore_index=True), None


def _chunk_of(first: int, n: int, tag: str):
    return first, n, tag


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as c:  # fmt: skip
        with distributed.Client(c) as client:
            yield client


def test_a_dask_client_plays_the_same_chunks_in_block_order(cluster) -> None:
    for seed in SEEDS[:2]:
        for name, plan in plans(seed).items():
            here = merged(B.play(plan, tables(), N_BLOCKS, first_block=2))
            there = merged(B.play(plan, tables(), N_BLOCKS, first_block=2, client=cluster))
            assert same(there, here), name
    parts = B.in_chunks(_chunk_of, 12, 3, "x", client=cluster, spans=[(2, 5), (9, 3)])
    assert parts == [(2, 3, "x"), (5, 2, "x"), (9, 3, "x")]
