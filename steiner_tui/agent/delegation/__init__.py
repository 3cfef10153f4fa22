"""Delegation: sub-agents that keep the parent's context bounded.

A ``delegate`` tool call starts a child on its own runner (own context manager, caches,
compaction path and prompt cache key, the parent's session date, no history archive). The
child's transcript stays with the child; the parent receives a bounded result envelope
(``envelope``). ``SubAgentManager`` runs and tracks the children and feeds the pending line,
the replacement guard and the sub-agent panel.
"""

from steiner_tui.agent.delegation.child import child_cache_key, child_tools
from steiner_tui.agent.delegation.envelope import (
    MAX_RESULT_BYTES,
    TRUNCATION_MARKER,
    render_sub_agent_result,
)
from steiner_tui.agent.delegation.manager import SubAgentManager
from steiner_tui.agent.delegation.model import DelegationSettings, SubAgentInfo, SubAgentUpdated
from steiner_tui.agent.delegation.scope import in_write_scope

__all__ = [
    "child_cache_key",
    "child_tools",
    "MAX_RESULT_BYTES",
    "TRUNCATION_MARKER",
    "render_sub_agent_result",
    "SubAgentManager",
    "DelegationSettings",
    "SubAgentInfo",
    "SubAgentUpdated",
    "in_write_scope",
]
