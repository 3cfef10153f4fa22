"""The history archive through the operation: note before the next state, appends after."""

from __future__ import annotations

from steiner_tui.engine.compaction.escalation import CompactionCounter
from steiner_tui.engine.compaction.host import SummaryResponse
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import commit_compaction, compact_with_lineage
from steiner_tui.engine.events import ListSink, WarningEvent
from tests.engine.compaction.fakes import (
    FakeHost,
    conversation,
    heavy_tail_conversation,
    make_env,
    said,
)
from tests.engine.compaction.test_archive import MemoryArchive


async def test_note_in_summary_and_sources_pending_until_commit() -> None:
    messages = conversation(6)
    archive = MemoryArchive()
    host = FakeHost([SummaryResponse("Goal.\n[history archive: stale]\nNext.")])
    env = make_env(host, archive=archive)
    result = await compact_with_lineage(ConversationLineage.start(messages), env)
    assert result.lineage.active.summary == "Goal.\nNext.\n\n[history archive: see history.md]"
    assert result.lineage.active.messages[0].content == result.lineage.active.summary
    assert result.pending_archive == (tuple(messages[:6]),)
    assert archive.appended == []
    sink = ListSink()
    assert commit_compaction(result, counter=CompactionCounter(), archive=archive, sink=sink)
    assert archive.appended == [tuple(messages[:6])]


async def test_two_stages_archive_only_real_sources_in_source_order() -> None:
    messages = heavy_tail_conversation()
    archive = MemoryArchive()
    host = FakeHost([SummaryResponse(said("S1")), SummaryResponse(said("S2"))])
    result = await compact_with_lineage(
        ConversationLineage.start(messages), make_env(host, archive=archive)
    )
    assert result.pending_archive == (tuple(messages[:4]), tuple(messages[4:8]))
    assert archive.noted == [tuple(messages[:4]), tuple(messages[4:8])]
    commit_compaction(result, counter=CompactionCounter(), archive=archive, sink=ListSink())
    assert [m for batch in archive.appended for m in batch] == messages[:8]


async def test_note_error_keeps_the_summary_without_archiving() -> None:
    archive = MemoryArchive(note_error=OSError("read-only"))
    sink = ListSink()
    host = FakeHost([SummaryResponse("Goal.")])
    result = await compact_with_lineage(
        ConversationLineage.start(conversation(6)), make_env(host, archive=archive, sink=sink)
    )
    assert result.outcome.applied
    assert result.lineage.active.summary == "Goal."
    assert result.pending_archive == ()
    assert sink.of(WarningEvent) == [
        WarningEvent("compact_conversation", "compact conversation: history note: read-only")
    ]


async def test_append_error_warns_stops_and_keeps_the_adopted_state() -> None:
    archive = MemoryArchive(fail_on=0)
    host = FakeHost([SummaryResponse(said("S1")), SummaryResponse(said("S2"))])
    result = await compact_with_lineage(
        ConversationLineage.start(heavy_tail_conversation()), make_env(host, archive=archive)
    )
    adopted = result.lineage
    sink = ListSink()
    assert not commit_compaction(result, counter=CompactionCounter(), archive=archive, sink=sink)
    assert archive.attempts == 1
    assert sink.of(WarningEvent) == [
        WarningEvent("archive_compacted_history", "archive compacted history: disk full")
    ]
    assert adopted.active.summary.endswith("[history archive: see history.md]")
