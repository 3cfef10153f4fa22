"""The conversation pane mounts only the newest entries and loads earlier ones on demand."""

from __future__ import annotations

from steiner_tui.app.transcript import Entry, NoticeEntry, ReplyEntry, UserEntry
from steiner_tui.app.widgets.earlier_row import EarlierRow
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
