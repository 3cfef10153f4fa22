"""The lineage browser's detail panes for the generation on show.

``GenerationSummary`` shows the summary as text (``TextLines``: wrapped in a thread, drawn only
where it shows, so a summary of any length never stalls the loop); ``GenerationFacts`` lists
a compaction's sizes (before, after, and the summary's and the retained messages' part of
after, as the engine estimated them), the turns compaction retained (as they were when it ran)
apart from the messages sent since, what it masked, moved or cut to make room, the artifact
ledger its summary carries (what changed since the generation before, the whole ledger
folded), the pinned messages, the replayed skills, and the facts the summary dropped (paths,
commands and identifiers first; bare numbers collapsed). Both hold a ``GenerationView``
reactive that the screen binds; they only display it.

The summary pane renders the screen's latest view: updates are serialized and a view replaced
while its lines were still being wrapped is rendered again, so moving quickly through the
table never leaves the pane empty or showing another generation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Collapsible, Static

from steiner_tui.app.widgets.inspector_format import message_line
from steiner_tui.app.widgets.lineage_view import GenerationView, edit_line, sizes_lines
from steiner_tui.app.widgets.text_lines import TextLines
from steiner_tui.engine.compaction.diff import DroppedFacts
from steiner_tui.engine.messages import Message

__all__ = ["GenerationFacts", "GenerationSummary"]

_MAX_TURNS = 200
NUMBERS_SHOWN = 12
"""Numbers listed before the rest collapse (the ones that look like versions or sizes first)."""
_NO_SUMMARY = "Generation 0 is the start of the session: it has no summary."


class GenerationSummary(TextLines):
    """The summary that opens the generation, as text."""

    view: reactive[GenerationView | None] = reactive(None)
    """The generation on show (None before the screen picks one)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rendering = asyncio.Lock()
        self.rendered: GenerationView | None = None
        """The view whose summary the lines show (it trails ``view`` while they are made)."""
        self.source = ""
        """The text shown (before wrapping)."""

    async def watch_view(self) -> None:
        async with self._rendering:
            # The latest view, not the one this call was made for: a later call may be waiting.
            while (view := self.view) is not None and view is not self.rendered:
                text = view.parts.summary.strip()
                if not text:
                    none = "This generation has no summary."
                    text = _NO_SUMMARY if view.previous_id is None else none
                self.border_title = f"Summary · generation {view.generation.id}"
                self.border_subtitle = "loading…"
                # Before the first layout the pane has no width: 3 of the body's 5 parts, less
                # its border, padding and scrollbar.
                width = self.scrollable_content_region.width or self.app.size.width * 3 // 5 - 6
                self.source = text
                await self.show(text, width)
                self.border_subtitle = ""
                self.rendered = view


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


def _telling(number: str) -> bool:
    """A number worth reading on its own: a version, a dotted or thousands-separated figure."""
    return number.startswith("v") or "." in number or "," in number


def ordered_numbers(numbers: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The numbers listed (versions and separated figures first, then the rest, up to
    ``NUMBERS_SHOWN``) and the bare numbers collapsed after them."""
    ordered = [n for n in numbers if _telling(n)] + [n for n in numbers if not _telling(n)]
    return tuple(ordered[:NUMBERS_SHOWN]), tuple(ordered[NUMBERS_SHOWN:])


def _dropped(dropped: DroppedFacts, previous_id: int | None) -> Content:
    """Paths, commands and identifiers, one per line; then the first numbers on one line."""
    if previous_id is None:
        return Content.from_markup("[$text-muted]The first generation has nothing to compare.")
    if dropped.empty:
        return Content.from_markup(
            "[$text-muted]Nothing dropped: every path, command, identifier and number of "
            "generation $id is still present.",
            id=previous_id,
        )
    lines: list[Content] = []
    for title, items in (
        ("Paths", dropped.paths),
        ("Commands", dropped.commands),
        ("Identifiers", dropped.identifiers),
    ):
        if items:
            lines.append(Content.styled(f"{title} ({len(items)})", "bold"))
            lines.extend(Content(f"  {item}") for item in items)
    if dropped.numbers:
        shown, _ = ordered_numbers(dropped.numbers)
        lines.append(Content.styled(f"Numbers ({len(dropped.numbers)})", "bold"))
        lines.append(Content("  " + " · ".join(shown)))
    return Content("\n").join(lines)


def _edits(view: GenerationView) -> Content:
    outcome = view.generation.outcome
    edits = outcome.edits if outcome is not None else ()
    if not edits:
        return Content.from_markup("[$text-muted]Nothing masked or cut: the tail fitted.")
    return Content("\n").join(Content(edit_line(edit)) for edit in edits)


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
        compacted = view.generation.outcome is not None
        title = "Retained at compaction" if compacted else "Turns"
        if view.generation.outcome is not None:
            sizes = Content(sizes_lines(view.generation.outcome))
            yield Static("Sizes at compaction", classes="section-title")
            yield Static(sizes, id="sizes", classes="section-body")
        yield Static(f"{title} ({len(view.retained)})", classes="section-title")
        yield Static(_turns(view.retained), id="retained", classes="section-body")
        if view.added:
            yield Static(f"Sent since ({len(view.added)})", classes="section-title")
            yield Static(_turns(view.added), id="added", classes="section-body")
        if compacted:
            yield Static("Made room", classes="section-title")
            yield Static(_edits(view), id="edits", classes="section-body")
        if view.ledger:
            yield Static(f"Artifacts ({len(view.ledger)})", classes="section-title")
            changed = "\n".join(view.ledger_changes) or "no change since the generation before"
            yield Static(Content(changed), id="ledger-changes", classes="section-body")
            with Collapsible(title="the whole ledger", id="ledger-all"):
                yield Static(Content("\n".join(view.ledger)), classes="section-body")
        yield Static(f"Pinned ({len(view.pinned)})", classes="section-title")
        pinned = "\n".join(view.pinned) or "none (/pin N pins a message)"
        yield Static(Content(pinned), id="pinned", classes="section-body")
        yield Static(f"Replayed skills ({len(parts.replayed_skills)})", classes="section-title")
        skills = ", ".join(parts.replayed_skills) or "none"
        yield Static(Content(skills), id="replayed", classes="section-body")
        since = "" if view.previous_id is None else f" since generation {view.previous_id}"
        yield Static(f"Dropped by the summary{since}", classes="section-title")
        yield Static(_dropped(view.dropped, view.previous_id), id="dropped", classes="section-body")
        _, rest = ordered_numbers(view.dropped.numbers)
        if rest:
            with Collapsible(title=f"{len(rest):,} more numbers", id="more-numbers"):
                yield Static(Content(" · ".join(rest)), classes="section-body")
