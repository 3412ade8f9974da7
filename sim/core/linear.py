"""A learned player's linear option scorer, written once for every game (docs/learned.md): the
features of each option (the game's `state_features` and `option_features`) dotted with the
seat's int32 fixed-point weights in its parameter vector."""

from __future__ import annotations

import numpy as np

from sim.core.jit import njit_closure


def scratch_block(layout, n_state: int, n_features: int) -> int:
    """The scorer's scratch in a workspace (`sim.core.stack.Layout`): the state features, then
    one option's. Kept in the game's vector rather than allocated at each decision: two arrays
    allocated per decision were 8-22% of the learned player's time in paired runs
    (docs/benchmarks.md)."""
    return layout.block(n_state + n_features)


def scorer_for(state_features, option_features, n_state: int, n_features: int,
               scratch_at: int):  # fmt: skip
    """`(best_scored, write_features)` for a game's features.

    `best_scored(s, seat, decision, options_at, n, pick, weights_at)`: the option at
    s[options_at:options_at + n] whose features score highest under the weights at
    s[weights_at:] (the first among equals); `pick` is the base heuristic's option.
    `write_features(s, seat, decision, options_at, n, pick, out_at)`: each option's features
    into s[out_at + i * n_features:] (the search's records). Both work in s[scratch_at:]
    (`scratch_block`)."""
    f_at = scratch_at + n_state

    @njit_closure
    def best_scored(s, seat, decision, options_at, n, pick, weights_at):
        g, f = s[scratch_at:f_at], s[f_at:f_at + n_features]
        state_features(s, seat, g)
        best, best_score = s[options_at], np.int64(-(1 << 62))
        for i in range(n):
            o = s[options_at + i]
            option_features(s, seat, decision, o, pick, g, f)
            score = np.int64(0)
            for k in range(n_features):
                score += np.int64(s[weights_at + k]) * f[k]
            if score > best_score:
                best, best_score = o, score
        return best

    @njit_closure
    def write_features(s, seat, decision, options_at, n, pick, out_at):
        g, f = s[scratch_at:f_at], s[f_at:f_at + n_features]
        state_features(s, seat, g)
        for i in range(n):
            option_features(s, seat, decision, s[options_at + i], pick, g, f)
            for k in range(n_features):
                s[out_at + i * n_features + k] = f[k]

    return best_scored, write_features
