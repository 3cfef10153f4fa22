"""A small recorder for scripted coding sessions, used by the unseen probe set.

``Log`` appends the messages a real agent session holds (user text, assistant text, an
assistant message carrying one tool call and its tool result) in the shapes the tools write,
and cuts the session into segments: the benchmark compacts after each segment, so planted
items meet one, two or three compactions. Probes are recorded where they are planted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from benchmarks.planted_session import Probe
from steiner_tui.engine.messages import Message, ToolCall

__all__ = ["Log", "UnseenSession"]


@dataclass(slots=True)
class UnseenSession:
    """One scripted session: its segments (compacted after each) and its probes."""

    name: str
    segments: list[list[Message]] = field(default_factory=lambda: [[]])
    probes: list[Probe] = field(default_factory=list)

    @property
    def messages(self) -> list[Message]:
        """Every message, in order."""
        return [m for segment in self.segments for m in segment]


class Log:
    """Appends one session's messages; ``cut`` starts the next segment."""

    def __init__(self, name: str) -> None:
        self.session = UnseenSession(name)
        self.calls = 0

    def _add(self, message: Message) -> None:
        self.session.segments[-1].append(message)

    def cut(self) -> None:
        """Start a new segment (the benchmark compacts before it)."""
        self.session.segments.append([])

    def probe(self, kind: str, *all_of: str, stale: str = "") -> None:
        """Record a probe planted by the messages just added."""
        self.session.probes.append(Probe(kind, tuple(all_of), stale))

    def user(self, text: str) -> None:
        """A user message."""
        self._add(Message("user", text))

    def say(self, text: str) -> None:
        """An assistant message without a tool call."""
        self._add(Message("assistant", text))

    def call(self, name: str, args: Mapping[str, object], result: str, text: str = "") -> None:
        """An assistant message (``text`` and one tool call), then the tool's result."""
        self.calls += 1
        call = ToolCall(f"call_u{self.calls}", name, dict(args), json.dumps(args, sort_keys=True))
        self._add(Message("assistant", text, tool_calls=(call,)))
        self._add(Message("tool", result, tool_call_id=call.id, name=name))

    def read(self, path: str, body: str, text: str = "") -> None:
        """A whole-file read."""
        lines = body.count("\n") + (0 if body.endswith("\n") else 1)
        fields = {"path": path, "startLine": 1, "endLine": lines, "totalLines": lines}
        self.call("read", {"path": path}, json.dumps({**fields, "output": body}), text)

    def bash(self, command: str, output: str, code: int = 0, text: str = "") -> None:
        """A shell command with its output and exit code."""
        result = json.dumps({"output": f"{output}\n[exit code: {code}]", "exit_code": code})
        self.call("bash", {"command": command}, result, text)

    def edit(self, path: str, old: str, new: str, text: str = "") -> None:
        """A one-occurrence edit."""
        args = {"path": path, "old_string": old, "new_string": new}
        self.call("edit", args, f"Edited {path}: replaced 1 occurrence.", text)

    def write(self, path: str, content: str, text: str = "", *, new: bool = True) -> None:
        """A whole-file write (``new``: the file did not exist)."""
        note = " (new file)" if new else ""
        size = len(content.encode())
        args = {"path": path, "content": content}
        self.call("write", args, f"Wrote {size} bytes to {path}{note}.", text)

    def grep(self, pattern: str, hits: list[str], text: str = "", path: str = ".") -> None:
        """A search; ``hits`` are ``path:line:text`` lines."""
        result = "\n".join(hits) if hits else f"No matches for {pattern}"
        self.call("grep", {"pattern": pattern, "path": path}, result, text)
