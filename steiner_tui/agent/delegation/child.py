"""Build a child's runner: its own session identity, caches, compaction path and tool set.

A child is a full ``Runner`` derived from its parent's: the parent's assembly options (project,
AGENTS.md, project context, skill roots, budgets) with the child's own preamble and scope, so it
gets its own context manager (static cache, memoized preamble), its own compaction (with the
parent's fallback, but no history archive and no pending line of its own), the parent's
session date, its own prompt cache key (the parent's key plus the child id) and its own folder
in the parent's result store. A child that ended is saved there (``SAVED_CHILD``: its panel
figures and its conversation), so a resumed session lists it, shows its conversation and can
continue it, and numbers its next child after it. Its tools depend on its type: ``explore``
gets the read-only tools, ``code`` all built-in tools, ``documentor`` the read-only tools plus
``write`` and ``edit`` fenced to its write scope. Children never get ``delegate``; their tool
subprocesses get the parent's environment rules (the built-in deny list plus the configuration's
``secret_env``).
"""

from __future__ import annotations

import msgspec

from steiner_tui.agent.clock import Clock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.context_manager import ContextManager
from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.agent.delegation.scope import ScopedWriteTool
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import EventSink
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.preamble import DOCUMENTOR_MODE, PreambleInputs
from steiner_tui.sessions.meta import atomic_write
from steiner_tui.tools.base import Mode, PermissionCallback, Tool
from steiner_tui.tools.edit import EditTool
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.registry import default_tools, read_only_tools
from steiner_tui.tools.results import DirectoryResultStore, ResultStore
from steiner_tui.tools.write import WriteTool

__all__ = [
    "SAVED_CHILD",
    "SavedChild",
    "build_child_runner",
    "child_cache_key",
    "child_number",
    "child_tools",
    "save_child",
    "saved_children",
]

SAVED_CHILD = "sub-agent.json"
"""The file in a child's folder that keeps it once it ended."""


class SavedChild(msgspec.Struct, frozen=True):
    """A child as a resumed session needs it: its panel figures and its own conversation."""

    info: SubAgentInfo
    messages: tuple[Message, ...] = ()


def child_cache_key(parent_key: str, parent_session: str, child_id: str) -> str:
    """The child's prompt cache key: the parent's key plus the child id."""
    return f"{parent_key or 'steiner-' + parent_session}-{child_id}"


def child_tools(kind: str, write_scope: tuple[str, ...]) -> tuple[Tool, ...]:
    """The tool set of a child of type ``kind``, sorted by name."""
    if kind == "code":
        return default_tools()
    tools: list[Tool] = list(read_only_tools())
    if kind == "documentor":
        tools += [
            ScopedWriteTool(WriteTool(), write_scope),
            ScopedWriteTool(EditTool(), write_scope),
        ]
    return tuple(sorted(tools, key=lambda tool: tool.definition.name))


def child_preamble(kind: str, write_scope: tuple[str, ...]) -> PreambleInputs:
    """The child's preamble inputs: the documentor's duties and scope, else the plain ones."""
    if kind == "documentor":
        return PreambleInputs(workflow_mode=DOCUMENTOR_MODE, documentor_write_scope=write_scope)
    return PreambleInputs()


def save_child(parent: ResultStore | None, child: SavedChild) -> None:
    """Keep ``child`` in its folder of a saved parent's result store (nothing for a parent
    that is not saved), replacing the file whole.

    Raises:
        OSError: the file could not be written.
    """
    if not isinstance(parent, DirectoryResultStore):
        return
    folder = parent.folder / child.info.id
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(folder / SAVED_CHILD, msgspec.json.encode(child))


def saved_children(parent: ResultStore | None) -> tuple[SavedChild, ...]:
    """The children a saved parent kept, in start order (a file that cannot be read or
    decoded is left out: the conversation still holds that child's result)."""
    if not isinstance(parent, DirectoryResultStore):
        return ()
    found: list[tuple[int, SavedChild]] = []
    for path in parent.folder.glob(f"*/{SAVED_CHILD}"):
        try:
            child = msgspec.json.decode(path.read_bytes(), type=SavedChild)
        except (OSError, msgspec.DecodeError):
            continue
        found.append((child_number(child.info.id), child))
    return tuple(child for _, child in sorted(found, key=lambda pair: pair[0]))


def child_number(child_id: str) -> int:
    """The ``n`` of ``<type>-<n>`` (0 when the id has none)."""
    number = child_id.rpartition("-")[2]
    return int(number) if number.isdigit() else 0


def child_results(parent: ResultStore | None, child_id: str) -> ResultStore | None:
    """A child's result store: a folder of its own inside a saved parent's (None: the child's
    runner makes a temporary one when it first needs it)."""
    if isinstance(parent, DirectoryResultStore):
        return DirectoryResultStore(parent.folder / child_id)
    return None


def build_child_runner(
    parent: Runner,
    *,
    kind: str,
    child_id: str,
    model: MainModel,
    mode: Mode,
    write_scope: tuple[str, ...],
    sink: EventSink,
    clock: Clock,
    permission: PermissionCallback,
    secret_env: tuple[str, ...] = (),
    conversation: tuple[Message, ...] = (),
) -> Runner:
    """A runner for one child of ``parent`` (permission asks go through ``permission``).

    Args:
        parent: the delegating runner (its options, estimator, fallback and session date).
        kind: ``explore``, ``code`` or ``documentor``.
        child_id: ``<type>-<n>``.
        model: the child's model (its cache key is derived here).
        mode: the parent's execution mode when it delegated.
        write_scope: where a documentor may write.
        sink: receives the child's events (never the parent's sinks).
        clock: the injected clock.
        permission: the parent's permission callback.
        secret_env: names kept from the child's tool subprocesses besides the built-in list.
        conversation: the conversation of a child saved before a resume (its continuation
            goes on from it).
    """
    session_id = f"{parent.session_id}-{child_id}"
    parent_context = parent.context
    options = msgspec.structs.replace(
        parent_context.options,
        preamble=child_preamble(kind, write_scope),
        skill_names=(),
        phase_prompt="",
        scope=session_id,
    )
    context = ContextManager(
        options, parent_context.estimator, sink, session_date=parent_context.session_date
    )
    key = child_cache_key(parent.model.prompt_cache_key, parent.session_id, child_id)
    return Runner(
        model=msgspec.structs.replace(model, prompt_cache_key=key),
        context=context,
        tools=ToolExecutor(child_tools(kind, write_scope), secret_env=secret_env),
        sink=sink,
        project_root=parent.project_root,
        clock=clock,
        compaction=CompactionSettings(fallback=parent.compactor.settings.fallback),
        permission=permission,
        mode=mode,
        session_id=session_id,
        results=child_results(parent.results, child_id),
        lineage=ConversationLineage.start(conversation) if conversation else None,
    )
