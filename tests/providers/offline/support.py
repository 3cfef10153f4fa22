"""Shared helpers for the offline provider tests: a small project and a tool loop driver."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import (
    ChatRequest,
    ProviderEvent,
    StreamDone,
    StreamText,
    StreamToolCall,
    StreamUsage,
)
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.providers.offline import OfflineProvider
from steiner_tui.tools.base import ToolContext, result_message
from steiner_tui.tools.registry import ToolExecutor, read_only_tools

README = """# Demo Widget

Demo Widget turns CSV files into small charts for the terminal.

## Usage

Run `demo-widget data.csv`.
"""

PYPROJECT = """[project]
name = "demo-widget"
version = "1.2.0"
description = "Charts from CSV files."
requires-python = ">=3.11"
dependencies = ["rich>=13", "click"]
"""

CORE = '''"""Chart rendering for Demo Widget."""


class Chart:
    pass


def render_chart(rows):
    return rows
'''


def make_project(root: Path) -> Path:
    """A small Python project with a README, pyproject and a package."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text(README)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "src" / "demo_widget").mkdir(parents=True)
    (root / "src" / "demo_widget" / "__init__.py").write_text("")
    (root / "src" / "demo_widget" / "core.py").write_text(CORE)
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text("from demo_widget.core import render_chart\n")
    return root


@dataclass
class Reply:
    """Everything one ``stream`` call produced."""

    events: list[ProviderEvent] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, StreamText))

    @property
    def calls(self) -> list[ToolCall]:
        return [e.call for e in self.events if isinstance(e, StreamToolCall)]

    @property
    def usage(self) -> StreamUsage:
        return next(e for e in self.events if isinstance(e, StreamUsage))

    @property
    def done(self) -> StreamDone:
        last = self.events[-1]
        assert isinstance(last, StreamDone)
        return last


async def ask(provider: OfflineProvider, request: ChatRequest) -> Reply:
    """Collect one streamed reply."""
    reply = Reply()
    async for event in provider.stream(request):
        reply.events.append(event)
    return reply


def tool_defs(*names: str) -> tuple[ToolDefinition, ...]:
    """Definitions of the real read-only tools with these names."""
    return tuple(t.definition for t in read_only_tools() if t.definition.name in names)


async def drive(
    root: Path, prompt: str, *, tools: tuple[str, ...] = ("glob", "grep", "read"), steps: int = 6
) -> list[Message]:
    """Run the agent loop with the real read-only tools until the model answers."""
    provider = OfflineProvider(root)
    executor = ToolExecutor([t for t in read_only_tools() if t.definition.name in tools])
    messages = [Message("system", "You are a coding agent."), Message("user", prompt)]
    for _ in range(steps):
        request = ChatRequest("offline", tuple(messages), executor.definitions())
        reply = await ask(provider, request)
        messages.append(Message("assistant", reply.text, tool_calls=tuple(reply.calls)))
        if not reply.calls:
            return messages
        for call in reply.calls:
            result = await executor.execute(call, ToolContext(root))
            messages.append(result_message(call, result, 0))
    raise AssertionError("the offline model did not finish within the step limit")


def tool_rounds(messages: list[Message]) -> list[tuple[ToolCall, ...]]:
    """The tool calls of each assistant message that made some."""
    return [m.tool_calls for m in messages if m.role == "assistant" and m.tool_calls]
