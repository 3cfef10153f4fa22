"""AGENTS.md sources: the user's global file and the project's own, never truncated.

Both are system role and bypass every budget: they are the user's standing instructions. A file
that does not exist is simply absent; an unreadable or oversized one is skipped with a warning
(see ``files.read_text_file``). The global path is handed in (the app passes
``CONFIG/AGENTS.md``); the project file is ``<root>/AGENTS.md``.
"""

from __future__ import annotations

from pathlib import Path

from steiner_tui.engine.events import EventSink
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.prompt.files import FileReader, read_text_file
from steiner_tui.engine.prompt.sources import ContextSource

__all__ = ["agents_md_paths", "load_agents_md"]

PROJECT_AGENTS_FILE = "AGENTS.md"


def agents_md_paths(
    global_path: Path | None, project_root: Path | None
) -> tuple[Path | None, Path | None]:
    """The (global, project) AGENTS.md paths; None where there is no such source."""
    project = project_root / PROJECT_AGENTS_FILE if project_root is not None else None
    return global_path, project


def load_agents_md(
    global_path: Path | None,
    project_root: Path | None,
    reader: FileReader,
    sink: EventSink,
) -> tuple[ContextBlock, ...]:
    """Read the global then the project AGENTS.md into blocks.

    Args:
        global_path: the user's global AGENTS.md, or None for none.
        project_root: the project folder, or None for no project file.
        reader: the filesystem seam.
        sink: receives warnings about unreadable files.

    Returns:
        Zero to two blocks, global first. Whitespace-only files add nothing.
    """
    global_file, project_file = agents_md_paths(global_path, project_root)
    blocks: list[ContextBlock] = []
    for source, path in (
        (ContextSource.GLOBAL_AGENTS_MD, global_file),
        (ContextSource.PROJECT_AGENTS_MD, project_file),
    ):
        if path is None:
            continue
        text = read_text_file(path, reader, sink)
        if text is None or not text.strip():
            continue
        blocks.append(ContextBlock.of(source, text, path=str(path)))
    return tuple(blocks)
