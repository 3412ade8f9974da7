"""A game state as one flat integer vector (the fast paths' workspaces), shared by every game.

`Layout` hands out the offsets of a vector's fields: scalars, stacks (a length, then the items)
and blocks. The stack primitives below are `list` operations on a stack at offset `off` of a
vector `s`, compiled with numba and inlined into each game's kernel.
"""

from __future__ import annotations

from sim.core.jit import njit


class Layout:
    """Hands out consecutive offsets of a vector: scalars, stacks (length + items), blocks, and
    columns of the card tables (one entry per card, filled by `fill`)."""

    def __init__(self, start: int = 0) -> None:
        self.size = start
        self.filled: list[tuple[int, str, str]] = []  # (offset, count attribute, column)

    def scalar(self) -> int:
        return self.block(1)

    def stack(self, cap: int) -> int:
        return self.block(1 + cap)

    def block(self, n: int) -> int:
        self.size += n
        return self.size - n

    def scalars(self, n: int) -> tuple[int, ...]:
        return self.blocks(n, 1)

    def stacks(self, n: int, cap: int) -> tuple[int, ...]:
        return self.blocks(n, 1 + cap)

    def blocks(self, n: int, size: int) -> tuple[int, ...]:
        return tuple(self.block(size) for _ in range(n))

    def columns(self, cap: int, count: str, *names: str) -> tuple[int, ...]:
        """A block of `cap` entries per card-table column `names`; `fill` copies the first
        tables.<count> entries of each."""
        offsets = self.blocks(len(names), cap)
        self.filled += [(off, count, name) for off, name in zip(offsets, names, strict=True)]
        return offsets

    def fill(self, v, tables) -> None:
        """Copy the card-table columns of `tables` into their blocks of the vector `v`."""
        for off, count, name in self.filled:
            n = getattr(tables, count)
            v[off : off + n] = getattr(tables, name)


@njit(cache=True, inline="always")
def size(s, off):
    return s[off]


@njit(cache=True, inline="always")
def item(s, off, i):
    return s[off + 1 + i]


@njit(cache=True, inline="always")
def push(s, off, v):
    n = s[off]
    s[off + 1 + n] = v
    s[off] = n + 1


@njit(cache=True, inline="always")
def pop(s, off):
    """list.pop(): the last item."""
    n = s[off] - 1
    s[off] = n
    return s[off + 1 + n]


@njit(cache=True, inline="always")
def pop_at(s, off, i):
    """list.pop(i): remove and return item i, the rest slide down."""
    n = s[off]
    v = s[off + 1 + i]
    for k in range(off + 1 + i, off + n):
        s[k] = s[k + 1]
    s[off] = n - 1
    return v


@njit(cache=True, inline="always")
def index_of(s, off, v):
    """list.index(v), or -1."""
    for i in range(s[off]):
        if s[off + 1 + i] == v:
            return i
    return -1


@njit(cache=True, inline="always")
def contains(s, off, v):
    return index_of(s, off, v) >= 0


@njit(cache=True, inline="always")
def remove(s, off, v):
    """list.remove(v): the first occurrence."""
    pop_at(s, off, index_of(s, off, v))


@njit(cache=True, inline="always")
def clear(s, off):
    s[off] = 0


@njit(cache=True)
def extend(s, dst, src):
    """dst.extend(src) between two stacks of the same vector."""
    for i in range(s[src]):
        push(s, dst, s[src + 1 + i])
