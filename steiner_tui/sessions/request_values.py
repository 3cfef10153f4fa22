"""Request records: a snapshot's metadata written as what differs from the request before.

``records.RequestEntry`` is the line; ``LoggedRequest`` is what it says once the rules for absent
fields are applied against the record before (docs/design.md, "14. Durable context state"). The
writer builds a line with ``request_delta`` and checks that it resolves to exactly the
snapshot's values (else it writes every field); the parser reads it back with
``request_fields``. Absent ``hashes`` are those of the messages logged since the record before
(the message hash rule is so part of the format), computed only when read (``LazyHashes``).

A reply's usage is folded into its request (``with_usage``), and a usage says what the last
main request is (``implied_last_main``), so ``last_main_request`` is written only when it differs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import msgspec

from steiner_tui.engine.chain import shared_prefix
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message, messages_bytes
from steiner_tui.engine.snapshots import hash_messages
from steiner_tui.sessions.records import RequestEntry

__all__ = [
    "LoggedRequest",
    "RequestRecord",
    "implied_last_main",
    "request_delta",
    "request_fields",
    "resolve_request",
    "shared_prefix",
    "usage_values",
    "with_usage",
]


class LoggedRequest(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """A request record with every field known (``hashes``: those after the ``shared`` ones)."""

    index: int = 0
    request_id: str = ""
    time: datetime | None = None
    shared: int = 0
    hashes: Sequence[str] = ()
    prompt_bytes: int = 0
    estimated_prompt_tokens: int = 0
    raw_prompt_tokens: int = 0
    model: str = ""
    provider: str = ""
    block_message_count: int = 0
    blocks_bytes: int = 0
    tools_bytes: int = 0
    max_tokens: int = 0
    estimate_strategy: str = ""
    compaction: bool = False
    generation: str = ""

    @property
    def hash_count(self) -> int:
        return self.shared + len(self.hashes)

    def flat(self) -> dict[str, Any]:
        """Every field by name."""
        return {f: getattr(self, f) for f in LoggedRequest.__struct_fields__}


class LazyHashes(Sequence[str]):
    """The hashes of some messages, computed when first read (resume hashes nothing)."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self._messages = messages
        self._hashes: tuple[str, ...] | None = None

    def __len__(self) -> int:
        return len(self._messages)

    def __iter__(self) -> Iterator[str]:
        return iter(self.resolved)

    def __getitem__(self, index: Any) -> Any:
        return self.resolved[index]

    @property
    def resolved(self) -> tuple[str, ...]:
        if self._hashes is None:
            self._hashes = hash_messages(self._messages)
        return self._hashes


class RequestRecord(LoggedRequest, frozen=True, gc=False, eq=False, kw_only=True):
    """A logged request as a loaded session keeps it: what its record says, whether it is
    exact (False: a damaged line came between it and the record before, so what it takes from
    that one may be a lost record's), the reply's usage (prompt, completion, cache read, cache
    write tokens; trailing zeros left out; empty: none logged) and the request logged before."""

    exact: bool = True
    usage: tuple[int, ...] = ()
    previous: RequestRecord | None = None

    def plain(self) -> LoggedRequest:
        """The record without its place in the log (what a writer continues from)."""
        return LoggedRequest(**{**self.flat(), "hashes": tuple(self.hashes)})

    @property
    def message_hashes(self) -> tuple[str, ...]:
        """Every message hash of the request, in order: its own after the first ``shared`` of
        the request before, and so on back."""
        pieces: list[Sequence[str]] = []
        node: RequestRecord | None = self
        want = self.hash_count
        while node is not None and want > 0:
            if want > node.shared:
                pieces.append(node.hashes[: want - node.shared])
                want = node.shared
            node = node.previous
        return tuple(h for piece in reversed(pieces) for h in piece)

    def full_record(self) -> dict[str, Any]:
        """The record with every field and every hash written out."""
        fields = self.flat()
        fields.pop("shared")
        fields["hashes"] = list(self.message_hashes)
        data: dict[str, Any] = msgspec.to_builtins({"type": "request", **fields})
        return data


_NONE = LoggedRequest()
"""What a log's first request record is read against."""
_SAME = (
    *LoggedRequest.__struct_fields__[LoggedRequest.__struct_fields__.index("model") :],
    "estimated_prompt_tokens",
)
"""The fields a record leaves out when they equal the previous record's."""


def _derived_id(previous: LoggedRequest, index: int) -> str:
    """The previous id with its trailing index replaced (``s-4`` -> ``s-5``), else ``""``."""
    old = str(previous.index)
    if previous.request_id.endswith(f"-{old}"):
        return previous.request_id[: -len(old)] + str(index)
    return ""


def request_fields(
    entry: RequestEntry, before: LoggedRequest | None, since: Sequence[Message] = ()
) -> dict[str, Any]:
    """Every field of the ``LoggedRequest`` that ``entry`` says, read after ``before``, by name;
    ``hashes`` is None when the record derives them from ``since`` (they are then
    ``hash_messages(since)``).

    ``since`` are the messages the log appended after ``before`` (after the last
    ``generation`` record when one came later): a record without ``hashes`` added their
    hashes, and their bytes to the previous ``prompt_bytes`` when it has none.
    """
    base = before or _NONE
    fields = {f: v if (v := getattr(entry, f)) is not None else getattr(base, f) for f in _SAME}
    index = entry.index if entry.index is not None else base.index + 1
    prompt_bytes = entry.prompt_bytes
    raw = entry.raw_prompt_tokens
    fields.update(
        index=index,
        request_id=entry.request_id if entry.request_id is not None else _derived_id(base, index),
        time=_time(entry, base),
        shared=entry.shared if entry.shared is not None else base.hash_count,
        hashes=entry.hashes,
        prompt_bytes=prompt_bytes
        if prompt_bytes is not None
        else base.prompt_bytes + messages_bytes(since),
        raw_prompt_tokens=raw if raw is not None else fields["estimated_prompt_tokens"],
    )
    return fields


