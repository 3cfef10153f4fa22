"""What each source of a request costs, counted once per new message: ``SourceCounter``.

The context panel's rows (each block, each skill envelope carried in the conversation, the rest
of the conversation and the tool definitions, in bytes and raw tokens) are counted here, with
the estimator's one cache (per message and per text). The counter remembers the conversation it
counted last, so a conversation that grows by a turn costs one count per new message and the
panel only shows what it computed. ``snapshots.build_request_snapshot`` puts the rows in each
request snapshot.

(docs/design.md, "5. Message hashes and request snapshots")
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import msgspec

from steiner_tui.engine.chain import Chain, shared_prefix
from steiner_tui.engine.events import SourceTokens
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.blocks import ContextBlock, block_message_indexes
from steiner_tui.engine.prompt.sources import TOOL_RESULTS_SOURCE, TOOLS_SOURCE, ContextSource
from steiner_tui.engine.skills.envelopes import TRUNCATION_MARKER, split_skill_blocks, utf8_len

__all__ = [
    "TOOLS_SOURCE",
    "TOOL_RESULTS_SOURCE",
    "CountedSources",
    "RequestParts",
    "SourceCounter",
    "TokenCounter",
    "conversation_source",
]

_CONVERSATION = str(ContextSource.CONVERSATION)
_CONVERSATION_KEY = (_CONVERSATION, "", "")
_SUMMARY_KEY = (str(ContextSource.CONVERSATION_SUMMARY), "", "")
_TOOL_RESULTS_KEY = (TOOL_RESULTS_SOURCE, "", "")
_KEY_OF_ROLE = {"tool": _TOOL_RESULTS_KEY, "summary": _SUMMARY_KEY, "system": _SUMMARY_KEY}
"""The row of a conversation message by its role (a summary is sent as a system message)."""


def conversation_source(role: str) -> str:
    """The source a conversation message of ``role`` is counted in, its skill envelopes apart:
    ``tool_results`` for a tool message, ``conversation_summary`` for a summary, else
    ``conversation`` (the inspector names each message by the same rule)."""
    return _KEY_OF_ROLE.get(role, _CONVERSATION_KEY)[0]


class TokenCounter(Protocol):
    """The counts behind the per-source figures (``tokens.RequestEstimator`` has them)."""

    def message_tokens(self, model_id: str, messages: Sequence[Message]) -> Sequence[int]: ...
    def count_parts(self, model_id: str, texts: Sequence[str]) -> Sequence[int]: ...


_Key = tuple[str, str, str]
"""A row's identity: (source, path, name)."""
_Row = tuple[int, int, bool]
"""A row's bytes, tokens and whether anything in it was cut."""
_CHECKPOINT = 64
"""The conversation's running totals are kept every this many messages."""


def _add(rows: dict[_Key, _Row], key: _Key, size: int, tokens: int, truncated: bool) -> None:
    old = rows.get(key)
    if old is None:
        rows[key] = (size, tokens, truncated)
    else:
        rows[key] = (old[0] + size, old[1] + tokens, old[2] or truncated)


class RequestParts(msgspec.Struct, frozen=True):
    """What a request's sources are counted from: its messages (block messages first), the
    blocks behind the first ``block_message_count`` of them, and its tool list's JSON."""

    messages: Sequence[Message]
    blocks: Sequence[ContextBlock]
    block_message_count: int
    tools_text: str = ""
    tools_bytes: int = 0


_DRIVER_OPENINGS = ("<steiner-skill", "[execution mode:")
"""How a user message carrying skill envelopes starts (a mode notice may come first)."""


