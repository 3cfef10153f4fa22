"""Where whole tool outputs are kept when the model gets only part of them.

A tool result larger than its budget reaches the model as a window (``budget``): the first and
last part, or a range of lines, with a note saying where the rest is and how to page through it.
The rest is kept whole by a ``ResultStore``, one file per tool call, so the model (or the
person) can read it with the ``read`` tool: the store's folder is the tool's second root,
read-only (``holds``), because every note that names a saved output tells the model to read
it. Compaction uses the same store when it masks an old tool result (docs/design.md, "8.
Compaction: turns, stages and the summary").

The runner is handed a store: an interactive or saved session keeps results in its session
folder (``CONFIG/sessions/<id>/tool-results/``); a run without a session folder gets a folder of
its own under the system's temporary directory, chosen by the session factory.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path
from typing import Protocol

__all__ = [
    "RESULTS_FOLDER",
    "DirectoryResultStore",
    "ResultStore",
    "TemporaryResultStore",
]

RESULTS_FOLDER = "tool-results"
"""The folder, inside a session folder, that holds its tool results."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class ResultStore(Protocol):
    """Keeps whole tool outputs, one per key (a tool call id)."""

    def save(self, key: str, text: str) -> str:
        """Write ``text`` under ``key`` (replacing an earlier one); returns where it is."""

    def location(self, key: str) -> str | None:
        """Where ``key``'s output is, when one was saved."""

    def file_for(self, key: str) -> Path | None:
        """A file a tool may stream ``key``'s whole output into (None: it cannot)."""

    def holds(self, given: str) -> Path | None:
        """``given`` resolved, when it names a saved output of this store (None otherwise):
        the ``read`` tool's second, read-only root."""


class DirectoryResultStore:
    """A ``ResultStore`` writing ``<folder>/<key>.txt`` (the folder is made on first save).

    Args:
        folder: where the files go.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        safe = _UNSAFE.sub("_", key).strip("._") or "result"
        if safe != key or len(safe) > 80:
            safe = f"{safe[:60]}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
        return self.folder / f"{safe}.txt"

    def save(self, key: str, text: str) -> str:
        path = self._path(key)
        tmp = path.with_suffix(".tmp")
        try:
            tmp.write_text(text, encoding="utf-8", errors="replace")
        except FileNotFoundError:  # made here, not at every save: compaction saves thousands
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, encoding="utf-8", errors="replace")
        tmp.replace(path)
        return str(path)

    def location(self, key: str) -> str | None:
        path = self._path(key)
        return str(path) if path.is_file() else None

    def file_for(self, key: str) -> Path | None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        return path

    def holds(self, given: str) -> Path | None:
        try:
            path = Path(given).expanduser().resolve()
            folder = self.folder.resolve()
        except (OSError, RuntimeError):
            return None
        return path if path.is_relative_to(folder) and path.is_file() else None


class TemporaryResultStore:
    """A ``ResultStore`` in a folder of its own under the system's temporary directory, made on
    first use (a run that never cuts a result leaves nothing behind); the folder stays after
    the run so the paths the model was given keep working."""

    def __init__(self, prefix: str = "steiner-results-") -> None:
        self.prefix = prefix
        self._store: DirectoryResultStore | None = None

    def _folder(self) -> DirectoryResultStore:
        if self._store is None:
            self._store = DirectoryResultStore(Path(tempfile.mkdtemp(prefix=self.prefix)))
        return self._store

    def save(self, key: str, text: str) -> str:
        return self._folder().save(key, text)

    def location(self, key: str) -> str | None:
        return self._store.location(key) if self._store is not None else None

    def file_for(self, key: str) -> Path | None:
        return self._folder().file_for(key)

    def holds(self, given: str) -> Path | None:
        return self._store.holds(given) if self._store is not None else None
