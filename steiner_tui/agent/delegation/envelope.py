"""The bounded result a parent receives from a sub-agent, and its wire format.

The envelope::

    <steiner-sub-agent-result id="explore-1" type="explore" status="done">
    OUTPUT
    </steiner-sub-agent-result>

* Attributes in this order: ``id``, ``type``, ``status`` (``done``, ``failed`` or
  ``cancelled``), then ``reason`` only when there is one (why a child failed or was cancelled).
  Values are XML-escaped (``&`` ``<`` ``>`` ``"`` and newlines as ``&#10;``); a reason is cut
  to ``MAX_REASON_BYTES``.
* One ``\\n`` after the open tag, the output, one ``\\n``, the close tag; nothing after it.
* OUTPUT is the child's final reply. Over ``MAX_RESULT_BYTES`` (8,000) UTF-8 bytes it is cut on
  a character boundary, trailing whitespace is stripped, and ``TRUNCATION_MARKER`` is appended,
  so the output part never exceeds 8,000 bytes. The full transcript stays with the child.

The envelope is the ``delegate`` tool's result (the parent waited), or the content of a user
message with source ``sub_agent_result`` (a background child finished).
"""

from __future__ import annotations

__all__ = [
    "MAX_REASON_BYTES",
    "MAX_RESULT_BYTES",
    "RESULT_TAG",
    "TRUNCATION_MARKER",
    "cap_utf8",
    "render_sub_agent_result",
]

RESULT_TAG = "steiner-sub-agent-result"
MAX_RESULT_BYTES = 8000
MAX_REASON_BYTES = 500
TRUNCATION_MARKER = "\n\n[truncated: sub-agent output exceeded the 8000-byte cap]"


def cap_utf8(text: str, limit: int, marker: str = "") -> tuple[str, bool]:
    """``text`` when it fits in ``limit`` UTF-8 bytes; else cut (marker included) to fit.

    The cut falls on a character boundary and drops trailing spaces, tabs and newlines before
    the marker. Returns the text and whether it was cut.
    """
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, False
    end = max(0, limit - len(marker.encode("utf-8")))
    while 0 < end < len(data) and (data[end] & 0xC0) == 0x80:
        end -= 1
    head = data[:end].decode("utf-8", "surrogatepass").rstrip(" \t\r\n")
    return head + marker, True


def _attr(value: str) -> str:
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\n", "&#10;")
    )


def render_sub_agent_result(
    agent_id: str, agent_type: str, status: str, output: str, reason: str = ""
) -> str:
    """The envelope text (see the module docstring for the exact format)."""
    body, _ = cap_utf8(output, MAX_RESULT_BYTES, TRUNCATION_MARKER)
    attrs = f'id="{_attr(agent_id)}" type="{_attr(agent_type)}" status="{_attr(status)}"'
    if reason:
        attrs += f' reason="{_attr(cap_utf8(reason, MAX_REASON_BYTES, "...")[0])}"'
    return f"<{RESULT_TAG} {attrs}>\n{body}\n</{RESULT_TAG}>"
