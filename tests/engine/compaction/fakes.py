"""A scripted compaction host and helpers shared by the compaction tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.compaction.host import SummaryResponse, SummaryTarget
from steiner_tui.engine.compaction.operation import CompactionEnv
from steiner_tui.engine.events import ListSink
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest, ModelInfo, ProviderEvent
from steiner_tui.engine.tooldefs import ToolDefinition

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def tokens_of(messages: Sequence[Message]) -> int:
    """The fake estimator: one token per four characters of content."""
    return sum(len(m.content) for m in messages) // 4


def text(tokens: int, tag: str = "") -> str:
    """Content that the fake estimator counts as ``tokens`` tokens (tag first)."""
    return (tag + " " + "x" * (tokens * 4))[: tokens * 4] if tag else "x" * (tokens * 4)


def budget(window: int, max_output: int = 0) -> ModelTokenBudget:
    return ModelTokenBudget(context_size=window, max_output=max_output)


def main_target(window: int = 100_000, *, stateful: bool = False) -> SummaryTarget:
    return SummaryTarget("anthropic", "main-model", budget(window), stateful=stateful)


class FakeProvider:
    """Stands in for a built provider; the fake host never streams from it."""

    alias = "offline"
    stateful = False

    def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        raise AssertionError("the fake host answers summary calls itself")

    def model_info(self, model: str) -> ModelInfo:
        return ModelInfo()


Script = SummaryResponse | BaseException | Callable[[ChatRequest, SummaryTarget], SummaryResponse]


def said(tag: str) -> str:
    """A summary that passes the engine's checks (``summary_problem``), starting with ``tag``."""
    return f"{tag} The task, the files it touched and what remains, as the summary keeps them."


@dataclass
class FakeHost:
    """Answers summary calls from ``script`` in order and records every call."""

    script: list[Script] = field(default_factory=list)
    calls: list[tuple[ChatRequest, SummaryTarget]] = field(default_factory=list)
    builds: list[
        tuple[tuple[Message, ...], str, SummaryTarget, int, tuple[ToolDefinition, ...]]
    ] = field(default_factory=list)
    saved: list[Message] = field(default_factory=list)

    def estimate_conversation(self, messages: Sequence[Message]) -> int:
        return tokens_of(messages)

    def build_summary_request(
        self,
        messages: Sequence[Message],
        instruction: str,
        target: SummaryTarget,
        max_tokens: int,
        tools: Sequence[ToolDefinition],
    ) -> ChatRequest:
        self.builds.append((tuple(messages), instruction, target, max_tokens, tuple(tools)))
        return ChatRequest(
            model=target.model,
            messages=(*messages, Message("user", instruction)),
            tools=tuple(tools),
            max_tokens=1,
            transport_session="main-session",
            backend_state="should-be-replaced",
        )

    def estimate_request(self, request: ChatRequest, target: SummaryTarget) -> int:
        return tokens_of(request.messages)

    def message_tokens(self, message: Message, target: SummaryTarget) -> int:
        return tokens_of((message,))

    def save_full_output(self, message: Message) -> str:
        self.saved.append(message)
        return f"/results/{message.tool_call_id}.txt"

    async def call_summary(self, request: ChatRequest, target: SummaryTarget) -> SummaryResponse:
        self.calls.append((request, target))
        if not self.script:
            raise AssertionError("unexpected summary call")
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        if callable(step):
            return step(request, target)
        return step

    @property
    def targets(self) -> list[str]:
        return [target.ref for _, target in self.calls]


@dataclass
class Clock:
    now: datetime = T0
    reads: int = 0

    def __call__(self) -> datetime:
        self.reads += 1
        return self.now

    def later(self, **kwargs: float) -> datetime:
        return self.now - timedelta(**kwargs)


def make_env(host: FakeHost, main: SummaryTarget | None = None, **kwargs: object) -> CompactionEnv:
    """An env over ``host`` with a fixed clock and a list sink (override any field)."""
    fields: dict[str, object] = {
        "host": host,
        "main": main or main_target(),
        "clock": Clock(),
        "sink": ListSink(),
    }
    fields.update(kwargs)
    return CompactionEnv(**fields)  # type: ignore[arg-type]


def conversation(turns: int, tokens: int = 10) -> list[Message]:
    """``turns`` user/assistant pairs, each message ``tokens`` tokens, tagged u<i>/a<i>."""
    out: list[Message] = []
    for i in range(1, turns + 1):
        out.append(Message("user", text(tokens, f"u{i}"), turn=i))
        out.append(Message("assistant", text(tokens, f"a{i}"), turn=i))
    return out


def heavy_tail_conversation() -> list[Message]:
    """Two small turns, then three turns of 24k tokens: above a 100k window's 70% trigger
    even after the normal stage keeps its three turns."""
    out = conversation(2)
    for i in range(3, 6):
        out.append(Message("user", text(12_000, f"u{i}"), turn=i))
        out.append(Message("assistant", text(12_000, f"a{i}"), turn=i))
    return out
