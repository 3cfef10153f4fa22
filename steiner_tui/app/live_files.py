"""Live files: which paths the app watches and which static-cache partition each belongs to.

AGENTS.md (global and project) belongs to the ``agents`` partition, the project-context files
(and ``.steiner/config.toml``, which lists them) to ``project_context``, and anything under a
skill root to ``skills``. A change invalidates exactly those partitions; requests already sent
are snapshots and never change.

watchfiles needs existing paths and applies one ``recursive`` flag per watcher, so the plan has
two groups: the folders holding the watched files (not recursive: the project root may be huge)
and the skill roots (recursive: a skill is a folder).

``FileChangesShown`` is what the workbench does with a batch: the status line says what waits
for the next compaction (Ctrl+R reloads it now), the sidebar follows skill folders at once. A
change made before anything was sent applies at once: nothing is cached yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import msgspec

from steiner_tui.engine.events import CompactionApplied, EngineEvent, RequestSnapshot, WarningEvent
from steiner_tui.engine.prompt.pending_reload import PendingReload, partitions_label
from steiner_tui.engine.prompt.static_cache import StaticPartition

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from steiner_tui.app.widgets.conversation import ConversationPane
    from steiner_tui.app.widgets.status_line import StatusLine

__all__ = [
    "FileChanges",
    "FileChangesShown",
    "FileReloads",
    "FilesHost",
    "FilesSession",
    "WatchPlan",
    "classify_change",
    "partitions_for",
]


class WatchPlan(msgspec.Struct, frozen=True):
    """The files and folders whose changes reach the static cache.

    Attributes:
        agents_files: the global and project AGENTS.md paths.
        context_files: the project-context files and the project config listing them.
        skill_roots: the skill root folders (bundled ones excluded: they never change).
    """

    agents_files: tuple[Path, ...] = ()
    context_files: tuple[Path, ...] = ()
    skill_roots: tuple[Path, ...] = ()

    def file_dirs(self) -> tuple[Path, ...]:
        """Existing folders holding watched files (watched without recursion)."""
        dirs = {path.parent for path in (*self.agents_files, *self.context_files)}
        return tuple(sorted(d for d in dirs if d.is_dir()))

    def root_dirs(self) -> tuple[Path, ...]:
        """Existing skill roots (watched recursively)."""
        return tuple(sorted(root for root in set(self.skill_roots) if root.is_dir()))


def _under(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def classify_change(plan: WatchPlan, path: Path) -> StaticPartition | None:
    """The partition a changed ``path`` belongs to, or None when it affects no request."""
    if path in plan.agents_files:
        return StaticPartition.AGENTS
    if path in plan.context_files:
        return StaticPartition.PROJECT_CONTEXT
    if any(_under(path, root) for root in plan.skill_roots):
        return StaticPartition.SKILLS
    return None


def partitions_for(plan: WatchPlan, paths: Iterable[Path]) -> frozenset[StaticPartition]:
    """The partitions touched by a batch of changed paths."""
    found = (classify_change(plan, path) for path in paths)
    return frozenset(partition for partition in found if partition is not None)


class FileChanges(msgspec.Struct, frozen=True):
    """What a batch of changed files did."""

    partitions: frozenset[StaticPartition]
    """The static-cache partitions the files belong to."""
    skill_notices: tuple[EngineEvent, ...] = ()
    """What rediscovering the skills said that the discovery before it had not (each is said
    once, see ``Session.rescan_skills``)."""
    applied: frozenset[StaticPartition] = frozenset()
    """The partitions applied at once, because no request was sent yet (nothing cached)."""
    pending: PendingReload | None = None
    """What waits for the next compaction after the batch, with its cost."""


class FileReloads(Protocol):
    """What changed files ask of the session (``SessionController``)."""

    @property
    def has_pending_reloads(self) -> bool: ...
    def apply_file_changes(self, paths: Iterable[Path]) -> FileChanges: ...
    def pending_reload(self) -> PendingReload | None: ...
    def reload_now(self) -> frozenset[StaticPartition]: ...


class FilesSession(Protocol):
    """What changed files ask of the screen's hold on its session (``WorkbenchSession``)."""

    @property
    def attached(self) -> bool: ...
    @property
    def controller(self) -> FileReloads: ...


