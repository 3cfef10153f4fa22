"""An assistant reply: Markdown that grows as the reply streams, marked when interrupted.

The reply is one widget drawing a ``MarkdownVisual`` (the Markdown laid out as lines, cached per
width), not Textual's ``Markdown`` widget with a child widget per block: a long conversation
mounts and scrolls through many replies, and each child widget costs time on every mount and
every frame. Streamed fragments only mark the reply for a new layout; the text is parsed again
once per painted frame at most, however fast fragments arrive. The "interrupted" mark is the
border title.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.selection import Selection
from textual.widget import Widget

from steiner_tui.app.transcript import ReplyEntry
from steiner_tui.app.widgets.reply_markdown import MarkdownVisual, shared_visual

__all__ = ["INTERRUPTED_BADGE", "AssistantReply"]

INTERRUPTED_BADGE = "interrupted"


class AssistantReply(Widget):
    """One reply (display only); ``-interrupted`` shows the badge."""

    DEFAULT_CSS = """
    AssistantReply {
        height: auto;
        text-wrap: nowrap;
        text-overflow: clip;
    }
    """

    def __init__(self, entry: ReplyEntry) -> None:
        interrupted = " -interrupted" if entry.interrupted else ""
        super().__init__(classes=f"conversation-item{interrupted}")
        self.entry = entry
        """The entry shown (its text grows while streaming)."""
        self._visual: MarkdownVisual | None = None
        if entry.interrupted:
            self.border_title = INTERRUPTED_BADGE

    @property
    def source(self) -> str:
        """The Markdown shown."""
        return self.entry.text

    def _mark(self, interrupted: bool) -> None:
        self.set_class(interrupted, "-interrupted")
        self.border_title = INTERRUPTED_BADGE if interrupted else None

    def render(self) -> MarkdownVisual:
        """The laid-out Markdown (laid out again when the text or the theme's darkness changed)."""
        dark = self.app.current_theme.dark
        visual = self._visual
        if visual is None or visual.source != self.entry.text or visual.dark != dark:
            text = self.entry.text
            # A streaming reply's text changes with every fragment: its visuals are its own.
            make = MarkdownVisual if self.entry.streaming else shared_visual
            visual = self._visual = make(text, dark=dark)
        return visual

    def notify_style_update(self) -> None:
        """A theme change may switch between the dark and light styles."""
        super().notify_style_update()
        if self._visual is not None and self._visual.dark != self.app.current_theme.dark:
            self.refresh(layout=True)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """A reply fills its column."""
        return container.width

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, as drawn."""
        text = self.render().selected_text(selection, self.content_size.width)
        return None if text is None else (text, "\n")

    async def stream_text(self, text: str) -> None:
        """Add a streamed fragment (the entry's text already holds it): lay out again."""
        if self._visual is not None and self._visual.source != self.entry.text:
            self.refresh(layout=True)

    async def finish(self, interrupted: bool) -> None:
        """The reply is complete (or was cut off): mark it."""
        await self.stream_text("")
        self._mark(interrupted)
