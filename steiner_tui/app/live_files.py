"""Live files: which paths the app watches and which static-cache partition each belongs to.

AGENTS.md (global and project) belongs to the ``agents`` partition, the project-context files
(and ``.steiner/config.toml``, which lists them) to ``project_context``, and anything under a
skill root to ``skills``. A change invalidates exactly those partitions; requests already sent
are snapshots and never change.

watchfiles needs existing paths and applies one ``recursive`` flag per watcher, so the plan has
two groups: the folders holding the watched files (not recursive: the project root may be huge)
and the skill roots (recursive: a skill is a folder).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import msgspec

from steiner_tui.engine.prompt.static_cache import StaticPartition

__all__ = ["WatchPlan", "classify_change", "partitions_for"]


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
