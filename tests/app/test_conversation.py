"""The conversation pane: a window of mounted entries, one-widget replies and tool blocks, keys."""

from __future__ import annotations

from steiner_tui.app.transcript import Entry, NoticeEntry, ReplyEntry, UserEntry
from steiner_tui.app.widgets.assistant_reply import AssistantReply
from steiner_tui.app.widgets.earlier_row import EarlierRow
from steiner_tui.app.widgets.later_row import LaterRow
from steiner_tui.app.widgets.reply_markdown import DARK_STYLES, layout, parse
from steiner_tui.app.widgets.tool_block import ToolBlock
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import static_text


def _entries(count: int) -> list[Entry]:
    return [
        UserEntry(f"question {i}") if i % 2 else ReplyEntry(f"answer {i}") for i in range(count)
    ]


async def test_large_conversation_mounts_a_window(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        pane = app.workbench.conversation
        await pane.load(_entries(500))
        await pilot.pause()
        window, batch = pane.window, pane.load_batch
        assert pane.mounted_count == window
        assert len(pane.query(".conversation-item")) == window
        row = pane.query_one(EarlierRow)
        assert row.display and f"{500 - window} earlier messages" in static_text(row)

        pane.focus()
        pane.scroll_home(animate=False)
        await pilot.pause()
        await pilot.press("home")
        assert pane.mounted_count == window + batch
        assert f"{500 - window - batch} earlier" in static_text(row)
        await pilot.press("pageup")
        assert pane.mounted_count == window + 2 * batch


async def test_following_the_bottom_prunes_old_widgets(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        pane = app.workbench.conversation
        await pane.load(_entries(pane.window))
        await pilot.pause()
        for i in range(pane.window):
            await pane.add(NoticeEntry(f"notice {i}"))
            await pilot.pause()
        assert len(pane.entries) == 2 * pane.window
        assert pane.mounted_count <= pane.window + pane.load_batch // 2
        assert len(pane.query(".conversation-item")) == pane.mounted_count


async def test_reading_back_keeps_a_bounded_window_and_end_returns(
    app_for: AppFactory,
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        entries = _entries(500)
        await pane.load(entries)
        await pilot.pause()
        most = pane.window + 2 * pane.load_batch
        pane.focus()
        pane.scroll_home(animate=False)
        await pilot.pause()
        for _ in range(8):
            await pilot.press("home")
        # At most ``window + 2 * batch`` mounted: the newest were unmounted, the top loaded.
        assert pane.mounted_count == most
        assert len(pane.query(".conversation-item")) == most
        assert not pane.showing_latest
        newest_mounted = pane.widget_of(entries[-1])
        assert newest_mounted is None
        later = pane.query_one(LaterRow)
        assert later.display and "later messages" in static_text(later)

        # PgDn at the bottom mounts later entries and drops as many from the top.
        first_before = pane.widget_of(entries[500 - pane.window - 8 * pane.load_batch])
        assert first_before is not None
        pane.scroll_end(animate=False)
        await pilot.pause()
        await pilot.press("pagedown")
        assert pane.mounted_count == most
        assert pane.widget_of(entries[500 - pane.window - 8 * pane.load_batch]) is None

        # A notice while reading back is kept as data; End brings the newest back.
        assert await pane.add(NoticeEntry("compacted")) is None
        assert len(pane.entries) == 501
        await pilot.press("end")
        assert pane.showing_latest
        assert pane.mounted_count == 2 * pane.load_batch
        newest = pane.widget_of(pane.entries[-1])
        assert newest is not None
        await pilot.pause()
        assert pane.region.contains_region(newest.region)  # on screen, at the bottom
        assert not later.display


async def test_a_new_message_while_reading_back_shows_the_newest(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await pane.load(_entries(200))
        pane.focus()
        pane.scroll_home(animate=False)
        await pilot.pause()
        for _ in range(6):
            await pilot.press("home")
        assert not pane.showing_latest
        widget = await pane.add(UserEntry("a new question"))
        assert widget is not None and widget is pane.widget_of(pane.entries[-1])
        assert pane.showing_latest


def test_reply_markdown_is_laid_out_as_lines() -> None:
    source = "## Title\n\n- a long item that wraps\n- `code` and **bold**\n\n```\nx = 1\n```\n"
    lines = [line.plain.rstrip() for line in layout(parse(source), 16, DARK_STYLES)]
    assert lines == [
        "",
        "",
        "Title",
        "",
        "• a long item",
        "  that wraps",
        "• code and bold",
        "",
        "",
        "  x = 1",
        "",
    ]
    styles = {
        str(span.style) for line in layout(parse(source), 16, DARK_STYLES) for span in line.spans
    }
    assert DARK_STYLES["reply--h2"] in styles and DARK_STYLES["reply--code"] in styles


async def test_reply_streams_and_tool_blocks_toggle(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        pane = app.workbench.conversation
        await pane.reply_delta("first line")
        await pane.reply_delta("\n\nsecond paragraph")
        await pilot.pause()
        reply = pane.query_one(AssistantReply)
        assert reply.source == "first line\n\nsecond paragraph"
        assert reply.size.height == 3
        await pane.tool_started("c1", "read", "read path=a.py")
        pane.tool_finished("c1", "failed", "boom")
        await pilot.pause()
        block = pane.query_one(ToolBlock)
        assert block.has_class("-failed") and not block.collapsed  # failures open
        assert block.size.height == 2
        block.focus()
        await pilot.press("enter")
        assert block.collapsed and block.size.height == 1


async def test_keys_scroll_the_conversation_at_once(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        pane = app.workbench.conversation
        await pane.load(_entries(pane.window))
        await pilot.pause()
        pane.focus()
        pane.scroll_end(animate=False)
        await pilot.pause()
        bottom = pane.scroll_y
        await pilot.press("up")
        assert pane.scroll_y == bottom - 1 == pane.scroll_target_y
        await pilot.press("pageup")
        assert pane.scroll_y == pane.scroll_target_y < bottom - 1
