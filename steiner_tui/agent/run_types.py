"""The runner's data: a request ready to send, how an episode ended, and the state it carries.

Shared by the runner and the modules it hands parts of a turn to (``compaction_gate`` before a
request, ``model_call`` for the call itself), so none of them imports another's class.
``steiner_tui.agent.runner`` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from steiner_tui.engine.budget import FitResult
from steiner_tui.engine.compaction.escalation import CompactionCounter
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.stateful import ParentUsage
from steiner_tui.engine.events import ErrorEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.assembler import AssembledPrompt
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.state.context_state import ContextState, build_context_state
from steiner_tui.engine.state.file_tracker import FileTracker
from steiner_tui.engine.tokens import TokenEstimate

__all__ = ["EpisodeProgress", "PreparedTurn", "RunResult", "RunnerState", "Status", "labelled"]

Status = Literal["done", "cancelled", "error"]


class PreparedTurn(msgspec.Struct, frozen=True):
    """A request ready to send, with the figures behind it.

    ``hashes`` and ``prompt_bytes`` are the request's message hashes and prompt bytes when the
    conversation's ledger already knew them (None: the snapshot computes them).
    """

    assembled: AssembledPrompt
    request: ChatRequest
    estimate: TokenEstimate
    fit: FitResult
    hashes: Sequence[str] | None = None
    prompt_bytes: int | None = None


class RunResult(msgspec.Struct, frozen=True):
    """How an episode ended: ``done`` with the final reply, ``cancelled``, or ``error``."""

    status: Status
    reply: str = ""
    error: str = ""
    error_kind: str = ""


class EpisodeProgress(msgspec.Struct):
    """Per-episode counters: compaction stages and tool rounds."""

    compactions: CompactionCounter = msgspec.field(default_factory=CompactionCounter)
    tool_rounds: int = 0
    retried_too_large: bool = False
    """The provider rejected a request as too large once in this episode (it was retried)."""
    too_large: tuple[Sequence[Message], ErrorEvent] | None = None
    """The messages of the request rejected as too large, and the error it ends on if its retry
    would send them unchanged (compacting freed nothing)."""


class RunnerState(msgspec.Struct):
    """What a runner carries across episodes."""

    lineage: ConversationLineage = msgspec.field(default_factory=ConversationLineage)
    last_main_request: LastMainRequest = msgspec.field(default_factory=LastMainRequest)
    last_parent_request: ChatRequest | None = None
    """The last main request sent (a manual ``/compact`` summarizes with its tools)."""
    parent_usage: ParentUsage | None = None
    turn: int = 0
    tracked: FileTracker | Sequence[Message] = msgspec.field(default_factory=FileTracker)
    """The reads of the active generation (``tracker``), or the messages they are read from
    when first asked for (``track``)."""
    context_of: tuple[Sequence[Message], int, str] = ((), 0, "")
    """What ``context`` is built from: the active conversation, the turn and the project root
    before the last model call."""
    over_window: bool = False
    """The provider said the last request was too large: the next one compacts first."""
    off_warned: int = -1
    """The generation ``off`` mode last warned in about the nearing hard limit."""
    compacted_turn: int = -1
    """The turn the last compaction before a request of this run ran in (a second one says
    why)."""
    soft_held: int = 0
    """The prompt at which an automatic compaction at the soft trigger applied nothing, every
    summary rejected: the soft trigger waits until the prompt grows past it by
    ``soft_threshold - relief_target``; 0: not held. A lineage adopted (any compaction
    applied, ``/clear``, resume) lifts it."""

    @property
    def tracker(self) -> FileTracker:
        """The reads of the active generation (read dedup), rebuilt when a lineage is adopted."""
        tracked = self.tracked
        if not isinstance(tracked, FileTracker):
            tracked = self.tracked = FileTracker.rebuild(tracked)
        return tracked

    @tracker.setter
    def tracker(self, tracker: FileTracker) -> None:
        self.tracked = tracker

    def track(self, messages: Sequence[Message]) -> None:
        """Track the reads of ``messages`` (an adopted lineage's), parsed when the tracker is
        first asked for: at the first tool call, as no request needs it (a resumed session of
        10,000 messages parses some 2,000 read results, ``benchmarks/bench_session_log.py``)."""
        self.tracked = messages

    @property
    def context(self) -> ContextState:
        """The durable context state before the last model call (compaction carries it),
        built when asked: every call notes it, few read it."""
        return build_context_state(*self.context_of)


def labelled(ref: str, message: str) -> str:
    """``message`` starting with ``ref:`` once (SDK providers already start theirs with it)."""
    return message if message.startswith(f"{ref}:") else f"{ref}: {message}"
