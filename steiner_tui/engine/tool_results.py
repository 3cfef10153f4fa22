"""How a tool call ended, read from its result's text when nothing recorded it.

A ``tool`` message carries the result text but not the call's status (the wire format has no
field for it). The runner reports statuses live, and the session log keeps those its text would
get wrong (docs/design.md, "The session log"); every other result is read by this one guess, so
that the transcript, the history archive and the log's "does the text imply it" test agree:

* ``cancelled``: the text written for a call that never ran (``CANCELLED_RESULT``) or whose
  session was interrupted before it finished (``INTERRUPTED_TOOL_RESULT``);
* ``rejected``: a result starting with ``The user rejected this``;
* ``failed``: a result starting with ``error`` (any case);
* ``done``: any other.
"""

from __future__ import annotations

from steiner_tui.engine.messages import Message

__all__ = ["CANCELLED_RESULT", "INTERRUPTED_TOOL_RESULT", "NOTHING_WRITTEN", "default_tool_status"]

CANCELLED_RESULT = "Cancelled by the user before this tool call ran."
"""The result of a call the user cancelled before it ran."""
INTERRUPTED_TOOL_RESULT = (
    "The session was interrupted before this tool call finished; it may or may not have run."
)
"""The result a resumed session gives a call whose result the log never got."""
_CANCELLED_TEXTS = frozenset({CANCELLED_RESULT, INTERRUPTED_TOOL_RESULT})
NOTHING_WRITTEN = ": nothing written."
"""How the result of a write that would change nothing ends (the file already holds the text):
the tool neither asks nor writes, and the record of the files changed does not count it."""


def default_tool_status(result: Message) -> str:
    """``done``, ``failed``, ``rejected`` or ``cancelled`` for a tool result message, as its
    text says (see the module docstring)."""
    if result.content in _CANCELLED_TEXTS:
        return "cancelled"
    content = result.content.lstrip()
    if content.startswith("The user rejected this"):
        return "rejected"
    return "failed" if content[:5].lower() == "error" else "done"
