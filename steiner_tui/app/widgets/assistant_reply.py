"""An assistant reply: Markdown that grows as the reply streams, marked when interrupted.

Deltas go through Textual's ``MarkdownStream``, which batches fragments that arrive faster than
the widget can render, so a fast provider never queues thousands of partial re-renders.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, Markdown
from textual.widgets.markdown import MarkdownStream

from steiner_tui.app.transcript import ReplyEntry

__all__ = ["AssistantReply"]


class AssistantReply(Vertical):
    """One reply (display only); ``-interrupted`` shows the badge."""

    def __init__(self, entry: ReplyEntry) -> None:
        super().__init__(classes="conversation-item")
        self.entry = entry
        """The entry shown (its text grows while streaming)."""
        self._stream: MarkdownStream | None = None
        self.set_class(entry.interrupted, "-interrupted")

    def compose(self) -> ComposeResult:
        yield Label("interrupted", classes="badge -interrupted-badge")
        yield Markdown(self.entry.text)

    async def append(self, text: str) -> None:
        """Add a streamed fragment."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self.query_one(Markdown))
        await self._stream.write(text)

    async def finish(self, interrupted: bool) -> None:
        """The reply is complete (or was cut off): flush the stream and mark it."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self.set_class(interrupted, "-interrupted")
