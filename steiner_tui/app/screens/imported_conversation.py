"""An imported session's conversation beside its tokens-per-request chart, read-only.

The workbench's view of an import: the conversation pane holds the transcript's latest
generation (``importers.transcript``: the summary of the last compaction, then the person's
messages, the replies, and each tool call with its result) and the side shows the session's
tokens-per-request chart (``RequestChart``, every compaction marked) under its figures. The
transcript is read off the UI thread when the screen opens; nothing can be sent from here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path, PurePath
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from steiner_tui.app.screens.panel_layout import MIN_CONVERSATION
from steiner_tui.app.screens.readonly_figures import (
    import_chart_view,
    import_window,
    window_label,
)
from steiner_tui.app.transcript import Entry, NoticeEntry, ReplyEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.context_charts import RequestChart
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.inspector_format import HEADER_ICON
from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides
from steiner_tui.importers.figures import chart_rows
from steiner_tui.importers.transcript import TranscriptItem, read_conversation
from steiner_tui.resources import styles_dir
from steiner_tui.units import counted

__all__ = ["ImportedConversation"]


def import_entries(items: list[TranscriptItem]) -> list[Entry]:
    """The conversation pane's entries for a transcript's items (text, never markup)."""
    entries: list[Entry] = []
    for index, item in enumerate(items):
        if item.kind == "summary":
            entries.append(NoticeEntry("conversation summary (earlier turns were compacted)"))
            if item.text:
                entries.append(ReplyEntry(item.text))
        elif item.kind == "user":
            entries.append(UserEntry(item.text))
        elif item.kind == "reply":
            entries.append(ReplyEntry(item.text))
        else:
            target = item.target.splitlines()[0] if item.target else ""
            entries.append(
                ToolEntry(
                    item.call_id or f"call-{index}",
                    item.tool,
                    f"{item.tool} {target}".strip(),
                    "done" if item.done else "running",
                    item.output,
                )
            )
    return entries


def _finished(old: Entry, new: Entry) -> bool:
    """Whether ``new`` is the tool call ``old`` with its result since written."""
    return (
        isinstance(old, ToolEntry)
        and isinstance(new, ToolEntry)
        and (old.call_id, old.name, old.summary) == (new.call_id, new.name, new.summary)
    )


class ImportedConversation(Screen[None]):
    """An import's latest generation, with its chart."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [
        styles_dir() / "main.tcss",
        styles_dir() / "imported.tcss",
    ]
    TITLE = "Imported conversation"
    AUTO_FOCUS = "#conversation"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (MIN_CONVERSATION + 56, "-wide")]  # noqa: RUF012
    """Below a 60-column conversation beside the 56-column chart, the two are stacked."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back", id="imported_conversation.close",
                tooltip="Back to the session's requests"),
    ]  # fmt: skip
    """Escape or q closes."""

    def __init__(
        self,
        session: dict[str, Any],
        prices: PriceOverrides = NO_OVERRIDES,
        *,
        following: bool = False,
    ) -> None:
        super().__init__()
        self.session = session
        self.prices = prices
        """The config's prices by model id (before the table)."""
        if following:  # the transcript grows as the agent writes it (``watch``)
            self.title = "Following conversation"
        self.sub_title = f"{session.get('source', '')} {session.get('id', '')} · read-only"

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield ConversationPane(id="conversation", followed=True)
        with Vertical(id="imported-side"):
            yield Static(id="imported-side-summary", markup=False)
            yield RequestChart(id="imported-side-chart")
        yield Footer()

    def on_mount(self) -> None:
        self._figures()
        self.load()

    def follow(self, session: dict[str, Any]) -> None:
        """The followed transcript grew (``watch``): its figures and conversation again."""
        self.session = session
        self._figures()
        self.load()

    def _figures(self) -> None:
        requests = self.session.get("requests") or []
        generations = self.session.get("generations") or []
        model = str(requests[-1]["model"]) if requests else ""
        window = import_window(self.session)
        chart = self.query_one(RequestChart)
        chart.view = import_chart_view(
            chart_rows(requests, generations, window.tokens, self.prices), window
        )
        shown = window_label(window)
        compactions = counted(len(generations), "compaction")
        self.query_one("#imported-side-summary", Static).update(
            Text(
                f"{counted(len(requests), 'request')} · {compactions} · "
                f"{model or 'model not recorded'} · {shown}"
            )
        )

    @work(exclusive=True, group="imported-conversation")
    async def load(self) -> None:
        """Read the transcript's latest generation (off the UI thread) and show it."""
        path = Path(str(self.session.get("path", "")))
        source = str(self.session.get("source", ""))
        pane = self.query_one(ConversationPane)
        try:
            items = await asyncio.to_thread(read_conversation, path, source)
        except OSError as error:
            await pane.load([NoticeEntry(f"cannot read {path}: {error}", kind="error")])
            return
        entries = import_entries(items)
        shown = pane.entries
        grown = len(entries) >= len(shown) and all(
            new == old or _finished(old, new) for old, new in zip(shown, entries, strict=False)
        )
        if not grown or not shown:  # a compaction started a generation: the new one whole
            await pane.load(entries)
            return
        # A followed transcript grew: what is shown stays where the reader left it.
        for old, new in zip(shown, entries, strict=False):
            if new != old and isinstance(new, ToolEntry):
                pane.tool_finished(new.call_id, new.status, new.output)
        for entry in entries[len(shown) :]:
            await pane.add(entry)

    def action_close(self) -> None:
        self.dismiss(None)
