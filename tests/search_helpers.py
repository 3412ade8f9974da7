"""Helpers for the search player's "it never peeks" tests of both games: what a searching seat
cannot see at a decision, reordered and redealt in a turn's start (an int32 workspace, its
stacks as `sim.core.stack` keeps them: the count, then the items bottom first, the top drawn).

A card still unseen at the decision is one the turn has not drawn by then. The tests replay the
turn from its start to its end (the probe: the decision, then the rollout policy to the turn's
end), so the cards of a stack below everything the whole turn touched were certainly not seen at
the decision: `untouched`. At the first decision of the searching seat's own turn nothing has
been drawn yet, and every face-down stack may be reordered whole.
"""

from __future__ import annotations

import numpy as np


def untouched(start, end, off) -> int:
    """How many cards at the bottom of the stack at `off` are where they were at the turn's
    start when it ends."""
    n = min(int(start[off]), int(end[off]))
    same = start[off + 1 : off + 1 + n] == end[off + 1 : off + 1 + n]
    return n if same.all() else int(np.argmin(same))


def items(s, off) -> np.ndarray:
    return s[off + 1 : off + 1 + s[off]].copy()


def reorder(changed, start, end, stacks, rng, whole: bool) -> None:
    """Shuffle each face-down stack's unseen cards (`untouched`, or all when `whole`) in
    `changed`."""
    for off in stacks:
        n = int(start[off]) if whole else untouched(start, end, off)
        changed[off + 1 : off + 1 + n] = rng.permutation(start[off + 1 : off + 1 + n])


def redeal(changed, start, end, pool, hands, rng, whole: bool) -> bool:
    """Deal the opponents' face-down tokens (stacks at `hands`) afresh, the same number each,
    from theirs and the unseen ones of the `pool` (`untouched`, or all when `whole`): what the
    searching seat may believe they hold. Not done (False) where a hand changed during the turn
    (a token taken or revealed: seen)."""
    if not whole and any(not np.array_equal(items(start, h), items(end, h)) for h in hands):
        return False
    n = int(start[pool]) if whole else untouched(start, end, pool)
    tokens = rng.permutation(np.concatenate([changed[pool + 1 : pool + 1 + n]]
                                            + [items(start, h) for h in hands]))  # fmt: skip
    changed[pool + 1 : pool + 1 + n], at = tokens[:n], n
    for h in hands:
        m = int(start[h])
        changed[h + 1 : h + 1 + m] = tokens[at : at + m]
        at += m
    return True


def check_unseen(game, s, start, active, changed, decided) -> None:
    """The turn from `changed` (what the seat cannot see changed) probed again reaches the
    decision s recorded (the same options and rollout policy's own option, recomputed), and the
    search decides it with the same rollouts, to the bit, as from `start` (`decided`: the
    option, every option's visits and summed reward). `game`: the test module's `_probe`,
    `_asked`, `_decide`."""
    p = game._probe(s, changed, active)
    assert game._asked(p) == game._asked(s)
    option, visits, total = game._decide(p, changed, active)
    assert option == decided[0], game._asked(s)
    np.testing.assert_array_equal(visits, decided[1])
    np.testing.assert_array_equal(total, decided[2])


def check_seen(game, s, active, seen, decided) -> None:
    """A card the seat has seen changed (`seen`, the turn's start): the decision's options or
    rollout policy's own option differ, or its default option's summed reward does."""
    asked = game._asked(s)
    p = game._probe(s, seen, active)
    d = asked[2].index(asked[3])
    assert game._asked(p) != asked or game._decide(p, seen, active)[2][d] != decided[2][d]
