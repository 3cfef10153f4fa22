"""The conversation pane: a run of shown entries, Markdown replies, tool blocks, keys."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from textual import events
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from steiner_tui.app.transcript import Entry, NoticeEntry, PermissionEntry, ReplyEntry, UserEntry
from steiner_tui.app.widgets.conversation import INTERRUPTED_BADGE, ConversationPane
from steiner_tui.app.widgets.entry_window import weight
from steiner_tui.app.widgets.hidden_row import HiddenRow
from steiner_tui.app.widgets.reply import MarkdownFeed
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.user_message import UserMessage
from steiner_tui.tools.base import PermissionRequest
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import static_text


def _entries(count: int) -> list[Entry]:
    return [
        UserEntry(f"question {i}") if i % 2 else ReplyEntry(f"answer **{i}**") for i in range(count)
    ]


def _tall_entries(count: int) -> list[Entry]:
    """Entries of 2 to 5 lines, so that a run spans several screens."""
    return [
        UserEntry("\n".join([f"question {i}", *(f"line {j}" for j in range(i % 4 + 1))]))
        for i in range(count)
    ]


def _items(pane: ConversationPane) -> int:
    return len(pane.query(".conversation-item"))


def _on_screen(pane: ConversationPane, entry: Entry) -> bool:
    widget = pane.widget_of(entry)
    return widget is not None and pane.scrollable_content_region.overlaps(widget.region)


def _entry_at(pane: ConversationPane, y: int) -> Entry | None:
    """The entry showing on screen row ``y`` of the pane (None: a gap or a row)."""
    region = pane.scrollable_content_region
    widget: Widget | None = pane.screen.get_widget_at(region.x + 2, y)[0]
    while widget is not None and widget.parent is not pane:
        widget = widget.parent if isinstance(widget.parent, Widget) else None
    if widget is None:
        return None
    return next((e for e in pane.entries if pane.widget_of(e) is widget), None)


def _top_entry(pane: ConversationPane) -> Entry | None:
    region = pane.scrollable_content_region
    return next(
        (e for y in range(region.y, region.bottom) if (e := _entry_at(pane, y)) is not None), None
    )


def _bottom_entry(pane: ConversationPane) -> Entry | None:
    region = pane.scrollable_content_region
    rows = range(region.bottom - 1, region.y - 1, -1)
    return next((e for y in rows if (e := _entry_at(pane, y)) is not None), None)


async def _loaded(pilot: Pilot[None], pane: ConversationPane, entries: list[Entry]) -> None:
    await pane.load(entries)
    pane.focus()
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def test_a_long_conversation_shows_a_page_of_it(app_for: AppFactory) -> None:
    """What fills the view, not a whole window: a resumed session's first frame waited for
    forty entries to mount."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        assert pane.page < pane.window
        for count in (500, 10_000):
            await _loaded(pilot, pane, _entries(count))
            assert pane.shown == range(count - pane.page, count)
            assert _items(pane) == pane.page
            row = pane.query_one("#earlier", HiddenRow)
            assert row.display and f"{count - pane.page:,} earlier" in static_text(row)
            assert not pane.query_one("#later", HiddenRow).display
            assert _on_screen(pane, pane.entries[-1])  # the newest, at the bottom


async def test_following_the_bottom_keeps_the_newest_window(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _entries(pane.window))
        for i in range(pane.window):
            await pane.add(NoticeEntry(f"notice {i}"))
            await pilot.pause()
            assert _on_screen(pane, pane.entries[-1])
        assert len(pane.entries) == 2 * pane.window
        assert _items(pane) == pane.window and pane.shown.start == pane.window


LONG = "\n\n".join(f"Paragraph {i}: " + "word " * 40 for i in range(50))
"""A reply of about 10 KB: a ``Markdown`` of some 17 MB of widgets."""


