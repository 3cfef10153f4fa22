"""Shared kit for the runner-driven compaction scenarios (``test_compaction_runner_*.py``).

Every scenario is a whole session built by the one session factory (``build_session``) over a
scripted provider with a small window, answering compaction requests (``ChatRequest.compaction``)
with scripted summaries. This module holds no tests; it builds sessions and reads their traces.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import msgspec

from steiner_tui.agent import session_factory
from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner, RunResult
from steiner_tui.agent.session import SessionRequest
from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.compaction.fallback import CompactionFallback, LastMainRequest
from steiner_tui.engine.compaction.host import SummaryTarget
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.policy import AutoCompaction, CompactionPolicy
from steiner_tui.engine.events import (
    CompactionApplied,
    CompactionOutcome,
    EngineEvent,
    HealthEvent,
    ListSink,
)
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import (
    ChatRequest,
    ModelInfo,
    ProviderEvent,
    StreamDone,
    StreamReasoning,
)
from steiner_tui.sessions.loader import LoadedSession, SessionHeader
from steiner_tui.sessions.meta import SessionMeta
from steiner_tui.sessions.records import LOG_VERSION
from tests.agent.fakes import Reply, ScriptedProvider

SECTIONS = (
    "Task and Goal",
    "Current Repository / Project State",
    "Work Completed",
    "Key Findings and Decisions",
    "Problems Encountered",
    "Remaining Work",
    "Verification and Acceptance",
    "User Preferences and Interaction Context",
)
MAIN_REF = "fake/fake-model"
FALLBACK_REF = "fb/fb-model"
PADDING = "lorem ipsum dolor "


def summary_text(tag: str) -> str:
    """A short eight-section summary whose bullets carry ``tag``."""
    return "\n\n".join(
        f"## {i}. {title}\n- {tag} item {i}" for i, title in enumerate(SECTIONS, start=1)
    )


def padded(label: str, words: int = 60) -> str:
    """A user message of about ``3 * words`` words starting with ``label``."""
    return f"{label}: " + PADDING * words


@dataclass
class SessionProvider(ScriptedProvider):
    """``ScriptedProvider`` plus reasoning chunks and a stateful provider's retirement signal.

    Attributes:
        reasoning_for: reasoning streamed before a request's reply ("" for none).
        signal_retirement: main summaries (``retire_backend_state``) end with
            ``clear_backend_state`` set, as a stateful backend reports a retired transcript.
    """

    reasoning_for: Callable[[ChatRequest], str] | None = None
    signal_retirement: bool = False

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        reasoning = self.reasoning_for(request) if self.reasoning_for else ""
        if reasoning:
            yield StreamReasoning(reasoning)
        async for event in super().stream(request):
            if (
                isinstance(event, StreamDone)
                and self.signal_retirement
                and request.retire_backend_state
            ):
                event = msgspec.structs.replace(event, clear_backend_state=True)
            yield event


def default_answer(request: ChatRequest) -> Reply:
    """Compaction requests get ``summary_text("summary")``; normal turns a short answer."""
    if request.compaction:
        return Reply([summary_text("summary")])
    return Reply([f"answer {len(request.messages)}"])


@dataclass
class Session:
    """A driver over a scripted provider, with its sink and clock."""

    driver: InteractiveDriver
    provider: SessionProvider
    sink: ListSink
    clock: ManualClock
    seen: int = field(default=0)

    @property
    def runner(self) -> Runner:
        return self.driver.runner

    @property
    def lineage(self) -> ConversationLineage:
        return self.driver.lineage

    def summary_requests(self) -> list[ChatRequest]:
        return [r for r in self.provider.requests if r.compaction]

    def main_requests(self) -> list[ChatRequest]:
        return [r for r in self.provider.requests if not r.compaction]

    def outcomes(self) -> list[CompactionOutcome]:
        return [e.outcome for e in self.sink.of(CompactionApplied)]  # type: ignore[attr-defined]

    def health(self) -> list[tuple[str, str, int]]:
        events = self.sink.of(HealthEvent)
        return [(e.severity, e.state, e.stage_count) for e in events]  # type: ignore[attr-defined]

    def new_events(self) -> list[EngineEvent]:
        """Events emitted since the previous call."""
        events = self.sink.events[self.seen :]
        self.seen = len(self.sink.events)
        return events

    def would_compact(self, text: str) -> bool:
        """Whether submitting ``text`` now crosses the soft trigger or the hard limit."""
        runner = self.runner
        tokens = runner.prepare((*runner.conversation, Message("user", text))).estimate.tokens
        return runner.model.budget.should_compact(tokens)

    async def say(self, text: str) -> RunResult:
        """Submit ``text``; the episode must end ``done``."""
        result = await self.driver.submit(text)
        assert result.status == "done", result.error
        return result

    async def fill(self, label: str, *, words: int = 60, limit: int = 40) -> int:
        """Submit padded turns until the next one would compact; returns how many were sent."""
        sent = 0
        while not self.would_compact(padded(f"{label} {sent}", words)):
            await self.say(padded(f"{label} {sent}", words))
            sent += 1
            assert sent < limit, "the session never reached the compaction trigger"
        return sent


def build_session(
    project: Path,
    clock: ManualClock,
    *,
    window: int = 4000,
    max_output: int = 400,
    answer: Callable[[ChatRequest], Reply | None] | None = default_answer,
    replies: Sequence[Reply] = (),
    stateful: bool = False,
    tools: bool = False,
    threshold: int | None = None,
    compaction: CompactionSettings | None = None,
    lineage: ConversationLineage | None = None,
    seed: LastMainRequest | None = None,
    signal_retirement: bool = False,
    reasoning_for: Callable[[ChatRequest], str] | None = None,
    vision: bool = False,
    compaction_mode: AutoCompaction | None = None,
    policy: CompactionPolicy | None = None,
) -> Session:
    """A session ``s1`` over a scripted main model ``fake/fake-model`` (cache key ``key-1``)."""
    provider = SessionProvider(
        list(replies),
        stateful=stateful,
        info=ModelInfo(window, max_output, vision=vision),
        on_request=answer,
        reasoning_for=reasoning_for,
        signal_retirement=signal_retirement,
    )
    main = MainModel(
        "fake",
        "fake-model",
        provider,
        provider.info,
        threshold_tokens=threshold,
        prompt_cache_key="key-1",
    )
    sink = ListSink()
    folder = project.parent / "session-s1"
    resume = None if lineage is None else continued(lineage, main.prompt_cache_key, seed, folder)
    request = SessionRequest(
        project,
        model=main,
        session_id="s1",
        resume=resume,
        record=False,
        delegation=None,
        tools=None if tools else (),
        compaction=compaction or CompactionSettings(),
        sink=sink,
        clock=clock,
        compaction_mode=compaction_mode,
        compaction_policy=policy,
    )
    driver = session_factory.build_session(request).driver
    return Session(driver, provider, sink, clock)


def continued(
    lineage: ConversationLineage,
    cache_key: str,
    seed: LastMainRequest | None = None,
    directory: Path = Path("unsaved"),
) -> LoadedSession:
    """A saved session ``s1`` holding ``lineage`` (and ``seed``), as resume hands it over;
    ``directory`` is its folder (whole tool outputs a compaction masks are kept there)."""
    header = SessionHeader(
        version=LOG_VERSION,
        session_id="s1",
        alias="fake",
        model="fake-model",
        prompt_cache_key=cache_key,
    )
    return LoadedSession(
        "s1",
        directory,
        header,
        lineage,
        seed or LastMainRequest(),
        (),
        SessionMeta("s1"),
    )


def fallback_settings(
    provider: ScriptedProvider,
    *,
    after: timedelta = timedelta(minutes=10),
    alias: str = "fb",
    model: str = "fb-model",
) -> CompactionSettings:
    """Compaction settings whose fallback resolves to ``provider`` as ``alias/model``."""
    target = SummaryTarget(alias, model, ModelTokenBudget.for_model(provider.info), provider)
    return CompactionSettings(
        fallback=CompactionFallback(f"{alias}/{model}", after, lambda scope: target)
    )


def long_lineage(turns: int, words: int = 60) -> ConversationLineage:
    """A stored lineage of ``turns`` padded user/assistant pairs (a resumed session)."""
    messages: list[Message] = []
    for turn in range(1, turns + 1):
        messages.append(Message("user", padded(f"old request {turn}", words), turn=turn))
        messages.append(Message("assistant", f"old answer {turn}", turn=turn))
    return ConversationLineage.start(messages)


async def wait_until_blocked(reply: Reply, task: asyncio.Task[RunResult]) -> None:
    """Wait until ``task`` streams into ``reply``'s block; fail if it ends before that."""
    reached = asyncio.create_task(reply.reached.wait())
    await asyncio.wait({reached, task}, return_when=asyncio.FIRST_COMPLETED)
    if not reached.done():
        reached.cancel()
        raise AssertionError(f"the run ended before the blocking reply: {task.result()}")


def final_user_text(request: ChatRequest) -> str:
    """The content of a request's last message (a summary request's instruction)."""
    last = request.messages[-1]
    assert last.role == "user"
    return last.content
