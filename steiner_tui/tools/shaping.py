"""Shaping a tool's text output to its budget: the first lines, or the head and the tail.

Used by the tools that shape their own output (``grep`` and ``glob`` keep their first lines,
``bash`` its head and tail: the end of a build log is usually where the answer is) and by the
runner's last-resort cut. Every cut says what was left out, where the whole output is, and how
to page through it, so the model never mistakes a part for the whole (docs/design.md, "7. The
window: soft trigger, hard fit, reserves").
"""

from __future__ import annotations

import msgspec

from steiner_tui.engine.events import OutputCut
from steiner_tui.tools.base import ToolResult
from steiner_tui.tools.results import ResultStore

__all__ = ["Shaped", "cut_note", "head_and_tail", "keep_first_lines"]


class Shaped(msgspec.Struct, frozen=True):
    """A text shaped to a budget, and what was cut (None: nothing)."""

    text: str
    cut: OutputCut | None


def _lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def cut_note(cut: OutputCut, what: str = "output") -> str:
    """The marker line of a cut ``what``: sizes shown and whole, where the rest is."""
    where = (
        f"the full {what} is saved at {cut.saved_at}: read it with the read tool "
        "(offset/limit to page through it)"
        if cut.saved_at
        else f"the rest of the {what} was not kept"
    )
    if cut.saved_at and cut.saved_bytes:
        where = (
            f"its first {cut.saved_bytes:,} bytes are saved at {cut.saved_at} (the file stops "
            "there, at its cap): read it with the read tool (offset/limit to page through it)"
        )
    return (
        f"[... {what} cut to fit the context window: showing {cut.shown_lines:,} of "
        f"{cut.total_lines:,} lines ({cut.shown_bytes:,} of {cut.total_bytes:,} bytes); {where}]"
    )


def first_lines(text: str, max_chars: int, saved_at: str = "", what: str = "output") -> Shaped:
    """The whole lines of ``text`` that fit ``max_chars``, then the cut note.

    Args:
        text: the whole output.
        max_chars: about how many characters the shaped text may hold, note included.
        saved_at: where the whole output is kept.
        what: how the note names the output (``output``, ``match list``...).
    """
    if len(text) <= max_chars:
        return Shaped(text, None)
    total_bytes, total_lines = len(text.encode()), _lines(text)
    room = max(0, max_chars - 320)  # the note's length
    end = text.rfind("\n", 0, room + 1)
    shown = text[: end if end > 0 else 0]
    cut = OutputCut(total_bytes, len(shown.encode()), total_lines, _lines(shown), saved_at)
    note = cut_note(cut, what)
    return Shaped(f"{shown}\n{note}" if shown else note, cut)


def head_and_tail(text: str, max_chars: int, saved_at: str = "") -> Shaped:
    """About two thirds of ``max_chars`` from the start of ``text`` and one third from its end,
    around the cut note (cut at line ends where there are any nearby)."""
    if len(text) <= max_chars:
        return Shaped(text, None)
    total_bytes, total_lines = len(text.encode()), _lines(text)
    room = max(0, max_chars - 320)
    head_room, tail_room = room * 2 // 3, room - room * 2 // 3
    head_end = text.rfind("\n", 0, head_room + 1)
    head = text[: head_end if head_end > head_room // 2 else head_room]
    tail_start = text.find("\n", len(text) - tail_room)
    tail = text[tail_start + 1 :] if 0 <= tail_start < len(text) - tail_room // 2 else ""
    if not tail and tail_room:
        tail = text[len(text) - tail_room :]
    shown_bytes = len(head.encode()) + len(tail.encode())
    cut = OutputCut(total_bytes, shown_bytes, total_lines, _lines(head) + _lines(tail), saved_at)
    parts = [part for part in (head, cut_note(cut), tail) if part]
    return Shaped("\n".join(parts), cut)


def keep_first_lines(
    result: ToolResult,
    max_chars: int | None,
    results: ResultStore | None,
    key: str,
    what: str = "output",
) -> ToolResult:
    """``result`` shaped to its first lines within ``max_chars`` (grep matches, glob paths),
    the whole text kept under ``key`` when something is cut; it reshapes the same way.

    Args:
        result: the tool's whole result.
        max_chars: the result's budget in characters (None: as it is).
        results: the run's result store (None: the rest is not kept).
        key: the tool call's id.
        what: how the note names the output.
    """
    whole = result.content
    saved: list[str] = []

    def where() -> str:
        if not saved:
            location = ""
            if results is not None and key:
                try:
                    location = results.save(key, whole)
                except OSError:
                    location = ""
            saved.append(location)
        return saved[0]

    def shape(chars: int) -> ToolResult:
        if len(whole) <= chars:
            return result.with_reshape(shape, cut=None)
        shaped = first_lines(whole, chars, where(), what)
        return result.with_reshape(shape, content=shaped.text, cut=shaped.cut)

    return shape(max_chars) if max_chars is not None else result.with_reshape(shape)
