"""``watch``'s workbench on a copy of a real Claude Code session (the shared fixtures) that
grows while it is open: the requests table follows, and a lineage browser opened before the
session's compaction is written shows the new generation once it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Footer, Static

from steiner_tui.app.readonly import ReadOnlyApp
from steiner_tui.app.screens.imported import ImportedScreen
from steiner_tui.app.screens.imported_conversation import ImportedConversation
from steiner_tui.app.screens.lineage import LineageScreen
from steiner_tui.app.transcript import UserEntry
from steiner_tui.app.widgets.context_charts import RequestChart
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.importers.follow import (
    WATCH_IDLE_S,
    ProjectSessions,
    TranscriptFollower,
    claude_project_folder,
)
from tests.app.helpers import static_text

FIXTURES = Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))
SESSION = FIXTURES / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
OTHER = FIXTURES / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"


@pytest.mark.slow
async def test_the_workbench_and_its_lineage_follow_a_growing_session(tmp_path: Path) -> None:
    lines = SESSION.read_bytes().splitlines(keepends=True)
    boundary = next(i for i, line in enumerate(lines) if b'"compact_boundary"' in line)
    copy = tmp_path / SESSION.name
    copy.write_bytes(b"".join(lines[:boundary]))
    follower = TranscriptFollower(copy)
    follower.poll()
    before = len(follower.session.requests) if follower.session else 0
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedScreen)
        assert len(screen.session["requests"]) == before
        await pilot.press("l")
        for _ in range(300):  # the lineage is read in a worker
            if isinstance(app.screen, LineageScreen):
                break
            await pilot.pause(0.1)
        first = app.screen
        assert isinstance(first, LineageScreen) and len(first.lineage.generations) == 1
        with copy.open("ab") as handle:
            handle.write(b"".join(lines[boundary:]))
        for _ in range(600):  # a generous deadline, polled: no wall time is asserted
            shown = app.screen
            if isinstance(shown, LineageScreen) and len(shown.lineage.generations) == 2:
                break
            await pilot.pause(0.1)
        await pilot.pause()  # the new browser's first frame (its header's title) is drawn
        shown = app.screen
        assert isinstance(shown, LineageScreen) and shown is not first
        assert len(shown.lineage.generations) == 2
        assert len(screen.session["requests"]) > before
        assert len(app.screen_stack) == 3  # the first lineage was replaced, not stacked


@pytest.mark.slow
async def test_a_replaced_transcript_is_named_and_a_deleted_one_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "live.jsonl"
    copy.write_bytes(b"".join(SESSION.read_bytes().splitlines(keepends=True)[:40]))
    follower = TranscriptFollower(copy)
    follower.poll()
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedScreen)
        assert (screen.title, screen.sub_title) == ("Following", f"claude-code {SESSION.stem}")
        other = OTHER
        replacement = tmp_path / "other.tmp"
        replacement.write_bytes(b"".join(other.read_bytes().splitlines(keepends=True)[:60]))
        replacement.replace(copy)  # as an editor or a log rotation replaces a file
        for _ in range(300):
            if screen.session.get("id") == other.stem:
                break
            await pilot.pause(0.1)
        assert (screen.title, screen.sub_title) == ("Following", f"claude-code {other.stem}")
        said: list[str] = []
        monkeypatch.setattr(screen, "notify", lambda message, **_: said.append(message))
        copy.unlink()
        for _ in range(300):
            if said:
                break
            await pilot.pause(0.1)
        for _ in range(30):  # several more polls of the missing file
            await pilot.pause(0.1)
        assert len(said) == 1 and "No such file" in said[0], said


@pytest.mark.slow
async def test_a_reply_still_streaming_is_marked_until_its_figures_are_final(
    tmp_path: Path,
) -> None:
    """Claude Code writes a reply block by block: the third request of OTHER says output 8 on
    its first blocks (lines 49-79) and 780 on its last. The table showed 8 and the cost of 8,
    as if final; a row whose reply has not ended now says so (``…``) until it has."""
    lines = OTHER.read_bytes().splitlines(keepends=True)
    copy = tmp_path / "live.jsonl"
    copy.write_bytes(b"".join(lines[:60]))
    now = [0.0]
    follower = TranscriptFollower(copy, clock=lambda: now[0])
    follower.poll()
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedScreen)
        table = screen.query_one("#imported-requests", DataTable)

        def third() -> list[str]:
            return [str(cell) for cell in table.get_row_at(table.row_count - 1)]

        assert table.row_count == 3
        assert third()[3] == "8 …" and third()[4].endswith(" …")
        assert str(table.get_row_at(1)[3]) == "196"  # a settled request: its own figures
        with copy.open("ab") as handle:
            handle.write(b"".join(lines[60:160]))
        for _ in range(300):
            if table.row_count > 3:
                break
            await pilot.pause(0.1)
        assert str(table.get_row_at(2)[3]) == "780"
        assert not str(table.get_row_at(2)[4]).endswith("…")
        assert third()[3].endswith(" …")  # the newest reply, written in part
        now[0] += WATCH_IDLE_S  # nothing more comes (the agent was killed): it has ended
        for _ in range(300):
            if not third()[3].endswith("…"):
                break
            await pilot.pause(0.1)
        assert not third()[3].endswith("…") and not third()[4].endswith("…")


@pytest.mark.slow
async def test_the_workbench_follows_a_new_session_of_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``watch`` with no path: a new ``claude`` (or ``/clear``) in the project starts another
    transcript, which the screen never showed (it stayed on the ended one). The ended one's
    compaction is no longer named under the chart: the new session has none yet."""
    home, project = tmp_path / "home", tmp_path / "project"
    folder = claude_project_folder(home, project)
    folder.mkdir(parents=True)
    old = folder / SESSION.name
    old.write_bytes(SESSION.read_bytes())
    other = OTHER.read_bytes().splitlines(keepends=True)
    boundary = next(i for i, line in enumerate(other) if b'"compact_boundary"' in line)
    follower = TranscriptFollower(old, project=ProjectSessions(home, project))
    follower.poll()
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedScreen)
        chart = screen.query_one(RequestChart)
        assert "compaction" in str(chart.border_subtitle)
        said: list[str] = []
        monkeypatch.setattr(screen, "notify", lambda message, **_: said.append(message))
        (folder / OTHER.name).write_bytes(b"".join(other[:boundary]))
        for _ in range(300):
            if screen.session.get("id") == OTHER.stem:
                break
            await pilot.pause(0.1)
        assert (screen.title, screen.sub_title) == ("Following", f"claude-code {OTHER.stem}")
        assert said == [f"a new session of this project: {OTHER.stem} · following it"]
        assert not screen.session["generations"] and not chart.border_subtitle


