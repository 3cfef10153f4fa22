"""Request records: a snapshot's metadata written as what differs from the request before.

``records.RequestEntry`` is the line, ``RequestRecord`` what it says once absent fields are read
against the record before (docs/design.md, "14. Durable context state"): the previous record's,
except ``index`` (one more), ``estimated_prompt_tokens`` (the usage's prompt tokens when
the record has a usage), ``shared`` (every previous hash), ``hashes`` (the messages logged
since, hashed when read, ``LazyHashes``), ``prompt_bytes`` (plus their bytes),
``raw_prompt_tokens`` (the estimate), ``request_id`` (index replaced) and ``time``
(``elapsed`` seconds later). A reply's usage is folded into its request and implies the last
main request (``implied_last_main``), so ``last_main_request`` is written only when it differs.

Resume reads only each record's ``RequestHead`` (what the session's cost, its next request
number and its last main request need); ``LoggedRecords`` reads the whole records when one is
first asked for (the inspector, the cache diagnostic, the next request written after them).
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, overload

import msgspec
from msgspec.structs import astuple, replace

from steiner_tui.engine.chain import shared_prefix
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.events import CacheExplanation, RequestSnapshot
from steiner_tui.engine.messages import Message, messages_bytes
from steiner_tui.engine.snapshots import hash_messages
from steiner_tui.sessions.records import RequestEntry

__all__ = [
    "LazyHashes",
    "LoggedRecords",
    "RequestHead",
    "RequestRecord",
    "implied_last_main",
    "read_request",
    "request_delta",
    "same_time",
    "shared_prefix",
    "stop_values",
    "usage_values",
]


class LazyHashes(Sequence[str]):
    """The hashes of some messages, computed when first read (resume hashes nothing), or given
    (``known``: the writer has them from the request's snapshot)."""

    def __init__(self, messages: Sequence[Message], known: Sequence[str] | None = None) -> None:
        self._messages = messages
        self._hashes: tuple[str, ...] | None = None if known is None else tuple(known)

    def __len__(self) -> int:
        return len(self._messages)

    def __getitem__(self, index: Any) -> Any:
        return self.resolved[index]

    def __eq__(self, other: object) -> bool:
        if type(other) is tuple:  # every request record's comparison: no ABC check
            return self.resolved == other
        return isinstance(other, Sequence) and self.resolved == tuple(other)

    __hash__ = None  # type: ignore[assignment]

    @property
    def resolved(self) -> tuple[str, ...]:
        if self._hashes is None:
            self._hashes = hash_messages(self._messages)
        return self._hashes


class RequestRecord(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """A logged request with every field known: its own ``hashes`` after the first ``shared``
    of ``previous``; ``usage`` as ``usage_values`` (empty: none logged), with its ``cache``
    explanation where the log wrote one; ``cancelled``,
    ``error`` and ``streamed_chars`` as ``RequestSummary``'s (``stop_values``); ``exact`` False
    when a damaged line came before it. ``messages`` (filled when shown, ``LoggedRequests.at``): per
    ``message_hashes``, the logged message with that hash, or None (block messages, a summary)."""

    index: int = 0
    request_id: str = ""
    time: datetime | None = None
    model: str = ""
    provider: str = ""
    generation_id: str = ""
    compaction: bool = False
    estimated_prompt_tokens: int = 0
    raw_prompt_tokens: int = 0
    estimate_strategy: str = ""
    max_tokens: int = 0
    prompt_bytes: int = 0
    blocks_bytes: int = 0
    tools_bytes: int = 0
    block_message_count: int = 0
    shared: int = 0
    hashes: Sequence[str] = ()
    usage: tuple[int, ...] = ()
    cache: CacheExplanation | None = None
    cancelled: bool = False
    error: str = ""
    streamed_chars: int = 0
    exact: bool = True
    previous: RequestRecord | None = None
    messages: tuple[Message | None, ...] = ()

    @property
    def hash_count(self) -> int:
        return self.shared + len(self.hashes)

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


_NONE = RequestRecord()
"""What a log's first request record is read against."""
_FRESH = {"exact": True, "previous": None, "messages": (), "cache": None}
"""The fields of a request record that no line says."""
_WRITTEN = RequestEntry.__struct_fields__[: RequestEntry.__struct_fields__.index("elapsed")]
"""The fields a record and the request it resolves to share, first in both and in one order."""


def read_request(
    entry: RequestEntry,
    base: RequestRecord | None,
    since: Sequence[Message] = (),
    *,
    since_hashes: Sequence[str] | None = None,
    **extra: Any,
) -> RequestRecord:
    """What ``entry`` says, read after ``base`` with ``since`` the messages logged after it
    (after the last ``generation`` record when one came later; ``since_hashes``: their hashes,
    when known); ``extra``: other fields."""
    values = _read_values(entry, base, since, since_hashes)
    # Every other field is the base's (one copy in C); those not read from a line start over.
    values.update(_FRESH, usage=entry.usage, **stop_values(entry.stopped, entry.streamed))
    values.update(extra)
    return replace(base or _NONE, **values)


def _read_values(
    entry: RequestEntry,
    base: RequestRecord | None,
    since: Sequence[Message],
    since_hashes: Sequence[str] | None,
) -> dict[str, Any]:
    """``read_request``'s fields that ``entry`` says or implies (of ``_WRITTEN``); the others
    are ``base``'s."""
    base = base or _NONE
    values: dict[str, Any] = {}
    if entry is not _BLANK:
        written = zip(_WRITTEN, astuple(entry), strict=False)  # the shared fields
        values = {f: g for f, g in written if g is not None}
    index = values.setdefault("index", base.index + 1)
    if entry.request_id is None:  # the previous with its trailing index replaced, else ""
        stem = base.request_id.removesuffix(f"-{base.index}")
        values["request_id"] = f"{stem}-{index}" if stem != base.request_id else ""
    if entry.time is None:
        values["time"] = _time(entry, base.time)
    if entry.estimated_prompt_tokens is None and entry.usage:
        values["estimated_prompt_tokens"] = entry.usage[0]
    if entry.raw_prompt_tokens is None:
        values["raw_prompt_tokens"] = values.get(
            "estimated_prompt_tokens", base.estimated_prompt_tokens
        )
    if entry.shared is None:
        values["shared"] = base.hash_count
    if entry.hashes is None:
        values["hashes"] = LazyHashes(since, since_hashes)
    if entry.prompt_bytes is None:
        values["prompt_bytes"] = base.prompt_bytes + messages_bytes(since)
    return values


class RequestHead(msgspec.Struct, frozen=True, gc=False):
    """What resume needs of a request record, read from its line and the head before it
    (``head_of``); ``usage``, its ``cache`` and the stop fields as the record's, usage records
    included."""

    index: int = 0
    time: datetime | None = None
    model: str = ""
    provider: str = ""
    compaction: bool = False
    shared: int = 0
    hash_count: int = 0
    usage: tuple[int, ...] = ()
    cache: CacheExplanation | None = None
    cancelled: bool = False
    error: str = ""
    streamed_chars: int = 0


def head_of(entry: RequestEntry, base: RequestHead, since: int) -> RequestHead:
    """The head of the record ``entry`` reads as after ``base`` with ``since`` messages logged
    in between (the fields as ``read_request`` reads them).

    Raises:
        ValueError: ``entry`` shares more hashes than ``base`` has.
    """
    shared = base.hash_count if entry.shared is None else entry.shared
    if shared > base.hash_count:
        raise ValueError(
            f"shares {shared} hashes with the request before, which has {base.hash_count}"
        )
    head = RequestHead(
        base.index + 1 if entry.index is None else entry.index,
        _time(entry, base.time),
        base.model if entry.model is None else entry.model,
        base.provider if entry.provider is None else entry.provider,
        base.compaction if entry.compaction is None else entry.compaction,
        shared,
        shared + (since if entry.hashes is None else len(entry.hashes)),
        entry.usage,
        entry.cache,
    )
    # A head's defaults are those of a request not stopped, as almost every one is.
    return (
        head
        if entry.stopped is None
        else replace(head, **stop_values(entry.stopped, entry.streamed))
    )


def _time(entry: RequestEntry, base: datetime | None) -> datetime | None:
    if entry.time is None and entry.elapsed is not None and base is not None:
        return base + _seconds(entry.elapsed)
    return base if entry.time is None else entry.time


@lru_cache(maxsize=64)
def _seconds(elapsed: float) -> timedelta:
    """``elapsed`` as a timedelta: made once for the few values a log's records repeat (1 us
    each time, against 0.1 for the cache)."""
    return timedelta(seconds=elapsed)


class LoggedRecords(Sequence[RequestRecord]):
    """A log's request records: each line's head read at once, the records when one is
    first asked for (every one then, each read against the one before)."""

    def __init__(self) -> None:
        self.heads: list[RequestHead] = []
        """Each record's head, oldest first."""
        # Each line, and the messages logged before it as one list with where each one's end:
        # not a tuple or two per record, which the cyclic collector would walk once more after
        # a resume (10,000 fewer objects tracked at 5,000 records).
        self._entries: list[RequestEntry] = []
        self._logged: list[Message] = []
        self._ends: list[int] = []
        self._inexact: set[int] = set()
        """The positions of records read after a damaged line (``RequestRecord.exact``)."""
        self.resumed: set[int] = set()
        """The positions of the first records written after a resume."""
        self._records: list[RequestRecord] | None = None

    def add(self, entry: RequestEntry, since: Sequence[Message], exact: bool) -> RequestHead:
        """Add the record of ``entry``, logged after the messages ``since`` (``exact``: as
        ``RequestRecord.exact``), and return its head.

        Raises:
            ValueError: as ``head_of``.
        """
        head = head_of(entry, self.heads[-1] if self.heads else _NO_HEAD, len(since))
        if not exact:
            self._inexact.add(len(self.heads))
        self.heads.append(head)
        self._entries.append(entry)
        self._logged += since
        self._ends.append(len(self._logged))
        self._records = None
        return head

    def end_last(self, **stopped: Any) -> None:
        """Give the last record ``usage`` or the stop fields that a later record says."""
        self.heads[-1] = replace(self.heads[-1], **stopped)
        self._records = None

    @property
    def last(self) -> RequestHead | None:
        return self.heads[-1] if self.heads else None

    def usage_samples(self, limit: int) -> list[tuple[str, int, int]]:
        """The latest ``limit`` main requests with usage, oldest first: each one's model, the
        prompt tokens the provider reported and the raw estimate it was made with (what the
        runner calibrated on). Read back from the end, as ``_read_values`` reads the estimate:
        written, else the line's usage, else the record's before."""
        samples: list[tuple[str, int, int]] = []
        for position in range(len(self.heads) - 1, -1, -1):
            head = self.heads[position]
            if not head.usage or head.compaction:
                continue
            entry = self._entries[position]
            raw = entry.raw_prompt_tokens
            samples.append(
                (head.model, head.usage[0], self._estimate(position) if raw is None else raw)
            )
            if len(samples) == limit:
                break
        return samples[::-1]

    def _estimate(self, position: int) -> int:
        """The estimated prompt tokens of the record at ``position``."""
        entries = self._entries
        for at in range(position, -1, -1):
            entry = entries[at]
            if entry.estimated_prompt_tokens is not None:
                return entry.estimated_prompt_tokens
            if entry.usage:
                return entry.usage[0]
        return 0

    def __len__(self) -> int:
        return len(self.heads)

    @overload
    def __getitem__(self, index: int) -> RequestRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[RequestRecord]: ...
    def __getitem__(self, index: int | slice) -> RequestRecord | list[RequestRecord]:
        return self._read()[index]

    def __iter__(self) -> Iterator[RequestRecord]:
        return iter(self._read())

    def _read(self) -> list[RequestRecord]:
        if self._records is None:
            records: list[RequestRecord] = []
            base, start = None, 0
            lines = zip(self._entries, self._ends, self.heads, strict=True)
            for position, (entry, end, head) in enumerate(lines):
                since, start = tuple(self._logged[start:end]), end
                base = read_request(
                    entry,
                    base,
                    since,
                    exact=position not in self._inexact,
                    previous=base,
                    usage=head.usage,  # its cache and the stop fields: as later records may say
                    cache=head.cache,
                    cancelled=head.cancelled,
                    error=head.error,
                    streamed_chars=head.streamed_chars,
                )
                records.append(base)
            self._records = records
        return self._records


_NO_HEAD = RequestHead()


def same_time(a: datetime | None, b: datetime | None) -> bool:
    """Equal, and written the same (the same offset)."""
    return a == b and (a is None or b is None or a.utcoffset() == b.utcoffset())


def _elapsed(time: datetime | None, base: RequestRecord) -> float | None:
    """The seconds from the previous request's time to ``time`` when they give back exactly
    the text of ``time`` (else None: the time is written)."""
    if time is None or base.time is None or time.utcoffset() != base.time.utcoffset():
        return None
    seconds: float = (time - base.time).total_seconds()
    if seconds.is_integer():
        seconds = int(seconds)
    derived = base.time + _seconds(seconds)
    # The same wall time and offset: the same text (compared, not encoded twice).
    return seconds if derived == time and derived.utcoffset() == time.utcoffset() else None


def request_delta(
    snapshot: RequestSnapshot,
    previous: RequestRecord | None,
    previous_hashes: Sequence[str] = (),
    since: Sequence[Message] = (),
) -> tuple[RequestEntry, RequestRecord]:
    """The line of ``snapshot`` after ``previous`` (the request record written before it, every
    hash of it in ``previous_hashes``; None: the first), and what it reads back as; ``since``:
    the messages written after that record."""
    hashes = snapshot.message_hashes
    shared = shared_prefix(previous_hashes, hashes)
    values = astuple(snapshot)
    full = {f: values[i] for f, i in _FROM_SNAPSHOT}
    full.update(shared=shared, hashes=tuple(hashes[shared:]))
    # What the line reads back as with every field left out.
    base = previous or _NONE
    blank = dict(zip(_WRITTEN, astuple(base), strict=False))  # the base's, and then
    blank.update(_read_values(_BLANK, previous, since, _tail_hashes(snapshot, since)))
    fields: dict[str, Any] = {f: None if v == blank[f] else v for f, v in full.items()}
    raw = full["raw_prompt_tokens"]
    fields["raw_prompt_tokens"] = None if raw == full["estimated_prompt_tokens"] else raw
    same = same_time(full["time"], base.time)
    elapsed = None if same else _elapsed(full["time"], base)
    fields["time"] = None if same or elapsed is not None else full["time"]
    return RequestEntry(**fields, elapsed=elapsed), RequestRecord(**full)


_BLANK = RequestEntry()
_FROM_SNAPSHOT = tuple(
    (f, RequestSnapshot.__struct_fields__.index(f))
    for f in _WRITTEN
    if f not in ("shared", "hashes")
)
"""The written fields a snapshot holds as they are, and their places in it."""


def _tail_hashes(snapshot: RequestSnapshot, since: Sequence[Message]) -> Sequence[str] | None:
    """The hashes of ``since`` when they are the last messages of ``snapshot`` (the same
    objects: sent as stored), else None: the ledger hashed them already."""
    messages, count = snapshot.messages, len(since)
    start = len(messages) - count
    if start < 0 or not all(map(operator.is_, messages[start:], since)):
        return None
    return snapshot.message_hashes[start:]


def usage_values(
    prompt: int, completion: int, cache_read: int = 0, cache_write: int = 0
) -> tuple[int, ...]:
    """The folded ``usage`` of a request record: trailing zeros left out."""
    values = (prompt, completion, cache_read, cache_write)
    return values if cache_write else values[:3] if cache_read else values[:2]


def stop_values(stopped: str | None, streamed: int) -> dict[str, Any]:
    """A logged request's ``cancelled``, ``error`` and ``streamed_chars`` from its line's
    ``stopped`` and ``streamed`` (None: not stopped, or a log from before they were written)."""
    if stopped is None:
        return {"cancelled": False, "error": "", "streamed_chars": 0}
    return {"cancelled": not stopped, "error": stopped, "streamed_chars": streamed}


def implied_last_main(
    request: RequestRecord | RequestHead | None, cache_key: str, at: datetime | None
) -> LastMainRequest | None:
    """The last main request a usage implies: its request's provider and model, the log
    header's cache key, the usage's time (None: a compaction request, or no request)."""
    if request is None or request.compaction:
        return None
    return LastMainRequest(request.provider, request.model, cache_key, at)
