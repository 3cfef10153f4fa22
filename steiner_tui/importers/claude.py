"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

Why it exists: Claude Code keeps every session as JSONL, but shows neither its context per
request nor its compactions. The rules, checked against real transcripts (2.1.39 and 2.1.328):

* A model response is written as one ``assistant`` line per content block, all with the same
  ``requestId`` (and ``message.id``), not always on adjacent lines. A request is counted once by
  that id: its input side (``input_tokens``, ``cache_read_input_tokens``,
  ``cache_creation_input_tokens``, the same on every line) from its first line, its
  ``output_tokens`` from its last (earlier lines carry partial counts). ``<synthetic>`` lines
  are written by the client, not the API, and are skipped.
* A compaction is a ``system`` line with ``subtype: "compact_boundary"`` and
  ``compactMetadata.{trigger, preTokens}``; the ``user`` line after it with
  ``isCompactSummary: true`` (its ``parentUuid`` is the boundary) is the summary.
* Sub-agents are ``<session>/subagents/agent-<agentId>.jsonl`` (2.1.x), or
  ``agent-<agentId>.jsonl`` beside the session naming its ``sessionId`` (2.0.x), or, in 1.x
  and 2.0.13, inline in the main file (``isSidechain``, split by chain). They are tied to the
  tool call that started them by the parent's tool result (``toolUseResult.agentId``), its
  ``agent_progress`` records (``parentToolUseID``), from 2.1.3xx ``agent-<id>.meta.json``
  (``toolUseId``), or (inline) the Task call's prompt. The ``acompact-`` agent is the
  summarizer of the compaction that follows it; a 2.0.x ``Warmup`` agent is a cache warmup.
* What costs the most: each ``tool_result`` by the tool and the file or command of the call.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from steiner_tui.capture.wire import call_target
from steiner_tui.importers.jsonl import read_each, text_bytes
from steiner_tui.importers.model import (
    ImportedGeneration,
    ImportedRequest,
    ImportedSession,
    LineProblem,
    SubAgentLink,
)
from steiner_tui.importers.ranking import rank_costs
from steiner_tui.importers.window import agent_window

__all__ = ["KNOWN_RECORDS", "first_session_id", "import_claude_session", "is_claude_record"]

KNOWN_RECORDS = frozenset(
    {
        "user",
        "assistant",
        "progress",
        "system",
        "attachment",
        "file-history-snapshot",
        "queue-operation",
        "summary",
        "custom-title",
        "atis-latch",
        "api-request-shape",
        "api-request-blob",
        "api-request",
        "last-prompt",
        "cost-state",
        "tools-used",
        "mode",
    }
)
"""Record types this importer knows; others are counted and reported."""

_AGENT_TOOLS = ("Task", "Agent")


