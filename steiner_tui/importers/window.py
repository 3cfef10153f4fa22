"""The window an imported session's agent worked in, and where it compacts, with the source.

The chart of an import draws the agent's own limits, not steiner's: a Codex rollout records
its window (``model_context_window`` in its ``token_count`` and ``task_started`` events), and
that figure wins. Claude Code and Gemini CLI record none, so theirs is the model's, as a
capture finds it (``capture.figures.model_window``: the engine's model table, else Anthropic's
200,000 for any ``claude-*`` model and Google's 1,048,576 for any ``gemini-*`` one). Claude
Code's compaction point follows its rule: it compacts automatically at the window less
``min(max output, 20,000)`` less a 13,000-token buffer (about 167,000 of 200,000; the real
transcripts compact at 167,094-170,251). Codex's and Gemini CLI's compaction points are not in
their files and not known here, so none is drawn. Every figure says where it came from.
"""

from __future__ import annotations

from typing import Any

import msgspec

from steiner_tui.capture.figures import model_window

__all__ = [
    "CLAUDE_CODE_BUFFER",
    "CLAUDE_CODE_OUTPUT_CAP",
    "AgentWindow",
    "agent_window",
]

CLAUDE_CODE_OUTPUT_CAP = 20_000
"""Claude Code keeps room for at most this much of the model's max output."""
CLAUDE_CODE_BUFFER = 13_000
"""And this many tokens more, below which it compacts on its own."""


class AgentWindow(msgspec.Struct, frozen=True):
    """The agent's window (``tokens`` 0: unknown) and its compaction point (``trigger`` 0:
    unknown), each with the source of the figure."""

    tokens: int = 0
    source: str = "unknown"
    trigger: int = 0
    trigger_source: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "source": self.source,
            "trigger": self.trigger or None,
            "trigger_source": self.trigger_source,
        }

    @classmethod
    def from_json(cls, value: Any) -> AgentWindow | None:
        """A saved window (``to_json``'s form), or None when there is none."""
        if not isinstance(value, dict) or not isinstance(value.get("tokens"), int):
            return None
        trigger = value.get("trigger")
        return cls(
            value["tokens"],
            str(value.get("source", "")),
            trigger if isinstance(trigger, int) else 0,
            str(value.get("trigger_source", "")),
        )


def agent_window(source: str, model: str, recorded: int = 0) -> AgentWindow:
    """The window of a session of agent ``source`` (``claude-code``, ``codex``) whose latest
    model is ``model``; ``recorded`` is the window the transcript names (0: none)."""
    if recorded > 0:
        return AgentWindow(recorded, "recorded in the transcript (model_context_window)")
    found = model_window(model)
    if not found.known:
        return AgentWindow(0, f"unknown: {model or 'no model'} is not in the model table")
    window = AgentWindow(found.tokens, f"{model}: {found.origin}")
    if source != "claude-code":
        return window
    reserve = min(found.max_output or CLAUDE_CODE_OUTPUT_CAP, CLAUDE_CODE_OUTPUT_CAP)
    rule = (
        f"Claude Code's rule: window - min(max output, {CLAUDE_CODE_OUTPUT_CAP:,})"
        f" - {CLAUDE_CODE_BUFFER:,}"
    )
    return msgspec.structs.replace(
        window, trigger=found.tokens - reserve - CLAUDE_CODE_BUFFER, trigger_source=rule
    )
