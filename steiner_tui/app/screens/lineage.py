"""The lineage browser: every compaction generation of the session, and why each one exists.

A table lists the generations (time, stages, tokens before and after, summary model, fallback,
health); the highlighted one shows its summary as Markdown, its retained turns, the skills
compaction replayed, and the paths, commands and numbers its summary dropped. ``h`` opens the
history archive, where the summarized turns are kept word for word.

The screen renders the lineage it is given; it never changes it.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from steiner_tui.app.widgets.inspector_format import HEADER_ICON
from steiner_tui.app.widgets.lineage_detail import GenerationFacts, GenerationSummary
from steiner_tui.app.widgets.lineage_table import GenerationTable
from steiner_tui.app.widgets.lineage_view import GenerationView, build_generation_view
from steiner_tui.app.widgets.text_lines import TextLines
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.plain import one_line
from steiner_tui.resources import styles_dir
from steiner_tui.sessions.history_archive import read_history_file
from steiner_tui.units import counted

__all__ = ["HISTORY_RETURN", "NO_HISTORY_NOTICE", "LineageScreen"]

HISTORY_RETURN = "h or Esc to return"
"""The history view's subtitle once the archive is all there."""
NO_HISTORY_NOTICE = "No history archive yet: it is written when compaction first summarizes turns."


class LineageScreen(Screen[None]):
    """Browse the generations of a conversation lineage."""

    CSS_PATH = styles_dir() / "lineage.tcss"
    TITLE = "Lineage"
    AUTO_FOCUS = "#generations"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "close",
            "Back",
            id="lineage.close",
            tooltip="Close the history archive, or return to the conversation",
        ),
        Binding(
            "q",
            "close",
            "Back",
            show=False,
            id="lineage.quit",
            tooltip="Return to the conversation",
        ),
        Binding(
            "h",
            "toggle_history",
            "History",
            id="lineage.history",
            tooltip="Open history.md: every summarized turn, word for word",
        ),
    ]
    """Escape/q close; h toggles the history archive."""

    view: reactive[GenerationView | None] = reactive(None)
    """The generation on show, bound into the detail panes."""
    history_open: reactive[bool] = reactive(False, toggle_class="-history")
    """Whether the history archive covers the browser."""

    def __init__(self, lineage: ConversationLineage, history_path: Path | None = None) -> None:
        super().__init__()
        self.lineage = lineage
        self.history_path = history_path
        self._views: dict[int, GenerationView] = {}
        count = len(lineage.generations)
        self.sub_title = counted(count, "generation")

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield GenerationTable(id="generations")
        yield Static(id="generation-heading", markup=False)
        with Horizontal(id="lineage-body"):
            yield GenerationSummary(id="summary-pane").data_bind(LineageScreen.view)
            yield GenerationFacts(id="facts-pane").data_bind(LineageScreen.view)
        yield TextLines(id="history")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(GenerationTable).show_lineage(self.lineage)

    @on(DataTable.RowHighlighted, "#generations")
    def _show_generation(self, event: DataTable.RowHighlighted) -> None:
        self.show_generation(event.cursor_row)

    def show_generation(self, index: int) -> None:
        """Show ``lineage.generations[index]`` in the detail panes."""
        if not 0 <= index < len(self.lineage.generations):
            return
        view = self._views.get(index)
        if view is None:
            self._build_view(index)
        else:
            self._adopt(view)

    @work(exclusive=True, group="lineage-view")
    async def _build_view(self, index: int) -> None:
        # The diff reads every message of two generations: off the UI thread, so that
        # moving through a long lineage never waits for it.
        view = await asyncio.to_thread(build_generation_view, self.lineage, index)
        self._views[index] = view
        if self.query_one(GenerationTable).cursor_row == index:
            self._adopt(view)

    def _adopt(self, view: GenerationView) -> None:
        self.view = view
        self.query_one("#generation-heading", Static).update(view.heading)

    def action_close(self) -> None:
        """Close the history archive if open, else leave the browser."""
        if self.history_open:
            self.history_open = False
            self.query_one(GenerationTable).focus()
        else:
            self.dismiss(None)

    def action_toggle_history(self) -> None:
        """Open (or close) history.md; say so clearly when there is none yet."""
        if self.history_open:
            self.action_close()
            return
        path = self.history_path
        if path is None or not path.is_file():
            self.notify(NO_HISTORY_NOTICE, title="History", severity="warning")
            return
        self._load_history(path)

    @work(exclusive=True, group="lineage-history")
    async def _load_history(self, path: Path) -> None:
        history = self.query_one("#history", TextLines)
        history.border_title = Content(f"History archive · {one_line(path.name)}")
        history.border_subtitle = f"loading {path.name}… · {HISTORY_RETURN}"
        self.history_open = True
        history.focus()
        try:
            # The view's width: its border, padding and scrollbar.
            await history.show(partial(read_history_file, path), self.size.width - 6)
        except OSError as error:
            self.history_open = False
            self.notify(f"Cannot read {path}: {error}", title="History", severity="error")
            return
        history.border_subtitle = HISTORY_RETURN
