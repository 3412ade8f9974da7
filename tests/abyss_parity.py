"""The parity check of both Abyss engines (`tests/abyss/test_parity.py`, and the search player's
in `tests/abyss/test_search.py`): one game played by each, compared decision by decision and in
the final state."""

from __future__ import annotations

import numpy as np
import pytest

from games.abyss.engine import state as S
from games.abyss.engine.fast import lineup_arrays
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.kernel.scoring import score
from games.abyss.engine.rules.decode import decode
from games.abyss.engine.rules.game import Game
from games.abyss.strategies import REGISTRY
from sim.core.workspace import trace_of

TRACE_CAP = 20_000


def policies_of(specs: list[str]) -> list:
    """The engines take policies (`sim.core.policy`)."""
    return REGISTRY.make_policies(specs, len(specs))


def kernel_game(base, specs, seed, game, play=KN.play):
    """Play one game on the kernel (`play`; `KN.play_game` with a search seat); returns its
    workspace."""
    s = KN.new_workspace(base, *lineup_arrays(policies_of(specs)), trace_cap=TRACE_CAP)
    KN.new_game(s, np.int64(seed), np.int64(game), np.int64(len(specs)))
    play(s)
    return s


def decoded(s, t, policies, seed, game):
    """The reference `Game` in the kernel's final state."""
    return decode(s[: S.STATE_SIZE], W.get_counters(s), t, policies, seed, game)


def compare(t, base, specs, seed, game, play=KN.play) -> Game:
    """Both engines play game `game` of `seed`: the same decisions (seat, decision, option,
    number of options), the same final state, stream counters, scores and ranks. Returns the
    reference game."""
    policies = REGISTRY.make_policies(specs, len(specs))
    ref = Game(t, policies, seed=seed, game=game, record=False).play()
    s = kernel_game(base, specs, seed, game, play)
    where = f"{specs} seed {seed} game {game}"
    ref_trace = [tuple(int(x) for x in row) for row in ref.trace]
    fast_trace = trace_of(s, W.TRACE)
    if fast_trace != ref_trace:
        i = next(
            (k for k, (a, b) in enumerate(zip(ref_trace, fast_trace, strict=False)) if a != b),
            min(len(ref_trace), len(fast_trace)),
        )
        pytest.fail(
            f"{where}: decision {i} differs: reference {ref_trace[i : i + 1]}, "
            f"fast {fast_trace[i : i + 1]} (of {len(ref_trace)} / {len(fast_trace)})"
        )
    ref_state, ref_counters = S.encode(ref)
    fast_state, fast_counters = S.encode(decoded(s, t, policies, seed, game))
    changed = np.nonzero(ref_state != fast_state)[0]
    assert not len(changed), f"{where}: final states differ at offsets {changed[:10]}"
    assert np.array_equal(ref_counters, fast_counters), where
    out = np.zeros((len(specs), S.N_SEAT_FIELDS), dtype=np.int32)
    score(s, out)
    assert out[:, S.R_SCORE].tolist() == [sc.total for sc in ref.scores], where
    assert out[:, S.R_RANK].tolist() == ref.ranks, where
    return ref
