"""An assistant reply in the conversation: Textual's ``Markdown``, focusable (Tab, a click) so
that ``p`` pins it, with its marks (interrupted by Esc, pinned) in its top border's title.

A streaming reply is fed through ``Markdown.get_stream`` (``ReplyStream``): its entry holds
the whole text, so a widget made while it streams starts from it.

A reply is the whole assistant message: pinning a "decision in a reply" pins that message, text
and tool calls together (docs/design.md, "8. Compaction: turns, stages and the summary").

Speed: ``textual.widgets.Markdown`` is looked up when the first reply is made (here and in
``conversation``), so a new session's first frame does not load the Markdown parser (about 5 %
of it): issue 16's 1.5x first frame was missed without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import widgets
from textual.widget import Widget

from steiner_tui.app.plain import printable
from steiner_tui.app.transcript import ReplyEntry

if TYPE_CHECKING:
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownStream

__all__ = [
    "INTERRUPTED_BADGE",
    "PIN_MARK",
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
    reply = widgets.Markdown(printable(entry.text), classes=f"conversation-item {REPLY_CLASS}")
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


class ReplyStream:
    """The reply streaming now: its entry, and the stream that feeds its widget."""

    def __init__(self) -> None:
        self.entry: ReplyEntry | None = None
        """The reply streaming (None: none is)."""
        self._fed: tuple[Markdown, MarkdownStream] | None = None

    async def write(self, text: str, widget: Widget | None) -> None:
        """Add ``text`` to the reply, and to its ``widget`` (None: not shown; its widget
        starts from the whole text when it is)."""
        assert self.entry is not None
        self.entry.text += text
        if widget is None:
            return
        if self._fed is None or self._fed[0] is not widget:
            await self.stop()
            assert isinstance(widget, widgets.Markdown)
            # A widget made while the reply streamed already holds the text before this fragment.
            written = widget.source
            self._fed = (widget, widgets.Markdown.get_stream(widget))
            text = self.entry.text[len(written) :]
        await self._fed[1].write(text)

    async def stop(self, leaving: list[Widget] | None = None) -> None:
        """Stop feeding the widget (it keeps what it has); ``leaving``: only if it is one of
        these widgets."""
        fed = self._fed
        if fed is not None and (leaving is None or fed[0] in leaving):
            self._fed = None
            await fed[1].stop()

    async def end(self, interrupted: bool, key: str) -> ReplyEntry | None:
        """The reply is complete, or was cut off (``key``: the pin key of the stored message);
        returns its entry (None: no reply was streaming)."""
        entry, self.entry = self.entry, None
        if entry is not None:
            await self.stop()
            entry.streaming, entry.interrupted, entry.key = False, interrupted, key
        return entry