async def test_long_replies_are_kept_mounted_by_their_weight_not_their_number(
    app_for: AppFactory,
) -> None:
    """Forty entries of 10 KB replies held 700 MB of widgets (a ``Markdown`` takes about 1.7
    MB a KB of text, as a stock one does): the run is counted in ``weight``, the view filled."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        assert weight(ReplyEntry(LONG)) == 11 and weight(UserEntry(LONG)) == 1
        for i in range(12):
            await pane.add(UserEntry(f"question {i}"))
            await pane.add(ReplyEntry(LONG))
            await pilot.pause()
            shown = [pane.entries[i] for i in pane.shown]
            assert sum(map(weight, shown)) <= pane.window
            assert _on_screen(pane, pane.entries[-1])
        assert pane.shown == range(18, 24) and _items(pane) == 6  # 36 of 40
        # Short entries after them: the replies that fill the view above them stay.
        for i in range(3):
            await pane.add(NoticeEntry(f"notice {i}"))
            await pilot.pause()
        assert pane.shown.start <= 23 and _on_screen(pane, pane.entries[23])
        # A resumed conversation's page and the pages read back weigh as little.
        await _loaded(
            pilot, pane, [ReplyEntry(LONG) if i % 2 else UserEntry("q") for i in range(60)]
        )
        assert pane.shown == range(54, 60)  # three replies, at least three entries
        for key in ("home", "home"):
            await pilot.press(key)
            await pilot.pause()
        assert pane.shown == range(0, 7)
        await _loaded(pilot, pane, [ReplyEntry(LONG * 5) for _ in range(4)])
        assert pane.shown == range(1, 4)  # each past the window alone


async def test_pgup_at_the_top_shows_the_entries_before(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _tall_entries(200))
        pane.scroll_home(animate=False)
        await pilot.pause()
        top = _top_entry(pane)
        assert top is pane.entries[pane.shown.start]
        await pilot.press("pageup")
        await pilot.pause()
        # The entry that was at the top is at the bottom, the ones before it above.
        assert _bottom_entry(pane) is top
        assert pane.shown.stop == pane.entries.index(top) + 1
        assert _items(pane) == pane.page and not pane.showing_latest
        later = pane.query_one("#later", HiddenRow)
        assert later.display and f"{200 - pane.shown.stop} later" in static_text(later)


async def test_up_and_the_wheel_at_the_top_show_the_entries_before(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _tall_entries(200))
        pane.scroll_home(animate=False)
        await pilot.pause()
        start = pane.shown.start
        await pilot.press("up")
        await pilot.pause()
        assert pane.shown.stop == start + 1
        pane.scroll_home(animate=False)
        await pilot.pause()
        start = pane.shown.start
        x, y = pane.region.center
        # What a terminal's wheel sends: the event arrives at the app with screen coordinates.
        app.post_message(events.MouseScrollUp(None, x, y, 0, -1, 0, False, False, False, x, y))
        await pilot.pause()
        assert pane.shown.stop == start + 1


async def test_pgdn_at_the_bottom_shows_the_entries_after(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _tall_entries(200))
        await pane.show_first()
        await pilot.pause()
        pane.scroll_end(animate=False)
        await pilot.pause()
        bottom = _bottom_entry(pane)
        assert bottom is pane.entries[pane.shown.stop - 1]
        await pilot.press("pagedown")
        await pilot.pause()
        # The entry that was at the bottom is at the top, the ones after it below.
        assert _top_entry(pane) is bottom
        assert pane.shown.start == pane.entries.index(bottom)
        assert pane.scroll_y == 0


async def test_home_twice_goes_to_the_first_messages_and_end_to_the_newest(
    app_for: AppFactory,
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _tall_entries(200))
        await pilot.press("home")
        await pilot.wait_for_scheduled_animations()
        assert pane.scroll_y == 0 and pane.shown.start == 200 - pane.page
        await pilot.press("home")
        await pilot.pause()
        assert pane.shown.start == 0 and _top_entry(pane) is pane.entries[0]
        assert not pane.query_one("#earlier", HiddenRow).display
        await pilot.press("end")
        await pilot.pause()
        assert pane.showing_latest and _bottom_entry(pane) is pane.entries[-1]
        assert not pane.query_one("#later", HiddenRow).display


async def test_moving_the_run_paints_no_view_on_the_way(app_for: AppFactory) -> None:
    """Every layout after the key shows where it ends: nothing mounted but not yet scrolled."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _tall_entries(200))
        pane.scroll_home(animate=False)
        await pilot.pause()
        top = _top_entry(pane)
        bottoms: list[Entry | None] = []

        def laid_out(screen: Screen[object]) -> None:
            bottoms.append(_bottom_entry(pane))

        pane.screen.screen_layout_refresh_signal.subscribe(pane, laid_out, immediate=True)
        await pilot.press("pageup")
        await pilot.pause()
        assert bottoms and all(entry is top for entry in bottoms)


