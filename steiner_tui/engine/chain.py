"""An immutable sequence that grows by sharing its prefix: the conversation's shape.

A conversation only grows between compactions, and every request repeats it whole. Held in
tuples, each appended message and each request copies every reference before it: at 10,000
messages that is most of a turn's work. A ``Chain`` is a view of the first ``len`` items of a
backing list; ``plus`` appends to that list in place when the view is its newest (the usual
case) and returns a longer view, so the old view still sees exactly what it saw. Appending to
an older view copies its items into a new backing list first. Whether one chain extends
another is then one identity check (``extends``), and ``shared_prefix`` finds how much two
requests share without walking either when one grew from the other.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, TypeVar, overload

__all__ = ["Chain", "shared_prefix"]

T = TypeVar("T")

_GROW = threading.Lock()
"""Two threads growing the same newest view must not both append to its list."""


class Chain(Sequence[T]):
    """The first ``len(self)`` items of a list that only grows; immutable to its holders.

    Equal to any tuple, list or chain with equal items in order. A slice is a tuple.
    """

    __slots__ = ("_items", "_length")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._items: list[T] = list(items)
        self._length = len(self._items)

    @classmethod
    def of(cls, items: Iterable[T]) -> Chain[T]:
        """``items`` as a chain (a chain is returned as it is)."""
        return items if isinstance(items, Chain) else cls(items)

    def plus(self, items: Iterable[T]) -> Chain[T]:
        """This chain followed by ``items``; this chain is unchanged."""
        new = list(items)
        if not new:
            return self
        with _GROW:
            backing = self._items
            if len(backing) != self._length or not backing:
                # An older view, or an empty one (a shared default must not keep what a
                # conversation appends): a list of its own.
                backing = backing[: self._length]
            backing.extend(new)
            grown: Chain[T] = Chain.__new__(Chain)
            grown._items, grown._length = backing, len(backing)
        return grown

    def extends(self, other: Sequence[T]) -> bool:
        """Whether this chain grew from ``other`` (by identity: a chain of the same list, no
        longer than this one)."""
        if not isinstance(other, Chain):
            return False
        chain: Chain[T] = other
        return chain._items is self._items and chain._length <= self._length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if step == 1:
                return tuple(self._items[start:stop])
            return tuple(self._items[i] for i in range(start, stop, step))
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("chain index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._length)

    def __reversed__(self) -> Iterator[T]:
        items = self._items
        return (items[i] for i in range(self._length - 1, -1, -1))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Chain) and self.extends(other):
            return len(other) == self._length
        if isinstance(other, (Chain, tuple, list)):
            return len(other) == self._length and self._items[: self._length] == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other: Iterable[T]) -> Chain[T]:
        return self.plus(other)

    def __repr__(self) -> str:
        return f"Chain({list(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Chain, (list(self),))


def shared_prefix(old: Sequence[Any], new: Sequence[Any]) -> int:
    """How many leading items ``new`` shares with ``old`` (equal, identity first).

    A chain that grew from ``old`` answers at once; otherwise one comparison of the common
    length (done in C), then a binary search over slice comparisons when that differs.
    """
    if isinstance(new, Chain) and new.extends(old):
        return len(old)
    limit = min(len(old), len(new))
    if tuple(old[:limit]) == tuple(new[:limit]):
        return limit
    low, high = 0, limit  # old[:low] matches; old[:high] does not
    while high - low > 1:
        middle = (low + high) // 2
        if tuple(old[:middle]) == tuple(new[:middle]):
            low = middle
        else:
            high = middle
    return low