@pytest.mark.slow
async def test_an_unreadable_line_is_named_and_the_follow_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line cut short (malformed JSON) and one of bytes that are not UTF-8, written while the
    screen follows: the lines after them were read, but the screen never said two were
    skipped (nor did an import's). Each is named by its number, once, and stays listed."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    copy = tmp_path / "live.jsonl"
    copy.write_bytes(b"".join(lines[:40]))
    clean = tmp_path / "clean.jsonl"
    clean.write_bytes(b"".join(lines[:90]))
    whole = TranscriptFollower(clean)
    whole.poll()
    expected = len(whole.session.requests) if whole.session else 0
    follower = TranscriptFollower(copy)
    follower.poll()
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedScreen)
        said: list[str] = []
        monkeypatch.setattr(screen, "notify", lambda message, **_: said.append(message))
        with copy.open("ab") as handle:
            handle.write(b'{"type": "user", "message": {"content": "cut\n')
            handle.write(b"\xff\xfe\x80 not UTF-8 \xc3\x28\n")
            handle.write(b"".join(lines[40:90]))
        for _ in range(300):
            if len(screen.session["requests"]) == expected and said:
                break
            await pilot.pause(0.1)
        for _ in range(10):  # more polls: each line is said once
            await pilot.pause(0.1)
        assert len(screen.session["requests"]) == expected  # nothing after them was lost
        assert said == [
            "line 41 of live.jsonl: not JSON: Unterminated string starting at column 41; "
            "skipped, the lines after it are read\n"
            "line 42 of live.jsonl: not JSON: Expecting value at column 1; "
            "skipped, the lines after it are read"
        ]
        extra = static_text(screen.query_one("#imported-extra", Static))
        assert "line 41: not JSON: Unterminated string starting at column 41 (skipped)" in extra
        assert "line 42: not JSON: Expecting value at column 1 (skipped)" in extra


async def _read_back(pilot: Pilot[None]) -> tuple[ConversationPane, int, tuple[int, float]]:
    """Open the followed conversation (``v``) and page back (PgUp): the pane, how many entries
    it had, and where it showed them (its first entry shown, its scroll offset)."""
    app = pilot.app
    await pilot.pause()
    await pilot.press("v")
    for _ in range(300):  # the conversation is read in a worker
        screen = app.screen
        if isinstance(screen, ImportedConversation) and screen.query_one(ConversationPane).entries:
            break
        await pilot.pause(0.1)
    assert app.screen.title == "Following conversation"
    pane = app.screen.query_one(ConversationPane)
    before = len(pane.entries)
    pane.focus()
    await pilot.pause()
    await pilot.press("pageup")
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    assert pane.away
    return pane, before, (pane.shown.start, pane.scroll_y)


async def _appended(pilot: Pilot[None], pane: ConversationPane, copy: Path, data: bytes) -> None:
    """Append ``data`` to the followed ``copy`` and wait until the pane has more entries."""
    before = len(pane.entries)
    with copy.open("ab") as handle:
        handle.write(data)
    for _ in range(300):
        if len(pane.entries) > before:
            break
        await pilot.pause(0.1)
    await pilot.pause()


