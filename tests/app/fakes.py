"""Fake providers for app tests: one that waits on an event, one that asks to write a file."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from steiner_tui.agent.model import MainModel
from steiner_tui.engine.messages import ToolCall
from steiner_tui.engine.provider import (
    ChatRequest,
    ModelInfo,
    ProviderError,
    ProviderEvent,
    Remedy,
    StreamDone,
    StreamText,
    StreamToolCall,
    StreamUsage,
)

INFO = ModelInfo(context_window=32768, max_output=4096, tokenizer="heuristic")


@dataclass
class GateProvider:
    """Streams ``chunks``, then waits on ``release`` (tests cancel it with Esc)."""

    chunks: tuple[str, ...] = ("Partial ", "answer")
    alias: str = "fake"
    stateful: bool = False
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    leading: tuple[ProviderEvent, ...] = ()
    """Streamed before the chunks (reasoning, a tool call's arguments being written)."""

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        for event in self.leading:
            yield event
        for chunk in self.chunks:
            yield StreamText(chunk)
        self.reached.set()
        await self.release.wait()
        yield StreamUsage(100, 10)
        yield StreamDone()


@dataclass
class WriteProvider:
    """First call: a ``write`` tool call; later calls: a short answer."""

    path: str = "notes.txt"
    alias: str = "fake"
    stateful: bool = False
    requests: list[ChatRequest] = field(default_factory=list)

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        if len(self.requests) == 1:
            arguments = {"path": self.path, "content": "hello\n"}
            yield StreamText("Writing the file.")
            yield StreamToolCall(ToolCall("call_1", "write", arguments, ""))
        else:
            yield StreamText("Done.")
        yield StreamUsage(100, 10)
        yield StreamDone()


def fake_model(
    provider: GateProvider | WriteProvider | BashProvider | FailingProvider,
) -> MainModel:
    """A main model over ``provider`` (model id ``offline``: the heuristic tokenizer)."""
    return MainModel("fake", "offline", provider, INFO)


@dataclass
class CallsProvider:
    """First call: ``text``, then the tool calls ``calls``; later calls: an answer."""

    calls: tuple[ToolCall, ...] = ()
    text: str = "Calling."
    alias: str = "fake"
    stateful: bool = False
    requests: list[ChatRequest] = field(default_factory=list)

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        if len(self.requests) == 1:
            yield StreamText(self.text)
            for call in self.calls:
                yield StreamToolCall(call)
        else:
            yield StreamText("Done.")
        yield StreamUsage(100, 10)
        yield StreamDone()


@dataclass
class BashProvider(CallsProvider):
    """First call: a ``bash`` tool call that leaves a file behind; later calls: an answer."""

    command: str = "echo ran > ran.txt"
    text: str = "Running it."

    def __post_init__(self) -> None:
        self.calls = (ToolCall("call_1", "bash", {"command": self.command}, ""),)


@dataclass
class FailingProvider:
    """Fails the first ``failures`` calls with ``error``, then answers."""

    error: ProviderError = field(
        default_factory=lambda: ProviderError(
            "rate_limited",
            "429 Too Many Requests: slow down [bold]now[/]",
            status=429,
            remedies=(
                Remedy("wait", "wait a minute, then retry"),
                Remedy("switch_model", "switch to another model (/model)"),
            ),
        )
    )
    failures: int = 1
    partial: str = ""
    """What a failing call streams before its error (a reply cut off mid-stream)."""
    alias: str = "fake"
    stateful: bool = False
    requests: list[ChatRequest] = field(default_factory=list)

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        if len(self.requests) <= self.failures:
            if self.partial:
                yield StreamText(self.partial)
            raise self.error
        yield StreamText("Answered.")
        yield StreamUsage(100, 10)
        yield StreamDone()