def resolve_request(
    entry: RequestEntry, before: LoggedRequest | None, since: Sequence[Message] = ()
) -> LoggedRequest:
    """What ``entry`` says, read after ``before`` (``request_fields`` with the hashes
    computed)."""
    values = request_fields(entry, before, since)
    if values["hashes"] is None:
        values["hashes"] = hash_messages(since)
    return LoggedRequest(**values)


def _time(entry: RequestEntry, base: LoggedRequest) -> datetime | None:
    """A record's time: given, or ``elapsed`` seconds after the previous one's."""
    if entry.time is not None:
        return entry.time
    if entry.elapsed is not None and base.time is not None:
        return base.time + timedelta(seconds=entry.elapsed)
    return base.time


def _same_time(a: datetime | None, b: datetime | None) -> bool:
    """Equal, and written the same (the same offset)."""
    return a == b and (a is None or b is None or a.utcoffset() == b.utcoffset())


def _elapsed(time: datetime | None, base: LoggedRequest) -> float | None:
    """The seconds from the previous request's time to ``time`` when they give back exactly
    the text of ``time`` (else None: the time is written)."""
    if time is None or base.time is None or time.utcoffset() != base.time.utcoffset():
        return None
    seconds: float = (time - base.time).total_seconds()
    if seconds.is_integer():
        seconds = int(seconds)
    derived = base.time + timedelta(seconds=seconds)
    return seconds if msgspec.json.encode(derived) == msgspec.json.encode(time) else None


def request_delta(
    snapshot: RequestSnapshot,
    previous: LoggedRequest | None,
    previous_hashes: Sequence[str] = (),
    since: Sequence[Message] = (),
) -> tuple[RequestEntry, LoggedRequest]:
    """The line of ``snapshot`` after ``previous``, and what it resolves to.

    Args:
        snapshot: the request snapshot.
        previous: the request record written before it (None: the first).
        previous_hashes: every message hash of that request.
        since: the messages written after that record (as ``resolve_request`` reads them).
    """
    hashes = snapshot.message_hashes
    shared = shared_prefix(previous_hashes, hashes)
    full = LoggedRequest(
        index=snapshot.index,
        request_id=snapshot.request_id,
        model=snapshot.model,
        provider=snapshot.provider,
        time=snapshot.time,
        shared=shared,
        hashes=tuple(hashes[shared:]),
        block_message_count=snapshot.block_message_count,
        prompt_bytes=snapshot.prompt_bytes,
        blocks_bytes=snapshot.blocks_bytes,
        tools_bytes=snapshot.tools_bytes,
        max_tokens=snapshot.max_tokens,
        estimated_prompt_tokens=snapshot.estimated_prompt_tokens,
        raw_prompt_tokens=snapshot.raw_prompt_tokens,
        estimate_strategy=snapshot.estimate_strategy,
        compaction=snapshot.compaction,
        generation=snapshot.generation_id,
    )
    base = previous or _NONE
    same_time = _same_time(full.time, base.time)
    elapsed = None if same_time else _elapsed(full.time, base)
    changed: dict[str, Any] = {
        f: None if getattr(full, f) == getattr(base, f) else getattr(full, f) for f in _SAME
    }
    entry = RequestEntry(
        **changed,
        index=None if full.index == base.index + 1 else full.index,
        request_id=None if full.request_id == _derived_id(base, full.index) else full.request_id,
        shared=None if shared == base.hash_count else shared,
        hashes=None if full.hashes == hash_messages(since) else tuple(full.hashes),
        prompt_bytes=None
        if full.prompt_bytes == base.prompt_bytes + messages_bytes(since)
        else full.prompt_bytes,
        time=None if same_time or elapsed is not None else full.time,
        elapsed=elapsed,
        raw_prompt_tokens=None
        if full.raw_prompt_tokens == full.estimated_prompt_tokens
        else full.raw_prompt_tokens,
    )
    if resolve_request(entry, previous, since) != full:  # never expected
        entry = RequestEntry(**full.flat())
    return entry, full


def usage_values(
    prompt: int, completion: int, cache_read: int = 0, cache_write: int = 0
) -> tuple[int, ...]:
    """The folded ``usage`` of a request record: trailing zeros left out."""
    values = [prompt, completion, cache_read, cache_write]
    while len(values) > 2 and values[-1] == 0:
        values.pop()
    return tuple(values)


def with_usage(
    entry: RequestEntry, full: LoggedRequest, usage: tuple[int, ...], at: datetime | None
) -> RequestEntry:
    """``entry`` (resolving to ``full``) with its reply's usage folded in."""
    usage_at = None if _same_time(at, full.time) else at
    return msgspec.structs.replace(entry, usage=usage, usage_at=usage_at)


def implied_last_main(
    request: LoggedRequest | None, cache_key: str, at: datetime | None
) -> LastMainRequest | None:
    """The last main request a usage implies: its request's provider and model, the log
    header's cache key, the usage's time (None: a compaction request, or no request)."""
    if request is None or request.compaction:
        return None
    return LastMainRequest(request.provider, request.model, cache_key, at)
