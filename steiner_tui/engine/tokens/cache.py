"""A bounded, thread-safe LRU of token counts, keyed by the message (or the text) itself.

A turn re-sends the whole conversation, but only its newest messages are new; the estimator looks
every message up here and encodes only the misses. Texts counted on their own (a context block,
a skill envelope, the tool list's JSON: the per-source figures of a request snapshot) are keys
of the same cache, so one cache holds every count an estimator makes.

Keying by the (frozen, value-equal, hashable) ``Message`` is exact and cheap: Python caches
each string's hash, so a lookup re-hashes no text, and a hit on the same object short-cuts
equality by identity. A digest key would cost several lookups' worth per message (SHA-256
itself is fast; building the input per field is not), and the 8-hex ``message_hash`` is too
short for a 100k-entry table and joins fields without separators.

Keys hold their messages (and texts) alive, so the cache is bounded both by entries and by the
characters its keys carry; entries unused for a generation go first.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from steiner_tui.engine.messages import Message

__all__ = [
    "DEFAULT_CACHE_CHARS",
    "DEFAULT_CACHE_ENTRIES",
    "CountCache",
    "CountKey",
]

DEFAULT_CACHE_ENTRIES = 100_000
"""Entry bound per encoding (about a hundred 1,000-message sessions)."""

DEFAULT_CACHE_CHARS = 64_000_000
"""Bound on the characters keys keep alive (mostly shared with live conversations anyway)."""


CountKey = Message | str
"""What a count is kept under: a whole message, or a text counted on its own."""


def message_chars(message: CountKey) -> int:
    """Characters a key keeps alive (its weight in the cache)."""
    if isinstance(message, str):
        return len(message)
    size = len(message.content) + len(message.reasoning)
    for call in message.tool_calls:
        size += len(call.raw_arguments) + len(call.name)
    return size + sum(len(image.data) for image in message.images)


class CountCache:
    """Message (or text) -> token count in two generations: a cheap approximation of LRU.

    Lookups hit the young generation first (one hash per message); an old-generation hit is
    promoted. When the young generation reaches half of either bound it becomes the old one and
    the previous old one is dropped, so everything used since the last rotation survives and
    at most ``max_entries`` entries / ``max_chars`` characters are held.
    """

    def __init__(
        self, max_entries: int = DEFAULT_CACHE_ENTRIES, max_chars: int = DEFAULT_CACHE_CHARS
    ) -> None:
        if max_entries <= 1 or max_chars <= 1:
            raise ValueError("cache bounds must be above 1")
        self._entry_limit = max_entries // 2
        self._char_limit = max_chars // 2
        self._lock = threading.Lock()
        self._young: dict[CountKey, int] = {}
        self._old: dict[CountKey, int] = {}
        self._young_chars = 0
        self._old_chars = 0

    def __len__(self) -> int:
        return len(self._young) + len(self._old)

    @property
    def chars(self) -> int:
        """Characters currently held by keys."""
        return self._young_chars + self._old_chars

    def get(self, key: CountKey) -> int | None:
        """The count of one key (None: a miss). A young hit takes no lock, nor does a key in
        neither generation (every new message, once the cache has rotated: a lock and a pop a
        lookup at 10,000 messages): a dict read is atomic, and a rotation meanwhile can only
        turn a hit into a miss (counted again)."""
        count = self._young.get(key)
        if count is None and key in self._old:
            count = self.get_many((key,))[0]
        return count

    def get_many(self, messages: Sequence[CountKey]) -> list[int | None]:
        """Counts for ``messages`` in order (None for a miss); old hits are promoted."""
        out: list[int | None] = []
        young, old = self._young, self._old
        with self._lock:
            for message in messages:
                count = young.get(message)
                if count is None and old:
                    count = old.pop(message, None)
                    if count is not None:
                        weight = message_chars(message)
                        self._old_chars -= weight
                        self._store(message, count, weight)
                        young = self._young
                out.append(count)
        return out

    def put(self, key: CountKey, count: int) -> None:
        """Store one count (``put_many`` of one item)."""
        with self._lock:
            if key not in self._young:
                self._store(key, count, message_chars(key))

    def put_many(self, items: Iterable[tuple[CountKey, int]]) -> None:
        """Store counts (rotating generations as the young one fills)."""
        with self._lock:
            for message, count in items:
                if message not in self._young:
                    self._store(message, count, message_chars(message))

    def _store(self, message: CountKey, count: int, weight: int) -> None:
        self._young[message] = count
        self._young_chars += weight
        if len(self._young) >= self._entry_limit or self._young_chars >= self._char_limit:
            self._old, self._old_chars = self._young, self._young_chars
            self._young, self._young_chars = {}, 0
