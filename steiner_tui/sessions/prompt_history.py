"""What was sent in a project, across its sessions: Up in a new session recalls the prompts sent
there before (as Claude Code and aider do), not only this session's.

One file per project, ``CONFIG/prompt-history/<first 16 hex digits of the SHA-256 of the
project's resolved path>.jsonl``: one JSON string per line, appended (mode 0600) as each prompt
is sent, whole or not at all (``append_whole``); the newest ``LIMIT`` are read back when a
session opens. The file is rewritten with only those (``atomic_write``) once it holds twice as
many. A line that is not a JSON string (the torn last line of an app killed mid-write) is
skipped. A prompt naming a paste by its placeholder line is not
kept: the paste is not, so in another session the line would stand for nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from steiner_tui.sessions.meta import atomic_write
from steiner_tui.sessions.whole_append import append_whole

__all__ = ["LIMIT", "append_prompt", "prompt_history_file", "read_prompts"]

LIMIT = 500
"""Prompts read back (and kept once the file is trimmed)."""


def prompt_history_file(config_dir: Path, project_root: Path) -> Path:
    """Where the prompts sent in ``project_root`` are kept."""
    key = hashlib.sha256(str(project_root.resolve()).encode()).hexdigest()[:16]
    return config_dir / "prompt-history" / f"{key}.jsonl"


def read_prompts(path: Path, limit: int = LIMIT) -> list[str]:
    """The newest ``limit`` prompts kept in ``path``, oldest first (none if it is missing or
    unreadable: a history is a convenience, never a reason not to open)."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return []
    prompts: list[str] = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, str) and value:
            prompts.append(value)
    if len(prompts) > 2 * limit:
        with contextlib.suppress(OSError):  # kept as it was: trimmed at a later open
            atomic_write(path, _lines(prompts[-limit:]), sync=False)
    return prompts[-limit:]


def append_prompt(path: Path, text: str) -> None:
    """Keep ``text`` as the newest prompt sent in ``path``'s project.

    Raises:
        OSError: the file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    try:
        append_whole(fd, _lines([text]))
    finally:
        os.close(fd)


def _lines(prompts: list[str]) -> bytes:
    return "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in prompts).encode()
