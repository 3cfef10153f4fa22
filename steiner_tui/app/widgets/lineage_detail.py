"""The lineage browser's detail panes for the generation on show.

``GenerationSummary`` renders the summary as Markdown; ``GenerationFacts`` lists the retained
turns (role and first line), the pinned messages, the replayed skills, and the facts the
summary dropped. Both hold
a ``GenerationView`` reactive that the screen binds; they only display it.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Markdown, Static

from steiner_tui.app.widgets.inspector_format import message_line
from steiner_tui.app.widgets.lineage_view import GenerationView
from steiner_tui.engine.compaction.diff import DroppedFacts
from steiner_tui.engine.messages import Message

__all__ = ["GenerationFacts", "GenerationSummary"]

_MAX_TURNS = 200
_NO_SUMMARY = "*Generation 0 is the start of the session: it has no summary.*"


class GenerationSummary(VerticalScroll):
    """The summary that opens the generation, as Markdown."""

    view: reactive[GenerationView | None] = reactive(None)
    """The generation on show (None before the screen picks one)."""

    def compose(self) -> ComposeResult:
        yield Markdown(id="summary")

    async def watch_view(self, view: GenerationView | None) -> None:
        if view is None:
            return
        text = view.parts.summary.strip()
        if not text:
            text = _NO_SUMMARY if view.previous_id is None else "*This generation has no summary.*"
        self.border_title = f"Summary · generation {view.generation.id}"
        await self.query_one("#summary", Markdown).update(text)
        self.scroll_home(animate=False)


def _turns(messages: Sequence[Message]) -> Content:
    if not messages:
        return Content.from_markup("[$text-muted]No retained turns.")
    lines = [
        Content.assemble((f"{m.role:<10}", "bold"), message_line(m, 200))
        for m in messages[:_MAX_TURNS]
    ]
    if len(messages) > _MAX_TURNS:
        lines.append(Content.from_markup("[$text-muted]… $n more", n=len(messages) - _MAX_TURNS))
    return Content("\n").join(lines)


def _dropped(dropped: DroppedFacts, previous_id: int | None) -> Content:
    if previous_id is None:
        return Content.from_markup("[$text-muted]The first generation has nothing to compare.")
    if dropped.empty:
        return Content.from_markup(
            "[$text-muted]Nothing dropped: every path, command and number of generation "
            "$id is still present.",
            id=previous_id,
        )
    lines: list[Content] = []
    for title, items in (
        ("Paths", dropped.paths),
        ("Commands", dropped.commands),
        ("Numbers", dropped.numbers),
    ):
        if not items:
            continue
        lines.append(Content.styled(f"{title} ({len(items)})", "bold"))
        if title == "Numbers":
            lines.append(Content("  " + " · ".join(items)))
        else:
            lines.extend(Content(f"  {item}") for item in items)
    return Content("\n").join(lines)


class GenerationFacts(VerticalScroll):
    """Retained turns, replayed skills and dropped facts of the generation on show."""

    view: reactive[GenerationView | None] = reactive(None, recompose=True)
    """The generation on show (None before the screen picks one)."""

    def on_mount(self) -> None:
        self.border_title = "Kept and dropped"

    def compose(self) -> ComposeResult:
        view = self.view
        if view is None:
            return
        parts = view.parts
        yield Static(f"Retained turns ({len(parts.retained)})", classes="section-title")
        yield Static(_turns(parts.retained), id="retained", classes="section-body")
        yield Static(f"Pinned ({len(view.pinned)})", classes="section-title")
        pinned = "\n".join(view.pinned) or "none (/pin N pins a message)"
        yield Static(Content(pinned), id="pinned", classes="section-body")
        yield Static(f"Replayed skills ({len(parts.replayed_skills)})", classes="section-title")
        skills = ", ".join(parts.replayed_skills) or "none"
        yield Static(Content(skills), id="replayed", classes="section-body")
        since = "" if view.previous_id is None else f" since generation {view.previous_id}"
        yield Static(f"Dropped by the summary{since}", classes="section-title")
        yield Static(_dropped(view.dropped, view.previous_id), id="dropped", classes="section-body")
