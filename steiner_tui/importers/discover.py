"""Finding transcripts to import: a file, a folder, or the agents' default folders.

A folder is searched for ``*.jsonl``; files under a ``subagents/`` folder are read with the
session that owns them (Claude Code). A Codex sub-agent's rollout lies beside its parent's and
names the parent's thread: it is put under the parent, linked to the ``spawn_agent`` call that
started it, when the parent is imported too (otherwise it stays a session of its own). Each
file's kind is told from the shape of its first JSON object line: Codex lines are
``{timestamp, type, payload}``, Claude Code lines a record type of its own with a ``message``
object on a turn (a ``sessionId`` alone proves nothing: Gemini CLI writes one too). A file
that is neither is reported as of unknown format, not fatal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import msgspec

from steiner_tui.importers.claude import import_claude_session, is_claude_record
from steiner_tui.importers.codex import import_codex_rollout, is_codex_record
from steiner_tui.importers.jsonl import NotATranscriptFile, open_transcript, read_lines
from steiner_tui.importers.model import ImportedSession, SubAgentLink

__all__ = ["ImportResult", "default_paths", "import_paths", "kind_of", "nest_codex_subagents"]


def default_paths(home: Path) -> list[Path]:
    """Where Claude Code and Codex keep their transcripts under ``home``."""
    return [home / ".claude" / "projects", home / ".codex" / "sessions"]


class ImportResult(msgspec.Struct, frozen=True):
    """The sessions read, and the files skipped with the reason."""

    sessions: tuple[ImportedSession, ...]
    skipped: tuple[tuple[str, str], ...]


def kind_of(path: Path) -> str:
    """``claude-code``, ``codex`` or "" (unknown format), from the shape of the file's first
    JSON object line (lines that are not JSON are passed over: a damaged first line does not
    hide the format).

    Raises:
        NotATranscriptFile: not a regular file (a named pipe, a device).
    """
    try:
        with open_transcript(path) as handle:
            for _, line in read_lines(handle, []):
                try:
                    record = json.loads(line)
                except (ValueError, RecursionError):
                    continue
                if not isinstance(record, dict):
                    continue
                if is_codex_record(record):
                    return "codex"
                return "claude-code" if is_claude_record(record) else ""
    except NotATranscriptFile:
        raise
    except OSError:
        return ""
    return ""


def _files(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(
                p for p in path.rglob("*.jsonl") if "subagents" not in p.relative_to(path).parts
            )
        elif path.exists():
            out.append(path)  # a file, or what the open will refuse with its reason
    return out


def import_paths(paths: Iterable[Path]) -> ImportResult:
    """Import every transcript in ``paths`` (files or folders)."""
    sessions: list[ImportedSession] = []
    skipped: list[tuple[str, str]] = []
    for path in _files(paths):
        try:
            kind = kind_of(path)
            if kind == "codex":
                sessions.append(import_codex_rollout(path))
            elif kind == "claude-code":
                sessions.append(import_claude_session(path))
            else:
                skipped.append(
                    (str(path), "unknown format: not a Claude Code session or a Codex rollout")
                )
        except OSError as exc:
            skipped.append((str(path), str(exc)))
    return ImportResult(tuple(nest_codex_subagents(sessions)), tuple(skipped))


def nest_codex_subagents(sessions: list[ImportedSession]) -> list[ImportedSession]:
    """Each Codex sub-agent under the session whose thread started it (deepest first, so a
    sub-agent's own sub-agents travel with it), linked to the call that did."""
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
    return [by_id.get(s.id, s) for s in sessions if s.id not in nested]
