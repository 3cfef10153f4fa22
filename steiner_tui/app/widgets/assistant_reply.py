"""An assistant reply: Markdown that grows as the reply streams, marked when interrupted.

Deltas go through Textual's ``MarkdownStream``, which batches fragments that arrive faster than
the widget can render, so a fast provider never queues thousands of partial re-renders. The
reply is the ``Markdown`` widget itself (no wrapper), and the "interrupted" mark is its border
title, to keep the widget count per reply low in long conversations.
"""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from steiner_tui.app.transcript import ReplyEntry

__all__ = ["INTERRUPTED_BADGE", "AssistantReply"]

INTERRUPTED_BADGE = "interrupted"


class AssistantReply(Markdown):
    """One reply (display only); ``-interrupted`` shows the badge."""

    def __init__(self, entry: ReplyEntry) -> None:
        super().__init__(entry.text, classes="conversation-item")
        self.entry = entry
        """The entry shown (its text grows while streaming)."""
        self._stream: MarkdownStream | None = None
        self._mark(entry.interrupted)

    def _mark(self, interrupted: bool) -> None:
        self.set_class(interrupted, "-interrupted")
        self.border_title = INTERRUPTED_BADGE if interrupted else None

    async def stream_text(self, text: str) -> None:
        """Add a streamed fragment."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(text)

    async def finish(self, interrupted: bool) -> None:
        """The reply is complete (or was cut off): flush the stream and mark it."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self._mark(interrupted)
