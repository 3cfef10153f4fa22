"""The lineage browser: browse generations, read summaries and dropped facts, open history."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual.app import App
from textual.message import Message as TextualMessage
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import Markdown, Static

from steiner_tui.app.screens.lineage import NO_HISTORY_NOTICE, LineageScreen
from steiner_tui.app.widgets.lineage_history import HistoryView
from steiner_tui.app.widgets.lineage_table import GenerationTable
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import CompactionOutcome, HealthEvent
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.skills.envelopes import render_skill_activation

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
T1 = datetime(2026, 3, 1, 12, 20, 5, tzinfo=UTC)
T2 = datetime(2026, 3, 1, 13, 2, 40, tzinfo=UTC)

SUMMARY_1 = (
    "## Goal\nFix the failing budget test.\n\n## Done\n"
    "- Fixed the off-by-one in `src/budget.py` (limit 8192).\n- Ran `uv run pytest -x`."
)
SUMMARY_2 = "## Goal\nFix the failing budget test, then document it.\n\n## Done\n- Tests pass."


def sample_lineage() -> ConversationLineage:
    """Three generations: the start, a normal compaction, and a two-stage fallback one."""
    skill = render_skill_activation("code-review", "Review every diff before you commit.")[0]
    first = [
        Message(
            "user", skill + "\n\nFix the failing test in tests/test_budget.py, see src/budget.py."
        ),
        Message(
            "assistant",
            "Running the suite first.",
            tool_calls=(ToolCall("c1", "bash", {"command": "uv run pytest -x"}),),
        ),
        Message("tool", "1 failed, 41 passed", tool_call_id="c1"),
        Message("assistant", "Fixed src/budget.py: the limit is 8192, not 8191."),
        Message("user", "Now update the docs."),
    ]
    lineage = ConversationLineage.start(first, at=T0)
    replay = Message("user", skill)
    second = [
        Message("summary", SUMMARY_1),
        replay,
        Message("user", "Now update the docs."),
        Message("assistant", "Updated docs/budget.md with the new limit."),
    ]
    outcome_1 = CompactionOutcome(
        applied=True,
        stage_count=1,
        modes=("normal",),
        before_tokens=12_400,
        after_tokens=2_150,
        summary_model="offline/offline-summary",
        fallback_status="skipped",
        fallback_reason="no recent request",
        health=HealthEvent("info", "healthy", "Nothing to do.", 1),
        at=T1,
        summarized_count=4,
        retained_count=2,
        summary=SUMMARY_1,
    )
    lineage = lineage.advance(second, SUMMARY_1, outcome_1, T1)
    outcome_2 = CompactionOutcome(
        applied=True,
        stage_count=2,
        modes=("normal", "emergency"),
        before_tokens=31_000,
        after_tokens=1_900,
        summary_model="haiku/claude-haiku",
        fallback_status="used",
        fallback_reason="idle 12m > 10m",
        health=HealthEvent("warning", "degraded", "Start a new session soon.", 2),
        at=T2,
        summarized_count=3,
        retained_count=1,
        steering="keep the docs",
        manual=True,
        summary=SUMMARY_2,
    )
    return lineage.advance([Message("summary", SUMMARY_2)], SUMMARY_2, outcome_2, T2)


class LineageHost(App[None]):
    """A bare app that opens the lineage browser on mount."""

    def __init__(self, lineage: ConversationLineage, history_path: Path | None = None) -> None:
        super().__init__()
        self.lineage = lineage
        self.history_path = history_path

    def on_mount(self) -> None:
        self.push_screen(LineageScreen(self.lineage, self.history_path))


async def settle(pilot: Pilot[None]) -> None:
    """Wait until the screen has built, and shown, the view it was asked for."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _text(screen: LineageScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).content)


async def test_table_lists_every_generation() -> None:
    app = LineageHost(sample_lineage())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        table = screen.query_one(GenerationTable)
        assert table.row_count == 3
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(3)]
        assert rows[0][:3] == ["0", "12:00:00", "start"]
        assert rows[1] == [
            "1", "12:20:05", "1 normal", "12,400", "2,150",
            "offline/offline-summary", "skipped", "no recent request", "healthy",
        ]  # fmt: skip
        assert rows[2][2:4] == ["2 normal+emergency", "31,000"]
        assert rows[2][6:] == ["used", "idle 12m > 10m", "degraded"]
        # The active (latest) generation is on show first.
        assert table.cursor_row == 2
        assert screen.view is not None and screen.view.generation.id == 2
        assert "manual" in _text(screen, "#generation-heading")


async def test_select_generation_one_shows_summary_turns_skills_and_dropped() -> None:
    app = LineageHost(sample_lineage())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("up")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        assert screen.view is not None and screen.view.generation.id == 1
        assert screen.query_one("#summary", Markdown).source == SUMMARY_1
        retained = _text(screen, "#retained")
        assert "Now update the docs." in retained
        assert "Updated docs/budget.md" in retained
        assert _text(screen, "#replayed") == "code-review"
        dropped = _text(screen, "#dropped")
        assert "tests/test_budget.py" in dropped
        assert "src/budget.py" not in dropped  # the summary kept it
        assert "8191" in dropped
        heading = _text(screen, "#generation-heading")
        assert heading.startswith("Generation 1 · 2026-03-01 12:20:05")
        assert "fallback skipped (no recent request)" in heading


async def test_generation_zero_is_the_start() -> None:
    app = LineageHost(sample_lineage())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("up", "up")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        assert screen.view is not None and screen.view.generation.id == 0
        assert "no summary" in screen.query_one("#summary", Markdown).source
        assert "nothing to compare" in _text(screen, "#dropped")
        assert _text(screen, "#replayed") == "none"


async def test_history_binding_without_archive_says_so() -> None:
    notices: list[TextualMessage] = []
    app = LineageHost(sample_lineage(), history_path=Path("/nonexistent/history.md"))
    async with app.run_test(size=(120, 36), message_hook=notices.append) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        assert not screen.history_open
        assert [m.notification.message for m in notices if isinstance(m, Notify)] == [
            NO_HISTORY_NOTICE
        ]


async def test_history_binding_opens_the_archive_and_escape_steps_back(tmp_path: Path) -> None:
    archive = tmp_path / "history.md"
    archive.write_text("# Session history\n\n## Generation 0\n\n**user**: fix the budget test\n")
    app = LineageHost(sample_lineage(), history_path=archive)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await app.workers.wait_for_complete()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        assert screen.history_open and screen.has_class("-history")
        history = screen.query_one(HistoryView)
        assert history.display and history.has_focus
        assert "fix the budget test" in history.query_one(Markdown).source
        assert not screen.query_one(GenerationTable).display
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and not screen.history_open
        await pilot.press("q")
        await settle(pilot)
        assert not isinstance(app.screen, LineageScreen)


def test_lineage_snapshot(snap_compare: Any) -> None:
    async def select_generation_1(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("up")
        await settle(pilot)

    app = LineageHost(sample_lineage())
    assert snap_compare(app, run_before=select_generation_1, terminal_size=(120, 36))


def test_history_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    archive = tmp_path / "history.md"
    archive.write_text("# Session history\n\n## Generation 0\n\n**user**: fix the budget test\n")

    async def open_history(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)

    app = LineageHost(sample_lineage(), history_path=archive)
    assert snap_compare(app, run_before=open_history, terminal_size=(120, 36))
