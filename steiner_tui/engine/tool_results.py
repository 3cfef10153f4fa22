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

A command's result (the ``bash`` tool's) ends with the code it exited with (``EXIT_LINE``), which
``exit_code`` reads back for the history archive and the transcript.
"""

from __future__ import annotations

import re

from steiner_tui.engine.messages import Message

__all__ = [
    "CANCELLED_RESULT",
    "EXIT_LINE",
    "INTERRUPTED_TOOL_RESULT",
    "NOTHING_WRITTEN",
    "default_tool_status",
    "exit_code",
]

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
EXIT_LINE = "[exit code: {code}]"
"""The last line of a command's result: the code the command exited with."""
_EXIT_LINE = re.compile(r"(?:\A|\n)\[exit code: (-?\d+)\]\Z")


def default_tool_status(result: Message) -> str:
    """``done``, ``failed``, ``rejected`` or ``cancelled`` for a tool result message, as its
    text says (see the module docstring)."""
    if result.content in _CANCELLED_TEXTS:
        return "cancelled"
    content = result.content.lstrip()
    if content.startswith("The user rejected this"):
        return "rejected"
    return "failed" if content[:5].lower() == "error" else "done"


def exit_code(content: str) -> int | None:
    """The code a command's result says the command exited with (its last line,
    ``EXIT_LINE``), or None: not a command's result, or one that timed out."""
    found = _EXIT_LINE.search(content)
    return None if found is None else int(found[1])
