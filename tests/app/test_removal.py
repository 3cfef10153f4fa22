"""Unmounted entries and finished visuals are freed by reference counting (no cycles of their own).

A cycle is found by walking what an object refers to and coming back to it. The walk stays within
the object's own state: it does not enter other widgets (a removed widget's old parent leads to
the whole app), the event loop, tasks or frames (they lead back to this test, which holds the
object).
"""

from __future__ import annotations

import asyncio
import gc
import types
from collections import deque
from collections.abc import Iterator

from textual.dom import DOMNode

from steiner_tui.app.transcript import Entry, ReplyEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.reply_markdown import MarkdownVisual, parse
from steiner_tui.app.widgets.tool_block import ToolBlock
from tests.app.conftest import SIZE, AppFactory

_OUTSIDE = (
    DOMNode,
    asyncio.AbstractEventLoop,
    asyncio.Future,
    types.FrameType,
    types.CoroutineType,
    types.ModuleType,
    type,
)


def _cycles(start: object, limit: int = 50_000) -> Iterator[str]:
    """Paths (as type names) from ``start`` back to itself, within its own state."""
    own = {id(node) for node in start.walk_children()} if isinstance(start, DOMNode) else set()
    came_from: dict[int, tuple[object, object | None]] = {id(start): (start, None)}
    queue: deque[object] = deque([start])
    while queue and len(came_from) < limit:
        current = queue.popleft()
        for child in gc.get_referents(current):
            if child is start:
                path, node = [], current
                while node is not None:
                    path.append(type(node).__qualname__)
                    node = came_from[id(node)][1]
                yield " -> ".join(reversed(path))
            elif id(child) not in came_from and (
                id(child) in own or not isinstance(child, _OUTSIDE)
            ):
                came_from[id(child)] = (child, current)
                queue.append(child)


def _mixed(count: int) -> list[Entry]:
    kinds = (
        lambda i: UserEntry(f"question {i}"),
        lambda i: ReplyEntry(f"## answer {i}\n\n- one\n- two `code`\n\n> quoted"),
        lambda i: ToolEntry(f"call{i}", "read", f"read a{i}.py", status="done", output="x"),
        lambda i: ToolEntry(f"fail{i}", "bash", "bash make", status="failed", output="boom"),
    )
    return [kinds[i % len(kinds)](i) for i in range(count)]


async def test_unmounted_entries_are_not_cycles(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await pane.load(_mixed(200))
        await pilot.pause()
        shown = list(pane.children)
        tool = next(w for w in reversed(shown) if isinstance(w, ToolBlock))
        tool.focus()  # focus, hover and an open block redraw the block's visual
        await pilot.pause()
        await pilot.hover(tool)
        await pilot.press("enter")
        await pilot.pause()
        pane.focus()
        pane.scroll_home(animate=False)
        for _ in range(pane.window // pane.load_batch + 1):  # past the bound: the newest go
            await pilot.press("home")
            await pilot.pause()
        removed = [w for w in shown if not w.is_attached]
        assert {type(w).__name__ for w in removed} >= {"UserMessage", "AssistantReply", "ToolBlock"}
        for widget in removed:
            assert list(_cycles(widget)) == [], type(widget).__name__


def test_a_markdown_visual_is_not_a_cycle() -> None:
    visual = MarkdownVisual("# Title\n\n1. one\n2. **two**\n\n```py\nx = 1\n```\n")
    assert visual.lines(40)  # laid out: the parsed tree is kept for other widths
    assert list(_cycles(visual)) == []


def test_a_parsed_tree_has_no_links_up() -> None:
    tree = parse("- a\n  - b *c*\n\n| h |\n|---|\n| d |\n")
    assert list(_cycles(tree)) == []
    assert [node.type for node in tree.children] == ["bullet_list", "table"]
