"""What costs the most: the context panel's ranking of what the request holds, largest first.

The rows are the engine's (``engine.costs.rank_request``, carried on the ``BudgetView``): each
file read by path with its read count, each command's output, each tool definition, each skill,
AGENTS.md and context file. The highlighted row's one key, ``m``, asks the screen to mask that
tool result, or to drop every read of that file, for the next request: masking makes a new
generation (recorded in the lineage), it never rewrites what was sent. Rows with nothing to
mask (a pinned result, a small or already masked one, a block) offer no key. Labels are data,
shown as text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from steiner_tui.engine.costs import CostItem
from steiner_tui.engine.prompt.sources import SOURCES
from steiner_tui.units import count

__all__ = ["CostRanking"]

KIND_LABELS: dict[str, str] = {
    "file": "read",
    "command": "bash",
    "tool_result": "tool",
    "tool_definition": "tool def",
    **{spec.kind: spec.short for spec in SOURCES if spec.kind is not None},
    "summary": "summary",
    "pinned": "pinned",
    "messages": "chat",
    "replies": "chat",
}
"""The short kind shown before each row's label."""

_LABEL_WIDTH = 20
_ROW_WIDTH = 39
"""What the docked context panel (46 columns) gives a row, before the ranking is laid out."""
_FIGURE_WIDTH = 7
_SHOWN = 40
"""How many rows the panel lists (all of them: ``steiner-tui context --json``'s ``top``); a
dozen show at once, all of them while ``/context`` expands the panel."""


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def row_label(item: CostItem, root: Path | None = None) -> str:
    """The row's label; a path under ``root`` (the project) relative to it, and the global
    AGENTS.md by that name."""
    if root is not None and item.path and item.label == item.path:
        path = Path(item.path)
        if path.is_absolute() and path.is_relative_to(root):
            return path.relative_to(root).as_posix()
        if item.kind == "agents_md":
            return "global AGENTS.md"
    return item.label


def _marks(item: CostItem) -> Content:
    """What follows a row's figure: its reads, and its key (or that it is pinned)."""
    marks = []
    if item.kind == "file" and item.count > 1:
        marks.append(Content.styled(f" ×{item.count}", "$text-accent"))
    if item.pinned:
        marks.append(Content.styled(" pin", "$text-success"))
    elif item.action:
        marks.append(Content.styled(" m", "bold $text-warning"))
    return Content("").join(marks)


def ranking_line(
    item: CostItem,
    root: Path | None = None,
    width: int = _LABEL_WIDTH,
    figure: int = _FIGURE_WIDTH,
) -> Content:
    """One row: kind, label (its end, where a path is told apart, in ``width``), tokens (in
    ``figure``), reads, key."""
    kind = KIND_LABELS.get(item.kind, item.kind)
    return Content.assemble(
        (f"{kind:<9}", "$text-muted"),
        f"{_short(row_label(item, root), width):<{width}}",
        f"{count(item.tokens):>{figure}}",
        _marks(item),
    )


class CostRanking(OptionList):
    """The ranking; ``m`` on a row that offers it masks it (or drops a file's reads)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "act", "Mask / drop reads", id="context.mask",
                tooltip="Mask this tool result, or every read of this file, for the next "
                "request (a new generation, shown in the lineage)"),
    ]  # fmt: skip
    """The one key."""

    DEFAULT_CSS = """
    CostRanking { height: auto; max-height: 12; border: none; padding: 0; }
    .-expanded CostRanking { max-height: 40; }
    """

    class ActRequested(Message):
        """The user asked to mask what ``item`` offers to mask."""

        def __init__(self, item: CostItem) -> None:
            self.item = item
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[CostItem, ...] = ()
        """The rows shown, in order."""

    def show(self, items: Sequence[CostItem], root: Path | None = None) -> None:
        """Show the largest ``items`` (keeps the highlighted row's place); paths under
        ``root`` are shown relative to it."""
        shown = tuple(items[:_SHOWN])
        if shown == self.items:
            return
        highlighted = self.highlighted
        self.items = shown
        # Figures never run into their labels (a column as wide as the widest, plus a space),
        # and the labels give up what a row needs beyond the room, so each row is one line.
        figure = max([_FIGURE_WIDTH, *(len(count(item.tokens)) + 1 for item in shown)])
        marks = max((len(_marks(item).plain) for item in shown), default=0)
        room = self.scrollable_content_region.width or _ROW_WIDTH
        width = max(1, min(_LABEL_WIDTH, room - 9 - figure - marks))
        self.set_options(Option(ranking_line(item, root, width, figure)) for item in shown)
        if shown:
            self.highlighted = min(highlighted or 0, len(shown) - 1)

    @property
    def current(self) -> CostItem | None:
        """The highlighted row."""
        index = self.highlighted
        return self.items[index] if index is not None and index < len(self.items) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``m`` shows only on a row that offers it."""
        if action == "act":
            item = self.current
            return None if item is None or not item.action else True
        return True

    def action_act(self) -> None:
        """Ask the screen to act on the highlighted row."""
        item = self.current
        if item is not None and item.action:
            self.post_message(self.ActRequested(item))

    def on_option_list_option_highlighted(self) -> None:
        """The key's state follows the highlighted row."""
        self.refresh_bindings()
