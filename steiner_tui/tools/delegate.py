"""The ``delegate`` tool: hand a self-contained task to a sub-agent with its own context.

The tool only validates the call and hands it to a ``Delegator`` (the agent's sub-agent
manager, injected), so this package never imports the agent. The child's transcript never
comes back; the result is a bounded ``<steiner-sub-agent-result>`` envelope, returned as the
tool result (``wait`` true, the default) or delivered later as a ``sub_agent_result`` message
(``wait`` false, the tool returns at once saying the child started).

Types: ``explore`` (read-only tools), ``code`` (all tools), ``documentor`` (read-only tools plus
``write``/``edit`` limited to the configured write scope; its duties and scope are in its
preamble). ``agent_id`` continues a finished child instead: it goes on in its own conversation,
with its own caches and last main request. The definition is built from constants only: it is
part of the cacheable prefix.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import msgspec

from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import Tool, ToolContext, ToolResult, failed

__all__ = [
    "DelegateTool",
    "DelegationRequest",
    "Delegator",
    "tools_with_delegate",
]

DELEGATE_TYPES = ("code", "documentor", "explore")

_DEFINITION = ToolDefinition(
    name="delegate",
    description=(
        "Run a sub-agent on a self-contained task. It starts with an empty context (it cannot "
        "see this conversation), works with its own tools, and returns only a bounded result "
        "envelope, so its searching and reading never fill your context. Types: explore "
        "(read-only: read, grep, glob), code (all tools, may edit and run commands), "
        "documentor (writes documentation within its configured write scope only). State the "
        "objective, the context it needs, the deliverable, the constraints and when it is "
        "done. With wait=false it runs in the background and its result arrives later as a "
        "sub-agent result message. To follow up on a finished sub-agent, pass its id as "
        "agent_id: it continues its own conversation with the new task."
    ),
    parameters={
        "type": "object",
        "properties": {
            "type": {
                "type": "string",
                "enum": list(DELEGATE_TYPES),
                "description": "explore (read-only), code (all tools) or documentor.",
            },
            "task": {
                "type": "string",
                "description": "The complete task: objective, context, deliverable, done-when.",
            },
            "wait": {
                "type": "boolean",
                "description": "Wait for the result (default true); false runs it in the "
                "background.",
            },
            "agent_id": {
                "type": "string",
                "description": "Continue this finished sub-agent (e.g. explore-1) instead of "
                "starting a new one; type must be its type.",
            },
        },
        "required": ["type", "task"],
    },
)


class DelegationRequest(msgspec.Struct, frozen=True):
    """One validated ``delegate`` call."""

    type: str
    task: str
    wait: bool = True
    agent_id: str = ""
    """A finished sub-agent to continue ("" starts a new one)."""


class Delegator(Protocol):
    """Runs delegated tasks (``agent.delegation.SubAgentManager`` implements it)."""

    async def delegate(self, request: DelegationRequest, ctx: ToolContext) -> ToolResult:
        """Run (or start) a child for ``request``; the result content is the envelope."""


class DelegateTool:
    """The ``delegate`` tool over an injected ``Delegator``."""

    definition = _DEFINITION
    read_only = False
    """A ``code`` child may edit; its own tools ask permission for that."""

    def __init__(self, delegator: Delegator) -> None:
        self.delegator = delegator

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        kind = str(arguments["type"])
        task = str(arguments["task"]).strip()
        if kind not in DELEGATE_TYPES:
            return failed(
                f"unknown sub-agent type {kind!r}; use one of {', '.join(DELEGATE_TYPES)}"
            )
        if not task:
            return failed("the task is empty: describe what the sub-agent must do")
        wait = bool(arguments.get("wait", True))
        agent_id = str(arguments.get("agent_id", "") or "").strip()
        return await self.delegator.delegate(DelegationRequest(kind, task, wait, agent_id), ctx)


def tools_with_delegate(tools: Iterable[Tool], delegator: Delegator) -> tuple[Tool, ...]:
    """``tools`` plus ``delegate``, sorted by name (the byte-stable order of definitions)."""
    combined = [*tools, DelegateTool(delegator)]
    return tuple(sorted(combined, key=lambda tool: tool.definition.name))