class FilesHost(Protocol):
    """What ``FileChangesShown`` uses of the workbench screen."""

    pending_reload: bool
    busy: bool

    @property
    def hold(self) -> FilesSession: ...
    @property
    def status(self) -> StatusLine: ...
    def refresh_skills(self) -> None: ...
    def refresh_budget(self) -> None: ...
    @property
    def conversation(self) -> ConversationPane: ...
    def notify(
        self, message: str, *, title: str = "", severity: SeverityLevel = "information"
    ) -> None: ...


class FileChangesShown:
    """Changed files on the workbench ``screen``: pending reloads and refreshed skills."""

    def __init__(self, screen: FilesHost) -> None:
        self.screen = screen

    def observe(self, event: EngineEvent) -> None:
        """A compaction applies the pending changes; their cost grows with each request."""
        if isinstance(event, CompactionApplied) or (
            isinstance(event, RequestSnapshot) and self.screen.hold.controller.has_pending_reloads
        ):
            self.refresh_pending()

    def refresh_pending(self) -> PendingReload | None:
        """Show the changes waiting for the next compaction (and their cost) in the status
        line; Ctrl+R shows while there are some."""
        screen = self.screen
        pending = screen.hold.controller.pending_reload() if screen.hold.attached else None
        return self._show_pending(pending)

    def _show_pending(self, pending: PendingReload | None) -> PendingReload | None:
        screen = self.screen
        screen.status.pending_reload = pending.short if pending is not None else ""
        screen.pending_reload = pending is not None
        return pending

    def apply(self, changes: Iterable[tuple[object, str]]) -> frozenset[str]:
        """Handle a batch of watchfiles changes; returns the partitions they touched.

        AGENTS.md and project-context changes wait for the next compaction (the status line
        says so, with the cost of reloading now); skill folders refresh the sidebar at once.
        What the skills' rediscovery says for the first time is a toast and stays in the
        conversation as a warning; said again by the next rescan, it is not repeated.
        """
        from steiner_tui.app.adapter import skill_notice
        from steiner_tui.app.transcript import NoticeEntry

        screen = self.screen
        changed = screen.hold.controller.apply_file_changes(Path(path) for _, path in changes)
        partitions = changed.partitions
        if StaticPartition.SKILLS in partitions:
            screen.refresh_skills()
        for event in changed.skill_notices:
            said = event.message if isinstance(event, WarningEvent) else skill_notice(event)
            if said:
                text = said if isinstance(said, str) else said[0]
                screen.conversation.call_later(
                    screen.conversation.add, NoticeEntry(text, "warning")
                )
        pending = self._show_pending(changed.pending)  # counted once, by the controller
        if pending is not None and partitions - {StaticPartition.SKILLS}:
            screen.notify(pending.notice + " · ctrl+r reloads now", title="Files changed")
        if changed.applied:
            screen.refresh_budget()
            label = partitions_label(changed.applied)
            text = f"{label} changed on disk: your next message has it (nothing was sent yet)"
            screen.notify(text, title="Files changed")
        return frozenset(str(p) for p in partitions)

    def reload_now(self) -> None:
        """Apply the files changed on disk now instead of at the next compaction."""
        screen = self.screen
        if screen.busy:
            screen.notify("wait for the reply to finish", severity="warning")
            return
        pending = screen.hold.controller.pending_reload()
        reloaded = screen.hold.controller.reload_now()
        self.refresh_pending()
        if reloaded and pending is not None:
            screen.refresh_budget()
            text = f"reloaded {pending.label} for the next request"
            screen.notify(text, title="Files changed")
