"""Find skills: one folder per skill, each holding ``SKILL.md`` with ``name``/``description``.

Roots are searched in a fixed order (bundled, ``CONFIG/skills``, ``<root>/.steiner/skills``,
then roots listed in config); a later root's skill replaces an earlier
one of the same name. The filesystem comes in through ``SkillReader`` (the prompt package's
``FileReader`` plus directory listing), so tests use fakes or temporary folders. Nothing here
raises for a bad skill: it is skipped with a ``WarningEvent`` and discovery goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final, Protocol

import msgspec

from steiner_tui.engine.events import EventSink, SkillTruncated, WarningEvent
from steiner_tui.engine.prompt.files import FileReader, LocalFileReader, read_text_file
from steiner_tui.engine.skills.envelopes import SKILL_CONTENT_CAP_BYTES, cap_skill_body, utf8_len
from steiner_tui.engine.skills.frontmatter import split_front_matter
from steiner_tui.engine.skills.model import Skill

__all__ = [
    "MAX_SKILL_FILE_BYTES",
    "LocalSkillReader",
    "SkillReader",
    "SkillRoot",
    "discover_skills",
    "skill_roots",
]

SKILL_FILE_NAME: Final = "SKILL.md"
MAX_SKILL_FILE_BYTES: Final = 4 << 20
"""``SKILL.md`` files larger than this (4 MiB) are skipped, not loaded and capped."""


class SkillReader(FileReader, Protocol):
    """``FileReader`` plus the one listing operation discovery needs."""

    def subdirectories(self, path: Path) -> list[Path]:
        """The folders directly inside ``path``. Raises ``OSError`` when it cannot be listed."""


class LocalSkillReader(LocalFileReader):
    """``SkillReader`` over the real filesystem."""

    def subdirectories(self, path: Path) -> list[Path]:
        return [child for child in path.iterdir() if child.is_dir()]


class SkillRoot(msgspec.Struct, frozen=True):
    """A folder of skill folders. ``required`` roots (listed in config) warn when missing."""

    path: Path
    bundled: bool = False
    required: bool = False


def skill_roots(
    bundled_dir: Path | None,
    config_dir: Path | None,
    project_root: Path | None,
    extra: Sequence[Path] = (),
) -> tuple[SkillRoot, ...]:
    """The skill roots in search order: bundled, ``CONFIG/skills``, project, then ``extra``.

    Args:
        bundled_dir: the packaged skills (``resources.bundled_skills_dir()``), or None.
        config_dir: ``CONFIG`` (its ``skills`` folder is used), or None.
        project_root: the project root (its ``.steiner/skills`` folder is used), or None.
        extra: roots listed in config, searched last in the given order.
    """
    roots: list[SkillRoot] = []
    if bundled_dir is not None:
        roots.append(SkillRoot(bundled_dir, bundled=True))
    if config_dir is not None:
        roots.append(SkillRoot(config_dir / "skills"))
    if project_root is not None:
        roots.append(SkillRoot(project_root / ".steiner" / "skills"))
    roots.extend(SkillRoot(path, required=True) for path in extra)
    return tuple(roots)


SKILL_NAME_MAX = 64
_YAML_INDICATORS = "[]{}&*!|>%@`#,?"
_FORBIDDEN_IN_NAMES = "/\\\"'<>`"


def skill_name_problem(name: str) -> str:
    """Why ``name`` cannot name a skill (``""`` when it can).

    A name travels inside envelopes, file paths and the sidebar, so it may not hold path
    separators, quotes, ``<`` or ``>`` (no envelope text such as ``</steiner-skill>``), control
    characters or ``..``, may not start like a YAML collection or alias (``name: [unclosed``),
    and is at most ``SKILL_NAME_MAX`` characters.
    """
    if not name:
        return "the name is empty"
    if len(name) > SKILL_NAME_MAX:
        return f"the name is longer than {SKILL_NAME_MAX} characters"
    if name[0] in _YAML_INDICATORS:
        return f"the name {name!r} is not a plain YAML string (it starts with {name[0]!r})"
    bad = sorted({c for c in name if c in _FORBIDDEN_IN_NAMES or not c.isprintable()})
    if bad:
        return f"the name {name!r} holds {', '.join(repr(c) for c in bad)}"
    if ".." in name or name != name.strip():
        return f"the name {name!r} holds '..' or leading or trailing spaces"
    return ""


def load_skill(folder: Path, root: SkillRoot, reader: FileReader, sink: EventSink) -> Skill | None:
    """Load ``folder/SKILL.md``, or warn and return None when it is not a usable skill."""
    path = folder / SKILL_FILE_NAME
    text = read_text_file(path, reader, sink, max_bytes=MAX_SKILL_FILE_BYTES, optional=False)
    if text is None:
        return None
    parsed = split_front_matter(text)
    if parsed is None:
        sink.emit(WarningEvent("skill_invalid", f"skipped {path}: no front matter (--- ... ---)"))
        return None
    fields, raw_body = parsed
    name = fields.get("name", "").strip()
    if not name:
        sink.emit(WarningEvent("skill_invalid", f"skipped {path}: front matter has no name"))
        return None
    problem = skill_name_problem(name)
    if problem:
        sink.emit(WarningEvent("skill_invalid", f"skipped {path}: {problem}"))
        return None
    body = raw_body.lstrip("\n").rstrip()
    original_bytes = utf8_len(body)
    body, truncated = cap_skill_body(body)
    if truncated:
        sink.emit(SkillTruncated(name, original_bytes, SKILL_CONTENT_CAP_BYTES))
    return Skill(
        name=name,
        description=fields.get("description", "").strip(),
        body=body,
        path=path,
        root=root.path,
        original_bytes=original_bytes,
        truncated=truncated,
        bundled=root.bundled,
    )


def _skill_folders(root: SkillRoot, reader: SkillReader, sink: EventSink) -> list[Path]:
    if not reader.exists(root.path):
        if root.required:
            sink.emit(WarningEvent("skill_root_missing", f"skill root {root.path} does not exist"))
        return []
    try:
        folders = reader.subdirectories(root.path)
    except OSError as exc:
        message = f"cannot list skill root {root.path}: {exc.strerror or exc}"
        sink.emit(WarningEvent("skill_root_unreadable", message))
        return []
    return sorted(folder for folder in folders if not folder.name.startswith("."))


def discover_skills(
    roots: Sequence[SkillRoot], sink: EventSink, reader: SkillReader | None = None
) -> tuple[Skill, ...]:
    """Load every skill under ``roots``; later roots replace earlier skills of the same name.

    Args:
        roots: from ``skill_roots``, in search order.
        sink: receives ``WarningEvent`` (unreadable, oversized, invalid UTF-8, invalid front
            matter or name, duplicate names within one root, a skill replacing a bundled
            one) and ``SkillTruncated``.
        reader: the filesystem seam; the real filesystem when None.

    Returns:
        The skills sorted by name.
    """
    files = reader if reader is not None else LocalSkillReader()
    found: dict[str, Skill] = {}
    for root in roots:
        seen_here: set[str] = set()
        for folder in _skill_folders(root, files, sink):
            skill = load_skill(folder, root, files, sink)
            if skill is None:
                continue
            if skill.name in seen_here:
                message = f"{skill.path} redefines skill {skill.name!r} in the same root; it wins"
                sink.emit(WarningEvent("skill_duplicate", message))
            shadowed = found.get(skill.name)
            if shadowed is not None and shadowed.bundled and not skill.bundled:
                message = f"{skill.path} replaces the bundled skill {skill.name!r}"
                sink.emit(WarningEvent("skill_shadows_bundled", message))
            seen_here.add(skill.name)
            found[skill.name] = skill
    return tuple(found[name] for name in sorted(found))