@pytest.mark.slow
async def test_reading_back_in_a_followed_conversation_stays_where_it_is(tmp_path: Path) -> None:
    """The conversation (``v``) of a followed session was loaded again whole at each append:
    a reader who had gone back (PgUp) was thrown to the newest entries every second. New
    entries now arrive below, counted by the "new messages below" marker, as in the app."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    copy = tmp_path / "live.jsonl"
    copy.write_bytes(b"".join(lines[:300]))
    follower = TranscriptFollower(copy)
    follower.poll()
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(120, 40)) as pilot:
        pane, before, where = await _read_back(pilot)
        await _appended(pilot, pane, copy, b"".join(lines[300:400]))
        assert len(pane.entries) > before
        assert pane.away and (pane.shown.start, pane.scroll_y) == where
        assert pane.unseen == len(pane.entries) - before


async def test_a_prompt_of_the_followed_agent_leaves_a_reader_who_went_back_there(
    tmp_path: Path,
) -> None:
    """A prompt that came to the followed agent brought the reader back to the newest entries,
    as the person's own message does in the app: it is not the reader's."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    prompt = 1587  # a <task-notification> prompt, after the session's compaction (line 714)
    assert b"<task-notification>" in lines[prompt]
    copy = tmp_path / "live.jsonl"
    copy.write_bytes(b"".join(lines[:prompt]))
    follower = TranscriptFollower(copy)
    follower.poll()
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(120, 40)) as pilot:
        pane, before, where = await _read_back(pilot)
        await _appended(pilot, pane, copy, b"".join(lines[prompt : prompt + 3]))
        assert any(isinstance(e, UserEntry) for e in pane.entries[before:])
        assert pane.away and (pane.shown.start, pane.scroll_y) == where


@pytest.mark.slow
async def test_the_followed_requests_table_grows_without_jumping_to_its_top(
    tmp_path: Path,
) -> None:
    """Each append cleared the requests table and filled it again: its view went to the first
    rows and came back to the cursor a frame later (at 80x24, caught on screen by tmux). Rows
    are now added and changed in place: the view never leaves the cursor's rows."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    copy = tmp_path / "live.jsonl"
    copy.write_bytes(b"".join(lines[:300]))
    follower = TranscriptFollower(copy)
    follower.poll()
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedScreen)
        table = screen.query_one("#imported-requests", DataTable)
        rows = table.row_count
        await pilot.press("up", "up", "up")  # reading an earlier request while it grows
        await pilot.pause()
        cursor, top = table.cursor_row, table.scroll_y
        assert cursor == rows - 4 and top > 0
        seen: list[float] = []
        screen.watch(table, "scroll_y", lambda new: seen.append(new), init=False)
        with copy.open("ab") as handle:
            handle.write(b"".join(lines[300:400]))
        for _ in range(300):
            if table.row_count > rows:
                break
            await pilot.pause(0.1)
        await pilot.pause()
        assert table.row_count > rows
        assert (table.cursor_row, table.scroll_y) == (cursor, top)
        assert seen == []  # not even for a frame


@pytest.mark.slow
async def test_a_session_followed_from_its_first_line_shows_its_requests_at_80x24(
    tmp_path: Path,
) -> None:
    """A transcript with no line yet (the session that just started): the screen opened with
    an empty table that fitted 24 rows, and once the requests came the summary, chart and
    ranking pushed the table below the footer, out of sight for good."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    copy = tmp_path / "live.jsonl"
    copy.write_bytes(b"")
    follower = TranscriptFollower(copy)
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#imported-requests", DataTable)
        copy.write_bytes(b"".join(lines[:120]))
        for _ in range(300):
            if table.row_count >= 5:
                break
            await pilot.pause(0.1)
        footer = app.screen.query_one(Footer).region
        # The screen scrolls the table back into view after the refresh its growth causes: on
        # a loaded machine that can be a few frames after the rows arrive.
        for _ in range(50):
            await pilot.pause(0.05)
            if table.region.bottom <= footer.y:
                break
        assert table.region.height >= 7 and table.region.bottom <= footer.y, table.region
        assert table.cursor_row == table.row_count - 1


async def test_a_screenshot_of_the_watch_is_saved_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The palette's Screenshot in ``watch`` (and ``import``, ``capture open``) was Textual's:
    with no Downloads folder it said only "Failed to save screenshot". It is the workbench's
    now: the next folder that takes it (here the current one), named in the toast."""
    home = tmp_path / "home"
    home.write_text("a file, so no Downloads folder can be made under it", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / "live.jsonl"
    copy.write_bytes(b"".join(SESSION.read_bytes().splitlines(keepends=True)[:40]))
    follower = TranscriptFollower(copy)
    follower.poll()
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        said: list[str] = []
        monkeypatch.setattr(app, "notify", lambda message, **_: said.append(message))
        [command] = [c for c in app.get_system_commands(app.screen) if c.title == "Screenshot"]
        command.callback()
        await pilot.pause()
    [toast] = said
    assert toast.startswith(f"Saved the screenshot to {tmp_path / 'steiner-tui-ImportedScreen-'}")
    assert toast.endswith(".svg")
