"""A compaction says what is happening while it runs: one entry with its stage, model, the
summary's tokens so far and the time spent, which ends saying what happened."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from textual.app import App, ComposeResult
from textual.geometry import Region

from steiner_tui.app.transcript import CompactionRunEntry, NoticeEntry
from steiner_tui.app.widgets.compaction_row import CompactionRow
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.engine.events import (
    CompactionApplied,
    CompactionOutcome,
    CompactionProgress,
    WarningEvent,
)
from steiner_tui.engine.provider import (
    ChatRequest,
    ModelInfo,
    ProviderEvent,
    StreamDone,
    StreamText,
    StreamUsage,
)
from tests.app.conftest import SIZE, AppFactory
from tests.app.fakes import INFO, fake_model
from tests.app.helpers import finish, inspected, said, send, static_text

CHUNK = "summary text. " * 4 + "12345678"
"""64 characters: 16 tokens by characters/4."""


@dataclass
class SlowSummaryProvider:
    """Answers turns at once; a summary streams three chunks, then waits on ``release``."""

    alias: str = "fake"
    stateful: bool = False
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        if request.compaction:
            for _ in range(3):
                yield StreamText(CHUNK)
            self.reached.set()
            await self.release.wait()
            yield StreamText("\n\nThe person asked two questions; both were answered.")
        else:
            yield StreamText("Answered.")
        yield StreamUsage(100, 10)
        yield StreamDone()


async def test_a_running_compaction_shows_its_stage_tokens_and_outcome(
    app_for: AppFactory,
) -> None:
    provider = SlowSummaryProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        first = "first question, " + "with the details of the task " * 30  # outweighs a summary
        for text in (first, "second question", "third question", "fourth question"):
            await send(pilot, text)
            await finish(pilot)
        await send(pilot, "/compact")
        await provider.reached.wait()
        await pilot.pause()
        row = screen.conversation.query_one(CompactionRow)
        live = static_text(row)
        stage = "trigger: manual /compact · normal stage fake/offline"
        assert live.startswith(f"compacting ({stage}): ")
        assert "~48 summary tokens so far (characters/4)" in live
        assert "Esc abandons" in live

        provider.release.set()
        await finish(pilot)
        entries = screen.conversation.entries
        runs = [e for e in entries if isinstance(e, CompactionRunEntry)]
        assert len(runs) == 1  # one entry, updated in place
        assert runs[0].ended.startswith("compacted into generation 1: ")
        assert " → " in runs[0].ended
        done = static_text(screen.conversation.query_one(CompactionRow))
        assert done.startswith("compacted into generation 1: ")
        assert f"({stage}, " in done
        assert not any(isinstance(e, NoticeEntry) and "compacted" in e.text for e in entries)
        assert len(app.session.driver.lineage.generations) == 2


async def test_esc_abandons_a_running_compaction(app_for: AppFactory) -> None:
    provider = SlowSummaryProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        first = "first question, " + "with the details of the task " * 30  # outweighs a summary
        for text in (first, "second question", "third question", "fourth question"):
            await send(pilot, text)
            await finish(pilot)
        await send(pilot, "/compact")
        await provider.reached.wait()
        await pilot.pause()
        await pilot.press("escape")
        await finish(pilot)
        runs = [e for e in screen.conversation.entries if isinstance(e, CompactionRunEntry)]
        assert len(runs) == 1
        assert runs[0].ended == "compaction abandoned by you: the conversation is unchanged"
        assert runs[0].kind == "interrupted"
        row = screen.conversation.query_one(CompactionRow)
        assert static_text(row).startswith("compaction abandoned by you")
        assert row.has_class("-interrupted")
        assert len(app.session.driver.lineage.generations) == 1
        assert not screen.busy
        # Its summary request says it was cancelled, not blanks as a request still waiting.
        cells, summary = await inspected(pilot, "kind", "cause", "cost")
        assert cells == ("compaction", "cancelled", "$0")  # the offline model's: free
        assert summary.endswith(
            "Cancelled by you before the provider reported usage: cost $0 (a free model), cache "
            "unknown · a summary cut short is not kept"
        )


async def test_the_status_says_a_compaction_runs_and_its_stage(app_for: AppFactory) -> None:
    provider = SlowSummaryProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        status = app.workbench.status
        first = "first question, " + "with the details of the task " * 30  # outweighs a summary
        for text in (first, "second question", "third question", "fourth question"):
            await send(pilot, text)
            await finish(pilot)
        await send(pilot, "/compact")
        await provider.reached.wait()
        await pilot.pause()
        line = status.render().plain
        # The seconds it has run show once it has run one (a loaded machine gets there).
        assert re.search(r"● compacting \(normal\)( \d+s)? · Esc abandons", line), line
        assert "generating" not in line
        provider.release.set()
        await finish(pilot)
        assert status.compacting == "" and "idle" in status.render().plain


class _RowApp(App[None]):
    def __init__(self, entry: CompactionRunEntry) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        yield CompactionRow(self.entry)


async def test_a_compaction_line_too_wide_breaks_between_its_parts() -> None:
    # 84 columns in one line: its "(stage model, clock)" goes whole onto a second line.
    entry = CompactionRunEntry("normal", "offline/offline", False, 0.0)
    entry.ended, entry.took = "compacted into generation 1: 3,283 → 3,389 tok", 0.4
    app = _RowApp(entry)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        row = app.query_one(CompactionRow)
        lines = [s.text.strip() for s in row.render_lines(Region(0, 0, 80, row.size.height))]
        assert lines == [
            "compacted into generation 1: 3,283 → 3,389 tok",
            "(normal stage offline/offline, 0:00)",
        ]
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        lines = [s.text.strip() for s in row.render_lines(Region(0, 0, 120, row.size.height))]
        assert lines == [f"{entry.ended} (normal stage offline/offline, 0:00)"]


async def test_the_ended_line_names_the_stage_that_applied(app_for: AppFactory) -> None:
    """A real llama.cpp run: the normal stage applied, the emergency stage after it was
    rejected (its summary larger than its input); the line said "emergency stage"."""
    app = app_for(fake_model(SlowSummaryProvider()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        conversation = app.workbench.conversation
        for stage in ("normal", "emergency"):
            await conversation.show_event(CompactionProgress(stage, "llama/smollm2", tokens=90))
        outcome = CompactionOutcome(True, 1, ("normal",), before_tokens=2922, after_tokens=2951)
        await conversation.show_event(CompactionApplied(1, outcome))
        await pilot.pause()
        line = static_text(conversation.query_one(CompactionRow))
        assert line.startswith("compacted into generation 1: 2,922 → 2,951 tok")
        assert "(normal stage llama/smollm2, " in line


async def _emergency_summary_rejected(conversation: ConversationPane, warning: str) -> None:
    """llama.cpp's emergency stage running, then its summary rejected with ``warning``."""
    await conversation.show_event(CompactionProgress("emergency", "llama/smollm2"))
    await conversation.show_event(WarningEvent("summary_rejected", warning))


