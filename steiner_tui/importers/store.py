"""Imported sessions kept in the sessions folder, read-only: ``.imports/<id>.json``.

The transcript stays where the agent wrote it; what the import made of it (requests,
generations, sub-agents, ranking) is saved so the workbench can open it by id. The folder's
name starts with a dot, so the session store never lists it as one of its own sessions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from steiner_tui.importers.model import ImportedSession
from steiner_tui.sessions.ids import validate_session_id

__all__ = ["IMPORTS_DIR", "list_imports", "load_import", "save_import"]

IMPORTS_DIR = ".imports"


def save_import(base: Path, session: ImportedSession) -> Path:
    """Write ``session``'s figures (replacing an earlier import of it); returns the file."""
    folder = base / IMPORTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{validate_session_id(session.id)}.json"
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(session.to_json(), ensure_ascii=False), encoding="utf-8")
    temporary.replace(path)
    return path


def load_import(base: Path, session_id: str) -> dict[str, Any]:
    """An imported session's figures, as saved.

    Raises:
        ValueError: the id is not valid.
        FileNotFoundError: nothing was imported under that id.
    """
    path = base / IMPORTS_DIR / f"{validate_session_id(session_id)}.json"
    value = json.loads(path.read_text(encoding="utf-8"))
    return value if isinstance(value, dict) else {}


def list_imports(base: Path) -> list[str]:
    """The ids of every imported session, newest import first."""
    folder = base / IMPORTS_DIR
    try:
        files = [p for p in folder.iterdir() if p.suffix == ".json"]
    except (FileNotFoundError, NotADirectoryError):
        return []
    files.sort(key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    return [p.stem for p in files]
