"""An assistant reply in the conversation: Textual's ``Markdown``, focusable (Tab, a click) so
that ``p`` pins it, with its marks (interrupted by Esc, pinned) in its top border's title.

A streaming reply is fed to its widget by ``MarkdownFeed`` (``ReplyStream``): its entry holds
the whole text, so a widget made while it streams starts from it. Not ``Markdown.get_stream``:
each ``Markdown.append`` parses the last block again, and a fence re-highlights all its lines,
so a model writing a 1,000-line file in a code block made every append cost more than the one
before; Textual's stream starts the next append as soon as one ends, and the app froze (stock
Textual too: 35 s of processor time for that fence). ``MarkdownFeed`` merges what arrived
meanwhile, as Textual's stream does, and rests after each append ``REST`` times as long as it
took, so appends take at most a third of the UI thread and keys and frames go on between them.
Its ``Markdown`` is ``reply_markdown.ReplyMarkdown``: a long code block or list costs what
changed, not all of it again, at each append.

A reply is the whole assistant message: pinning a "decision in a reply" pins that message, text
and tool calls together (docs/design.md, "8. Compaction: turns, stages and the summary").

Speed: ``textual.widgets.Markdown`` is looked up when the first reply is made (here and in
``conversation``), so a new session's first frame does not load the Markdown parser (about 5 %
of it): issue 16's 1.5x first frame was missed without it.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import suppress
from typing import TYPE_CHECKING

from textual import widgets
from textual.widget import Widget

from steiner_tui.app.plain import printable
from steiner_tui.app.transcript import ReplyEntry

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from textual.widgets import Markdown

__all__ = [
    "INTERRUPTED_BADGE",
    "PIN_MARK",
    "MarkdownFeed",
    "ReplyStream",
    "mark_reply",
    "reply_widget",
]

INTERRUPTED_BADGE = "interrupted"
"""The border title of a reply cut off by Esc."""
PIN_MARK = "◆ pinned"
"""The mark of a pinned entry (a reply's border title, the first line of the others)."""
REPLY_CLASS = "reply"
"""The class of every reply's widget."""


def reply_widget(entry: ReplyEntry, pinned: bool = False) -> Markdown:
    """The widget that shows ``entry``."""
    # Here, not at the top: it loads Textual's Markdown (the docstring's "Speed").
    from steiner_tui.app.widgets.reply_markdown import ReplyMarkdown

    reply = ReplyMarkdown(printable(entry.text), classes=f"conversation-item {REPLY_CLASS}")
    reply.can_focus = True  # as ``MarkdownViewer`` makes its document focusable
    if entry.interrupted or pinned:
        mark_reply(reply, interrupted=entry.interrupted, pinned=pinned)
    return reply


def mark_reply(widget: Widget, *, interrupted: bool, pinned: bool) -> None:
    """Show the reply's marks: interrupted (the error colour), pinned (the accent)."""
    widget.set_class(interrupted, "-interrupted")
    widget.set_class(pinned, "-pinned")
    marks = [mark for mark, on in ((PIN_MARK, pinned), (INTERRUPTED_BADGE, interrupted)) if on]
    widget.border_title = " · ".join(marks) or None


REST = 2.0
"""After an append, the feed rests this many times as long as the append took."""
MAX_REST = 1.0
"""The longest rest, in seconds: a huge block still grows on screen every second or so."""


class MarkdownFeed:
    """Text appended to a ``Markdown`` widget, one append at a time, resting after each in
    proportion to what it cost (module docstring)."""

    def __init__(
        self,
        widget: Markdown,
        clock: Callable[[], float] = time.perf_counter,
        rest: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.widget = widget
        self._clock, self._rest = clock, rest
        self._pending: list[str] = []
        self._arrived = asyncio.Event()
        self._appending: asyncio.Future[None] | None = None
        self._task = asyncio.create_task(self._run())

    def write(self, text: str) -> None:
        """Queue ``text`` for the next append."""
        if text:
            self._pending.append(text)
            self._arrived.set()

    async def _run(self) -> None:
        while True:
            await self._arrived.wait()
            self._arrived.clear()
            start = self._clock()
            await asyncio.shield(self._append())
            await self._rest(min(MAX_REST, REST * (self._clock() - start)))

    def _append(self) -> asyncio.Future[None]:
        text = "".join(self._pending)
        self._pending.clear()
        # The append runs to its end even when the feed stops meanwhile.
        self._appending = asyncio.ensure_future(self.widget.append(text))
        return self._appending

    async def stop(self) -> None:
        """Append what is still queued now, after the append under way, and stop."""
        self._task.cancel()
        with suppress(asyncio.CancelledError):
            await self._task
        if self._appending is not None:
            await self._appending
        if self._pending:
            await self._append()


class ReplyStream:
    """The reply streaming now: its entry, and the stream that feeds its widget."""

    def __init__(self) -> None:
        self.entry: ReplyEntry | None = None
        """The reply streaming (None: none is)."""
        self._fed: MarkdownFeed | None = None

    async def write(self, text: str, widget: Widget | None) -> None:
        """Add ``text`` to the reply, and to its ``widget`` (None: not shown; its widget
        starts from the whole text when it is)."""
        assert self.entry is not None
        self.entry.text += text
        if widget is None:
            return
        if self._fed is None or self._fed.widget is not widget:
            await self.stop()
            assert isinstance(widget, widgets.Markdown)
            # A widget made while the reply streamed already holds the text before this fragment.
            written = widget.source
            self._fed = MarkdownFeed(widget)
            text = self.entry.text[len(written) :]
        self._fed.write(text)

    async def stop(self, leaving: list[Widget] | None = None) -> None:
        """Stop feeding the widget (it keeps what it has); ``leaving``: only if it is one of
        these widgets."""
        fed = self._fed
        if fed is not None and (leaving is None or fed.widget in leaving):
            self._fed = None
            await fed.stop()

    async def end(self, interrupted: bool, key: str) -> ReplyEntry | None:
        """The reply is complete, or was cut off (``key``: the pin key of the stored message);
        returns its entry (None: no reply was streaming)."""
        entry, self.entry = self.entry, None
        if entry is not None:
            await self.stop()
            entry.streaming, entry.interrupted, entry.key = False, interrupted, key
        return entry
