"""The lineage browser: browse generations, read summaries and dropped facts, open history."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.message import Message as TextualMessage
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import Static

from steiner_tui.app.screens.lineage import HISTORY_RETURN, NO_HISTORY_NOTICE, LineageScreen
from steiner_tui.app.widgets.lineage_detail import GenerationSummary
from steiner_tui.app.widgets.lineage_table import GenerationTable
from steiner_tui.app.widgets.lineage_view import (
    generation_heading,
    generation_reason,
    generation_row,
)
from steiner_tui.app.widgets.text_lines import TextLines, wrap_lines
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.masking import MASK_MODE
from steiner_tui.engine.compaction.triggers import MANUAL
from steiner_tui.engine.events import CompactionOutcome, HealthEvent, RoomEdit
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
    """Three generations: the start, a normal compaction (from a log that did not record
    its trigger), and a two-stage fallback one after ``/compact``."""
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
        summary_tokens=640,
        retained_tokens=1_210,
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
        trigger=MANUAL,
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


def test_a_heading_counts_stages_in_words() -> None:
    _, first, second = sample_lineage().generations
    assert " · 1 stage · normal · automatic · " in generation_heading(first)
    heading = generation_heading(second)
    assert " · 2 stages · normal + emergency · manual · " in heading
    assert heading.endswith("(idle 12m > 10m) · focus: keep the docs · health degraded "
                            "(warning): Start a new session soon.")  # fmt: skip
    assert "stage(s)" not in generation_heading(first) + heading


def test_a_heading_says_a_rejected_summary_once() -> None:
    """The health guidance already carries the rejection: the notes do not repeat it."""
    rejected = "normal summary rejected: the summary (4,530 characters) is larger than its input"
    health = HealthEvent("warning", "fragile", f"{rejected}; restart soon in a fresh session", 2)
    outcome = CompactionOutcome(
        applied=True, stage_count=1, modes=("emergency",), before_tokens=3_206,
        after_tokens=1_618, health=health, at=T1, notes=(rejected, "another note"),
    )  # fmt: skip
    lineage = ConversationLineage.start([Message("user", "hi")], at=T0)
    lineage = lineage.advance([Message("summary", "s")], "s", outcome, T1)
    heading = generation_heading(lineage.generations[1])
    assert heading.count(rejected) == 1 and heading.endswith(" · another note")


def test_a_masking_generation_says_it_masked_and_why() -> None:
    lineage = sample_lineage()
    edit = RoomEdit("masked", "retained", "tool", "read big.md", 3, 24_000, 300, 6_000, 70)
    masked = CompactionOutcome(
        applied=True,
        stage_count=0,
        modes=(MASK_MODE,),
        before_tokens=8_000,
        after_tokens=2_070,
        at=T2,
        retained_count=1,
        steering="drop reads: big.md",
        manual=True,
        edits=(edit,),
        trigger="mask from the ranking",
    )
    generation = lineage.advance(lineage.active.messages, SUMMARY_2, masked, T2).active
    heading = generation_heading(generation)
    assert heading.startswith(
        "Generation 3 · 2026-03-01 13:02:40 · masking, no summary · manual · "
        "trigger: mask from the ranking · "
    )
    assert "reason: drop reads: big.md" in heading
    assert "stage" not in heading and "focus" not in heading
    assert generation_reason(masked) == "manual · reason: drop reads: big.md · masked 1"
    assert generation_row(generation)[4] == "mask"  # where compactions show "1 normal"


async def test_table_lists_every_generation() -> None:
    app = LineageHost(sample_lineage())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        table = screen.query_one(GenerationTable)
        assert table.row_count == 3
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(3)]
        assert rows[0][:5] == ["0", "12:00:00", "", "", "start"]
        assert rows[1][:7] == [
            "1",
            "12:20:05",
            "trigger not recorded",
            "healthy",
            "1 normal",
            "12,400",
            "2,150",
        ]
        assert rows[1][8:] == [
            "offline/offline-summary", "skipped", "automatic · fallback: no recent request",
        ]  # fmt: skip
        assert rows[2][2:6] == ["manual /compact", "degraded", "2 normal+emergency", "31,000"]
        assert rows[2][9:] == ["used", "manual · focus: keep the docs · emergen…"]
        # Before and after as bars on one scale: 31,000 fills the ten cells.
        assert rows[2][7].startswith("█" * 10 + "→")
        before, after = rows[1][7].split("→")
        assert before.rstrip() == "████" and after.rstrip() == "▊"
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
        assert screen.query_one(GenerationSummary).source == SUMMARY_1
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


async def test_kept_and_dropped_shows_a_compactions_sizes_as_its_outcome_has_them() -> None:
    """The summary's and the retained messages' tokens with the rest of after, so they add up
    to what the context panel showed; an outcome from an older log says it has no split."""
    app = LineageHost(sample_lineage())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("up")
        await settle(pilot)
        assert isinstance(app.screen, LineageScreen)
        assert _text(app.screen, "#sizes").splitlines() == [
            "before 12,400 tok → after 2,150 tok",
            "  summary 640 tok",
            "  retained 1,210 tok (2 messages)",
            "  context blocks, tools, replayed skills, framing 300 tok",
        ]
        await pilot.press("down")  # generation 2: its outcome has no split
        await settle(pilot)
        sizes = _text(app.screen, "#sizes")
        assert sizes.startswith("before 31,000 tok → after 1,900 tok")
        assert "sizes were not recorded" in sizes
        await pilot.press("up", "up")  # generation 0: no compaction, no sizes
        await settle(pilot)
        assert app.screen.view is not None and app.screen.view.generation.id == 0
        assert not app.screen.query("#sizes")


async def test_generation_zero_is_the_start() -> None:
    app = LineageHost(sample_lineage())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("up", "up")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        assert screen.view is not None and screen.view.generation.id == 0
        assert "no summary" in screen.query_one(GenerationSummary).source
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
        history = screen.query_one(TextLines)
        assert history.display and history.has_focus
        assert "**user**: fix the budget test" in history.lines
        assert not screen.query_one(GenerationTable).display
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and not screen.history_open
        await pilot.press("q")
        await settle(pilot)
        assert not isinstance(app.screen, LineageScreen)


def _archive(sections: int) -> str:
    return "".join(
        f"### User\n\nQuestion {n}: what does module {n} do?\n\n"
        f"### Assistant\n\n## Module {n}\n\n- defines `f{n}`\n- returns **{n}**\n\n"
        for n in range(sections)
    )


async def _history_widgets(tmp_path: Path, sections: int) -> tuple[int, list[str]]:
    archive = tmp_path / f"history-{sections}.md"
    archive.write_text(_archive(sections))
    app = LineageHost(sample_lineage(), history_path=archive)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        history = app.screen.query_one(TextLines)
        assert history.border_subtitle == HISTORY_RETURN
        return len(history.query("*")), list(history.lines)


async def test_the_history_view_does_not_grow_with_the_archive(tmp_path: Path) -> None:
    """A 200 KB archive froze the browser for a minute: one widget per Markdown block. The
    view is line-based now (it draws only the lines on screen), whatever the archive holds."""
    few, small = await _history_widgets(tmp_path, 1)
    many, large = await _history_widgets(tmp_path, 400)
    assert few == many
    assert large[: len(small)] == small and "### Assistant" in large and len(large) > 400 * 10


def _long_lines_archive(tmp_path: Path) -> tuple[str, LineageHost]:
    """A history archive whose paragraph and list item are each a 100-word line, and a host
    showing it."""
    archive = tmp_path / "history.md"
    words = " ".join(f"word{n}" for n in range(100))
    archive.write_text(f"### User\n\n{words}\n\n- {words}\n")
    return words, LineageHost(sample_lineage(), history_path=archive)


async def test_the_history_view_wraps_long_lines_to_its_width(tmp_path: Path) -> None:
    words, app = _long_lines_archive(tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        lines = list(app.screen.query_one(TextLines).lines)
    assert all(len(line) <= 76 for line in lines)
    assert " ".join(lines).split() == f"### User {words} - {words}".split()
    item = next(n for n, line in enumerate(lines) if line.startswith("- "))
    assert lines[item + 1].startswith("  word")  # a list item's lines align under its text


async def test_the_history_view_wraps_again_when_the_terminal_is_resized(tmp_path: Path) -> None:
    words, app = _long_lines_archive(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        history = app.screen.query_one(TextLines)
        for size in ((80, 24), (120, 36)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            width = history.scrollable_content_region.width
            lines = list(history.lines)
            assert max(len(line) for line in lines) in range(width - 8, width + 1), size
            assert " ".join(lines).split() == f"### User {words} - {words}".split()


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


def _lineage_with_a_message_sent_after_compaction() -> ConversationLineage:
    """Generation 1 retained two turns; a third message was sent after it was compacted, and
    the compaction masked a large read to make room."""
    from steiner_tui.engine.events import RoomEdit

    numbers = " ".join(str(1000 + n) for n in range(40))
    first = [
        Message("user", "Read docs_big.md and fix `split_budget()` in `SessionLog` (v1.4.2)."),
        Message("assistant", f"Counts: {numbers}. Then 12,345 and 3.14."),
        Message("user", "Keep going."),
        Message("assistant", "Done."),
    ]
    lineage = ConversationLineage.start(first, at=T0)
    edit = RoomEdit(
        "masked", "retained", "tool", "read path=docs_big.md", 3, 244_000, 312, 61_000, 80,
        saved_at="results/c1.txt",
    )  # fmt: skip
    outcome = CompactionOutcome(
        applied=True,
        stage_count=1,
        modes=("normal",),
        before_tokens=64_163,
        after_tokens=5_000,
        summary_model="offline/offline",
        at=T1,
        summarized_count=2,
        retained_count=2,
        summary="Working on the budget.",
        edits=(edit,),
        summary_tokens=1_900,
        retained_tokens=120,
    )
    second = [Message("summary", "Working on the budget."), first[2], first[3]]
    lineage = lineage.advance(second, "Working on the budget.", outcome, T1)
    return lineage.append(Message("user", "A message sent after the compaction."))


async def test_retained_turns_are_those_of_the_compaction_and_later_ones_apart() -> None:
    app = LineageHost(_lineage_with_a_message_sent_after_compaction())
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        assert "retained 2 at compaction" in _text(screen, "#generation-heading")
        titles = [str(w.content) for w in screen.query(".section-title").results(Static)]
        assert "Retained at compaction (2)" in titles and "Sent since (1)" in titles
        assert "sent after the compaction" not in _text(screen, "#retained")
        assert "sent after the compaction" in _text(screen, "#added")
        edits = _text(screen, "#edits")
        assert "masked: tool read path=docs_big.md" in edits
        assert "244,000 → 312 B" in edits and "61,000 → 80 tok" in edits
        assert "whole output: results/c1.txt" in edits
        table = screen.query_one(GenerationTable)
        assert "masked 1" in str(table.get_row_at(1)[10])


async def test_dropped_facts_lead_with_names_and_collapse_bare_numbers() -> None:
    from textual.widgets import Collapsible

    app = LineageHost(_lineage_with_a_message_sent_after_compaction())
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        dropped = _text(screen, "#dropped")
        assert dropped.index("Paths") < dropped.index("Identifiers") < dropped.index("Numbers")
        assert "split_budget()" in dropped and "SessionLog" in dropped
        numbers_line = dropped.splitlines()[-1]
        # Versions and separated figures first, twelve in all; the rest collapsed.
        assert numbers_line.split(" · ")[:3] == ["  v1.4.2", "12,345", "3.14"]
        assert len(numbers_line.split(" · ")) == 12
        more = screen.query_one("#more-numbers", Collapsible)
        assert more.collapsed and more.title == "31 more numbers"


async def test_moving_quickly_through_the_table_shows_the_last_summary() -> None:
    app = LineageHost(sample_lineage())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("up", "up", "down", "up", "down")  # no waiting in between
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LineageScreen)
        assert screen.view is not None and screen.view.generation.id == 1
        summary = screen.query_one(GenerationSummary)
        assert summary.source == SUMMARY_1
        # Shown, not only stored: its two headings and its list are lines of the pane, as text.
        lines = list(summary.lines)
        assert len([line for line in lines if line.startswith("## ")]) == 2
        assert len([line for line in lines if line.startswith("- ")]) == 2
        assert summary.region.height > 0
        assert screen.query_one("#summary-pane").border_title == "Summary · generation 1"


@pytest.mark.parametrize(
    "size", [(80, 24), (100, 30), (160, 48), (220, 60)], ids=lambda s: f"{s[0]}x{s[1]}"
)
def test_lineage_snapshot_at_each_size(snap_compare: Any, size: tuple[int, int]) -> None:
    app = LineageHost(_lineage_with_a_message_sent_after_compaction())
    assert snap_compare(app, run_before=settle, terminal_size=size)


async def test_the_table_keeps_gen_and_time_when_scrolled_and_fits_trigger_and_health_at_80() -> (
    None
):
    """Health was the last column: at 80 columns it was off the screen."""
    app = LineageHost(sample_lineage())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(GenerationTable)
        x = 0
        for column in table.columns.values():
            x += column.get_render_width(table)
            if str(column.label) == "Health":
                break
        assert x <= table.scrollable_content_region.width
        assert "healthy" in table.render_line(2).text
        table.scroll_to(x=table.max_scroll_x, animate=False, immediate=True)
        await pilot.pause()
        assert table.scroll_x > 0
        header = table.render_line(0).text
        assert header.split()[:2] == ["Gen", "Time"]
        assert "12:20:05" in table.render_line(2).text


def test_lines_are_wrapped_to_twenty_columns_at_the_narrowest() -> None:
    assert wrap_lines("word " * 10, -4) == [
        "word word word word",
        "word word word word",
        "word word",
    ]
