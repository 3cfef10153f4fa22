"""Request records: a snapshot's metadata written as what differs from the request before.

``records.RequestEntry`` is the line; ``LoggedRequest`` is what it says once the rules for
absent fields are applied. The writer builds a line with ``request_delta`` against the
``LoggedRequest`` of the record it wrote before, the parser reads it back with
``request_fields`` against the one it read before (``resolve_request`` is the same with the
hashes computed; the parser leaves them to be computed when asked for): both sides apply the
same rules to the same previous value, and the writer checks that its line resolves to exactly
the snapshot's values (else it writes every field), so every request is rebuilt exactly.

The rules (docs/design.md, "14. Durable context state"):

* before version 4 an absent field is the type's default (``shared``: 0); version 1 and 2
  numbered requests from 0 (read one higher);
* from version 4 on an absent field is the previous request record's value: the index is one
  more, the id is the previous id with its index replaced by the new one, ``shared`` is every
  hash of the previous request (the request extends it); the first request's previous is all
  defaults. Absent ``hashes`` are those of the messages the log appended since the previous
  request record (the message hash rule of docs/design.md "5. Message hashes and request
  snapshots" is so part of the format: changing it needs a new log version), and an absent
  ``prompt_bytes`` adds their bytes to the previous one's. An absent ``raw_prompt_tokens`` is
  the record's ``estimated_prompt_tokens``, and the time may be written as ``elapsed``
  seconds after the previous one's. Before version 4 ``hashes`` holds the new hashes
  (absent: none).

A reply's usage is folded into its request (``with_usage``), and a version 4 usage (folded or
a ``usage`` record of the request's model) says what the last main request is
(``implied_last_main``), so the log writes a ``last_main_request`` record only when it differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

import msgspec

from steiner_tui.engine.chain import shared_prefix
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message, messages_bytes
from steiner_tui.engine.snapshots import hash_messages
from steiner_tui.sessions.records import (
    FIRST_DELTA_REQUESTS,
    FIRST_NUMBERED_FROM_ONE,
    RequestEntry,
)

__all__ = [
    "LoggedRequest",
    "PreviousRequest",
    "RequestSetting",
    "implied_last_main",
    "request_delta",
    "request_fields",
    "resolve_request",
    "shared_prefix",
    "usage_values",
    "with_usage",
]


R = TypeVar("R", bound="LoggedRequest")


class RequestSetting(msgspec.Struct, frozen=True, gc=False):
    """What seldom changes from one request to the next: consecutive records share one."""

    model: str = ""
    provider: str = ""
    block_message_count: int = 0
    blocks_bytes: int = 0
    tools_bytes: int = 0
    max_tokens: int = 0
    estimate_strategy: str = ""
    compaction: bool = False
    generation: str = ""


_SETTING = RequestSetting.__struct_fields__
_DEFAULT = RequestSetting()


class LoggedRequest(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """A request record with every field known (``hashes``: those after the ``shared`` ones).

    Build it with ``of`` (every field by name); ``flat`` gives them back.
    """

    index: int = 0
    request_id: str = ""
    time: datetime | None = None
    shared: int = 0
    hashes: tuple[str, ...] = ()
    prompt_bytes: int = 0
    estimated_prompt_tokens: int = 0
    raw_prompt_tokens: int = 0
    setting: RequestSetting = _DEFAULT

    @classmethod
    def of(cls, before: LoggedRequest | None = None, **fields: Any) -> LoggedRequest:
        """A record of ``fields``, sharing ``before``'s setting when it is the same."""
        setting = RequestSetting(**{f: fields.pop(f) for f in _SETTING if f in fields})
        if before is not None and setting == before.setting:
            setting = before.setting
        return cls(**fields, setting=setting)

    def flat(self) -> dict[str, Any]:
        """Every field by name (the setting's included)."""
        fields = {f: getattr(self, f) for f in LoggedRequest.__struct_fields__}
        del fields["setting"]
        fields.update(msgspec.structs.asdict(self.setting))
        return fields

    @property
    def hash_count(self) -> int:
        return self.shared + len(self.hashes)

    @property
    def model(self) -> str:
        return self.setting.model

    @property
    def provider(self) -> str:
        return self.setting.provider

    @property
    def block_message_count(self) -> int:
        return self.setting.block_message_count

    @property
    def blocks_bytes(self) -> int:
        return self.setting.blocks_bytes

    @property
    def tools_bytes(self) -> int:
        return self.setting.tools_bytes

    @property
    def max_tokens(self) -> int:
        return self.setting.max_tokens

    @property
    def estimate_strategy(self) -> str:
        return self.setting.estimate_strategy

    @property
    def compaction(self) -> bool:
        return self.setting.compaction

    @property
    def generation(self) -> str:
        return self.setting.generation


