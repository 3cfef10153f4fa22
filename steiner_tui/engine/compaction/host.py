"""The host protocol: the little the runner implements so the engine can compact.

The engine decides *what* to summarize, *where* to cut, *which* model writes the summary and how
the next generation looks; the runner (the host) does what needs the outside world
(``CompactionHost``).

Targets are plain data: ``SummaryTarget`` names the model and its budget; the main target comes
from the runner, a fallback target from ``CompactionFallback.resolve``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec

from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prices import ModelPrice
from steiner_tui.engine.provider import ChatRequest, Provider
from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = ["CompactionHost", "SummaryResponse", "SummaryTarget"]


class SummaryTarget(msgspec.Struct, frozen=True):
    """A model that can write a compaction summary.

    Attributes:
        alias: provider alias from config.
        model: backend model id.
        budget: the model's token budget (plan fit and summary cap use it).
        provider: the built provider; required for a fallback target, optional for main.
        stateful: the backend owns the transcript (main summaries retire it).
        fallback: True for a compaction fallback target (isolated from the main session).
        transport_session: a fallback's own transport identity (never the main session's).
        compaction_prompt: replaces the engine's system sentence and eight-section body when set.
        vision: the model sees images (a summary request keeps them, as a normal turn would).
        price: a fallback target's price (None: unknown; a main target's summary is priced
            as the main model's requests are).
    """

    alias: str
    model: str
    budget: ModelTokenBudget
    provider: Provider | None = None
    stateful: bool = False
    fallback: bool = False
    transport_session: str = ""
    compaction_prompt: str = ""
    vision: bool = False
    price: ModelPrice | None = None

    @property
    def ref(self) -> str:
        """``alias/model``, as outcomes and reasons name it."""
        return f"{self.alias}/{self.model}"


class SummaryResponse(msgspec.Struct, frozen=True):
    """A summary call's result: its text and whether it retired the backend transcript."""

    text: str
    clear_backend_state: bool = False


class CompactionHost(Protocol):
    """What the runner provides to ``compact_with_lineage``."""

    def estimate_conversation(self, messages: Sequence[Message]) -> int:
        """Calibrated prompt tokens of a normal main request over ``messages`` (static prefix,
        preamble, session date, tools included)."""

    def build_summary_request(
        self,
        messages: Sequence[Message],
        instruction: str,
        target: SummaryTarget,
        max_tokens: int,
        tools: Sequence[ToolDefinition],
    ) -> ChatRequest:
        """Normal assembly of ``messages`` for ``target`` plus a final user message with
        ``instruction``. The engine then sets the isolation fields itself
        (``summary_request.finalize_summary_request``), so a host cannot leak main backend
        state into a fallback call."""

    def estimate_request(self, request: ChatRequest, target: SummaryTarget) -> int:
        """Calibrated prompt tokens of ``request`` on ``target``'s model (compaction requests
        are always re-estimated)."""

    async def call_summary(self, request: ChatRequest, target: SummaryTarget) -> SummaryResponse:
        """Run the summary call on ``target`` (its provider for a fallback, else the main one);
        it never sets LastMainRequest. A failure raises ``ProviderError``, with
        ``backend_state_retired=True`` (or such an error in its cause chain) when a stateful
        provider retired its transcript first."""

    def message_tokens(self, message: Message, target: SummaryTarget) -> int:
        """Estimated tokens of one conversation message in a request to ``target``'s model
        (masking's sizes, ``room``)."""

    def save_full_output(self, message: Message) -> str:
        """Keep a tool result's whole content before a stub replaces it; where it is ("" if
        not)."""
