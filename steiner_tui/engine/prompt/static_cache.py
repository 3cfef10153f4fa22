"""The static context cache: file-backed sources read once per session, byte-stable after.

Three partitions (AGENTS.md, project context, skills) are cached independently, each keyed by
the inputs that select its files, so enabling a skill reloads only the skills partition. A new
scope (session identity) drops every partition. A failed load (an escaping project-context
path) is not cached.

A partition reloads only when its key changes (or the scope does): a file edited on disk does
not change the prefix mid-session, because that would throw away the provider's cached prefix
without the user asking. The app's file watcher marks the partition *changed* instead
(``mark_changed``); the change stays pending until ``reload_pending`` applies it, which the
runner does at the next compaction and the person can do at once.

The skills key holds the skill roots and enabled names but not the bundled skills folder: one
cache must always pair with one bundled folder (and with one ``FileReader``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path

import msgspec

from steiner_tui.engine.events import EventSink, WarningEvent
from steiner_tui.engine.prompt.agents_md import agents_md_paths, load_agents_md
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.prompt.files import FileReader
from steiner_tui.engine.prompt.project_context import ProjectContextSpec, gather_project_context
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.skills.discovery import SkillRoot, discover_skills
from steiner_tui.engine.skills.model import Skill
from steiner_tui.engine.templates import render_template

__all__ = [
    "SkillLoader",
    "StaticContextCache",
    "StaticPartition",
]

SkillLoader = Callable[[Sequence[SkillRoot], EventSink], Sequence[Skill]]
"""Discovers the skills under the given roots (later roots win), e.g. ``discover_skills``."""


class StaticPartition(StrEnum):
    """The independently cached parts of the static context."""

    AGENTS = "agents"
    PROJECT_CONTEXT = "project_context"
    SKILLS = "skills"


class _Entry(msgspec.Struct):
    key: object = None
    blocks: tuple[ContextBlock, ...] | None = None
    loads: int = 0


def static_skill_blocks(
    skills: Sequence[Skill], names: Sequence[str], sink: EventSink
) -> tuple[ContextBlock, ...]:
    """Blocks for the enabled static skills (exec and oneshot runs), in ``names`` order.

    A framing block comes first when any skill is found; an unknown name is reported with a
    ``skill_not_found`` warning.
    """
    by_name = {skill.name: skill for skill in skills}
    found: list[Skill] = []
    for name in dict.fromkeys(names):
        skill = by_name.get(name)
        if skill is None:
            sink.emit(WarningEvent("skill_not_found", f"skill {name!r} is enabled but not found"))
            continue
        found.append(skill)
    if not found:
        return ()
    framing = render_template("preamble_skill_framing.md.j2", names=[s.name for s in found])
    blocks = [ContextBlock.of(ContextSource.SKILL, framing.strip())]
    for skill in found:
        text = render_template("preamble_static_skill.md.j2", name=skill.name, body=skill.body)
        blocks.append(ContextBlock.of(ContextSource.SKILL, text.rstrip(), path=str(skill.path)))
    return tuple(blocks)


class StaticContextCache:
    """Per-session memo of the file-backed prompt sources.

    An object with state behind a lock, not a value: a plain class, equal only to itself.

    Attributes:
        reader: the filesystem seam every partition reads through.
        skill_loader: discovers skills for static (exec/oneshot) skill blocks; None uses
            ``discover_skills`` on the real filesystem (interactive sessions pass no names, so
            they never load skills here).
    """

    __slots__ = ("_entries", "_lock", "_pending", "_scope", "_version", "reader", "skill_loader")

    def __init__(self, reader: FileReader, skill_loader: SkillLoader | None = None) -> None:
        self.reader = reader
        self.skill_loader = skill_loader
        self._scope: str | None = None
        self._entries = {p: _Entry() for p in StaticPartition}
        self._lock = threading.Lock()
        self._pending: set[StaticPartition] = set()
        self._version = 0

    @property
    def version(self) -> int:
        """Changes whenever a partition is dropped or (re)loaded: blocks assembled at one
        version are the blocks of any later assembly at that version with the same inputs."""
        return self._version

    def loads(self, partition: StaticPartition | str) -> int:
        """How many times ``partition`` was (re)loaded since the cache was made."""
        return self._entries[StaticPartition(partition)].loads

    def begin_scope(self, scope: str) -> None:
        """Enter ``scope`` (a session identity); a different scope drops every partition."""
        with self._lock:
            if self._scope == scope:
                return
            for entry in self._entries.values():
                entry.key, entry.blocks = None, None
            self._pending.clear()  # a new session reads every file afresh
            self._scope = scope
            self._version += 1

    def mark_changed(self, partition: StaticPartition | str) -> None:
        """Note that a file of ``partition`` changed on disk; the cached blocks stay in use."""
        with self._lock:
            self._pending.add(StaticPartition(partition))

    @property
    def pending(self) -> frozenset[StaticPartition]:
        """Partitions whose files changed since they were loaded (not applied yet)."""
        with self._lock:
            return frozenset(self._pending)

    def reload_pending(self) -> frozenset[StaticPartition]:
        """Apply the pending changes: those partitions reload on their next use.

        Returns:
            The partitions that were pending (now reloading).
        """
        with self._lock:
            reloaded = frozenset(self._pending)
            self._pending.clear()
            for target in reloaded:
                entry = self._entries[target]
                entry.key, entry.blocks = None, None
            self._version += 1
        return reloaded

    def _ensure(
        self, partition: StaticPartition, key: object, load: Callable[[], tuple[ContextBlock, ...]]
    ) -> tuple[ContextBlock, ...]:
        with self._lock:
            entry = self._entries[partition]
            if entry.blocks is not None and entry.key == key:
                return entry.blocks
            blocks = load()
            entry.key, entry.blocks = key, blocks
            entry.loads += 1
            self._version += 1
            self._pending.discard(partition)  # a reload reads the changed files too
            return blocks

    def agents(
        self, global_path: Path | None, project_root: Path | None, sink: EventSink
    ) -> tuple[ContextBlock, ...]:
        """The AGENTS.md blocks, keyed by the two paths."""
        key = agents_md_paths(global_path, project_root)
        return self._ensure(
            StaticPartition.AGENTS,
            key,
            lambda: load_agents_md(global_path, project_root, self.reader, sink),
        )

    def project_context(
        self, root: Path | None, spec: ProjectContextSpec, budget: int, sink: EventSink
    ) -> tuple[ContextBlock, ...]:
        """The project-context blocks (unbudgeted), keyed by root, budget, files and ignores.

        Raises:
            ValueError: when a listed path escapes the root (nothing is cached).
        """
        if root is None:
            return ()
        key = (root, budget, spec.files, spec.ignore)
        return self._ensure(
            StaticPartition.PROJECT_CONTEXT,
            key,
            lambda: gather_project_context(root, spec, self.reader, sink),
        )

    def skills(
        self, roots: Sequence[SkillRoot], names: Sequence[str], sink: EventSink
    ) -> tuple[ContextBlock, ...]:
        """Static skill blocks for ``names``, keyed by the roots and names."""
        if not names:
            return ()
        key = (tuple(roots), tuple(names))

        def load() -> tuple[ContextBlock, ...]:
            if self.skill_loader is None:
                found: Sequence[Skill] = discover_skills(tuple(roots), sink)
            else:
                found = self.skill_loader(tuple(roots), sink)
            return static_skill_blocks(found, names, sink)

        return self._ensure(StaticPartition.SKILLS, key, load)
