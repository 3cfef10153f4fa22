"""What the UI and the compactor know about sub-agents: their state and figures, as events.

``SubAgentInfo`` is an immutable snapshot of one child (id ``<type>-<n>``, state, turns,
tokens, cache rate); ``SubAgentUpdated`` carries a new snapshot to the sinks whenever anything
about a child changes. ``DelegationSettings`` holds the few knobs of delegation.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

from steiner_tui.engine.events import EngineEvent

__all__ = [
    "DelegationSettings",
    "SubAgentInfo",
    "SubAgentState",
    "SubAgentUpdated",
]

SubAgentState = Literal["queued", "running", "done", "failed", "cancelled"]
PENDING_STATES: tuple[str, ...] = ("queued", "running")
"""States that count as pending (compaction's pending line, the replacement guard)."""


class SubAgentInfo(msgspec.Struct, frozen=True):
    """One child as the sub-agent panel shows it.

    Attributes:
        id: ``<type>-<n>``, numbered per session across types.
        type: ``explore``, ``code`` or ``documentor``.
        task: the delegated task.
        state: queued, running, done, failed or cancelled.
        wait: whether the parent waits for it (false: a background child).
        turns: model calls made (summary calls excluded).
        prompt_tokens: prompt tokens over all calls (provider usage, else the estimate).
        completion_tokens: completion tokens reported by the provider.
        cache_read_tokens: prompt tokens the provider served from its cache.
        reason: why it failed or was cancelled.
    """

    id: str
    type: str
    task: str
    state: SubAgentState = "queued"
    wait: bool = True
    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    reason: str = ""

    @property
    def pending(self) -> bool:
        return self.state in PENDING_STATES

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def cache_rate(self) -> float:
        """Cache read tokens / prompt tokens (0.0 before any usage)."""
        return self.cache_read_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


class SubAgentUpdated(EngineEvent, frozen=True):
    """A child changed (state, turns, tokens or transcript); ``info`` is its new snapshot."""

    kind: ClassVar[str] = "sub_agent"
    info: SubAgentInfo


class DelegationSettings(msgspec.Struct, frozen=True):
    """How children run.

    Attributes:
        max_concurrent: children running at once; later ones wait as ``queued``.
        documentor_write_scope: paths (relative to the project) a documentor may write.
    """

    max_concurrent: int = 3
    documentor_write_scope: tuple[str, ...] = ("README.md", "docs")
