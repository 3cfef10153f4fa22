"""What an imported transcript holds, as plain frozen data: requests, generations, sub-agents.

The importers (``claude``, ``codex``) fill these from the files an agent wrote; the import
command prints them and the workbench renders them. A request's context is what the model read
for it: input plus cache read plus cache creation (Claude Code), the input tokens (Codex, whose
input already includes the cached part).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from steiner_tui.importers.window import AgentWindow

__all__ = [
    "CostRow",
    "ImportedGeneration",
    "ImportedRequest",
    "ImportedSession",
    "LineProblem",
    "SubAgentLink",
]


class ImportedRequest(msgspec.Struct, frozen=True):
    """One model request: its context, cache read and output tokens, model and time."""

    context_tokens: int
    cache_read_tokens: int
    output_tokens: int
    model: str
    time: str
    input_tokens: int = 0
    cache_creation_tokens: int = 0
    request_id: str = ""
    line: int = 0
    last_line: int = 0
    """The last line that wrote this request (Claude Code writes a reply block by block, the
    output tokens complete on its last)."""
    cache_write_1h_tokens: int = 0
    """The part of ``cache_creation_tokens`` written with a 1-hour TTL (priced 2x input)."""
    ended: bool = True
    """Whether its reply has ended: a later request, or the end of its turn, was written after
    it (Claude Code writes tool results and progress between the blocks of one reply)."""

    @property
    def cache_read_share(self) -> float:
        """The part of the context read from the prompt cache (0 to 1)."""
        return self.cache_read_tokens / self.context_tokens if self.context_tokens else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "context_tokens": self.context_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_read_share": round(self.cache_read_share, 4),
            "cache_creation_tokens": self.cache_creation_tokens,
            "cache_write_1h_tokens": self.cache_write_1h_tokens,
            "output_tokens": self.output_tokens,
            "model": self.model,
            "time": self.time,
            "request_id": self.request_id,
            "line": self.line,
        }


class ImportedGeneration(msgspec.Struct, frozen=True):
    """A compaction: what started it, the context before it, the summary that replaced it.

    ``after_request`` is how many requests came before it (the chart marks it there);
    ``trigger`` is None when the transcript does not say (Codex). ``replacement_items`` is the
    size of Codex's replacement history.
    """

    trigger: str | None
    pre_tokens: int | None
    summary: str
    after_request: int
    line: int
    time: str = ""
    replacement_items: int = 0

    def to_json(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)


class SubAgentLink(msgspec.Struct, frozen=True):
    """How a sub-agent's transcript ties to its parent: the tool call that started it."""

    agent_id: str
    tool_use_id: str
    tool: str = ""
    description: str = ""
    via: str = ""

    def to_json(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)


class CostRow(msgspec.Struct, frozen=True):
    """What one tool's results about one file or command cost: bytes over ``count`` results."""

    tool: str
    target: str
    bytes: int
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "target": self.target, "bytes": self.bytes, "count": self.count}


class LineProblem(msgspec.Struct, frozen=True):
    """A line with a problem, by its number (from 1): skipped, or kept with bytes replaced."""

    line: int
    message: str
    kept: bool = False
    """The line was read, its bytes that are not UTF-8 each shown as U+FFFD (else skipped)."""
    unit: str = "line"
    """What ``line`` counts: a line of the file, or a ``message`` of a JSON document's list
    (a Gemini CLI session is one document: its messages have no lines of their own)."""

    @property
    def outcome(self) -> str:
        """What became of the line: ``skipped``, or ``kept, each bad byte shown as �``."""
        return "kept, each bad byte shown as \ufffd" if self.kept else "skipped"

    def said(self) -> str:
        """``line 5: not JSON: … (skipped)``, ``message 5: …`` for a message of a document."""
        return f"{self.unit} {self.line}: {self.message} ({self.outcome})"

    def to_json(self) -> dict[str, Any]:
        said = {"line": self.line, "message": self.message, "kept": self.kept}
        return said if self.unit == "line" else {**said, "unit": self.unit}


class ImportedSession(msgspec.Struct, frozen=True):
    """One transcript, read-only."""

    id: str
    source: str
    path: str
    requests: tuple[ImportedRequest, ...]
    generations: tuple[ImportedGeneration, ...] = ()
    subagents: tuple[ImportedSession, ...] = ()
    link: SubAgentLink | None = None
    record_types: Counter[str] = msgspec.field(default_factory=Counter)
    unknown_records: Counter[str] = msgspec.field(default_factory=Counter)
    problems: tuple[LineProblem, ...] = ()
    ranking: tuple[CostRow, ...] = ()
    cwd: str = ""
    version: str = ""
    parent_id: str = ""
    """The thread that started this one (a Codex sub-agent's rollout names it); "" for none."""
    spawned: tuple[SubAgentLink, ...] = ()
    """The sub-agents this session's tool calls started (Codex), by the id of their thread."""
    own_calls: tuple[ImportedSession, ...] = ()
    """Calls the agent made for itself, not sub-agents the session started: Claude Code's
    compaction summarizers (``agent-acompact-*``) and cache warmups (2.0.x's ``Warmup``)."""
    window: AgentWindow = msgspec.field(default_factory=AgentWindow)
    """The agent's window and compaction point, with where each figure came from."""
    warnings: tuple[str, ...] = ()
    """What the import could not tie together: a sub-agent the session started whose
    transcript is missing, a sub-agent transcript no call of the session started."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source,
            "path": self.path,
            "cwd": self.cwd,
            "version": self.version,
            "window": self.window.to_json(),
            "requests": [request.to_json() for request in self.requests],
            "generations": [generation.to_json() for generation in self.generations],
            "subagents": [agent.to_json() for agent in self.subagents],
            "own_calls": [agent.to_json() for agent in self.own_calls],
            "warnings": list(self.warnings),
            "link": self.link.to_json() if self.link is not None else None,
            "record_types": dict(sorted(self.record_types.items())),
            "unknown_records": dict(sorted(self.unknown_records.items())),
            "problems": [problem.to_json() for problem in self.problems],
            "ranking": [row.to_json() for row in self.ranking],
        }
