"""Running one tool call safely: look up, police, validate, run, and never crash the runner.

The runner hands every model tool call to ``ToolExecutor.execute``. Unknown tools, tools the
config denies, and malformed arguments become results the model can read; an unexpected
exception inside a tool becomes a ``failed`` result naming it. Cancellation is not an
exception here: it propagates, so Esc stops a running command. Every result leaves with the
values of secret variables redacted (``environment.SecretScrubber``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import msgspec

from steiner_tui.engine.messages import ToolCall
from steiner_tui.engine.tooldefs import ToolDefinition, sort_tools
from steiner_tui.tools.base import Tool, ToolContext, ToolResult, failed
from steiner_tui.tools.environment import SecretScrubber, split_environment
from steiner_tui.tools.permissions import PermissionPolicy
from steiner_tui.tools.schema import validate_arguments

__all__ = ["ToolExecutor"]

_RAW_PREVIEW = 200


class ToolExecutor:
    """Runs tool calls against a fixed set of tools under a permission policy.

    Args:
        tools: The available tools (names must be unique).
        policy: The session's permission policy; when given it answers every permission
            request (replacing ``ToolContext.permission``) and its ``deny`` rules block a tool
            before it runs. Without one, the context's callback is used as is.
        secret_env: names or patterns kept from tool subprocesses besides the built-in deny
            list (``environment.secret_names(config)``).
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        policy: PermissionPolicy | None = None,
        *,
        secret_env: Iterable[str] = (),
    ) -> None:
        by_name: dict[str, Tool] = {}
        for tool in tools:
            name = tool.definition.name
            if name in by_name:
                raise ValueError(f"duplicate tool name {name!r}")
            by_name[name] = tool
        self._tools = dict(sorted(by_name.items()))
        self._policy = policy
        self._secret_env = tuple(secret_env)

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The tools, sorted by name."""
        return tuple(self._tools.values())

    @property
    def policy(self) -> PermissionPolicy | None:
        """The permission policy, if any."""
        return self._policy

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The tool definitions, sorted by name (the request's byte-stable tool list)."""
        return sort_tools(tool.definition for tool in self._tools.values())

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, if available."""
        return self._tools.get(name)

    async def execute(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run ``call``; every outcome, including an internal error, is a ``ToolResult``."""
        tool = self._tools.get(call.name)
        if tool is None:
            available = ", ".join(self._tools) or "none"
            return failed(f"unknown tool {call.name!r}; available tools: {available}")
        if self._policy is not None and self._policy.rule_for(call.name) == "deny":
            return ToolResult(
                content=f"The {call.name} tool is denied by the permission policy in config.",
                status="rejected",
            )
        arguments = validate_arguments(call.name, tool.definition.parameters, call.arguments)
        if isinstance(arguments, str):
            if call.arguments is None and call.raw_arguments:
                arguments += f" (received: {call.raw_arguments[:_RAW_PREVIEW]})"
            return failed(arguments)
        if self._policy is not None:
            ctx = msgspec.structs.replace(ctx, permission=self._policy)
        env, scrubber = split_environment(
            os.environ if ctx.env is None else ctx.env, self._secret_env
        )
        ctx = msgspec.structs.replace(ctx, env=env)
        try:
            result = await tool.run(arguments, ctx)
        except Exception as exc:
            result = failed(f"{call.name} failed unexpectedly: {type(exc).__name__}: {exc}")
        return _scrubbed(result, scrubber)


def _scrubbed(result: ToolResult, scrubber: SecretScrubber) -> ToolResult:
    """``result`` with every secret value redacted from what the model and the person see
    (its reshaped versions too)."""
    if not scrubber:
        return result
    reshape = result.reshape
    return result.with_reshape(
        None if reshape is None else lambda chars: _scrubbed(reshape(chars), scrubber),
        content=scrubber.scrub(result.content),
        display=scrubber.scrub(result.display),
    )
