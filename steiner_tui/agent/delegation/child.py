"""Build a child's runner: its own session identity, caches, compaction path and tool set.

A child is a full ``Runner`` built by the same factory as every session, so it gets its own
context manager (static cache, memoized preamble), its own compaction (with the parent's
fallback, but no history archive and no pending line of its own), the parent's session date,
and its own prompt cache key: the parent's key plus the child id. Its tools depend on its type:
``explore`` gets the read-only tools, ``code`` all built-in tools, ``documentor`` the read-only
tools plus ``write`` and ``edit`` fenced to its write scope. Children never get ``delegate``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from steiner_tui.agent.clock import Clock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.delegation.scope import ScopedWriteTool
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner
from steiner_tui.agent.session_factory import SessionSpec, build_runner
from steiner_tui.engine.events import EventSink
from steiner_tui.engine.prompt.preamble import DOCUMENTOR_MODE, PreambleInputs
from steiner_tui.engine.tokens import RequestEstimator
from steiner_tui.tools.base import Mode, PermissionCallback, Tool
from steiner_tui.tools.edit import EditTool
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.registry import default_tools, read_only_tools
from steiner_tui.tools.results import DirectoryResultStore, ResultStore
from steiner_tui.tools.write import WriteTool

__all__ = ["build_child_runner", "child_cache_key", "child_results", "child_spec", "child_tools"]


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


def child_spec(
    parent: SessionSpec,
    *,
    kind: str,
    child_id: str,
    model: MainModel,
    parent_key: str,
    parent_session: str,
    session_date: datetime | None,
    mode: Mode,
    write_scope: tuple[str, ...],
    results: ResultStore | None = None,
) -> SessionSpec:
    """The child's ``SessionSpec`` derived from the parent's; ``results`` is the parent
    runner's result store (the child keeps its cut results in a folder of its own in it)."""
    preamble = PreambleInputs()
    if kind == "documentor":
        preamble = PreambleInputs(workflow_mode=DOCUMENTOR_MODE, documentor_write_scope=write_scope)
    return SessionSpec(
        project_root=parent.project_root,
        main=replace(model, prompt_cache_key=child_cache_key(parent_key, parent_session, child_id)),
        config_dir=parent.config_dir,
        extra_skill_roots=parent.extra_skill_roots,
        policy=parent.policy,
        preamble=preamble,
        compaction=CompactionSettings(fallback=parent.compaction.fallback),
        mode=mode,
        session_id=f"{parent_session}-{child_id}",
        session_date=session_date,
        results=child_results(results or parent.results, child_id),
    )


def child_results(parent: ResultStore | None, child_id: str) -> ResultStore | None:
    """A child's result store: a folder of its own inside a saved parent's (None: the child's
    runner makes a temporary one when it first needs it)."""
    if isinstance(parent, DirectoryResultStore):
        return DirectoryResultStore(parent.folder / child_id)
    return None


def build_child_runner(
    spec: SessionSpec,
    *,
    kind: str,
    write_scope: tuple[str, ...],
    estimator: RequestEstimator,
    sink: EventSink,
    clock: Clock,
    permission: PermissionCallback,
) -> Runner:
    """A runner for one child (permission asks go through the parent's callback)."""
    return build_runner(
        spec,
        estimator=estimator,
        tools=ToolExecutor(child_tools(kind, write_scope)),
        sink=sink,
        clock=clock,
        permission=permission,
    )