_NONE = LoggedRequest()
"""What a version 4 log's first request record is read against."""
_SAME = (*_SETTING, "prompt_bytes", "estimated_prompt_tokens")
"""The fields a version 4 record leaves out when they equal the previous record's."""


def _derived_id(previous: PreviousRequest, index: int) -> str:
    """The previous id with its trailing index replaced (``s-4`` -> ``s-5``), else ``""``."""
    old = str(previous.index)
    if previous.request_id.endswith(f"-{old}"):
        return previous.request_id[: -len(old)] + str(index)
    return ""


class PreviousRequest(Protocol):
    """What a record is read against: the request record before it (a ``LoggedRequest``, or
    the parser's ``request_columns.RequestTip``)."""

    @property
    def index(self) -> int: ...

    @property
    def request_id(self) -> str: ...

    @property
    def time(self) -> datetime | None: ...

    @property
    def prompt_bytes(self) -> int: ...

    @property
    def estimated_prompt_tokens(self) -> int: ...

    @property
    def setting(self) -> RequestSetting: ...

    @property
    def hash_count(self) -> int: ...


def request_fields(
    entry: RequestEntry,
    before: PreviousRequest | None,
    version: int,
    since: Sequence[Message] = (),
) -> dict[str, Any]:
    """Every field of the ``LoggedRequest`` that ``entry`` says, read after ``before`` in a log
    of ``version``, by name; ``hashes`` is None when the record derives them from ``since``
    (they are then ``hash_messages(since)``, left for the caller to compute or defer).

    ``since`` are the messages the log appended after ``before`` (after the last
    ``generation`` record when one came later): a version 4 record without ``hashes`` added
    their hashes, and their bytes to the previous ``prompt_bytes`` when it has none.

    Raises:
        ValueError: a record of a version before 4 has no index.
    """
    if version < FIRST_DELTA_REQUESTS:
        if entry.index is None:
            raise ValueError("malformed request record: missing required field `index`")
        fields = (*_SAME, "time", "raw_prompt_tokens")
        given = {f: v for f in fields if (v := getattr(entry, f)) is not None}
        index = entry.index + (1 if version < FIRST_NUMBERED_FROM_ONE else 0)
        setting = RequestSetting(**{f: given.pop(f) for f in _SETTING if f in given})
        if before is not None and setting == before.setting:
            setting = before.setting
        return {
            "index": index,
            "request_id": entry.request_id or "",
            "time": None,
            "shared": entry.shared or 0,
            "hashes": entry.hashes or (),
            "prompt_bytes": 0,
            "estimated_prompt_tokens": 0,
            "raw_prompt_tokens": 0,
            "setting": setting,
            **given,
        }
    base: PreviousRequest = before or _NONE
    index = entry.index if entry.index is not None else base.index + 1
    settings = {f: v for f in _SETTING if (v := getattr(entry, f)) is not None}
    setting = msgspec.structs.replace(base.setting, **settings) if settings else base.setting
    prompt_bytes = entry.prompt_bytes
    if prompt_bytes is None:
        prompt_bytes = base.prompt_bytes + messages_bytes(since)
    estimated = entry.estimated_prompt_tokens
    if estimated is None:
        estimated = base.estimated_prompt_tokens
    raw = entry.raw_prompt_tokens
    return {
        "index": index,
        "request_id": entry.request_id
        if entry.request_id is not None
        else _derived_id(base, index),
        "time": _time(entry, base),
        "shared": entry.shared if entry.shared is not None else base.hash_count,
        "hashes": entry.hashes,
        "prompt_bytes": prompt_bytes,
        "estimated_prompt_tokens": estimated,
        "raw_prompt_tokens": raw if raw is not None else estimated,
        "setting": setting,
    }


