"""Project context: extra files the project asks to include in every request.

The project's ``.steiner/config.toml`` lists them (``[context] files = [...]``, ``ignore =
[...]``, optional ``budget_bytes``). Each listed path is resolved against the project root with
symlinks followed and must stay inside it; an escaping path is an error, not a silent skip,
because it usually means a misconfigured project. Missing files and folders are skipped
silently; each readable file becomes its own ``project_context`` block carrying its path. The
shared byte budget is applied later, at assembly.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Final

import msgspec

from steiner_tui.engine.events import EventSink, WarningEvent
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.prompt.files import FileReader, read_text_file
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.skills.quote import go_quote

__all__ = [
    "ProjectContextSpec",
    "gather_project_context",
    "load_project_context_spec",
]

NEGATIVE_PROJECT_BUDGET_ERROR: Final = "project context budget must not be negative"
_GLOB_CHARS: Final = frozenset("*?[")


class ProjectContextSpec(msgspec.Struct, frozen=True):
    """Which project files to include, which to skip, and the project's own byte budget.

    ``budget_bytes`` 0 means "use the assembly policy's budget".

    Raises:
        ValueError: ``project context budget must not be negative``.
    """

    files: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    budget_bytes: int = 0

    def __post_init__(self) -> None:
        if self.budget_bytes < 0:
            raise ValueError(NEGATIVE_PROJECT_BUDGET_ERROR)
        msgspec.structs.force_setattr(self, "files", tuple(self.files))
        msgspec.structs.force_setattr(self, "ignore", tuple(self.ignore))


def _string_list(table: dict[str, Any], key: str, path: Path, sink: EventSink) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    sink.emit(WarningEvent("config_invalid", f"{path}: [context] {key} must be a list of strings"))
    return ()


def load_project_context_spec(
    root: Path, reader: FileReader, sink: EventSink
) -> ProjectContextSpec:
    """Read ``[context]`` from ``<root>/.steiner/config.toml``.

    A missing file gives the empty spec. Malformed TOML or a wrongly typed key is reported as a
    ``config_invalid`` warning naming the file, and the affected settings are ignored.

    Raises:
        ValueError: when ``budget_bytes`` is negative.
    """
    path = root / ".steiner" / "config.toml"
    text = read_text_file(path, reader, sink)
    if text is None:
        return ProjectContextSpec()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        sink.emit(WarningEvent("config_invalid", f"{path} is not valid TOML: {exc}"))
        return ProjectContextSpec()
    table = data.get("context", {})
    if not isinstance(table, dict):
        sink.emit(WarningEvent("config_invalid", f"{path}: [context] must be a table"))
        return ProjectContextSpec()
    budget = table.get("budget_bytes", 0)
    if not isinstance(budget, int) or isinstance(budget, bool):
        sink.emit(
            WarningEvent("config_invalid", f"{path}: [context] budget_bytes must be an integer")
        )
        budget = 0
    return ProjectContextSpec(
        files=_string_list(table, "files", path, sink),
        ignore=_string_list(table, "ignore", path, sink),
        budget_bytes=budget,
    )


def _escapes(candidate: str) -> ValueError:
    # Quoted as the reference quotes it (a tab is written \t, a control byte \x01).
    return ValueError(f"project context path {go_quote(candidate)} escapes project root")


def _is_ignored(relative: str, ignore: Sequence[str]) -> bool:
    base = PurePosixPath(relative).name
    for raw in ignore:
        value = os.path.normpath(raw.strip()) if raw.strip() else ""
        if value in ("", "."):
            continue
        if relative == value or base == value or relative.endswith("/" + value):
            return True
        if _GLOB_CHARS & set(value) and (
            fnmatch.fnmatchcase(relative, value) or fnmatch.fnmatchcase(base, value)
        ):
            return True
    return False


def _lexical_relative(root: Path, real_root: Path, candidate: str) -> str | None:
    raw = Path(candidate.strip())
    if not raw.is_absolute():
        relative = os.path.normpath(raw).replace(os.sep, "/")
        return None if relative == ".." or relative.startswith("../") else relative
    lexical = Path(os.path.normpath(raw))
    for base in (Path(os.path.normpath(root)), real_root):
        if base.is_absolute() and lexical.is_relative_to(base):
            return lexical.relative_to(base).as_posix()
    return None


def resolve_context_path(root: Path, candidate: str, reader: FileReader) -> tuple[str, Path]:
    """Resolve one listed path against ``root``.

    Returns:
        ``(relative, path)``: the normalized path relative to the root and the file's path
        under the root as given.

    Raises:
        ValueError: ``project context path "<p>" escapes project root`` when the path leaves
            the root lexically (``..``, an absolute path elsewhere) or through a symlink.
    """
    real_root = reader.resolve(root)
    relative = _lexical_relative(root, real_root, candidate)
    if relative is None:
        raise _escapes(candidate)
    path = root / relative
    if not reader.resolve(path).is_relative_to(real_root):
        raise _escapes(candidate)
    return relative, path


def gather_project_context(
    root: Path, spec: ProjectContextSpec, reader: FileReader, sink: EventSink
) -> tuple[ContextBlock, ...]:
    """Read the spec's files into unbudgeted ``project_context`` blocks, in listed order.

    Duplicates, ignored paths, missing files and folders are skipped; unreadable, oversized and
    badly encoded files are handled by ``files.read_text_file`` (with warnings).

    Raises:
        ValueError: when a listed path escapes the project root.
    """
    seen: set[str] = set()
    blocks: list[ContextBlock] = []
    for candidate in spec.files:
        cleaned = os.path.normpath(candidate.strip()) if candidate.strip() else "."
        # Ignored entries are skipped before any resolution, as in the reference.
        if cleaned == "." or _is_ignored(cleaned, spec.ignore):
            continue
        relative, path = resolve_context_path(root, candidate, reader)
        if relative in seen or relative == "." or _is_ignored(relative, spec.ignore):
            continue
        seen.add(relative)
        if not reader.is_file(path):
            continue
        text = read_text_file(path, reader, sink)
        if text:
            blocks.append(ContextBlock.of(ContextSource.PROJECT_CONTEXT, text, path=str(path)))
    return tuple(blocks)
