"""Keep a documentor child's writes inside its write scope.

The documentor's preamble states its scope; this wrapper enforces it for ``write`` and ``edit``,
so a model that ignores the instruction gets a failed result naming the scope instead of an
edit. Scope entries are project-relative files or folders; a folder covers everything below it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import Tool, ToolContext, ToolResult, failed

__all__ = ["ScopedWriteTool", "in_write_scope"]


def in_write_scope(root: Path, given: str, scope: Sequence[str]) -> bool:
    """Whether ``given`` (relative to ``root`` or absolute) lies in one of ``scope``."""
    target = (root / given).resolve()
    real_root = root.resolve()
    return any(
        target == (real_root / entry).resolve()
        or target.is_relative_to((real_root / entry).resolve())
        for entry in scope
        if entry.strip()
    )


class ScopedWriteTool:
    """``inner`` (``write`` or ``edit``) refused outside ``scope``."""

    read_only = False

    def __init__(self, inner: Tool, scope: Sequence[str]) -> None:
        self.inner = inner
        self.scope = tuple(scope)

    @property
    def definition(self) -> ToolDefinition:
        return self.inner.definition

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        given = str(arguments.get("path", ""))
        if not in_write_scope(ctx.project_root, given, self.scope):
            allowed = ", ".join(self.scope) or "nothing"
            return failed(
                f"cannot {self.definition.name} {given}: outside the documentor write scope "
                f"({allowed})"
            )
        return await self.inner.run(arguments, ctx)
