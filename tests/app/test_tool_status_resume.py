"""A failed tool call shows as failed after a resume, and in a resumed fork, as it did live (not
as the text guesses)."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.agent.model import MainModel
from steiner_tui.app.app import make_app
from steiner_tui.app.transcript import ToolEntry
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.engine.compaction.history_render import render_history
from steiner_tui.engine.messages import ToolCall
from steiner_tui.sessions import SessionStore, fork_session
from tests.app.conftest import SESSION_DATE, SIZE, request_for
from tests.app.fakes import INFO, CallsProvider
from tests.app.helpers import finish, send


def read_provider() -> CallsProvider:
    """First call: reads of a file that is there and of one that is not; then an answer."""
    return CallsProvider(
        (
            ToolCall("call_1", "read", {"path": "README.md"}, ""),
            ToolCall("call_2", "read", {"path": "missing.txt"}, ""),
        ),
        text="Reading.",
    )


def _tools(entries: list[object]) -> dict[str, str]:
    return {e.call_id: e.status for e in entries if isinstance(e, ToolEntry)}


async def _read_them(project: Path, config_dir: Path) -> tuple[str, dict[str, str]]:
    """Run one recorded turn whose two reads succeed and fail: its session id, live statuses."""
    main = MainModel("fake", "offline", read_provider(), INFO)
    app = make_app(request_for(project, config_dir, main, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "read them")
        await finish(pilot)
        return app.workbench.hold.session.session_id, _tools(
            list(app.workbench.conversation.entries)
        )


async def test_a_failed_read_is_failed_after_resume_and_in_a_fork(
    project: Path, config_dir: Path
) -> None:
    session_id, live = await _read_them(project, config_dir)
    assert live == {"call_1": "done", "call_2": "failed"}
    store = SessionStore(config_dir / "sessions")
    fork_session(store, session_id, clock=lambda: SESSION_DATE, new_id="forked")
    resumed = make_app(request_for(project, config_dir, record=True, resume=session_id))
    async with resumed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await resumed.workers.wait_for_complete()
        await pilot.pause()
        assert _tools(list(resumed.workbench.conversation.entries)) == live
    forked = make_app(request_for(project, config_dir, record=True, resume="forked"))
    async with forked.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await forked.workers.wait_for_complete()
        await pilot.pause()
        assert _tools(list(forked.workbench.conversation.entries)) == live
        titles = [str(block.content).splitlines()[0] for block in forked.screen.query(ToolBlock)]
        assert [title.split(" ", 2)[1] for title in titles] == ["✓", "✗"], titles


async def test_calls_cut_off_by_a_kill_show_as_cancelled_and_archive_as_before(
    project: Path, config_dir: Path
) -> None:
    """A log cut after the reply that asked for the calls: the resumed transcript shows them
    cancelled, the archive's reader reads the same guess, and the archive writes its old marks."""
    session_id, _ = await _read_them(project, config_dir)
    log = config_dir / "sessions" / session_id / "session.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    asked = next(i for i, line in enumerate(lines) if b'"tool_calls"' in line)
    log.write_bytes(b"".join(lines[: asked + 1]))
    resumed = make_app(request_for(project, config_dir, record=True, resume=session_id))
    async with resumed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await resumed.workers.wait_for_complete()
        await pilot.pause()
        cancelled = {"call_1": "cancelled", "call_2": "cancelled"}
        assert _tools(list(resumed.workbench.conversation.entries)) == cancelled
        titles = [str(b.content).splitlines()[0] for b in resumed.screen.query(ToolBlock)]
        assert all(t.startswith("▶ ⊘ ") and t.endswith(" · cancelled") for t in titles), titles
        messages = resumed.workbench.hold.driver.runner.lineage.active.messages
        reader = resumed.workbench.hold.session.tool_status
        results = [m for m in messages if m.role == "tool"]
        assert {m.tool_call_id: reader(m) for m in results} == cancelled
        archived = render_history(messages, tool_status=reader)
        assert "- ✓ read path=README.md\n- ✓ read path=missing.txt" in archived
