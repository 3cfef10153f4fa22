"""The interface between the runner and the tools: context in, result out, permission asked.

A tool is a small object with a ``definition`` (what the model sees), a ``read_only`` flag and an
async ``run``. Tools never raise for the model's mistakes (bad arguments, missing files,
ambiguous edits): they return a ``failed`` result whose content says what went wrong, so the
model can correct itself. Tools that change things ask permission through ``ToolContext.permission``
before acting; a rejection is a ``rejected`` result, not an error.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol

import msgspec

from steiner_tui.engine.events import OutputCut
from steiner_tui.engine.frozen import FrozenDict, freeze
from steiner_tui.engine.messages import Image, Message, ToolCall
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.results import ResultStore

__all__ = [
    "Mode",
    "OutputProgress",
    "PermissionCallback",
    "PermissionDecision",
    "PermissionRequest",
    "Reshape",
    "Tool",
    "ToolContext",
    "ToolResult",
    "ToolStatus",
    "failed",
    "reject_all",
    "rejected",
    "result_message",
]

Mode = Literal["build", "plan"]
ToolStatus = Literal["done", "failed", "rejected"]


class PermissionDecision(enum.Enum):
    """The user's answer to a permission request."""

    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"
    REJECT_ONCE = "reject_once"
    REJECT_ALWAYS = "reject_always"

    @property
    def allowed(self) -> bool:
        """True for both allow decisions."""
        return self in (PermissionDecision.ALLOW_ONCE, PermissionDecision.ALLOW_ALWAYS)

    @property
    def remembered(self) -> bool:
        """True for the ``always`` decisions, which hold for the rest of the session."""
        return self in (PermissionDecision.ALLOW_ALWAYS, PermissionDecision.REJECT_ALWAYS)


class PermissionRequest(msgspec.Struct, frozen=True):
    """What a tool wants to do: its name, a one-line summary, its arguments and, for a change
    of a file's text, ``preview``: the change as a unified diff's hunks (``guards.change_preview``;
    "" for anything else), so a person sees what they allow before they allow it."""

    tool: str
    summary: str
    arguments: Mapping[str, Any] = msgspec.field(default_factory=FrozenDict)
    preview: str = ""
    agent: str = ""
    """The sub-agent whose call it is (``code-1``); "" for the session's own model."""
    call_id: str = ""
    """The id of the tool call that asks ("" : not a model's call)."""

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "arguments", freeze(self.arguments))


PermissionCallback = Callable[[PermissionRequest], Awaitable[PermissionDecision]]
"""Asks the user (or a policy) whether a tool may act."""


async def reject_all(request: PermissionRequest) -> PermissionDecision:
    """The default callback when nobody can be asked: reject this call only."""
    return PermissionDecision.REJECT_ONCE


OutputProgress = Callable[[int, int, str], None]
"""A running command's output so far: its bytes, its lines and its last lines. Called on the
event loop, at most every ``bash.PROGRESS_EVERY`` seconds."""


class ToolContext(msgspec.Struct, frozen=True):
    """Everything a tool call may use besides its arguments.

    Attributes:
        project_root: The folder tools work in; paths outside it are refused.
        mode: ``build`` or ``plan`` (plan mode limits writes to ``.steiner/plans/``).
        turn: The turn the call belongs to.
        permission: Asked before a tool changes anything (the session's ``PermissionPolicy``).
        env: Environment for subprocesses; ``None``: the app's. Provider secrets are removed
            either way (``tools.environment``).
    """

    project_root: Path
    mode: Mode = "build"
    turn: int = 0
    permission: PermissionCallback = reject_all
    env: Mapping[str, str] | None = None
    output_chars: int | None = None
    """About how many characters the result may hold (its budget; None: the tool's own caps).
    Tools shape their output to it; the runner checks the result's tokens afterwards."""
    results: ResultStore | None = None
    """Where a tool keeps its whole output when the model gets only part of it."""
    call_id: str = ""
    """The tool call's id (the key of its saved output)."""
    progress: OutputProgress | None = None
    """Told of a running command's output so far (bash; None: nobody asks)."""


Reshape = Callable[[int], "ToolResult"]
"""A tool's own way to shape its result to about ``n`` characters (fewer lines, matches)."""


class ToolResult(msgspec.Struct, frozen=True, dict=True):
    """A tool's outcome.

    Attributes:
        content: The text sent to the model.
        status: ``done``, ``failed`` (the call could not be carried out) or ``rejected``.
        data: Structured fields (deep-frozen), e.g. the read result's fields.
        images: Images sent with the result (a read of an image file).
        display: Text shown to the user (``display_file``).
        cut: what of the output the model does not get (None: it gets all of it).
        reshape: the same result shaped to about ``n`` characters (None: the runner's own
            head-and-tail cut applies when the result is over its budget). Not a field: it
            takes no part in equality or repr, is given with ``with_reshape``, and a copy
            (``msgspec.structs.replace``) starts without it. It lives in the instance's
            ``__dict__``, which ``dict=True`` gives; the ``FrozenDict`` in ``data`` keeps the
            result tracked by the collector, so a cycle through a reshape is still collected.
    """

    content: str
    status: ToolStatus = "done"
    data: Mapping[str, Any] = msgspec.field(default_factory=FrozenDict)
    images: tuple[Image, ...] = ()
    display: str = ""
    cut: OutputCut | None = None

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "data", freeze(self.data))
        if not isinstance(self.images, tuple):
            msgspec.structs.force_setattr(self, "images", tuple(self.images))

    @property
    def reshape(self) -> Reshape | None:
        reshape: Reshape | None = self.__dict__.get("reshape")
        return reshape

    def with_reshape(self, reshape: Reshape | None, **changes: Any) -> ToolResult:
        """A copy with ``changes`` (fields) whose ``reshape`` is ``reshape``."""
        result = msgspec.structs.replace(self, **changes)
        if reshape is not None:
            result.__dict__["reshape"] = reshape
        return result


class Tool(Protocol):
    """A tool the model can call."""

    @property
    def definition(self) -> ToolDefinition:
        """Name, description and JSON-schema parameters, as the model sees them."""

    @property
    def read_only(self) -> bool:
        """True when the tool never changes anything (and so never asks permission)."""

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Carry out one call with validated arguments."""


def failed(message: str, **data: Any) -> ToolResult:
    """A ``failed`` result whose content is ``message``."""
    return ToolResult(content=message, status="failed", data=data)


def rejected(tool: str, decision: PermissionDecision) -> ToolResult:
    """The result of a call the user rejected (``reject_always`` says so for future calls)."""
    content = f"The user rejected this {tool} call."
    if decision is PermissionDecision.REJECT_ALWAYS:
        content += f" Future {tool} calls will be rejected too."
    return ToolResult(content=content, status="rejected")


def result_message(call: ToolCall, result: ToolResult, turn: int) -> Message:
    """The ``tool`` message that carries ``result`` back to the model."""
    return Message(
        "tool",
        result.content,
        images=result.images,
        name=call.name,
        tool_call_id=call.id,
        turn=turn,
    )
