"""One request in detail: its figures, its context blocks in order, and its messages.

Everything shown comes from the ``RequestSnapshot`` as recorded before the call, or, for a
resumed session's earlier request, from what its log keeps (``LoggedRequest``: no blocks, tools,
per-source counts or estimate confidence, and only the messages whose hash the log holds; each
gap says "not recorded"); nothing is re-estimated or re-assembled here. The messages table
shows the newest ``MESSAGE_PAGE`` messages (a first row brings in the ones before), each
message's first line as wide as the table allows (the hash and bytes give way for it on a
narrow screen); Enter on a message opens it whole.
"""

from __future__ import annotations

from pathlib import Path

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message as TextualMessage
from textual.reactive import reactive
from textual.widgets import DataTable, Static

from steiner_tui.app.budget_view import source_label, sources_label
from steiner_tui.app.widgets.budget_text import strategy_label
from steiner_tui.app.widgets.inspector_format import (
    cell,
    clock,
    count,
    first_line,
    fit_columns,
    message_line,
    short_path,
)
from steiner_tui.app.widgets.row_table import RowTable
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message, messages_bytes
from steiner_tui.engine.prompt.blocks import block_message_indexes
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.engine.source_counts import conversation_source
from steiner_tui.plain import printable
from steiner_tui.sessions.earlier_requests import (
    NOT_RECORDED,
    InspectedRequest,
    LoggedRequest,
    request_sources,
)
from steiner_tui.sessions.log_parse import APP_STOPPED
from steiner_tui.units import cache_summary, dollars

__all__ = [
    "NOT_IN_LOG",
    "RequestDetail",
    "message_sources",
    "request_summary",
]

MESSAGE_PAGE = 200
"""Messages of one request in the table at a time (the newest; earlier ones on request)."""
EARLIER_MESSAGES = "earlier"
"""The row key of the "earlier messages" row."""
NOT_IN_LOG = "not recorded in the session log"
"""The first line of a logged request's message that the log does not hold."""
_USAGE_NAMES = ("prompt", "completion", "cache read", "cache write")
_LINE_ROOM = 24
"""The first lines' cells the hash, then the bytes, give way for (the table scrolls sideways
below)."""
_MESSAGE_COLUMNS = ("#", "Role", "Source", "Bytes", "Hash", "First line")
_GIVE_WAY = ("Hash", "Bytes")
_FRAME = 4
"""The messages table's border and scrollbar."""


def request_summary(snapshot: RequestSnapshot, *, dry_run: bool = False) -> str:
    """Three lines of figures: identity (``dry_run``: the next request's dry run, not sent);
    estimate and completion limit; sizes."""
    kind = " · compaction request" if snapshot.compaction else ""
    generation = f" · generation {snapshot.generation_id}" if snapshot.generation_id else ""
    tools = len(snapshot.tools)
    name = "Next request · dry run, not sent" if dry_run else f"Request #{snapshot.index}"
    return (
        f"{name} · {clock(snapshot.time, date=True)} · "
        f"{snapshot.model} ({snapshot.provider}){generation}{kind}\n"
        f"Estimate {count(snapshot.estimated_prompt_tokens)} tokens "
        f"(raw {count(snapshot.raw_prompt_tokens)} · {strategy_label(snapshot.estimate_strategy)}"
        f" · {snapshot.estimate_confidence} confidence)\n"
        f"Prompt {count(snapshot.prompt_bytes)} B · blocks {count(snapshot.blocks_bytes)} B · "
        f"tools {tools} ({count(snapshot.tools_bytes)} B) · max tokens "
        # Codex sends none (``max_output_tokens``): the server's own limit, not 0.
        f"{count(snapshot.max_tokens) if snapshot.max_tokens else 'not set'}"
        f"{_skills_line(snapshot)}"
    )


def _skills_line(snapshot: RequestSnapshot) -> str:
    """``\nSkills code-review 2,467 B (616 tok) · ...``: each skill the request carries, its
    envelopes summed as the panel's row sums them ("" when it carries none)."""
    sizes: dict[str, tuple[int, int]] = {}
    for source in snapshot.sources:
        if source.source == ContextSource.SKILL:
            name = source_label(source, Path()).removeprefix("skill · ")
            size, tokens = sizes.get(name, (0, 0))
            sizes[name] = (size + source.bytes, tokens + source.tokens)
    shown = [f"{name} {count(b)} B ({count(t)} tok)" for name, (b, t) in sizes.items()]
    return "\nSkills " + " · ".join(shown) if shown else ""


