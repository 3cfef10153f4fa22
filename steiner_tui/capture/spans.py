"""Where each JSON value sits in a request body, so every byte of it can be accounted for.

A proxy sees the body exactly as the agent sent it: key order, spacing and escapes are the
client's. Re-encoding the decoded JSON would measure our encoder, not the request, so sizes are
taken from the raw text: ``members`` and ``elements`` walk one object or array and return each
value's span (character offsets), and ``Spans`` turns spans into UTF-8 byte counts. What lies
between the values (braces, keys, commas, spacing) is the container's framing, so a container's
bytes are always its values' bytes plus its framing.
"""

from __future__ import annotations

import json
import re

import msgspec

__all__ = ["Span", "Spans", "elements", "members"]

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class Span(msgspec.Struct, frozen=True):
    """A value's place in the text: characters ``start`` to ``end`` (exclusive)."""

    start: int
    end: int


def _skip(text: str, index: int) -> int:
    match = _WS.match(text, index)
    return match.end() if match else index


def _value_end(text: str, index: int) -> int:
    _, end = _DECODER.raw_decode(text, index)
    return end


def members(text: str, span: Span) -> dict[str, Span]:
    """The span of each member's value of the object at ``span`` (the last of a repeated key).

    Raises:
        ValueError: the text at ``span`` is not a JSON object.
    """
    index = _skip(text, span.start)
    if index >= len(text) or text[index] != "{":
        raise ValueError("not a JSON object")
    out: dict[str, Span] = {}
    index = _skip(text, index + 1)
    if text[index] == "}":
        return out
    while True:
        key, index = _DECODER.raw_decode(text, index)
        index = _skip(text, index)
        if text[index] != ":":
            raise ValueError("expected ':' in a JSON object")
        start = _skip(text, index + 1)
        end = _value_end(text, start)
        out[str(key)] = Span(start, end)
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)
            continue
        if text[index] == "}":
            return out
        raise ValueError("expected ',' or '}' in a JSON object")


def elements(text: str, span: Span) -> list[Span]:
    """The span of each element of the array at ``span``.

    Raises:
        ValueError: the text at ``span`` is not a JSON array.
    """
    index = _skip(text, span.start)
    if index >= len(text) or text[index] != "[":
        raise ValueError("not a JSON array")
    out: list[Span] = []
    index = _skip(text, index + 1)
    if text[index] == "]":
        return out
    while True:
        end = _value_end(text, index)
        out.append(Span(index, end))
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)
            continue
        if text[index] == "]":
            return out
        raise ValueError("expected ',' or ']' in a JSON array")


class Spans:
    """UTF-8 byte counts of spans of one text (ASCII text: a span's length)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._ascii = text.isascii()

    def size(self, span: Span) -> int:
        """The UTF-8 bytes of the text at ``span``."""
        if self._ascii:
            return span.end - span.start
        return len(self.text[span.start : span.end].encode("utf-8", "surrogatepass"))

    def whole(self) -> Span:
        """The span of the whole text, surrounding spacing excluded."""
        start = _skip(self.text, 0)
        return Span(start, _value_end(self.text, start))
