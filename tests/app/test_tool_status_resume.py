"""A failed tool call shows as failed after a resume, as it did live (not as the text guesses)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from steiner_tui.agent.model import MainModel
from steiner_tui.app.app import make_app
from steiner_tui.app.transcript import ToolEntry
from steiner_tui.engine.messages import ToolCall
from steiner_tui.engine.provider import (
    ChatRequest,
    ModelInfo,
    ProviderEvent,
    StreamDone,
    StreamText,
    StreamToolCall,
    StreamUsage,
)
from tests.app.conftest import SIZE, request_for
from tests.app.fakes import INFO
from tests.app.helpers import finish, send


@dataclass
class ReadProvider:
    """First call: reads of a file that is there and of one that is not; then an answer."""

    alias: str = "fake"
    stateful: bool = False
    requests: list[ChatRequest] = field(default_factory=list)

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        if len(self.requests) == 1:
            yield StreamText("Reading.")
            yield StreamToolCall(ToolCall("call_1", "read", {"path": "README.md"}, ""))
            yield StreamToolCall(ToolCall("call_2", "read", {"path": "missing.txt"}, ""))
        else:
            yield StreamText("Done.")
        yield StreamUsage(100, 10)
        yield StreamDone()


def _tools(entries: list[object]) -> dict[str, str]:
    return {e.call_id: e.status for e in entries if isinstance(e, ToolEntry)}


async def test_a_failed_read_is_failed_after_resume(project: Path, config_dir: Path) -> None:
    main = MainModel("fake", "offline", ReadProvider(), INFO)
    app = make_app(request_for(project, config_dir, main, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "read them")
        await finish(pilot)
        live = _tools(list(app.workbench.conversation.entries))
    assert live == {"call_1": "done", "call_2": "failed"}
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await resumed.workers.wait_for_complete()
        await pilot.pause()
        assert _tools(list(resumed.workbench.conversation.entries)) == live
