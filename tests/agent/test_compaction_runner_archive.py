"""The history archive through the runner: ``history.md`` checked line by line.

A session with tools and a ``FileHistoryArchive`` under ``tmp_path/sessions/s1`` starts with a
rich stretch (an active skill, reasoning, a read, a ``display_file`` call, a rejected write, an
image, a sub-agent result), then padded requests until the threshold is crossed twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.engine.compaction.archive import HISTORY_NOTE_MARKER
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import WarningEvent
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Image, Message, ToolCall
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.sessions.history_archive import FileHistoryArchive
from tests.agent.fakes import Reply
from tests.agent.test_compaction_runner_kit import Session, build_session, padded, summary_text

STALE_NOTE = f"{HISTORY_NOTE_MARKER} stale note copied by the model]"
REVIEW = "Please review app.py before the release."
SCREENSHOT = "Here is a screenshot of the failure."
SUB_AGENT_BODY = "SUB-AGENT-BODY: explore found 3 call sites."

RICH_LINES = [
    "### User",
    "",
    "[active skill: code-review]",
    "",
    REVIEW,
    "",
    "### Assistant",
    "",
    "Reading the files.",
    "",
    "- ✓ read path=app.py",
    '  > {"path":"app.py","startLine":1,"endLine":1,"totalLines":1,"file_hash":"caf026f25d714020"'
    ',"output":"   1\\tprint(\'hi\')"}',
    "- ✗ write path=notes.txt, content=review notes (rejected)",
    "",
    "### Assistant",
    "",
    "app.py prints hi; I could not write notes.txt.",
    "",
    "### User",
    "",
    SCREENSHOT,
    "",
    "[image: image/png]",
    "",
    "### Assistant",
    "",
    "The screenshot shows a stack trace.",
    "",
    "### Sub-agent result",
    "",
    "[body omitted]",
    "",
    "### Assistant",
    "",
    "Thanks, noted the call sites.",
]
"""What the rich stretch must look like in ``history.md``, line for line."""


@dataclass
class RecordingArchive:
    """``FileHistoryArchive`` that records the lineage each append sees."""

    inner: FileHistoryArchive
    lineage: list[ConversationLineage] = field(default_factory=list)
    current: list[Session] = field(default_factory=list)

    def note(self, messages: Sequence[Message]) -> str:
        return self.inner.note(messages)

    def append(self, messages: Sequence[Message]) -> None:
        self.lineage.append(self.current[0].lineage)
        self.inner.append(messages)


def _script() -> list[Reply]:
    calls = (
        ToolCall("c1", "read", {"path": "app.py"}),
        ToolCall("c2", "display_file", {"path": "app.py"}),
        ToolCall("c3", "write", {"path": "notes.txt", "content": "review notes"}),
    )
    replies = [
        Reply(["Reading the files."], calls),
        Reply(["app.py prints hi; I could not write notes.txt."]),
        Reply(["The screenshot shows a stack trace."]),
        Reply(["Thanks, noted the call sites."]),
    ]
    return replies


def _answer(queue: list[Reply]) -> Callable[[ChatRequest], Reply]:
    compactions = [0]

    def answer(request: ChatRequest) -> Reply:
        if request.compaction:
            compactions[0] += 1
            if compactions[0] == 1:
                return Reply([summary_text("first")])
            # A model that copies the earlier summary's note lines, plus a stale one.
            echoed = [
                line
                for m in request.messages
                for line in m.content.split("\n")
                if line.startswith(HISTORY_NOTE_MARKER)
            ]
            assert echoed, "the previous summary (with its note) must reach the summarizer"
            return Reply(["\n".join([STALE_NOTE, summary_text("second"), *echoed])])
        if queue:
            return queue.pop(0)
        return Reply([f"answer {len(request.messages)}"])

    return answer


def _simple_lines(messages: Sequence[Message]) -> list[str]:
    """Expected lines for plain user/assistant/summary messages (no tools, no envelopes)."""
    titles = {"user": "User", "assistant": "Assistant", "summary": "Summary"}
    lines: list[str] = []
    for message in messages:
        text = "\n".join(
            line for line in message.content.split("\n") if not line.startswith(HISTORY_NOTE_MARKER)
        ).strip()
        lines += ["", f"### {titles[message.role]}", "", *text.split("\n")]
    return lines


async def test_history_archive_line_by_line(
    project: Path, clock: ManualClock, tmp_path: Path
) -> None:
    file_archive = FileHistoryArchive(tmp_path / "sessions" / "s1")
    archive = RecordingArchive(file_archive)
    queue = _script()
    session = build_session(
        project,
        clock,
        window=8000,
        tools=True,
        answer=_answer(queue),
        compaction=CompactionSettings(archive=archive),
        reasoning_for=lambda r: "SECRET-REASONING" if not r.compaction else "",
    )
    archive.current.append(session)
    history = file_archive.history_path

    session.driver.toggle_skill("code-review")
    await session.say(REVIEW)
    image = Image("image/png", "iVBORw0KGgo=")
    assert (await session.runner.run(Message("user", SCREENSHOT, images=(image,)))).status == "done"
    sub_agent = Message("user", SUB_AGENT_BODY, source=SUB_AGENT_RESULT_SOURCE)
    assert (await session.runner.run(sub_agent)).status == "done"
    assert queue == []
    rich = session.runner.conversation

    snapshots: list[str] = []
    turn = 0
    while len(session.lineage.generations) < 3:
        assert history.exists() == (len(session.lineage.generations) > 1)
        generations = len(session.lineage.generations)
        await session.say(padded(f"request {turn}"))
        turn += 1
        assert turn < 80, "the session never compacted twice"
        if len(session.lineage.generations) > generations:
            snapshots.append(history.read_text(encoding="utf-8"))
    first_text, second_text = snapshots
    gen0, gen1, gen2 = session.lineage.generations
    assert gen1.outcome is not None and gen2.outcome is not None
    assert gen1.outcome.stage_count == gen2.outcome.stage_count == 1

    # Batch 1: the rich stretch verbatim by the render rules, then the padded turns summarized.
    batch1 = gen0.messages[: len(gen0.messages) - gen1.outcome.retained_count]
    assert batch1[: len(rich)] == rich
    expected1 = RICH_LINES + _simple_lines(batch1[len(rich) :])
    assert first_text.split("\n") == [*expected1, ""]
    # Batch 2 is appended after batch 1: the first summary (note removed), the replayed skill,
    # then the next padded turns.
    batch2 = gen1.messages[: len(gen1.messages) - gen2.outcome.retained_count]
    assert batch2[0].role == "summary"
    assert batch2[1].content.startswith('<steiner-skill name="code-review"')
    replay = ["", "### User", "", "[active skill: code-review]"]
    expected2 = [*_simple_lines(batch2[:1]), *replay, *_simple_lines(batch2[2:])]
    assert second_text.split("\n") == [*expected1, "", *expected2[1:], ""]

    # Omitted: reasoning, display_file calls, sub-agent bodies, notes (a tool result keeps
    # its first lines).
    for absent in (
        "SECRET-REASONING",
        "display_file",
        "SUB-AGENT-BODY",
        HISTORY_NOTE_MARKER,
        "<steiner-skill",
    ):
        assert absent not in second_text, absent

    # Exactly one history note line per summary; stale and copied notes are removed.
    note = file_archive.note(())
    for generation in (gen1, gen2):
        notes = [
            line for line in generation.summary.split("\n") if line.startswith(HISTORY_NOTE_MARKER)
        ]
        assert notes == [note]
        assert generation.messages[0] == Message("summary", generation.summary)
    assert gen2.summary == summary_text("second") + "\n\n" + note
    # Appends happened after the new generation was adopted, once per compaction, in order.
    assert [len(lineage.generations) for lineage in archive.lineage] == [2, 3]


async def _compact_once(session: Session) -> None:
    turn = 0
    while len(session.lineage.generations) < 2:
        await session.say(padded(f"request {turn}"))
        turn += 1
        assert turn < 40, "the session never compacted"


async def test_note_failure_warns_and_keeps_the_summary(
    project: Path, clock: ManualClock, tmp_path: Path
) -> None:
    taken = tmp_path / "sessions" / "s1"
    taken.parent.mkdir()
    taken.write_text("not a directory", encoding="utf-8")
    archive = FileHistoryArchive(taken)
    session = build_session(project, clock, compaction=CompactionSettings(archive=archive))

    await _compact_once(session)

    warnings = [(e.code, e.message) for e in session.sink.of(WarningEvent)]  # type: ignore[attr-defined]
    assert len(warnings) == 1
    assert warnings[0][0] == "compact_conversation"
    assert warnings[0][1].startswith("compact conversation: history note: ")
    assert session.lineage.active.summary == summary_text("summary")  # applied, no note
    assert taken.read_text(encoding="utf-8") == "not a directory"  # nothing appended


@dataclass
class FailingAppend:
    """An archive whose note works and whose appends fail."""

    inner: FileHistoryArchive

    def note(self, messages: Sequence[Message]) -> str:
        return self.inner.note(messages)

    def append(self, messages: Sequence[Message]) -> None:
        raise OSError("disk full")


async def test_append_failure_warns_and_keeps_the_adopted_state(
    project: Path, clock: ManualClock, tmp_path: Path
) -> None:
    archive = FailingAppend(FileHistoryArchive(tmp_path / "sessions" / "s1"))
    session = build_session(project, clock, compaction=CompactionSettings(archive=archive))

    await _compact_once(session)

    warnings = [(e.code, e.message) for e in session.sink.of(WarningEvent)]  # type: ignore[attr-defined]
    assert warnings == [("archive_compacted_history", "archive compacted history: disk full")]
    note = archive.note(())
    assert session.lineage.active.summary == summary_text("summary") + "\n\n" + note
    assert not archive.inner.history_path.exists()
