"""A paste too long for the prompt is kept in a file the model can read.

The file goes to ``<project>/.steiner/pastes/paste-<n>.txt`` (the project's own steiner folder,
inside the project so the ``read`` tool can page through it; numbered so no paste replaces
another). Nothing of the paste is lost, and the prompt holds one line naming the file.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PASTES_DIR", "byte_size", "save_paste"]

PASTES_DIR = Path(".steiner") / "pastes"
"""Where long pastes are kept, relative to the project."""


def byte_size(text: str) -> str:
    """``text``'s UTF-8 size in the workbench's one style: ``31,457,280 B``."""
    return f"{len(text.encode('utf-8', errors='surrogatepass')):,} B"


def save_paste(project_root: Path, text: str) -> str:
    """Write ``text`` to the next free ``paste-<n>.txt``; returns its project-relative path.

    Raises:
        OSError: the folder or the file cannot be written.
    """
    folder = project_root / PASTES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    number = 1
    while True:
        path = folder / f"paste-{number}.txt"
        try:
            with path.open("x", encoding="utf-8", errors="surrogatepass", newline="") as file:
                file.write(text)
        except FileExistsError:
            number += 1
            continue
        return (PASTES_DIR / path.name).as_posix()
