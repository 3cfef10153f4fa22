"""The runner's records of a prepared request and of an episode: made only when a turn runs.

``steiner_tui.agent.runner`` re-exports ``PreparedTurn`` and ``RunResult`` lazily (PEP 562):
creating a frozen dataclass costs about a millisecond, and building a session for the app's
first frame needs none of these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from steiner_tui.engine.compaction.escalation import CompactionCounter

if TYPE_CHECKING:
    from steiner_tui.engine.budget import FitResult
    from steiner_tui.engine.prompt.assembler import AssembledPrompt
    from steiner_tui.engine.provider import ChatRequest
    from steiner_tui.engine.tokens import TokenEstimate

__all__ = ["EpisodeProgress", "PreparedTurn", "RunResult", "Status"]

Status = Literal["done", "cancelled", "error"]


@dataclass(frozen=True, slots=True)
class PreparedTurn:
    """A request ready to send, with the figures behind it."""

    assembled: AssembledPrompt
    request: ChatRequest
    estimate: TokenEstimate
    fit: FitResult


@dataclass(frozen=True, slots=True)
class RunResult:
    """How an episode ended: ``done`` with the final reply, ``cancelled``, or ``error``."""

    status: Status
    reply: str = ""
    error: str = ""
    error_kind: str = ""


@dataclass(slots=True)
class EpisodeProgress:
    """Per-episode counters (the design's turnProgressor)."""

    compactions: CompactionCounter = field(default_factory=CompactionCounter)
    tool_rounds: int = 0