def money_summary(figures: RequestSummary | None) -> str:
    """``\nCost $0.17 · cache: <cause's words>; rewrote … ≈ $0.16`` once the request's usage
    came; for a request cancelled or failed before, that it was (and the error's words) and
    what of its reply is kept ("" before its usage came, and for a dry run)."""
    if figures is not None and (figures.cancelled or figures.error):
        streamed = figures.streamed_chars
        kept = (
            "a summary cut short is not kept"
            if figures.compaction
            else f"the {count(streamed)} characters of reply streamed are kept, marked interrupted"
            if streamed
            else "no reply had streamed"
        )
        stopped = figures.error == APP_STOPPED
        ended = "Cancelled by you" if figures.cancelled else "Stopped" if stopped else "Failed"
        unknown = (
            "cost and cache unknown"
            if figures.cost_usd is None
            else f"cost {dollars(figures.cost_usd)} (a free model), cache unknown"
        )
        line = f"\n{ended} before the provider reported usage: {unknown} · {kept}"
        return line + (f"\n{figures.error}" if figures.error else "")
    if figures is None or not figures.reported:
        return ""
    line = f"\nCost {dollars(figures.cost_usd)}"
    if figures.cache is not None:
        line += f" · cache: {cache_summary(figures.cache)}"
    return line


def logged_summary(request: LoggedRequest) -> str:
    """The figures of a request read from the session log: those ``request_summary`` shows
    that the log keeps, its reply's usage when logged, and what it does not keep."""
    kind = " · compaction request" if request.compaction else ""
    generation = f" · generation {request.generation_id}" if request.generation_id else ""
    usage = (
        " · ".join(
            f"{name} {count(v)}" for name, v in zip(_USAGE_NAMES, request.usage, strict=False)
        )
        if request.usage
        else "not recorded"
    )
    inexact = " · a damaged line precedes its record: may be inexact" if not request.exact else ""
    return (
        f"Request #{request.index} · {clock(request.time, date=True)} · "
        f"{request.model} ({request.provider}){generation}{kind} · from the session log{inexact}\n"
        f"Estimate {count(request.estimated_prompt_tokens)} tokens "
        f"(raw {count(request.raw_prompt_tokens)} · {strategy_label(request.estimate_strategy)}) · "
        f"max tokens {count(request.max_tokens)} · reply usage: {usage}\n"
        f"Prompt {count(request.prompt_bytes)} B · blocks {count(request.blocks_bytes)} B · "
        f"tools {count(request.tools_bytes)} B · not recorded: {', '.join(NOT_RECORDED)}"
    )


def message_sources(snapshot: InspectedRequest) -> tuple[str, ...]:
    """Per message, where it came from: the block sources merged into it (a logged request's
    block messages: ``blocks``), else the row the context panel counts it in
    (``source_counts.conversation_source``: tool results, the conversation summary or the
    conversation) when the request's figures have that row."""
    conversation = str(ContextSource.CONVERSATION)
    if isinstance(snapshot, LoggedRequest):
        sources = request_sources(snapshot)
    else:
        placed: dict[int, list[str]] = {}
        indexes = block_message_indexes(snapshot.blocks)
        for block, index in zip(snapshot.blocks, indexes, strict=True):
            if index >= 0 and block.source not in placed.setdefault(index, []):
                placed[index].append(block.source)
        sources = tuple(
            "+".join(placed[i])
            if i < snapshot.block_message_count and i in placed
            else conversation
            for i in range(len(snapshot.messages))
        )
    messages = snapshot.messages  # a logged request's: None where the log does not hold one
    first = snapshot.block_message_count
    # Only a row the request's own figures have (a captured request's are the capture's, by
    # bytes: a system message there is the agent's, not a summary).
    rows = {row.source for row in snapshot.sources} if isinstance(snapshot, RequestSnapshot) else ()
    labels = list(sources)
    for i in range(first, min(len(labels), len(messages))):
        if labels[i] == conversation:
            label = conversation_source(getattr(messages[i], "role", ""))
            labels[i] = label if not rows or label in rows else conversation
    return tuple(labels)


