"""Finding transcripts to import: a file, a folder, or the agents' default folders.

A folder is searched for ``*.jsonl``; files under a ``subagents/`` folder are read with the
session that owns them (Claude Code). A Codex sub-agent's rollout lies beside its parent's and
names the parent's thread: it is put under the parent, linked to the ``spawn_agent`` call that
started it, when the parent is imported too (otherwise it stays a session of its own). Each
file's kind is told from the shape of its first JSON object line: Codex lines are
``{timestamp, type, payload}``, Claude Code lines a record type of its own with a ``message``
object on a turn (a ``sessionId`` alone proves nothing: Gemini CLI writes one too), Gemini CLI
sessions one JSON object with ``sessionId``, ``projectHash`` and ``messages`` (found as
``chats/session-*.json`` in a folder). A file that is none of them is reported as of unknown
format, not fatal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from steiner_tui.importers.claude import (
    first_session_id,
    import_claude_session,
    is_claude_record,
)
from steiner_tui.importers.codex import import_codex_rollout, is_codex_record
from steiner_tui.importers.gemini import import_gemini_session, is_gemini_session
from steiner_tui.importers.jsonl import NotATranscriptFile, open_transcript, read_lines
from steiner_tui.importers.model import ImportedSession, SubAgentLink

__all__ = [
    "GEMINI_MAX_BYTES",
    "SHAPE_LINES",
    "UNKNOWN_FORMAT",
    "ImportResult",
    "default_paths",
    "import_paths",
    "kind_of",
    "nest_codex_subagents",
]


UNKNOWN_FORMAT = (
    "unknown format: not a Claude Code session, a Codex rollout or a Gemini CLI session"
)


def default_paths(home: Path) -> list[Path]:
    """Where Claude Code, Codex and Gemini CLI keep their transcripts under ``home``."""
    return [home / ".claude" / "projects", home / ".codex" / "sessions", home / ".gemini" / "tmp"]


class ImportResult(msgspec.Struct, frozen=True):
    """The sessions read, and the files skipped with the reason."""

    sessions: tuple[ImportedSession, ...]
    skipped: tuple[tuple[str, str], ...]


GEMINI_MAX_BYTES = 64 << 20
"""A file larger than this is not read whole to see whether it is a Gemini CLI session."""


def _whole_json(path: Path) -> Any:
    try:
        if path.stat().st_size > GEMINI_MAX_BYTES:
            return None
        return json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return None


SHAPE_LINES = 200
"""How many lines are looked at for a record whose shape tells the format."""


def kind_of(path: Path) -> str:
    """``claude-code``, ``codex``, ``gemini-cli`` or "" (unknown format), from the shape of the
    file's first record that tells (lines that are not JSON objects, and records of a type no
    agent here writes, are passed over: a damaged first line or a record type newer than this
    importer does not hide the format), or of the whole file when no line is a JSON object (a
    Gemini CLI session is one JSON object written over many lines).

    Raises:
        NotATranscriptFile: not a regular file (a named pipe, a device).
    """
    objects = 0
    try:
        with open_transcript(path) as handle:
            for number, line in read_lines(handle, []):
                if number > SHAPE_LINES:
                    return ""
                try:
                    record = json.loads(line)
                except (ValueError, RecursionError):
                    continue
                if not isinstance(record, dict):
                    continue
                objects += 1
                if is_codex_record(record):
                    return "codex"
                if is_gemini_session(record):
                    return "gemini-cli"
                if is_claude_record(record):
                    return "claude-code"
    except NotATranscriptFile:
        raise
    except OSError:
        return ""
    return "gemini-cli" if not objects and is_gemini_session(_whole_json(path)) else ""


def _files(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(
                p for p in path.rglob("*.jsonl") if "subagents" not in p.relative_to(path).parts
            )
            out += sorted(p for p in path.rglob("session-*.json") if p.parent.name == "chats")
        elif path.exists():
            out.append(path)  # a file, or what the open will refuse with its reason
    return out


def _read_with_its_session(path: Path) -> bool:
    """A 2.0.x sub-agent's transcript (``agent-<id>.jsonl``) beside the session that names it
    is read with that session."""
    if not path.name.startswith("agent-"):
        return False
    session = first_session_id(path)
    return bool(session) and path.with_name(f"{session}.jsonl").is_file()


def import_paths(paths: Iterable[Path]) -> ImportResult:
    """Import every transcript in ``paths`` (files or folders)."""
    sessions: list[ImportedSession] = []
    skipped: list[tuple[str, str]] = []
    paths = list(paths)
    given = {path for path in paths if path.is_file()}
    for path in _files(paths):
        if path not in given and _read_with_its_session(path):
            continue
        try:
            kind = kind_of(path)
            if kind == "codex":
                sessions.append(import_codex_rollout(path))
            elif kind == "claude-code":
                sessions.append(import_claude_session(path))
            elif kind == "gemini-cli":
                sessions.append(import_gemini_session(path))
            else:
                skipped.append((str(path), UNKNOWN_FORMAT))
        except (OSError, ValueError) as exc:
            skipped.append((str(path), str(exc)))
    return ImportResult(tuple(nest_codex_subagents(sessions)), tuple(skipped))


def nest_codex_subagents(sessions: list[ImportedSession]) -> list[ImportedSession]:
    """Each Codex sub-agent under the session whose thread started it (deepest first, so a
    sub-agent's own sub-agents travel with it), linked to the call that did; a spawned thread
    with no rollout, and a sub-agent whose parent's rollout is not there, are warnings."""
    by_id = {s.id: s for s in sessions if s.source == "codex"}

    def depth(session: ImportedSession) -> int:
        seen, parent, level = {session.id}, session.parent_id, 0
        while parent in by_id and parent not in seen:
            seen.add(parent)
            parent, level = by_id[parent].parent_id, level + 1
        return level

    nested: set[str] = set()
    for child in sorted(by_id.values(), key=depth, reverse=True):
        parent = by_id.get(child.parent_id)
        if parent is None or child.parent_id == child.id:
            continue
        link = next((k for k in parent.spawned if k.agent_id == child.id), None)
        link = link or SubAgentLink(child.id, "", "", "", "parent_thread_id")
        child = msgspec.structs.replace(by_id[child.id], link=link)
        by_id[parent.id] = msgspec.structs.replace(parent, subagents=(*parent.subagents, child))
        nested.add(child.id)
    for session in list(by_id.values()):
        said = [
            f"sub-agent thread {link.agent_id} (started by {link.tool} {link.tool_use_id}) has "
            "no rollout among the files imported"
            for link in session.spawned
            if link.agent_id not in {a.id for a in session.subagents}
        ]
        if session.parent_id and session.id not in nested and session.parent_id != session.id:
            said.append(
                f"started by thread {session.parent_id}, whose rollout is not among the files "
                "imported"
            )
        if said:
            warnings = (*session.warnings, *said)
            by_id[session.id] = msgspec.structs.replace(session, warnings=warnings)
    return [by_id.get(s.id, s) for s in sessions if s.id not in nested]
