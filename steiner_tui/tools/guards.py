"""The checks a changing tool runs before it acts: the plan-mode fence and the permission ask.

Plan mode lets the model write only its plans, under ``.steiner/plans/``; everything else is a
clear tool error, so the model learns the rule instead of the user having to reject each call.
Bash is refused outright in plan mode: a shell command can change anything, and planning needs
only the read-only tools. Permission is asked after the arguments have been checked, so a person
is never asked to approve a call that would fail anyway, and sees the change to a file's text
(``change_preview``: the diff of the file before and after, with its line numbers) before allowing
it.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Mapping
from typing import Any

from steiner_tui.tools.base import PermissionRequest, ToolContext, ToolResult, failed, rejected
from steiner_tui.tools.files import ResolvedPath, resolve_in_root
from steiner_tui.tools.safe_write import unwritable

__all__ = [
    "PREVIEW_LINES",
    "PREVIEW_LINE_CHARS",
    "ask_permission",
    "change_preview",
    "plan_mode_bash_refusal",
    "writable_target",
]

PLANS_DIR = ".steiner/plans"
PREVIEW_LINES = 400
"""The most lines of a change a permission request holds (the rest are counted)."""
PREVIEW_LINE_CHARS = 400
"""The most characters of a line it holds: a minified file's one line of megabytes is cut."""


def plan_mode_refusal(ctx: ToolContext, tool: str, target: ResolvedPath) -> ToolResult | None:
    """A failed result when plan mode forbids writing ``target``; ``None`` when allowed."""
    if ctx.mode != "plan":
        return None
    plans = (ctx.project_root.resolve() / PLANS_DIR).resolve()
    if target.path.is_relative_to(plans) and target.path != plans:
        return None
    return failed(f"plan mode: {tool} is limited to {PLANS_DIR}/ (tried {target.given})")


def writable_target(ctx: ToolContext, tool: str, given: str) -> ResolvedPath | ToolResult:
    """``given`` resolved inside the project, or a failed result: outside it, fenced off by
    plan mode, or not to be written (``safe_write.unwritable``)."""
    target = resolve_in_root(ctx.project_root, given, tool)
    if isinstance(target, str):
        return failed(target)
    refusal = plan_mode_refusal(ctx, tool, target)
    if refusal is not None:
        return refusal
    reason = unwritable(ctx.project_root, target, tool)
    return target if reason is None else failed(reason)


def plan_mode_bash_refusal(ctx: ToolContext) -> ToolResult | None:
    """A failed result for bash in plan mode; ``None`` in build mode."""
    if ctx.mode != "plan":
        return None
    return failed(
        "plan mode: bash is not available while planning; use read, grep and glob to explore, "
        f"write the plan under {PLANS_DIR}/, and ask the user to switch to build mode to run "
        "commands"
    )


def change_preview(before: str | None, after: str) -> str:
    """A file's text ``before`` (None: a new file) and ``after`` a change, as a unified diff's
    hunks (``@@`` headers with the line numbers, then `` ``, ``-`` and ``+`` lines, two lines
    of context), at most ``PREVIEW_LINES`` lines of at most ``PREVIEW_LINE_CHARS`` characters,
    and then how many more; a new file is all added. Call it off the event loop: ``difflib``
    takes 0.2 s over a 5 MB file."""
    lines = difflib.unified_diff((before or "").splitlines(), after.splitlines(), lineterm="", n=2)
    hunks = [_cut_line(line) for line in itertools.islice(lines, 2, 2 + PREVIEW_LINES)]
    hidden = sum(1 for _ in lines)  # the two file-name lines went first, unused
    if hidden:
        hunks.append(f"… {hidden:,} more line{'s' * (hidden != 1)}")
    return "\n".join(hunks)


def _cut_line(line: str) -> str:
    if len(line) <= PREVIEW_LINE_CHARS:
        return line
    return f"{line[:PREVIEW_LINE_CHARS]}… ({len(line) - PREVIEW_LINE_CHARS:,} more characters)"


async def ask_permission(
    ctx: ToolContext, tool: str, summary: str, arguments: Mapping[str, Any], preview: str = ""
) -> ToolResult | None:
    """Ask ``ctx.permission`` (``preview``: the change to a file's text, ``change_preview``);
    a rejected result when refused, ``None`` when allowed."""
    request = PermissionRequest(tool, summary, arguments, preview, call_id=ctx.call_id)
    decision = await ctx.permission(request)
    if decision.allowed:
        return None
    return rejected(tool, decision)