def resolve_request(
    entry: RequestEntry,
    before: PreviousRequest | None,
    version: int,
    since: Sequence[Message] = (),
    into: Callable[..., R] = LoggedRequest,  # type: ignore[assignment]
    **extra: Any,
) -> R:
    """What ``entry`` says, read after ``before`` in a log of ``version`` (``request_fields``
    with the hashes computed), built by ``into`` with the fields and ``extra``.

    Raises:
        ValueError: a record of a version before 4 has no index.
    """
    values = request_fields(entry, before, version, since)
    if values["hashes"] is None:
        values["hashes"] = hash_messages(since)
    return into(**values, **extra)


def _time(entry: RequestEntry, base: PreviousRequest) -> datetime | None:
    """A version 4 record's time: given, or ``elapsed`` seconds after the previous one's."""
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
    """The version 4 line of ``snapshot`` after ``previous``, and what it resolves to.

    Args:
        snapshot: the request snapshot.
        previous: the request record written before it (None: the first).
        previous_hashes: every message hash of that request.
        since: the messages written after that record (as ``resolve_request`` reads them).
    """
    hashes = snapshot.message_hashes
    shared = shared_prefix(previous_hashes, hashes)
    full = LoggedRequest.of(
        previous,
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
    derived_bytes = base.prompt_bytes + messages_bytes(since)
    changed: dict[str, Any] = {
        f: None if getattr(full, f) == getattr(base, f) else getattr(full, f) for f in _SAME
    }
    entry = RequestEntry(
        index=None if full.index == base.index + 1 else full.index,
        request_id=None if full.request_id == _derived_id(base, full.index) else full.request_id,
        shared=None if shared == base.hash_count else shared,
        hashes=None if full.hashes == hash_messages(since) else full.hashes,
        **changed,
    )
    same_time = _same_time(full.time, base.time)
    elapsed = None if same_time else _elapsed(full.time, base)
    entry = msgspec.structs.replace(
        entry,
        prompt_bytes=None if full.prompt_bytes == derived_bytes else full.prompt_bytes,
        time=None if same_time or elapsed is not None else full.time,
        elapsed=elapsed,
        raw_prompt_tokens=None
        if full.raw_prompt_tokens == full.estimated_prompt_tokens
        else full.raw_prompt_tokens,
    )
    if resolve_request(entry, previous, FIRST_DELTA_REQUESTS, since) != full:  # never expected
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
    """``entry`` (resolving to ``full``) with its reply's usage folded in (the usage is
    bookkeeping of the log: ``LoggedRequest`` does not keep it)."""
    usage_at = None if _same_time(at, full.time) else at
    return msgspec.structs.replace(entry, usage=usage, usage_at=usage_at)


def implied_last_main(
    request: PreviousRequest | None, cache_key: str, at: datetime | None
) -> LastMainRequest | None:
    """The last main request a version 4 usage implies: its request's provider and model, the
    log header's cache key, the usage's time (None: a compaction request, or no request)."""
    if request is None or request.setting.compaction:
        return None
    return LastMainRequest(request.setting.provider, request.setting.model, cache_key, at)
