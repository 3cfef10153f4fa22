"""The conversation pane: a window of mounted entries, one-widget replies and tool blocks, keys."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from steiner_tui.app.transcript import Entry, NoticeEntry, ReplyEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.assistant_reply import AssistantReply
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.earlier_row import EarlierRow
from steiner_tui.app.widgets.entry_window import EntryWindow
from steiner_tui.app.widgets.later_row import LaterRow
from steiner_tui.app.widgets.reply_markdown import DARK_STYLES, layout, parse, shared_visual
from steiner_tui.app.widgets.tool_block import ToolBlock
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import static_text


def _entries(count: int) -> list[Entry]:
    return [
        UserEntry(f"question {i}") if i % 2 else ReplyEntry(f"answer {i}") for i in range(count)
    ]


async def test_large_conversation_mounts_a_window(app_for: AppFactory) -> None:
    messages: list[Message] = []
    app = app_for()
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
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
        pane.scroll_end(animate=False)
        await _settle(pilot, pane)
        await pilot.press("up")  # reading up, within a screen of the top
        await _settle(pilot, pane)
        # Earlier entries are mounted ahead of the view, within the bound.
        assert pane.mounted.start < 500 - window
        assert pane.mounted_count <= window + 2 * batch
        assert f"{pane.mounted.start} earlier" in static_text(row)
        # Home shows the top of what is mounted, the earlier row first; there Home (or PgUp)
        # mounts a batch itself.
        first = pane.entries[pane.mounted.start]
        await pilot.press("home")
        await _settle(pilot, pane)
        assert pane.scroll_y == 0 and pane.entries[pane.mounted.start] is first
        assert _view_row(pane, first) == row.outer_size.height + 1  # below the row, its margin
        for action in (pane.action_home_or_earlier, pane.action_page_up_or_earlier):
            await _settle(pilot, pane)
            pane.scroll_to(y=0, animate=False, immediate=True)  # the prefetch not run yet
            messages.clear()
            await action()
            await _settle(pilot, pane)
            assert next((m.count, m.ahead) for m in _loads(messages)) == (batch, False)


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
        for _ in range(16):
            await pilot.press("home")
        # At most ``window + 2 * batch`` mounted: the newest were unmounted, the top loaded.
        assert pane.mounted_count == most
        assert len(pane.query(".conversation-item")) == most
        assert not pane.showing_latest
        newest_mounted = pane.widget_of(entries[-1])
        assert newest_mounted is None
        later = pane.query_one(LaterRow)
        assert later.display and "later messages" in static_text(later)

        # Reading down mounts later entries (ahead of the view) and drops as many from the top.
        await _settle(pilot, pane)
        oldest = entries[pane.mounted.start]
        assert pane.widget_of(oldest) is not None
        pane.scroll_end(animate=False)
        await pilot.pause()
        await pilot.press("pagedown")
        assert pane.mounted_count == most
        assert pane.widget_of(oldest) is None

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


async def test_a_finished_reply_mounted_again_reuses_its_layout(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        reply = ReplyEntry("## Again\n\n- parsed once\n")
        await pane.load([reply, *_entries(60)])
        pane.focus()
        pane.scroll_home(animate=False)
        await pilot.pause()
        while pane.widget_of(reply) is None:  # back to the top: mounted for the first time
            await pilot.press("home")
        first = pane.widget_of(reply)
        assert isinstance(first, AssistantReply)
        size = first.size
        await pilot.press("end")  # unmounted
        assert pane.widget_of(reply) is None
        pane.scroll_home(animate=False)
        await pilot.pause()
        while pane.widget_of(reply) is None:
            await pilot.press("home")
        again = pane.widget_of(reply)
        assert isinstance(again, AssistantReply) and again is not first
        assert again.render() is first.render()  # the same laid-out lines, not parsed again
        assert again.size == size

        await pilot.press("end")
        streaming = ReplyEntry("partial", streaming=True)
        await pane.add(streaming)
        widget = pane.widget_of(streaming)
        assert isinstance(widget, AssistantReply)
        assert widget.render() is not shared_visual("partial", dark=True)  # its own visual


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

        def title_background() -> str:
            title = next(s for s in block.render_line(0) if "read" in s.text)
            return str(title.style and title.style.bgcolor)

        pane.focus()  # the focused title has its own style
        await pilot.pause()
        plain = title_background()
        await pilot.hover(block)
        hovered = title_background()
        await pilot.hover(reply)
        assert hovered != plain and title_background() == plain


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


# -- mounting ahead of the view while reading back ---------------------------------------------


def _tall_entries(count: int, tall_from: int | None = None) -> list[Entry]:
    """Entries of 2 to 5 lines (so a small window spans several screens); 9 from ``tall_from``."""

    def text(i: int) -> str:
        lines = 8 if tall_from is not None and i >= tall_from else i % 4 + 1
        return "\n".join([f"question {i}", *(f"line {j}" for j in range(lines))])

    return [UserEntry(text(i)) for i in range(count)]


async def _settle(pilot: Pilot[None], pane: ConversationPane) -> None:
    """Wait until no load is scheduled, running or waiting for its layout."""
    await pilot.pause()
    while pane.loading_entries:
        await pilot.pause()


def _entry_at(pane: ConversationPane, y: int, step: int = 1) -> tuple[Entry, int]:
    """The entry showing on screen row ``y`` (or the next one in ``step``'s direction), and the
    row it starts on."""
    region = pane.scrollable_content_region
    for row in range(y, region.bottom if step > 0 else region.y - 1, step):
        widget: Widget | None = pane.screen.get_widget_at(region.x, row)[0]
        while widget is not None and widget.parent is not pane:
            widget = widget.parent if isinstance(widget.parent, Widget) else None
        entry = next((e for e in pane.entries if pane.widget_of(e) is widget), None)
        if widget is not None and entry is not None:
            return entry, widget.region.y
    raise AssertionError("no entry on screen")


def _top_of_view(pane: ConversationPane) -> tuple[Entry, int]:
    """The first entry showing at the top of the view, and the screen row it starts on."""
    return _entry_at(pane, pane.scrollable_content_region.y)


def _view_row(pane: ConversationPane, entry: Entry) -> int:
    """The row of the view ``entry`` starts on, from the scroll position and the last layout."""
    widget = pane.widget_of(entry)
    assert widget is not None
    return widget.virtual_region.y - round(pane.scroll_y)


def _loads(messages: list[Message]) -> list[EntryWindow.Loaded]:
    return [m for m in messages if isinstance(m, EntryWindow.Loaded)]


async def _reading_back(
    pilot: Pilot[None], pane: ConversationPane, messages: list[Message], tall_from: int = 200
) -> list[Entry]:
    """A small window (12 + 2 * 2 mounted) reading back 50 entries before the newest 12."""
    pane.window, pane.load_batch = 12, 2
    entries = _tall_entries(200, tall_from)
    await pane.load(entries)
    pane.focus()
    for _ in range(25):
        await pane.load_earlier()
    pane.scroll_home(animate=False)
    await _settle(pilot, pane)
    assert pane.mounted == range(138, 154) and not pane.showing_latest
    messages.clear()
    return entries


@asynccontextmanager
async def _reading_back_app(
    app_for: AppFactory, size: tuple[int, int] = SIZE
) -> AsyncIterator[tuple[Pilot[None], ConversationPane, list[Message]]]:
    """An app reading back (``_reading_back``), with the messages posted since."""
    messages: list[Message] = []
    app = app_for()
    async with app.run_test(size=size, message_hook=messages.append) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _reading_back(pilot, pane, messages)
        yield pilot, pane, messages


async def test_scrolling_down_mounts_later_entries_before_the_bottom(app_for: AppFactory) -> None:
    async with _reading_back_app(app_for) as (pilot, pane, messages):
        start = pane.mounted
        for _ in range(200):
            distance = pane.max_scroll_y - pane.scroll_y
            entry, row = _top_of_view(pane)
            await pilot.press("down")
            await _settle(pilot, pane)
            widget = pane.widget_of(entry)
            # One line per key: the entry at the top moved up one row, loads or not.
            assert widget is not None and widget.region.y == row - 1
            if pane.mounted != start:
                break
        assert pane.mounted.stop > start.stop  # later entries, mounted ahead of the view
        assert pane.mounted.start > start.start  # and as many unmounted above it
        assert distance > 1  # before the bottom
        assert _loads(messages) and all(m.later and m.ahead for m in _loads(messages))
        assert len(pane.query(".conversation-item")) == pane.mounted_count


async def test_pgdn_after_the_prefetch_only_scrolls(app_for: AppFactory) -> None:
    async with _reading_back_app(app_for) as (pilot, pane, messages):
        page = pane.scrollable_content_region.height
        for _ in range(4):
            entry, row = _entry_at(pane, pane.scrollable_content_region.bottom - 1, step=-1)
            await pilot.press("pagedown")
            await _settle(pilot, pane)
            widget = pane.widget_of(entry)
            assert widget is not None and widget.region.y == row - page  # exactly one page
            assert pane.max_scroll_y - pane.scroll_y > page  # later entries already below
        assert _loads(messages) and all(m.ahead for m in _loads(messages))  # none by the key


async def test_keys_while_a_prefetch_is_scheduled_move_from_where_it_leaves_the_view(
    app_for: AppFactory,
) -> None:
    async with _reading_back_app(app_for) as (pilot, pane, _):
        page = pane.scrollable_content_region.height

        async def line_down() -> None:
            pane.action_scroll_down()

        for action, lines in ((pane.action_page_down_or_later, page), (line_down, 1)):
            mounted = pane.mounted
            pane.scroll_to(y=pane.max_scroll_y - page, animate=False, immediate=True)
            assert pane.loading_entries  # a prefetch is scheduled; the key comes before it runs
            entry = pane.entries[mounted.stop - 1]
            row = _view_row(pane, entry)
            await action()
            await _settle(pilot, pane)
            assert pane.mounted.start > mounted.start  # the prefetch unmounted entries above
            assert _view_row(pane, entry) == row - lines


async def test_pgdn_at_the_very_bottom_still_loads(app_for: AppFactory) -> None:
    messages: list[Message] = []
    app = app_for()
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _reading_back(pilot, pane, messages, tall_from=154)  # taller entries below
        mounted, page = pane.mounted, pane.scrollable_content_region.height
        pane.scroll_to(y=pane.max_scroll_y, animate=False, immediate=True)
        last = pane.entries[mounted.stop - 1]
        row = _view_row(pane, last)
        await pane.action_page_down_or_later()  # the key, before the prefetch has run
        assert pane.mounted.stop == mounted.stop + pane.load_batch
        bottom = pane.arrange(pane.scrollable_content_region.size).total_region.bottom
        below = bottom - round(pane.scroll_y) - page  # lines below the view after the load
        await _settle(pilot, pane)
        assert not _loads(messages)[0].ahead  # the key's own load; any prefetch came after it
        # Down by as much as was mounted (up to a page), once it was laid out; it shows.
        assert _view_row(pane, last) == row - min(page, below)
        loaded = pane.widget_of(pane.entries[mounted.stop])
        assert loaded is not None and pane.region.contains_region(loaded.region)


async def test_the_view_stays_put_at_the_bottom_while_entries_mount_below(
    app_for: AppFactory,
) -> None:
    async with _reading_back_app(app_for) as (pilot, pane, messages):
        pane.scroll_to(y=pane.max_scroll_y, animate=False, immediate=True)
        await pilot.pause()
        entry, row = _top_of_view(pane)
        await _settle(pilot, pane)
        assert _loads(messages)  # mounted below the view
        widget = pane.widget_of(entry)
        assert widget is not None and widget.region.y == row  # not scrolled to the new bottom


async def test_two_quick_scrolls_schedule_one_load(app_for: AppFactory) -> None:
    async with _reading_back_app(app_for) as (pilot, pane, messages):
        height = pane.scrollable_content_region.height
        near = pane.max_scroll_y - height + 1  # one batch moves the bottom out of reach
        pane.scroll_to(y=near - 1, animate=False, immediate=True)
        pane.scroll_to(y=near, animate=False, immediate=True)
        assert pane.loading_entries
        await _settle(pilot, pane)
        loads = _loads(messages)
        assert len(loads) == 1 and loads[0].ahead and loads[0].count == pane.load_batch


async def test_mounting_ahead_never_unmounts_what_shows(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        pane.window, pane.load_batch = 6, 2  # 10 mounted: the top is near the bottom
        await pane.load(_tall_entries(100))
        for _ in range(10):
            await pane.load_earlier()
        first = pane.mounted.start
        pane.focus()
        pane.scroll_home(animate=False)
        await _settle(pilot, pane)
        assert pane.max_scroll_y <= pane.scrollable_content_region.height  # near the bottom
        for _ in range(2):
            # Only what is wholly above the view may go (here nothing: the first entry shows).
            assert pane.mounted.start == first and _top_of_view(pane)[0] is pane.entries[first]
            assert pane.mounted_count == pane.window + 2 * pane.load_batch
            await pilot.press("down")
            await _settle(pilot, pane)
            first = pane.mounted.start if pane.scroll_y else first


async def test_a_scroll_to_the_end_by_code_reads_down_again(app_for: AppFactory) -> None:
    """``scroll_end`` goes through Textual's anchor, not the pane's keys: it still turns the
    reading direction down, so later entries are mounted ahead of the view."""
    async with _reading_back_app(app_for) as (pilot, pane, messages):
        await pilot.press("pagedown")
        await _settle(pilot, pane)
        await pilot.press("up")
        await _settle(pilot, pane)
        assert pane._reading_up
        start = pane.mounted
        messages.clear()
        pane.scroll_end(animate=False)
        await _settle(pilot, pane)
        assert not pane._reading_up
        assert pane.mounted.stop > start.stop and not pane.showing_latest
        assert _loads(messages) and all(m.later and m.ahead for m in _loads(messages))


async def test_scrolling_up_mounts_earlier_entries_before_the_top(app_for: AppFactory) -> None:
    async with _reading_back_app(app_for) as (pilot, pane, messages):
        pane.scroll_to(y=pane.max_scroll_y, animate=False, immediate=True)
        await _settle(pilot, pane)
        messages.clear()
        start = pane.mounted
        for _ in range(200):
            entry, row = _top_of_view(pane)
            await pilot.press("up")
            await _settle(pilot, pane)
            widget = pane.widget_of(entry)
            # One line per key: the entry at the top moved down one row, loads or not.
            assert widget is not None and widget.region.y == row + 1
            if pane.mounted != start:
                break
        assert pane.mounted.start < start.start  # earlier entries, mounted ahead of the view
        assert pane.mounted.stop < start.stop  # and as many of the newest unmounted below it
        assert pane.scroll_y > 0  # before the top
        assert _loads(messages) and all(not m.later and m.ahead for m in _loads(messages))
        assert len(pane.query(".conversation-item")) == pane.mounted_count


async def test_pgup_after_the_prefetch_only_scrolls(app_for: AppFactory) -> None:
    async with _reading_back_app(app_for) as (pilot, pane, messages):
        pane.scroll_to(y=pane.max_scroll_y, animate=False, immediate=True)
        await _settle(pilot, pane)
        messages.clear()
        page = pane.scrollable_content_region.height
        for _ in range(4):
            entry, row = _top_of_view(pane)
            await pilot.press("pageup")
            await _settle(pilot, pane)
            widget = pane.widget_of(entry)
            assert widget is not None and widget.region.y == row + page  # exactly one page
            assert pane.scroll_y > page  # earlier entries already above
        assert _loads(messages) and all(m.ahead and not m.later for m in _loads(messages))


async def test_pgup_loads_before_it_would_show_the_earlier_row(app_for: AppFactory) -> None:
    """A page up that would bring the earlier row into view mounts earlier entries first: the
    key's own frame shows its whole page, not the row replaced by entries a frame later."""
    async with _reading_back_app(app_for, size=(90, 36)) as (pilot, pane, messages):
        size = pane.scrollable_content_region.size
        row = pane.query_one(EarlierRow)
        bottom = pane._earlier_row_bottom(size)
        assert bottom >= 2  # the row wraps at this width
        # One line more than a page below the row's last line, reading up (too far from the
        # top for mounting ahead): a page up would land on that line.
        pane.scroll_to(y=size.height + bottom, animate=False, immediate=True)
        await pilot.press("up")
        await _settle(pilot, pane)
        assert pane.scroll_y == size.height + bottom - 1 and not _loads(messages)[1:]
        messages.clear()
        shown: list[bool] = []

        def laid_out(screen: Screen[object]) -> None:
            shown.append(row.display and row.region.overlaps(pane.scrollable_content_region))

        pane.screen.screen_layout_refresh_signal.subscribe(pane, laid_out, immediate=True)
        entry, top = _top_of_view(pane)
        await pilot.press("pageup")
        await _settle(pilot, pane)
        widget = pane.widget_of(entry)
        assert widget is not None and widget.region.y == top + size.height  # a whole page
        assert shown and not any(shown)
        assert _loads(messages) and not _loads(messages)[0].later


async def test_no_mounting_ahead_while_the_earlier_row_shows(app_for: AppFactory) -> None:
    """There Home or PgUp loads: mounting ahead would replace the row a frame after a key."""
    async with _reading_back_app(app_for, size=(90, 36)) as (pilot, pane, messages):
        bottom = pane._earlier_row_bottom(pane.scrollable_content_region.size)
        assert bottom >= 2  # the row wraps at this width
        pane.scroll_to(y=bottom, animate=False, immediate=True)
        await pilot.press("up")  # reading up, the row's last line at the top of the view
        await _settle(pilot, pane)
        assert pane.scroll_y == bottom - 1 and not _loads(messages)
        assert pane.query_one(EarlierRow).region.overlaps(pane.scrollable_content_region)


async def test_end_and_a_new_message_still_jump_to_the_newest(app_for: AppFactory) -> None:
    async with _reading_back_app(app_for) as (pilot, pane, _):
        pane.scroll_to(y=pane.max_scroll_y, animate=False, immediate=True)  # a prefetch pending
        await pilot.press("end")
        await _settle(pilot, pane)
        assert pane.showing_latest and pane.mounted_count == 2 * pane.load_batch
        newest = pane.widget_of(pane.entries[-1])
        assert newest is not None and pane.region.contains_region(newest.region)

        pane.scroll_home(animate=False)
        await _settle(pilot, pane)
        for _ in range(10):
            await pilot.press("home")
        pane.scroll_to(y=pane.max_scroll_y, animate=False, immediate=True)
        assert not pane.showing_latest
        widget = await pane.add(UserEntry("a new question"))
        await _settle(pilot, pane)
        assert pane.showing_latest and widget is pane.widget_of(pane.entries[-1])
        assert widget is not None and pane.region.contains_region(widget.region)


async def test_the_frame_after_end_paints_what_its_layout_placed(app_for: AppFactory) -> None:
    """Laying out a tool block must not leave the screen painting the previous layout."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        turns = [
            (UserEntry(f"question {i}"), ToolEntry(f"c{i}", "read", f"read f{i}.py"),
             ReplyEntry(f"answer {i}"))
            for i in range(100)
        ]  # fmt: skip
        await pane.load([entry for turn in turns for entry in turn])
        pane.focus()
        pane.scroll_home(animate=False)
        await pilot.pause()
        for _ in range(10):
            await pilot.press("home")
        assert not pane.showing_latest and pane.scroll_y == 0  # the earlier row at the top
        frames: list[list[tuple[Widget, Widget]]] = []

        def laid_out(screen: Screen[object]) -> None:
            # Each row of the pane: the widget the frame paints there, and the one the layout
            # placed there (the pane itself in a gap). Textual drops a subscriber's exceptions.
            region = pane.scrollable_content_region
            rows = []
            for y in range(region.y, region.bottom):
                placed = [w for w in pane.children if w.display and w.region.contains(region.x, y)]
                rows.append((screen.get_widget_at(region.x, y)[0], (placed or [pane])[0]))
            frames.append(rows)

        app.screen.screen_layout_refresh_signal.subscribe(pane, laid_out, immediate=True)
        await pilot.press("end")
        await pilot.pause()
        assert pane.showing_latest and frames
        first = frames[0]
        assert [shown for shown, _ in first] == [placed for _, placed in first]
        assert first[-1][1] is pane.widget_of(turns[-1][-1])  # the newest, at the bottom


async def test_closing_the_app_while_mounting_later_entries(app_for: AppFactory) -> None:
    async with _reading_back_app(app_for) as (_, pane, _):
        pane.scroll_to(y=pane.max_scroll_y, animate=False, immediate=True)
        loading = asyncio.create_task(pane.load_later())  # still mounting as the app closes
    await loading  # no error: the view is not moved for entries that no longer show