async def test_a_new_message_while_reading_back_shows_the_newest(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _entries(200))
        await pane.show_first()
        assert await pane.add(NoticeEntry("compacted")) is None  # kept as data
        later = len(pane.entries) - pane.page
        assert f"{later} later" in static_text(pane.query_one("#later", HiddenRow))
        widget = await pane.add(UserEntry("a new question"))
        await pilot.pause()
        assert widget is not None and widget is pane.widget_of(pane.entries[-1])
        assert pane.showing_latest and _on_screen(pane, pane.entries[-1])


async def test_a_reply_streams_into_textual_markdown(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await pane.reply_delta("first **line**")
        await pane.reply_delta("\n\nsecond paragraph")
        await pane.end_reply()
        await pilot.pause()
        reply = pane.query_one(".reply", Markdown)
        assert reply.source == "first **line**\n\nsecond paragraph"
        assert len(reply.query("MarkdownParagraph")) == 2
        assert not reply.has_class("-interrupted")
        await pane.reply_delta("cut")
        await pane.end_reply(interrupted=True)
        await pilot.pause()
        last = list(pane.query(".reply"))[-1]
        assert last.has_class("-interrupted") and last.border_title == INTERRUPTED_BADGE


async def test_a_long_reply_streams_without_restyling_its_blocks(
    app_for: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reply of 120 blocks streamed in small fragments: no block is restyled after it is
    mounted. An order rule (``:last-child``) on a reply's blocks had Textual restyle every
    block at each mount, and a long reply froze the app for seconds."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        restyled: list[object] = []
        update_styles = app.update_styles

        def counted(node: Any, animate: bool = True) -> None:
            if isinstance(node, MarkdownBlock):
                restyled.append(node)
            update_styles(node, animate)

        monkeypatch.setattr(app, "update_styles", counted)
        text = "".join(
            f"## Part {k}\n\nSome *prose* about {k}.\n\n```python\nx = {k}\n```\n\n"
            for k in range(40)
        )
        for start in range(0, len(text), 16):
            await pane.reply_delta(text[start : start + 16])
        await pane.end_reply()
        await pilot.pause()
        reply = pane.query_one(".reply", Markdown)
        assert len(reply.children) == 120
        assert restyled == []


class _SlowMarkdown:
    """A ``Markdown`` stand-in whose append costs 0.1 s per 1,000 characters it holds, on a
    clock of its own."""

    def __init__(self) -> None:
        self.now = 0.0
        self.source = ""
        self.appends: list[str] = []

    async def append(self, text: str) -> None:
        self.source += text
        self.appends.append(text)
        self.now += 0.1 * len(self.source) / 1000


async def test_a_reply_feed_rests_after_each_append_in_proportion_to_its_cost() -> None:
    """A block that grows (a fence of a thousand lines is parsed and highlighted again by each
    append) takes a bounded share of the UI thread: the feed rests twice as long as an append
    took, at most a second, and appends what came meanwhile at once."""
    widget = _SlowMarkdown()
    rests: list[float] = []
    resting = asyncio.Event()
    go_on = asyncio.Event()

    async def rest(seconds: float) -> None:
        rests.append(round(seconds, 6))
        resting.set()
        await go_on.wait()
        go_on.clear()

    feed = MarkdownFeed(cast(Markdown, widget), clock=lambda: widget.now, rest=rest)
    feed.write("x" * 1000)
    await resting.wait()
    resting.clear()
    for _ in range(9):
        feed.write("y" * 1000)  # while it rests: one append of all of them next
    go_on.set()
    await resting.wait()
    resting.clear()
    feed.write("z")
    await feed.stop()
    assert [len(text) for text in widget.appends] == [1000, 9000, 1]
    assert rests == [0.2, 1.0]  # 0.1 s for 1,000 characters; 1.0 s for 10,000, rest capped
    assert widget.source == "x" * 1000 + "y" * 9000 + "z"


async def test_a_streaming_reply_shown_again_goes_on_streaming(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _entries(200))
        await pane.reply_delta("streamed ")
        reply = pane.entries[-1]
        await pane.show_first()
        assert pane.widget_of(reply) is None
        await pane.reply_delta("while away ")  # kept in the entry
        await pane.show_newest()
        await pane.reply_delta("and after")
        await pane.end_reply()
        await pilot.pause()
        widget = pane.widget_of(reply)
        assert isinstance(widget, Markdown)
        assert widget.source == "streamed while away and after"


async def test_tool_blocks_show_their_output_as_text_and_toggle(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await pane.tool_started("c1", "read", "read path=a.py")
        await pilot.pause()
        block = pane.query_one(ToolBlock)
        assert block.has_class("-running") and block.has_class("-collapsed")
        assert block.collapsed and block.size.height == 1
        pane.tool_finished("c1", "failed", "boom **[not markup]**")
        await pilot.pause()
        assert block.has_class("-failed") and not block.collapsed  # failures open
        assert "boom **[not markup]**" in static_text(block)  # as printed
        assert block.size.height == 2
        block.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert block.collapsed and block.size.height == 1
        await pilot.click(block)
        await pilot.pause()
        assert not block.collapsed


async def test_keys_inside_the_run_scroll_as_a_vertical_scroll_does(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _tall_entries(pane.page))
        bottom = pane.scroll_y
        assert bottom == pane.max_scroll_y > 0
        await pilot.press("up")
        await pilot.wait_for_scheduled_animations()
        assert pane.scroll_y == bottom - 1
        await pilot.press("pageup")
        await pilot.wait_for_scheduled_animations()
        assert pane.scroll_y == bottom - 1 - pane.scrollable_content_region.height
        await pilot.press("end")
        await pilot.wait_for_scheduled_animations()
        assert pane.scroll_y == pane.max_scroll_y and pane.shown.start == 0


async def test_a_run_shorter_than_the_view_moves_with_up_and_down(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        pane.window = 4  # four short entries fill a third of the view
        await _loaded(pilot, pane, _entries(20))
        assert pane.shown == range(16, 20)
        await pilot.press("up")
        await pilot.pause()
        assert pane.shown == range(13, 17)
        await pilot.press("down")
        await pilot.pause()
        assert pane.shown == range(16, 20)


async def test_typing_does_not_walk_the_conversation(
    app_for: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every key refreshed the footer, whose F8 check looked for a waiting question among every
    widget of the conversation (43% of the UI thread with 5,000 messages). The pane keeps its
    questions; the newest still waiting is the one F8 turns to."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await _loaded(pilot, pane, _entries(200))
        first = PermissionEntry(PermissionRequest("bash", "ls"), lambda _: None)
        second = PermissionEntry(PermissionRequest("bash", "pwd"), lambda _: None)
        await pane.ask(first)
        await pane.ask(second)
        await pilot.pause()
        assert pane.open_question() is second
        second.decision = "allow"
        assert pane.open_question() is first
        walks: list[str | None] = []
        query = pane.query

        def counting(selector: Any = None) -> Any:
            walks.append(selector)
            return query(selector)

        monkeypatch.setattr(pane, "query", counting)
        app.workbench.prompt.focus()
        await pilot.press(*"hello there")
        assert app.workbench.prompt.text.endswith("hello there")
        assert walks == []
        await pilot.press("f8")
        assert app.focused is pane.widget_of(first)


def test_a_message_that_is_only_a_skill_replay_shows_no_empty_line() -> None:
    """After a compaction the active skills come back as a message of envelopes alone: its
    badges are all it shows, not the badges over an empty line."""
    replay = UserMessage(UserEntry("", badges=("+terse-review",)))
    assert str(replay.content) == " +terse-review  "
    sent = UserMessage(UserEntry("go on", badges=("+terse-review",)))
    assert str(sent.content).split("\n") == [" +terse-review  ", "go on"]