class _Tally(msgspec.Struct):
    """The conversation counted last: each message's rows, with running totals."""

    model: str
    messages: list[Message] = msgspec.field(default_factory=list)
    shares: list[tuple[tuple[_Key, int, int, bool], ...]] = msgspec.field(default_factory=list)
    totals: list[dict[_Key, _Row]] = msgspec.field(default_factory=lambda: [{}])
    """``totals[i]``: the rows of the first ``i * _CHECKPOINT`` messages."""
    current: dict[_Key, _Row] = msgspec.field(default_factory=dict)
    """The rows of every message counted."""
    request: Sequence[Message] | None = None
    """The request messages (block messages, then ``messages``) counted last."""

    def keep(self, count: int) -> None:
        """Forget every message after the first ``count``."""
        if count == len(self.messages):
            return
        del self.messages[count:]
        del self.shares[count:]
        del self.totals[count // _CHECKPOINT + 1 :]
        current = dict(self.totals[-1])
        for share in self.shares[(count // _CHECKPOINT) * _CHECKPOINT :]:
            for key, size, tokens, truncated in share:
                _add(current, key, size, tokens, truncated)
        self.current = current

    def append(self, message: Message, share: tuple[tuple[_Key, int, int, bool], ...]) -> None:
        self.messages.append(message)
        self.shares.append(share)
        for key, size, tokens, truncated in share:
            _add(self.current, key, size, tokens, truncated)
        if len(self.shares) % _CHECKPOINT == 0:
            self.totals.append(dict(self.current))


def _shared(old: list[Message], new: Sequence[Message]) -> int:
    """How many leading messages ``new`` repeats of ``old`` (the same object, or equal).

    A conversation that repeats the one counted last and adds to it (the usual case) is found
    by one comparison, which checks each message by identity first.
    """
    held = len(old)
    if len(new) >= held and old == list(new[:held]):
        return held
    shared = 0
    for a, b in zip(old, new, strict=False):
        if a is not b and a != b:
            break
        shared += 1
    return shared


def _extended(tally: _Tally, messages: Sequence[Message], prefix: int) -> int:
    """How many of ``tally``'s messages lead ``messages[prefix:]``. A request that repeats the
    one counted last and adds to it (the usual case) is found by one comparison with that
    request (none when it grew from it: ``chain.shared_prefix``)."""
    last = tally.request or ()
    held = len(tally.messages)
    extends = bool(last) and len(last) == prefix + held and len(messages) >= len(last)
    if extends and shared_prefix(last, messages) == len(last):
        return held
    return _shared(tally.messages, messages[prefix:])


class CountedSources(Sequence[SourceTokens]):
    """A request's per-source rows (``SourceCounter.count``), counted when first read.

    Most requests' rows are never shown (the panel shows the latest request's), and counting
    them on every request was a tenth of a turn's engine work; the counter gives the same rows
    whenever it is asked.
    """

    __slots__ = ("_count", "_rows")

    def __init__(self, counter: SourceCounter, model: str, parts: RequestParts, raw: int) -> None:
        self._count: tuple[SourceCounter, str, RequestParts, int] | None = (
            counter,
            model,
            parts,
            raw,
        )
        self._rows: tuple[SourceTokens, ...] = ()

    @property
    def rows(self) -> tuple[SourceTokens, ...]:
        """The rows, counted now if they were not yet."""
        count = self._count
        if count is not None:
            counter, model, parts, raw = count
            self._rows = counter.count(model, parts, raw)
            self._count = None  # the request's parts are not held any longer
        return self._rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: Any) -> Any:
        return self.rows[index]

    def __iter__(self) -> Iterator[SourceTokens]:
        return iter(self.rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self.rows == tuple(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.rows)


class SourceCounter:
    """Counts what each source of a request costs (``count``), remembering the
    conversation it counted last, so a request that repeats it costs one count per new message.

    Thread-safe (the app's dry run is counted in a worker thread while a run may count its own
    request).

    Args:
        counter: the estimator whose cache holds every count.
    """

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._lock = threading.Lock()
        self._tally: _Tally | None = None
        self._prefix: tuple[str, Sequence[ContextBlock], Sequence[Message], dict[_Key, _Row]] | None
        self._prefix = None
        """The block rows counted last, with the model, blocks and block messages they are of."""

    def count(self, model: str, parts: RequestParts, raw_tokens: int) -> tuple[SourceTokens, ...]:
        """What each source of a request costs, in request order.

        Rows: one per block (a message's framing goes to its first block), one per skill
        carried in an envelope of a user message (the driver's envelopes, split out of the
        conversation), ``conversation_summary`` for a summary, ``tool_results`` for the tool
        messages, ``conversation`` for the rest of the conversation, and ``tools`` for the tool
        definitions. Every message and every text
        is counted through the counter's cache, so the rows add up to ``raw_tokens``; the
        conversation counted last is remembered, so a new message costs one count.

        Args:
            model: the request's model (its tokenizer counts).
            parts: the request's messages, blocks and tool list.
            raw_tokens: the request's uncalibrated estimate (what the rows add up to).
        """
        with self._lock:
            counter, prefix = self.counter, parts.block_message_count
            rows = dict(self._block_rows(model, parts))
            tally = self._tally if self._tally is not None and self._tally.model == model else None
            if tally is None:
                tally = _Tally(model)
            tally.keep(_extended(tally, parts.messages, prefix))
            fresh = parts.messages[prefix + len(tally.messages) :]
            for message, count in zip(fresh, counter.message_tokens(model, fresh), strict=True):
                tally.append(message, self._share(model, message, count))
            tally.request = Chain.of(parts.messages)
            self._tally = tally
            for key, (size, tokens, truncated) in tally.current.items():
                _add(rows, key, size, tokens, truncated)
            if parts.tools_text:
                tools = counter.count_parts(model, (parts.tools_text,))[0]
                _add(rows, (TOOLS_SOURCE, "", ""), parts.tools_bytes, tools, False)
        counted = sum(tokens for _, tokens, _ in rows.values())
        sources = [
            SourceTokens(source, size, tokens, path, name, truncated)
            for (source, path, name), (size, tokens, truncated) in rows.items()
        ]
        if sources and counted != raw_tokens:
            # The heuristic's constant and what rounding each share down left over: mostly the
            # conversation's (a quarter token per message), so it goes there; on the first row
            # a long session's remainder read as thousands of preamble tokens.
            where = next(
                (i for i, row in enumerate(sources) if row.source == _CONVERSATION),
                0,
            )
            row = sources[where]
            sources[where] = msgspec.structs.replace(row, tokens=row.tokens + raw_tokens - counted)
        return tuple(sources)

    def _block_rows(self, model: str, parts: RequestParts) -> dict[_Key, _Row]:
        """Each block's row; a message's framing goes to its first block. The same blocks and
        block messages as last time (the static prefix, reused by identity) give the same rows."""
        block_messages = parts.messages[: parts.block_message_count]
        last = self._prefix
        if (
            last is not None
            and last[0] == model
            and last[1] is parts.blocks
            and len(last[2]) == len(block_messages)
            and all(a is b for a, b in zip(last[2], block_messages, strict=True))
        ):
            return last[3]
        rows: dict[_Key, _Row] = {}
        counts = self.counter.message_tokens(model, block_messages)
        self._blocks(rows, model, parts, counts)
        self._prefix = (model, parts.blocks, tuple(block_messages), rows)
        return rows

    def _blocks(
        self, rows: dict[_Key, _Row], model: str, parts: RequestParts, counts: Sequence[int]
    ) -> None:
        """Each block's row; a message's framing goes to its first block."""
        by_message: dict[int, list[ContextBlock]] = {}
        placed = block_message_indexes(parts.blocks)
        for block, index in zip(parts.blocks, placed, strict=True):
            if 0 <= index < len(counts):
                by_message.setdefault(index, []).append(block)
        for index, blocks in sorted(by_message.items()):
            tokens = self.counter.count_parts(model, [block.content for block in blocks])
            framing = counts[index] - sum(tokens)
            for number, (block, count) in enumerate(zip(blocks, tokens, strict=True)):
                key = (str(block.source), block.path, "")
                extra = framing if number == 0 else 0
                _add(rows, key, block.byte_size, count + extra, block.truncated)

    def _share(
        self, model: str, message: Message, count: int
    ) -> tuple[tuple[_Key, int, int, bool], ...]:
        """One conversation message's rows: its skill envelopes, then the rest of it (a tool
        message's in the tool results' row)."""
        share: list[tuple[_Key, int, int, bool]] = []
        size = message.prompt_bytes
        if message.role == "user" and message.content.startswith(_DRIVER_OPENINGS):
            envelopes = split_skill_blocks(message.content)[1]
            tokens = self.counter.count_parts(model, [envelope.text for envelope in envelopes])
            for envelope, envelope_tokens in zip(envelopes, tokens, strict=True):
                envelope_bytes = utf8_len(envelope.text)
                key = (str(ContextSource.SKILL), "", envelope.name)
                cut = TRUNCATION_MARKER in envelope.body
                share.append((key, envelope_bytes, envelope_tokens, cut))
                size -= envelope_bytes
                count -= envelope_tokens
        share.append((_KEY_OF_ROLE.get(message.role, _CONVERSATION_KEY), size, count, False))
        return tuple(share)
