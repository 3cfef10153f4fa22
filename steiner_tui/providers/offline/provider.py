"""The embedded default model: works with no key and no network, and says so.

``OfflineProvider`` implements the engine's ``Provider`` protocol with fixed rules: normal turns
go through ``answers.reply_to`` (read-only tool calls, then an answer from their results);
compaction requests get ``summarizer.summarize_request``'s extractive summary. Output streams in
word-sized chunks so the UI shows streaming, and usage is the heuristic count of what was sent
and produced, so the engine's calibration sees honest numbers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

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
from steiner_tui.engine.tokens import heuristic_request_tokens
from steiner_tui.providers.offline.answers import reply_to
from steiner_tui.providers.offline.summarizer import is_compaction_request, summarize_request
from steiner_tui.providers.offline.textutil import heuristic_tokens, word_chunks

__all__ = ["OFFLINE_ALIAS", "OFFLINE_MODEL", "OFFLINE_MODEL_INFO", "OfflineProvider"]

OFFLINE_ALIAS = "offline"
OFFLINE_MODEL = "offline"
OFFLINE_MODEL_INFO = ModelInfo(
    context_window=32768, max_output=4096, vision=False, tokenizer="heuristic"
)


class OfflineProvider:
    """The offline model for the project at ``project_root`` (where its read-only tools run)."""

    def __init__(self, project_root: Path, *, stream_delay: float = 0.0) -> None:
        self.alias: str = OFFLINE_ALIAS
        """Provider alias in config and snapshots."""
        self.stateful: bool = False
        """The engine owns the transcript; there is no backend state."""
        self.model: str = OFFLINE_MODEL
        """The one model id this provider serves."""
        self.project_root = project_root
        self.stream_delay = max(0.0, stream_delay)
        """Seconds to pause before each streamed chunk (config ``stream_delay_ms``)."""

    def model_info(self, model: str) -> ModelInfo:
        """Limits of the offline model (the same for any model id)."""
        return OFFLINE_MODEL_INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Answer ``request``: text chunks, tool calls, usage, then done.

        Args:
            request: a normal turn or a compaction summary request.

        Yields:
            ``StreamText`` chunks, ``StreamToolCall``s (normal turns only), one
            ``StreamUsage`` and a final ``StreamDone``.
        """
        calls: tuple[ToolCall, ...] = ()
        if is_compaction_request(request):
            text = summarize_request(request)
        else:
            reply = reply_to(request, self.project_root)
            text, calls = reply.text, reply.tool_calls
        for chunk in word_chunks(text):
            if self.stream_delay:
                # Pacing for people watching the stream, not synchronisation.
                await asyncio.sleep(self.stream_delay)
            yield StreamText(chunk)
        for call in calls:
            yield StreamToolCall(call)
        produced = len(text) + sum(len(call.raw_arguments) for call in calls)
        yield StreamUsage(
            prompt_tokens=heuristic_request_tokens(request.messages, request.tools),
            completion_tokens=heuristic_tokens(produced),
        )
        yield StreamDone(stop_reason="tool_calls" if calls else "stop")
