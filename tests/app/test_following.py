"""Following new output: the view stays at the end unless the person moved away, and then a
"new messages below" marker counts what arrived and jumps to the end."""

from __future__ import annotations

from textual.pilot import Pilot

from steiner_tui.app.transcript import Entry, NoticeEntry, ReplyEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.new_below import NewBelowMarker
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import static_text


def _tall_entries(count: int) -> list[Entry]:
    return [UserEntry("\n".join(f"question {i} line {j}" for j in range(4))) for i in range(count)]


def _at_end(pane: ConversationPane) -> bool:
    return pane.scroll_y >= pane.max_scroll_y


async def _settle(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def _loaded(pilot: Pilot[None], pane: ConversationPane) -> NewBelowMarker:
    await pane.load(_tall_entries(20))
    pane.focus()
    await _settle(pilot)
    return pane.query_one(NewBelowMarker)


async def test_output_follows_the_end_while_the_view_is_there(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        marker = await _loaded(pilot, pane)
        assert _at_end(pane)
        await pane.add(ReplyEntry("a reply\n\nwith two paragraphs"))
        await pane.add(NoticeEntry("compacted", "compaction"))
        await _settle(pilot)
        assert _at_end(pane) and not marker.display and pane.unseen == 0


async def test_after_page_up_new_output_shows_the_marker(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        marker = await _loaded(pilot, pane)
        await pilot.press("pageup")
        await _settle(pilot)
        top = pane.scroll_y
        assert not _at_end(pane) and pane.away
        await pane.add(ToolEntry("c1", "read", "read path=a.py"))
        await pane.add(ReplyEntry("done"))
        await _settle(pilot)
        assert pane.scroll_y == top  # the view did not move
        assert marker.display and pane.unseen == 2
        assert "2 new messages below" in static_text(marker)
        # The marker sits at the bottom of the pane, over the entries.
        assert marker.region.bottom == pane.region.bottom
        await pilot.click(NewBelowMarker)
        await _settle(pilot)
        assert _at_end(pane) and not marker.display and not pane.away


async def test_end_jumps_and_clears_the_marker(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        marker = await _loaded(pilot, pane)
        await pilot.press("pageup")
        await _settle(pilot)
        await pane.add(ReplyEntry("more"))
        await _settle(pilot)
        assert marker.display
        await pilot.press("end")
        await _settle(pilot)
        assert _at_end(pane) and not marker.display
        await pane.add(ReplyEntry("and more"))  # following again
        await _settle(pilot)
        assert _at_end(pane) and not marker.display


async def test_scrolling_back_down_clears_the_marker(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        marker = await _loaded(pilot, pane)
        await pilot.press("pageup")
        await _settle(pilot)
        await pane.add(ReplyEntry("more"))
        await _settle(pilot)
        for _ in range(4):
            await pilot.press("pagedown")
            await _settle(pilot)
        assert _at_end(pane) and not marker.display


async def test_a_sent_message_brings_the_view_to_the_end(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        marker = await _loaded(pilot, pane)
        await pilot.press("pageup")
        await _settle(pilot)
        sent = UserEntry("my next question")
        await pane.add(sent)
        await _settle(pilot)
        widget = pane.widget_of(sent)
        assert widget is not None and _at_end(pane) and not marker.display
        assert pane.scrollable_content_region.overlaps(widget.region)


async def test_a_typed_command_brings_the_view_to_its_answer(app_for: AppFactory) -> None:
    """Found in tmux on a resumed 10,000-message session read back with PgUp: ``/history
    README``, then Enter, left the view where it was and its answer below it ("1 new message
    below"), so Enter seemed to do nothing; so did an unknown command's error and ``/pins``."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        marker = await _loaded(pilot, pane)
        for command, answer in (
            ("/history README", "no prompt sent in this project holds 'README'"),
            ("/nope", "unknown command /nope"),
            ("/pins", "nothing is pinned"),
        ):
            app.workbench.prompt.focus()
            await pilot.press("pageup")
            await _settle(pilot)
            assert pane.away and not _at_end(pane)
            app.workbench.prompt.load_text(command)
            await pilot.press("enter")
            await _settle(pilot)
            said = pane.entries[-1]
            assert isinstance(said, NoticeEntry) and answer in said.text, said
            widget = pane.widget_of(said)
            assert widget is not None and _at_end(pane) and not marker.display
            assert pane.scrollable_content_region.overlaps(widget.region)


async def test_a_focused_tool_block_above_keeps_the_view_and_shows_the_marker(
    app_for: AppFactory,
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        entries: list[Entry] = [ToolEntry("t0", "read", "read path=first.py", "done")]
        entries += _tall_entries(pane.page - 1)  # a page: the block is mounted, above the view
        await pane.load(entries)
        await _settle(pilot)
        block = pane.widget_of(entries[0])
        assert block is not None
        block.focus()  # as Tab does: the view scrolls up to it
        await _settle(pilot)
        assert pane.away
        await pane.add(ReplyEntry("a reply arrives"))
        await _settle(pilot)
        assert pane.scrollable_content_region.overlaps(block.region)
        assert pane.query_one(NewBelowMarker).display