def is_claude_record(record: dict[str, Any]) -> bool:
    """Whether a parsed line has the shape of a Claude Code transcript's record: a known
    ``type`` without Codex's ``payload``, and a ``message`` object on a turn. A ``sessionId``
    alone says nothing (Gemini CLI's sessions carry one too)."""
    kind = record.get("type")
    if not isinstance(kind, str) or kind not in KNOWN_RECORDS or "payload" in record:
        return False
    return kind not in ("user", "assistant") or isinstance(record.get("message"), dict)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _json_type(value: Any) -> str:
    """What a JSON value is, as a reader would name it (``a number``, ``a string``...)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else "null"


def _summary_text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


class _Reader:
    """The state of one file being read."""

    def __init__(self, split: bool | None = None) -> None:
        self.split = split
        """Whether sidechain records are a sub-agent's (a main file of Claude Code 1.x and
        2.0.x); None: decided by the file's first turn (a sub-agent's own file starts with a
        sidechain turn)."""
        self.chains: dict[str, _Reader] = {}
        """Each inline sub-agent's records, by the uuid of its chain's first record."""
        self.chain_of: dict[str, str] = {}
        self.first_line = 0
        self.prompt = ""
        """The first user message's text (an inline sub-agent's task)."""
        self.task_calls: dict[str, str] = {}
        """A Task (Agent) call's prompt -> the call's id: how an inline sub-agent is tied."""
        self.requests: dict[str, dict[str, Any]] = {}
        self.generations: list[ImportedGeneration] = []
        self.pending: dict[str, Any] | None = None
        self.types: Counter[str] = Counter()
        self.unknown: Counter[str] = Counter()
        self.calls: dict[str, tuple[str, str, str]] = {}
        self.results: list[tuple[str, str, int]] = []
        self.agent_links: dict[str, SubAgentLink] = {}
        self.session_id = ""
        self.turn_end = 0
        """The last line that ends a turn: a system line (Claude Code's stop hook summary, turn
        duration) or a prompt; a reply's blocks and tool results come before it."""
        self.cwd = ""
        self.version = ""

    def read(self, number: int, record: dict[str, Any]) -> None:
        kind = str(record.get("type", "?"))
        sidechain = record.get("isSidechain") is True
        if self.split is None and kind in ("user", "assistant"):
            self.split = not sidechain
        if sidechain and self.split:
            self._sidechain(number, record)
            return
        self.first_line = self.first_line or number
        subtype = record.get("subtype")
        self.types[f"{kind}/{subtype}" if subtype else kind] += 1
        if kind not in KNOWN_RECORDS:
            self.unknown[kind] += 1
            return
        self.session_id = self.session_id or str(record.get("sessionId", ""))
        self.cwd = self.cwd or str(record.get("cwd", ""))
        self.version = self.version or str(record.get("version", ""))
        if kind == "system" or (kind == "user" and not _is_tool_result(record)):
            self.turn_end = number
        if kind == "assistant":
            self._assistant(number, record)
        elif kind == "user":
            self._user(number, record)
        elif kind == "system" and subtype == "compact_boundary":
            self._boundary(number, record)
        elif kind == "progress":
            data = record.get("data")
            if isinstance(data, dict) and data.get("type") == "agent_progress":
                agent, call = str(data.get("agentId", "")), str(record.get("parentToolUseID", ""))
                if agent and call and agent not in self.agent_links:
                    self.agent_links[agent] = self.link(agent, call, "agent_progress")

    def _sidechain(self, number: int, record: dict[str, Any]) -> None:
        """An inline sub-agent's record, to the reader of its chain (by ``parentUuid``)."""
        uuid = str(record.get("uuid") or f"line {number}")
        root = self.chain_of.get(str(record.get("parentUuid")), uuid)
        self.chain_of[uuid] = root
        chain = self.chains.get(root)
        if chain is None:
            chain = self.chains[root] = _Reader(split=False)
        chain.read(number, record)

    def link(self, agent: str, call: str, via: str) -> SubAgentLink:
        """How sub-agent ``agent`` ties to call ``call`` of this session."""
        tool, _, description = self.calls.get(call, ("", "", ""))
        return SubAgentLink(agent, call, tool, description, via)

    def _assistant(self, number: int, record: dict[str, Any]) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        if not isinstance(content, (list, str, type(None))):
            raise ValueError(f"its content is {_json_type(content)}, not a list")
        for part in content if isinstance(content, list) else ():
            if isinstance(part, dict) and part.get("type") == "tool_use":
                arguments = part.get("input")
                description = ""
                if isinstance(arguments, dict):
                    description = str(arguments.get("description", ""))
                self.calls[str(part.get("id", ""))] = (
                    str(part.get("name", "?")),
                    call_target(arguments),
                    description,
                )
                prompt = arguments.get("prompt") if isinstance(arguments, dict) else None
                if part.get("name") in _AGENT_TOOLS and isinstance(prompt, str):
                    self.task_calls[prompt] = str(part.get("id", ""))
        usage = message.get("usage")
        if usage is not None and not isinstance(usage, dict):
            raise ValueError(f"its usage is {_json_type(usage)}, not an object")
        if usage is None or message.get("model") == "<synthetic>":
            return
        key = str(record.get("requestId") or message.get("id") or f"line {number}")
        entry = self.requests.get(key)
        if entry is None:
            self.requests[key] = {
                "first": usage,
                "output": _int(usage.get("output_tokens")),
                "model": str(message.get("model", "")),
                "time": str(record.get("timestamp", "")),
                "line": number,
                "last": number,
                "stopped": message.get("stop_reason") is not None,
            }
        else:
            entry["output"] = _int(usage.get("output_tokens"))
            entry["last"] = number
            # Written once the reply has ended: its usage is final, its turn may go on.
            entry["stopped"] = entry["stopped"] or message.get("stop_reason") is not None

    def _user(self, number: int, record: dict[str, Any]) -> None:
        message = record.get("message")
        self.prompt = self.prompt or _summary_text(message)
        if record.get("isCompactSummary"):
            self.flush_pending(_summary_text(message))
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        result = record.get("toolUseResult")
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "tool_result":
                continue
            call = str(part.get("tool_use_id", ""))
            tool, target, _ = self.calls.get(call, ("?", "", ""))
            self.results.append((tool, target, text_bytes(part.get("content", ""))))
            if isinstance(result, dict) and result.get("agentId"):
                agent = str(result["agentId"])
                self.agent_links[agent] = self.link(agent, call, "toolUseResult")

    def _boundary(self, number: int, record: dict[str, Any]) -> None:
        self.flush_pending()
        meta = record.get("compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        trigger = meta.get("trigger")
        pre = meta.get("preTokens")
        self.pending = {
            "trigger": str(trigger) if trigger is not None else None,
            "pre_tokens": pre if isinstance(pre, int) else None,
            "after": len(self.requests),
            "line": number,
            "time": str(record.get("timestamp", "")),
        }

    def flush_pending(self, summary: str = "") -> None:
        """The pending boundary as a generation, with the summary line that follows it (a
        boundary with none after it is still a generation)."""
        if self.pending is not None:
            boundary, self.pending = self.pending, None
            self.generations.append(
                ImportedGeneration(
                    boundary["trigger"],
                    boundary["pre_tokens"],
                    summary,
                    boundary["after"],
                    boundary["line"],
                    boundary["time"],
                )
            )

    def requests_list(self) -> tuple[ImportedRequest, ...]:
        out: list[ImportedRequest] = []
        last = len(self.requests) - 1
        for index, (key, entry) in enumerate(self.requests.items()):
            usage = entry["first"]
            uncached = _int(usage.get("input_tokens"))
            read = _int(usage.get("cache_read_input_tokens"))
            created = _int(usage.get("cache_creation_input_tokens"))
            split = usage.get("cache_creation")
            hour = _int(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else 0
            out.append(
                ImportedRequest(
                    uncached + read + created,
                    read,
                    entry["output"],
                    entry["model"],
                    entry["time"],
                    uncached,
                    created,
                    key,
                    entry["line"],
                    entry["last"],
                    min(hour, created),
                    index < last or self.turn_end > entry["last"] or entry["stopped"],
                )
            )
        return tuple(out)


def _read_file(path: Path, end: int | None = None) -> tuple[_Reader, list[LineProblem]]:
    reader = _Reader()
    problems: list[LineProblem] = []
    read_each(path, problems, reader.read, end)
    reader.flush_pending()
    return reader, problems


def _meta_link(path: Path, agent: str) -> SubAgentLink | None:
    meta = path.with_name(f"agent-{agent}.meta.json")
    try:
        value = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or not value.get("toolUseId"):
        return None
    return SubAgentLink(
        agent,
        str(value["toolUseId"]),
        "",
        str(value.get("description", "")),
        "meta.json",
    )


def _session(
    path: Path, reader: _Reader, problems: list[LineProblem], **extra: Any
) -> ImportedSession:
    requests = reader.requests_list()
    return ImportedSession(
        id=extra.pop("id", "") or reader.session_id or path.stem,
        source="claude-code",
        path=str(path),
        requests=requests,
        generations=tuple(reader.generations),
        window=agent_window("claude-code", requests[-1].model if requests else ""),
        record_types=reader.types,
        unknown_records=reader.unknown,
        problems=tuple(problems),
        ranking=rank_costs(reader.results),
        cwd=reader.cwd,
        version=reader.version,
        **extra,
    )


def _linked(reader: _Reader, agent_path: Path, agent: str) -> SubAgentLink | None:
    link = reader.agent_links.get(agent) or _meta_link(agent_path, agent)
    if link is not None and link.tool_use_id in reader.calls and not link.tool:
        tool, _, description = reader.calls[link.tool_use_id]
        link = SubAgentLink(
            agent, link.tool_use_id, tool, description or link.description, link.via
        )
    return link


_SESSION_IDS: dict[Path, str] = {}
"""Each agent file's session, once known (a transcript's first line never changes)."""


def first_session_id(path: Path) -> str:
    """The ``sessionId`` of a transcript's first line ("" when it names none, or not yet).

    Each session of a 2.0.x project folder looks at every agent file beside it, so a file's
    session is read once; a first line still being written is read again next time."""
    known = _SESSION_IDS.get(path)
    if known is not None:
        return known
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            record = json.loads(handle.readline())
    except (OSError, ValueError, RecursionError):
        return ""
    found = str(record.get("sessionId", "")) if isinstance(record, dict) else ""
    if found:
        _SESSION_IDS[path] = found
    return found


def _agent_files(path: Path, session_id: str) -> list[Path]:
    """The sub-agent transcripts of the session at ``path``: in its ``subagents`` folder
    (2.1.x), or beside it naming its session (2.0.x's flat layout)."""
    folder = path.with_suffix("") / "subagents"
    files = sorted(folder.glob("agent-*.jsonl")) if folder.is_dir() else []
    flat = sorted(path.parent.glob("agent-*.jsonl"))
    return files + [p for p in flat if session_id and first_session_id(p) == session_id]


def import_claude_session(path: Path, end: int | None = None) -> ImportedSession:
    """Read one main session file (its first ``end`` bytes) and the sub-agent transcripts
    beside it.

    A sub-agent the session started whose transcript is missing, and a transcript that no
    call of the session started, are reported in the session's ``warnings``; the calls Claude
    Code made for itself (compaction summarizers, ``agent-acompact-*``; 2.0.x's cache warmups,
    whose one message is ``Warmup``) are kept apart from the sub-agents."""
    reader, problems = _read_file(path, end)
    if reader.split is False:
        # A sub-agent's own transcript, read alone: it carries its parent's sessionId, so it
        # is saved under an id of its own, never over its parent's import.
        return _session(
            path,
            reader,
            problems,
            id=f"{reader.session_id}.{path.stem}",
            parent_id=reader.session_id,
        )
    subagents: list[ImportedSession] = []
    own_calls: list[ImportedSession] = []
    warnings: list[str] = []
    found: set[str] = set()
    for agent_path in _agent_files(path, reader.session_id):
        agent = agent_path.stem.removeprefix("agent-")
        found.add(agent)
        agent_reader, agent_problems = _read_file(agent_path)
        own = None
        if agent.startswith("acompact"):
            own = SubAgentLink(agent, "", "compaction", "the summarizer of a compaction", "name")
        elif agent_reader.prompt == "Warmup" and agent not in reader.agent_links:
            own = SubAgentLink(agent, "", "warmup", "Claude Code's cache warmup", "prompt")
        if own is not None:
            own_calls.append(
                _session(agent_path, agent_reader, agent_problems, id=f"agent-{agent}", link=own)
            )
            continue
        link = _linked(reader, agent_path, agent)
        if link is None:
            warnings.append(
                f"sub-agent transcript {agent_path.name}: no tool call of this session started it"
            )
        subagents.append(
            _session(agent_path, agent_reader, agent_problems, id=f"agent-{agent}", link=link)
        )
    for root, chain in reader.chains.items():
        agent = f"sidechain-{root[:8]}"
        call = reader.task_calls.get(chain.prompt, "")
        link = reader.link(agent, call, "prompt") if call else None
        if link is None:
            warnings.append(
                f"inline sub-agent from line {chain.first_line}: no Task call of this session "
                "has its prompt"
            )
        subagents.append(_session(path, chain, [], id=agent, link=link))
    folder = path.with_suffix("") / "subagents"
    for agent, link in reader.agent_links.items():
        if agent not in found:
            warnings.append(
                f"sub-agent {agent} (started by {link.tool or '?'} {link.tool_use_id}) has no "
                f"transcript: {folder / f'agent-{agent}.jsonl'} is missing"
            )
    return _session(
        path,
        reader,
        problems,
        subagents=tuple(subagents),
        own_calls=tuple(own_calls),
        warnings=tuple(warnings),
    )


def _is_tool_result(record: dict[str, Any]) -> bool:
    """Whether a user line carries tool results (written while the reply still streams)."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") == "tool_result" for part in content
    )
