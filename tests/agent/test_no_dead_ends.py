"""After any rejected request the person can go on (issue 14, "No dead ends").

A request too large for the window, a provider's ``context_length`` rejection and a stateful
provider's cap each end a run at most once: the message is not stored twice when sent again,
``/compact`` and ``/clear`` work and clear the stateful cap (which stops the run), and the engine
says "over the window" as data (the preview's ``fits``, an ``over_window`` health event).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import count
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import ErrorEvent, HealthEvent, WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import READ_AT_START, ChatRequest, ProviderError
from tests.agent.fakes import Reply
from tests.agent.test_compaction_runner_kit import (
    build_session,
    long_lineage,
    padded,
    summary_text,
)


async def test_a_resent_message_is_not_stored_twice(project: Path, clock: ManualClock) -> None:
    failing = ProviderError("server", "fake: overloaded")
    replies = iter([Reply(error=failing), Reply(["answered"]), Reply(["again"])])

    def answer(request: ChatRequest) -> Reply:
        return Reply([summary_text("s")]) if request.compaction else next(replies)

    session = build_session(project, clock, answer=answer)
    first = await session.driver.submit("please answer")
    assert first.status == "error"
    second = await session.driver.submit("please answer")
    assert second.status == "done"
    users = [m for m in session.runner.conversation if m.role == "user"]
    assert [m.content for m in users] == ["please answer"]
    # A new message after the reply is stored, even with the same text.
    await session.say("please answer")
    users = [m for m in session.runner.conversation if m.role == "user"]
    assert len(users) == 2


async def test_a_provider_context_length_rejection_compacts_and_retries_once(
    project: Path, clock: ManualClock
) -> None:
    rejections = count()

    def answer(request: ChatRequest) -> Reply:
        if request.compaction:
            return Reply([summary_text("s")])
        # The provider counts more than the engine: the first full request is rejected.
        if len(request.messages) > 8 and next(rejections) == 0:
            return Reply(error=ProviderError("context_length", "fake: prompt is too long"))
        return Reply(["fine"])

    session = build_session(project, clock, answer=answer)
    for turn in range(4):
        await session.say(padded(f"turn {turn}", 20))
    result = await session.driver.submit("and now?")
    assert result.status == "done", result.error
    assert len(session.outcomes()) == 1  # compacted between the rejection and the retry
    # The first rejection is a warning (the run goes on); nothing ended in an error.
    assert session.sink.of(ErrorEvent) == []
    warnings = [e.code for e in session.sink.of(WarningEvent)]  # type: ignore[attr-defined]
    assert warnings == ["context_length"]
    assert not session.runner.state.over_window


def _stateful(usage: list[int]) -> Callable[[ChatRequest], Reply]:
    calls = count(1)

    def answer(request: ChatRequest) -> Reply:
        if request.compaction:
            return Reply([summary_text("stateful")])
        n = next(calls)
        return Reply([f"ok {n}"], prompt_tokens=usage.pop(0), backend_state=f"resp-{n}")

    return answer


async def test_the_stateful_cap_stops_the_next_run_without_compacting(
    project: Path, clock: ManualClock
) -> None:
    # Window 10000: the cap is 9000. A resumed six-turn lineage reports 9500 on its first
    # reply, so the run is at the cap: the next decision stops, the compactor is not called,
    # and the message says what clears the cap.
    session = build_session(
        project,
        clock,
        window=10_000,
        stateful=True,
        signal_retirement=True,
        answer=_stateful([9500, 3000, 3100]),
        lineage=long_lineage(6, words=10),
    )
    await session.say("one")
    assert session.runner.state.parent_usage is not None
    assert session.runner.state.parent_usage.cap_reached
    requests = len(session.provider.requests)
    result = await session.driver.submit("two")
    assert result.status == "error"
    assert result.error.startswith("request exceeds context window")
    assert "/compact or /clear clears the cap" in result.error
    assert len(session.provider.requests) == requests
    assert session.outcomes() == []
    assert session.health()[-1][:2] == ("critical", "likely_lossy")
    assert session.runner.state.parent_usage.cap_reached


async def test_manual_compact_and_clear_clear_the_stateful_cap(
    project: Path, clock: ManualClock
) -> None:
    for way in ("compact", "clear"):
        session = build_session(
            project,
            clock,
            window=10_000,
            stateful=True,
            signal_retirement=True,
            answer=_stateful([9500, 3000]),
            lineage=long_lineage(6, words=10),
        )
        await session.say("one")
        if way == "compact":
            assert await session.driver.compact() is not None
        else:
            session.driver.replace_lineage(ConversationLineage())
        assert session.runner.state.parent_usage is None or (
            not session.runner.state.parent_usage.cap_reached
        )
        result = await session.driver.submit("two")
        assert result.status == "done", (way, result.error)


async def test_over_the_window_is_engine_data(project: Path, clock: ManualClock) -> None:
    # A resumed conversation far past a small window: the preview says it does not fit.
    session = build_session(project, clock, window=4000, lineage=long_lineage(40))
    preview = session.runner.preview()
    assert not preview.fits and preview.overflow_tokens > 0
    # The next message compacts first and is answered: the conversation goes on.
    result = await session.driver.submit("where were we?")
    assert result.status == "done", result.error
    assert session.runner.preview().fits


async def test_a_request_that_can_never_fit_says_over_the_window(
    project: Path, clock: ManualClock
) -> None:
    # The static prefix alone is larger than the window: nothing compaction does can help.
    (project / "AGENTS.md").write_text("rules " * 4000, encoding="utf-8")
    session = build_session(project, clock, window=4000)
    result = await session.driver.submit("hi")
    assert (result.status, result.error_kind) == ("error", "context_window")
    # Figures grouped as everywhere else (it said "~3814 prompt tokens ... > 4096").
    assert re.fullmatch(
        r"request exceeds context window: ~\d{1,3}(,\d{3})+ prompt tokens \+ \d+ reserved "
        r"\+ \d+ margin > 4,000",
        result.error,
    ), result.error
    health = session.sink.of(HealthEvent)
    assert [(h.severity, h.state) for h in health][-1] == ("critical", "over_window")  # type: ignore[attr-defined]
    assert session.runner.conversation[-1] == Message("user", "hi", turn=1)


async def test_a_window_the_fixed_part_alone_overflows_says_compacting_cannot_help(
    project: Path, clock: ManualClock
) -> None:
    """The preamble, instructions and tools alone are past the prompt room: offering /compact
    sends the person round in circles; the error says why not and what gives room."""
    (project / "AGENTS.md").write_text("rules " * 4000, encoding="utf-8")
    session = build_session(project, clock, window=4000)
    fixed = session.runner.fixed_tokens()
    result = await session.driver.submit("hi")
    assert (result.status, result.error_kind) == ("error", "context_window")
    [error] = session.sink.of(ErrorEvent)
    hints = [remedy.hint for remedy in error.remedies]  # type: ignore[attr-defined]
    assert hints[0].startswith(
        f"compacting cannot make room: a request with no conversation takes ~{fixed:,} tokens "
        "(preamble, instructions, tool definitions), more than the "
    )
    assert "of the 4,000-token window" in hints[0]
    assert 'context_window under [models."fake/fake-model"]' in hints[0]
    # A setting, read at start: resending (F5, which goes with check_server) cannot help.
    assert hints[0].endswith("; " + READ_AT_START)
    assert [remedy.action for remedy in error.remedies] == ["fix_config", "switch_model"]  # type: ignore[attr-defined]
    assert not any("/compact" in hint for hint in hints)