async def test_a_rejected_summary_stays_in_the_conversation(app_for: AppFactory) -> None:
    """On llama.cpp the line ended "compaction ended: nothing was compacted"; why (the
    summary was larger than its input) was only a toast, gone in seconds."""
    app = app_for(fake_model(SlowSummaryProvider()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        conversation = app.workbench.conversation
        why = "the emergency summary from llama/smollm2 was rejected: the summary is larger"
        await _emergency_summary_rejected(conversation, why)
        conversation.end_compaction("compaction ended: nothing was compacted")
        await pilot.pause()
        assert why in said(app)


async def test_a_rejected_summary_is_said_once(app_for: AppFactory) -> None:
    """On llama.cpp, ``/compact``'s line said "emergency summary rejected: it would not make
    the conversation smaller (1,237 to 1,381 tokens)", and a notice under it said the same."""
    app = app_for(fake_model(SlowSummaryProvider()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        conversation = app.workbench.conversation
        why = "it would not make the conversation smaller (1,237 to 1,381 tokens)"
        said_first = f"the emergency summary from llama/smollm2 was rejected: {why}"
        await _emergency_summary_rejected(conversation, said_first)
        await conversation.run_ended(
            "done", f"nothing was compacted: emergency summary rejected: {why}", compaction=True
        )
        await pilot.pause()
        line = static_text(conversation.query_one(CompactionRow))
        assert line.count(why) == 1 and not [t for t in said(app) if why in t]


async def test_an_automatic_compaction_says_why_it_ran(app_for: AppFactory, project: Path) -> None:
    """The line said what ran ("emergency stage offline/offline") and what came of it, not
    why: the trigger was in the lineage browser only."""
    (project / "big.md").write_text("# Big\n" + "a line of the big file with words\n" * 100)
    models = {"offline/offline": {"compaction_threshold_tokens": 4000}}
    app = app_for(config={"compaction": {"mode": "auto"}, "models": models})
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        for text in ("hello", "what is in this project?", "search for TODO", "read big.md"):
            await send(pilot, text)
            await finish(pilot)
        conversation = app.workbench.conversation
        line = static_text(conversation.query_one(CompactionRow))
        assert line.startswith("compacted into generation 1: ")
        assert "(trigger: soft threshold · " in line


async def test_a_compact_that_compacts_nothing_says_why(app_for: AppFactory) -> None:
    """``/compact`` on a conversation with nothing to summarize ended "nothing was compacted",
    and a daily user could not tell why (too short? the model? a bug?)."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await send(pilot, "hello")
        await finish(pilot)
        await send(pilot, "/compact")
        await finish(pilot)
        line = static_text(app.workbench.conversation.query_one(CompactionRow))
        assert line.startswith("compaction ended: nothing was compacted: ")
        assert "normal stage: nothing older than the 3 turns it keeps" in line
        assert "emergency stage: nothing older than the turn it keeps" in line
