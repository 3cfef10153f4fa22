"""Fitting an offline summary under its cap, and saying what the cap left out.

A compaction request carries the summary's output cap in tokens (heuristic: four characters
each). When every item does not fit, the summary degrades in a fixed order until it does:

1. routine items (rank ``ROUTINE`` or lower: requests, commands, notes), oldest first, are
   condensed to about ``CONDENSED_LIMIT`` characters, keeping the paths and code spans they name;
2. items are left out, lowest rank first and oldest first within a rank, so decisions, open
   work, problems and preferences (kept in full) go last and the original request goes last of
   all.

A section that lost entries ends with a ``LEFT_OUT_MARKER`` line giving the count (earlier
summaries' losses included, so a summary carried forward renders the same line). A section
says "None recorded." only when nothing of its kind existed, and no bullet is ever cut
mid-line. Every heading is always present, even when the headings alone exceed the cap.
"""

from __future__ import annotations

from collections.abc import Sequence

from steiner_tui.providers.offline.facts import NONE_RECORDED, ROUTINE, STATE, Item
from steiner_tui.providers.offline.filelines import group_file_lines
from steiner_tui.providers.offline.markers import LEFT_OUT_MARKER, SECTION_HEADINGS, SUMMARY_NOTE
from steiner_tui.providers.offline.textutil import condense, heuristic_tokens

__all__ = ["CONDENSED_LIMIT", "fit_summary", "left_out_line", "render_summary"]

CONDENSED_LIMIT = 100


def left_out_line(count: int) -> str:
    """The last line of a section that lost ``count`` entries, in this or earlier summaries."""
    noun = "entry" if count == 1 else "entries"
    return f"{LEFT_OUT_MARKER} {count} {noun}; the history archive has them all._"


def render_summary(items: Sequence[Item], left_out: Sequence[int]) -> str:
    """The Markdown summary of ``items`` with each section's left-out line.

    Args:
        items: the bullets, in section and transcript order.
        left_out: entries left out per section, by this summary and earlier ones.
    """
    sections: list[list[str]] = [[] for _ in SECTION_HEADINGS]
    for item in items:
        sections[item.section].append(item.text)
    sections[STATE] = group_file_lines(sections[STATE])
    blocks = []
    for index, (heading, lines) in enumerate(zip(SECTION_HEADINGS, sections, strict=True)):
        if left_out[index]:
            lines.append(left_out_line(left_out[index]))
        blocks.append("\n".join([heading, *(f"- {line}" for line in lines or [NONE_RECORDED])]))
    return "\n\n".join([SUMMARY_NOTE, *blocks]) + "\n"


def _condensed(item: Item) -> str:
    """A routine item's condensed text (file lines stay whole; never longer than the text)."""
    if item.rank > ROUTINE or item.section == STATE:
        return item.text
    short = condense(item.text, CONDENSED_LIMIT)
    return short if len(short) < len(item.text) else item.text


def _fits(text: str, budget: int) -> bool:
    return heuristic_tokens(len(text)) <= budget


def fit_summary(items: Sequence[Item], budget: int, earlier: Sequence[int]) -> str:
    """Render ``items`` within ``budget`` tokens, degrading in the module docstring's order.

    Args:
        items: every bullet, in section and transcript order.
        budget: the cap in heuristic tokens.
        earlier: entries earlier summaries left out, per section (carried into the notes).

    Returns:
        The summary; over ``budget`` only when even the headings and notes exceed it.
    """
    count = len(items)
    short = [_condensed(item) for item in items]
    oldest_first = sorted(range(count), key=lambda i: items[i].order)
    steps = [(False, i) for i in oldest_first if short[i] != items[i].text]
    steps += [
        (True, i) for i in sorted(range(count), key=lambda i: (items[i].rank, items[i].order))
    ]

    def degraded(done: int) -> str:
        texts = [item.text for item in items]
        dropped: set[int] = set()
        for drop, index in steps[:done]:
            if drop:
                dropped.add(index)
            else:
                texts[index] = short[index]
        left_out = list(earlier)
        kept: list[Item] = []
        for index, item in enumerate(items):
            if index in dropped:
                left_out[item.section] += 1
            else:
                kept.append(Item(item.section, texts[index], item.rank, item.order))
        return render_summary(kept, left_out)

    full = degraded(0)
    if _fits(full, budget):
        return full
    # Each step shortens the text except the first loss in a section (its note line), so the
    # search looks for a fitting prefix of the steps, not necessarily the shortest one.
    low, high = 1, len(steps)
    while low < high:
        middle = (low + high) // 2
        if _fits(degraded(middle), budget):
            high = middle
        else:
            low = middle + 1
    return degraded(low)
