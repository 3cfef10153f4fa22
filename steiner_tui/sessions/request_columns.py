"""The request records a loaded log keeps: one column per field, not one object per request.

A resumed session has a request record for about every two messages. Held as one object
each, with its own id, time, tuple of new hashes and integers, they cost more memory than the
text of most of the messages they describe. ``RequestColumns`` keeps each field in an
``array`` of integers instead: times as microseconds since the epoch plus the position of
their zone among the zones seen, ids as a stem that the index completes (``soak-`` + ``5``; an
id of another form is kept as it is), each setting as its position among the distinct
settings, the exactness flag as the set of inexact positions. Each request's new message
hashes are kept as the messages a version 4 record derives them from, hashed when asked for,
or as the strings the record wrote.

``columns[i]`` builds the ``RequestRecord`` of request ``i`` when asked; what it says is what
the log's record says once the rules for absent fields are applied (``request_values``;
docs/design.md, "14. Durable context state").
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any, overload

import msgspec

from steiner_tui.engine.messages import Message
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.sessions.request_values import LoggedRequest, RequestSetting

__all__ = ["RequestColumns", "RequestRecord", "RequestTip"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)
_NO_TIME = -1
"""The zone of a request without a time."""
_ODD_TIME = -2
"""The zone of a time whose zone is not a fixed offset (kept as it is)."""
_OWN_ID = -1
"""The stem of an id that is not a stem and the index (kept as it is)."""


class RequestRecord(LoggedRequest, frozen=True, gc=False, eq=False, kw_only=True):
    """A logged request snapshot's metadata, built from the columns when asked for.

    Attributes:
        exact: False when a damaged line came between this record and the one before, so
            what it takes from the request before may be a lost record's (reported as a
            problem).
        columns: the columns it was built from (its hashes are rebuilt from them).
        position: its position there.
    """

    exact: bool = True
    columns: RequestColumns | None = None
    position: int = 0

    @property
    def entry(self) -> LoggedRequest:
        """The record with every field known (``hashes`` holds only the new hashes)."""
        return self

    @property
    def previous(self) -> RequestRecord | None:
        """The request logged before it (its first ``shared`` hashes are this one's too)."""
        if self.columns is None or not self.position:
            return None
        return self.columns[self.position - 1]

    def plain(self) -> LoggedRequest:
        """The record without its place in the columns (what a writer continues from)."""
        return LoggedRequest(**{f: getattr(self, f) for f in LoggedRequest.__struct_fields__})

    @property
    def message_hashes(self) -> tuple[str, ...]:
        """Every message hash of the request, in order (rebuilt from the requests before)."""
        if self.columns is None:
            return self.hashes
        return self.columns.message_hashes(self.position)

    def full_record(self) -> dict[str, Any]:
        """The record with every hash written out."""
        fields = self.flat()
        fields.pop("shared")
        fields["hashes"] = list(self.message_hashes)
        data: dict[str, Any] = msgspec.to_builtins({"type": "request", **fields})
        return data


class RequestTip(msgspec.Struct, frozen=True, gc=False):
    """The last request appended, as the parser reads the next record against it
    (a ``request_values.PreviousRequest``)."""

    index: int
    request_id: str
    time: datetime | None
    prompt_bytes: int
    estimated_prompt_tokens: int
    setting: RequestSetting
    hash_count: int


_WIDER = {"b": "h", "h": "i", "i": "q"}
"""The next wider ``array`` type code (1, 2, 4, 8 bytes)."""


class _Ints:
    """A column of integers: an ``array`` of the narrowest type code every value fits (one
    byte to eight), a list after one does not fit eight bytes (a damaged or hand-written log
    may hold any integer)."""

    __slots__ = ("values",)

    def __init__(self, first: Sequence[int] = ()) -> None:
        self.values: array[int] | list[int] = array("b", first)

    def append(self, value: int) -> None:
        while True:
            try:
                self.values.append(value)
                return
            except OverflowError:
                assert isinstance(self.values, array)  # a list takes any integer
                wider = _WIDER.get(self.values.typecode)
                self.values = list(self.values) if wider is None else array(wider, self.values)

    def __getitem__(self, position: int) -> int:
        return self.values[position]

    def __len__(self) -> int:
        return len(self.values)


def _hash(item: str | Message) -> str:
    return item if isinstance(item, str) else item.digest()


class RequestColumns(Sequence[RequestRecord]):
    """Every request record of a log, in order, one column per field (see the module doc).

    Append with ``append`` (the parser); read with ``columns[i]``, iteration, ``len``.
    """

    __slots__ = (
        "_estimated",
        "_ids",
        "_index",
        "_inexact",
        "_new",
        "_prompt_bytes",
        "_raw",
        "_setting",
        "_setting_at",
        "_settings",
        "_shared",
        "_start",
        "_stem",
        "_stem_at",
        "_stems",
        "_time",
        "_times",
        "_usage",
        "_zone",
        "_zones",
    )

    def __init__(self) -> None:
        self._index = _Ints()
        self._shared = _Ints()
        self._prompt_bytes = _Ints()
        self._estimated = _Ints()
        self._raw = _Ints()
        self._time = _Ints()
        """Microseconds since the epoch (of the zone's kind: aware or naive)."""
        self._zone = _Ints()
        """The time's zone, a position in ``_zones`` (``_NO_TIME``, ``_ODD_TIME``)."""
        self._zones: list[tzinfo | None] = []
        self._times: dict[int, datetime] = {}
        """The times of ``_ODD_TIME``, by position."""
        self._setting = _Ints()
        self._settings: list[RequestSetting] = []
        self._setting_at: dict[RequestSetting, int] = {}
        self._stem = _Ints()
        """The id's stem, a position in ``_stems`` (``_OWN_ID``: the id is in ``_ids``)."""
        self._stems: list[str] = []
        self._stem_at: dict[str, int] = {}
        self._ids: dict[int, str] = {}
        self._start = _Ints((0,))
        """Where each request's new hashes start in ``_new`` (one more entry: the end)."""
        self._new: list[str | Message] = []
        """Each request's new hashes, or the messages they are the hashes of."""
        self._inexact: set[int] = set()
        self._usage: dict[int, tuple[int, ...]] = {}
        """The reply's usage (prompt, completion, cache read, cache write tokens; trailing
        zeros left out) by position, where the log recorded it."""

    # -- writing ------------------------------------------------------------------------

    def append(
        self, fields: dict[str, Any], since: Sequence[Message], *, exact: bool = True
    ) -> RequestTip:
        """Add the request of ``fields`` (``request_values.request_fields``: ``hashes`` None
        means those of ``since``); the tip the next record is read against."""
        position = len(self._index)
        index: int = fields["index"]
        request_id: str = fields["request_id"]
        time: datetime | None = fields["time"]
        setting: RequestSetting = fields["setting"]
        hashes: Sequence[str | Message] = since if fields["hashes"] is None else fields["hashes"]
        micros, zone = self._time_of(time)
        stem = self._stem_of(request_id, index)
        at = self._setting_at.get(setting)
        if at is None:
            at = self._setting_at[setting] = len(self._settings)
            self._settings.append(setting)
        else:
            setting = self._settings[at]  # one object for every record with this setting
        self._index.append(index)
        self._shared.append(fields["shared"])
        self._prompt_bytes.append(fields["prompt_bytes"])
        self._estimated.append(fields["estimated_prompt_tokens"])
        self._raw.append(fields["raw_prompt_tokens"])
        self._time.append(micros)
        self._zone.append(zone)
        if zone == _ODD_TIME and time is not None:
            self._times[position] = time
        self._setting.append(at)
        self._stem.append(stem)
        if stem == _OWN_ID:
            self._ids[position] = request_id
        self._new.extend(hashes)
        self._start.append(len(self._new))
        if not exact:
            self._inexact.add(position)
        return RequestTip(
            index,
            request_id,
            time,
            fields["prompt_bytes"],
            fields["estimated_prompt_tokens"],
            setting,
            fields["shared"] + len(hashes),
        )

    def set_usage(self, usage: tuple[int, ...]) -> None:
        """Record the usage the log reported for the last request appended (the first one
        reported for it stays)."""
        if self._index:
            self._usage.setdefault(len(self._index) - 1, usage)

    def _time_of(self, time: datetime | None) -> tuple[int, int]:
        if time is None:
            return 0, _NO_TIME
        zone = time.tzinfo
        if zone is not None and not isinstance(zone, timezone):
            return 0, _ODD_TIME  # a zone whose offset changes: wall-clock sums would shift it
        micros = (time - (_NAIVE_EPOCH if zone is None else _EPOCH)) // _MICROSECOND
        if zone in self._zones:
            return micros, self._zones.index(zone)
        self._zones.append(zone)
        return micros, len(self._zones) - 1

    def _stem_of(self, request_id: str, index: int) -> int:
        number = str(index)
        if not request_id.endswith(f"-{number}"):
            return _OWN_ID
        stem = request_id[: len(request_id) - len(number)]
        at = self._stem_at.get(stem)
        if at is None:
            at = self._stem_at[stem] = len(self._stems)
            self._stems.append(stem)
        return at

    # -- reading ------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._index)

    @overload
    def __getitem__(self, position: int) -> RequestRecord: ...

    @overload
    def __getitem__(self, position: slice) -> list[RequestRecord]: ...

    def __getitem__(self, position: int | slice) -> RequestRecord | list[RequestRecord]:
        if isinstance(position, slice):
            return [self._record(p) for p in range(*position.indices(len(self)))]
        count = len(self)
        if not -count <= position < count:
            raise IndexError("request position out of range")
        return self._record(position % count)

    def __iter__(self) -> Iterator[RequestRecord]:
        return (self._record(p) for p in range(len(self)))

    def _record(self, position: int) -> RequestRecord:
        start, end = self._start[position], self._start[position + 1]
        return RequestRecord(
            index=self._index[position],
            request_id=self.request_id(position),
            time=self.time(position),
            shared=self._shared[position],
            hashes=tuple(_hash(item) for item in self._new[start:end]),
            prompt_bytes=self._prompt_bytes[position],
            estimated_prompt_tokens=self._estimated[position],
            raw_prompt_tokens=self._raw[position],
            setting=self._settings[self._setting[position]],
            exact=position not in self._inexact,
            columns=self,
            position=position,
        )

    def request_id(self, position: int) -> str:
        """The id of the request at ``position``."""
        stem = self._stem[position]
        if stem == _OWN_ID:
            return self._ids[position]
        return self._stems[stem] + str(self._index[position])

    def time(self, position: int) -> datetime | None:
        """The time of the request at ``position``, with the offset it was written with."""
        zone = self._zone[position]
        if zone == _NO_TIME:
            return None
        if zone == _ODD_TIME:
            return self._times[position]
        tz = self._zones[zone]
        epoch = _NAIVE_EPOCH if tz is None else _EPOCH.astimezone(tz)
        return epoch + self._time[position] * _MICROSECOND

    def usage(self, position: int) -> tuple[int, ...]:
        """The usage logged for the request at ``position`` (prompt, completion, cache read,
        cache write tokens, trailing zeros left out; empty: none recorded)."""
        return self._usage.get(position, ())

    def summary(self, position: int) -> RequestSummary:
        """The figures of the request at ``position`` as the request inspector and the chart
        list them (``logged``), read from the columns without computing a hash."""
        count = self._shared[position] + self._start[position + 1] - self._start[position]
        setting = self._settings[self._setting[position]]
        return RequestSummary(
            position=position,
            index=self._index[position],
            time=self.time(position),
            model=setting.model,
            compaction=setting.compaction,
            generation_id=setting.generation,
            estimated_prompt_tokens=self._estimated[position],
            max_tokens=setting.max_tokens,
            prompt_bytes=self._prompt_bytes[position],
            message_count=count,
            reused=self._shared[position] if position else 0,
            logged=True,
        )

    def last_index(self) -> int:
        """The highest request index logged (0: none)."""
        return max(self._index.values, default=0)

    def message_hashes(self, position: int) -> tuple[str, ...]:
        """Every message hash of the request at ``position``, in order: its new hashes after
        the first ``shared`` of the request before, and so on back."""
        pieces: list[tuple[int, int]] = []
        node = position
        want = self._shared[position] + self._start[position + 1] - self._start[position]
        while node >= 0 and want > 0:
            shared = self._shared[node]
            if want > shared:
                start = self._start[node]
                pieces.append((start, min(start + want - shared, self._start[node + 1])))
                want = shared
            node -= 1
        new = self._new
        return tuple(_hash(new[i]) for start, end in reversed(pieces) for i in range(start, end))