class RequestDetail(Vertical):
    """The figures, blocks and messages of the request on show."""

    snapshot: reactive[InspectedRequest | None] = reactive(None)
    """The request on show (None: nothing recorded yet)."""

    class MessageOpened(TextualMessage):
        """The person asked to read message ``number`` of the request on show in full."""

        def __init__(
            self,
            snapshot: InspectedRequest,
            number: int,
            message: Message,
            source: str,
            digest: str,
        ) -> None:
            self.snapshot = snapshot
            self.number = number
            self.message = message
            self.source = source
            self.digest = digest
            super().__init__()

    def __init__(self, *, id: str | None = None, dry_run: bool = False) -> None:
        super().__init__(id=id)
        self.dry_run = dry_run
        """The snapshots shown are the dry run of the next request (nothing sent yet)."""
        self.first_shown = 0
        """The number of the first message in the table."""
        self.figures: RequestSummary | None = None
        """The store's figures of the request on show (its cost and cache cause, once its
        usage came), set by the screen before ``snapshot``."""
        self._widths: dict[str, int] = {}
        self._fitted: tuple[list[str], int] = ([], 0)

    def compose(self) -> ComposeResult:
        yield Static(id="request-summary", markup=False)
        yield RowTable(id="blocks")
        yield RowTable(id="messages")

    def on_mount(self) -> None:
        blocks = self.query_one("#blocks", DataTable)
        blocks.border_title = "Blocks"
        blocks.add_columns("#", "Role", "Source", "Path", "Bytes", "Cut")
        messages = self.query_one("#messages", DataTable)
        messages.border_title = "Messages"
        messages.add_columns(*_MESSAGE_COLUMNS)

    def watch_snapshot(self, snapshot: InspectedRequest | None) -> None:
        blocks = self.query_one("#blocks", DataTable)
        messages = self.query_one("#messages", DataTable)
        blocks.clear()
        messages.clear()
        summary = self.query_one("#request-summary", Static)
        if snapshot is None:
            summary.update(
                "No request recorded yet: send a message and every request appears here."
            )
            return
        self.first_shown = max(0, len(snapshot.messages) - MESSAGE_PAGE)
        if isinstance(snapshot, LoggedRequest):
            # A logged request stopped before its usage came says so as a live one does.
            summary.update(printable(logged_summary(snapshot) + money_summary(self.figures)))
            self._fill_messages(snapshot)
            blocks.border_subtitle = f"not recorded · {count(snapshot.blocks_bytes)} B"
            messages.border_subtitle = (
                f"{len(snapshot.messages)} · {count(snapshot.prompt_bytes)} B · "
                f"{sum(m is None for m in snapshot.messages)} not recorded"
            )
            return
        summary.update(
            printable(request_summary(snapshot, dry_run=self.dry_run) + money_summary(self.figures))
        )
        for number, block in enumerate(snapshot.blocks):
            size = cell(count(block.byte_size))
            size.justify = "right"
            blocks.add_row(
                cell(number),
                cell(block.role),
                cell(sources_label(block.source)),
                cell(short_path(block.path) if block.path else "—"),
                size,
                cell("cut" if block.truncated else ""),
            )
        self._fill_messages(snapshot)
        blocks.border_subtitle = f"{len(snapshot.blocks)} · {count(snapshot.blocks_bytes)} B"
        messages.border_subtitle = f"{len(snapshot.messages)} · {count(snapshot.prompt_bytes)} B"

    def _fill_messages(self, snapshot: InspectedRequest) -> None:
        messages = self.query_one("#messages", DataTable)
        cursor = messages.cursor_row
        first = self.first_shown
        sources = [sources_label(s) for s in message_sources(snapshot)[first:]]
        rows = [
            (
                str(number),
                message.role if message is not None else "—",
                sources[number - first],
                count(messages_bytes([message])) if message is not None else "—",
                snapshot.message_hashes[number],
            )
            for number, message in enumerate(snapshot.messages[first:], first)
        ]
        # Columns as wide as their cells, set here rather than measured when the table is next
        # idle: the first lines take what the others leave.
        self._widths = {
            head: max([len(head), *(len(row[column]) for row in rows)])
            for column, head in enumerate(_MESSAGE_COLUMNS[:-1])
        }
        shown, width = self._fitted = self._fit(self.size.width)
        messages.clear(columns=True)
        for head in shown:
            messages.add_column(head, width=self._widths.get(head, width))
        if first:
            note = first_line(f"▲ {first:,} earlier messages · Enter shows them", width)
            messages.add_row(*(cell("") for _ in shown[:-1]), cell(note, "italic"),
                             key=EARLIER_MESSAGES)  # fmt: skip
        for row, message in zip(rows, snapshot.messages[first:], strict=True):
            named = zip(_MESSAGE_COLUMNS[:-1], row, strict=True)
            cells = [cell(value) for head, value in named if head in shown]
            if "Bytes" in shown:
                cells[shown.index("Bytes")].justify = "right"
            line = (
                cell(message_line(message, width))
                if message is not None
                else cell(first_line(NOT_IN_LOG, width), "italic")
            )
            messages.add_row(*cells, line, key=row[0])
        messages.move_cursor(row=cursor)

    def _fit(self, width: int) -> tuple[list[str], int]:
        widths = {**self._widths, _MESSAGE_COLUMNS[-1]: width}  # as wide as it is given
        return fit_columns(widths, width - _FRAME, _GIVE_WAY, _MESSAGE_COLUMNS[-1], _LINE_ROOM)

    def on_resize(self, event: events.Resize) -> None:
        """The first lines take the width the table has."""
        snapshot = self.snapshot
        if snapshot is not None and self._fit(event.size.width) != self._fitted:
            self._fill_messages(snapshot)

    @on(DataTable.RowSelected, "#messages")
    def _message_selected(self, event: DataTable.RowSelected) -> None:
        snapshot = self.snapshot
        key = event.row_key.value
        if snapshot is None or key is None:
            return
        event.stop()
        if key == EARLIER_MESSAGES:
            self.first_shown = max(0, self.first_shown - MESSAGE_PAGE)
            self._fill_messages(snapshot)
            return
        number = int(key)
        source = sources_label(message_sources(snapshot)[number])
        message, digest = snapshot.messages[number], snapshot.message_hashes[number]
        if message is None:  # the log does not hold it: nothing to open
            return
        self.post_message(self.MessageOpened(snapshot, number, message, source, digest))
