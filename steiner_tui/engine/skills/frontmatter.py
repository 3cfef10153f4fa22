"""A small reader for the YAML front matter of ``SKILL.md`` files, without a YAML dependency.

Skills written for Claude Code or Codex open with ``---``, a few ``key: value`` lines and
``---``. Only top-level scalar keys matter to us (``name`` and ``description``), so this handles
the scalar forms those files use: plain values (folded over indented continuation lines, with
``#`` comments), single- and double-quoted values, and ``|``/``>`` block scalars. Nested
mappings and lists are skipped. Chomping indicators are accepted; trailing newlines are dropped
because callers strip the values anyway.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

__all__ = ["split_front_matter"]

_KEY = re.compile(r"([A-Za-z0-9_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$")
_BLOCK_HEADER = re.compile(r"([|>])[+-]?[1-9]?[+-]?[ \t]*(?:#.*)?$")
_DOUBLE_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
}


# Compiled on first use: the skills' usual values (plain, block) never need them.
@functools.cache
def _nested() -> re.Pattern[str]:
    return re.compile(r"[ \t]+(?:- |-$|[\w.-]+[ \t]*:(?:[ \t]|$))")


@functools.cache
def _double_escape() -> re.Pattern[str]:
    return re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")


def _fold(lines: Sequence[str], *, keep_indent: bool = False) -> str:
    """YAML line folding: line breaks become spaces, each blank line becomes one newline."""
    out: list[str] = []
    blanks = 0
    previous_indented = False
    for line in lines:
        if not line.strip():
            blanks += 1
            continue
        text = line if keep_indent else line.strip()
        indented = keep_indent and text[:1] in (" ", "\t")
        if out:
            joint = "\n" if indented or previous_indented else " "
            out.append("\n" * blanks if blanks else joint)
        out.append(text)
        blanks = 0
        previous_indented = indented
    return "".join(out)


def _block_scalar(style: str, lines: Sequence[str]) -> str:
    body = list(lines)
    while body and not body[-1].strip():
        body.pop()
    first = next((line for line in body if line.strip()), "")
    indent = len(first) - len(first.lstrip(" \t"))
    body = [line[indent:] for line in body]
    return "\n".join(body) if style == "|" else _fold(body, keep_indent=True)


def _double_quoted(text: str) -> str:
    def unescape(match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) > 1:
            return chr(int(code[1:], 16)) if int(code[1:], 16) <= 0x10FFFF else match.group()
        return _DOUBLE_ESCAPES.get(code, match.group())

    end = re.match(r'"((?:[^"\\]|\\.)*)"', text, re.DOTALL)
    inner = end.group(1) if end else text[1:]
    return _double_escape().sub(unescape, inner)


def _single_quoted(text: str) -> str:
    end = re.match(r"'((?:[^']|'')*)'", text, re.DOTALL)
    inner = end.group(1) if end else text[1:]
    return inner.replace("''", "'")


def _scalar(raw: str, continuation: Sequence[str]) -> str:
    if _BLOCK_HEADER.match(raw):
        return _block_scalar(raw[0], continuation)
    if raw.startswith('"'):
        return _double_quoted(_fold([raw, *continuation]))
    if raw.startswith("'"):
        return _single_quoted(_fold([raw, *continuation]))
    if not raw and continuation and _nested().match(continuation[0]):
        return ""  # a nested mapping or list, not a scalar
    text = _fold([raw, *continuation])
    comment = re.search(r"(?:^|[ \t])#", text)
    return (text[: comment.start()] if comment else text).strip()


def parse_front_matter(lines: Sequence[str]) -> dict[str, str]:
    """The top-level scalar fields of front matter ``lines`` (between the ``---`` markers)."""
    fields: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        match = None if line[:1] in (" ", "\t", "#") else _KEY.match(line)
        if match is None:
            continue
        start = i
        while i < len(lines) and (not lines[i].strip() or lines[i][:1] in (" ", "\t")):
            i += 1
        fields[match.group(1)] = _scalar((match.group(2) or "").strip(), lines[start:i])
    return fields


def split_front_matter(text: str) -> tuple[dict[str, str], str] | None:
    """Split a ``SKILL.md`` text into its front-matter fields and its body.

    Returns:
        ``(fields, body)``, or ``None`` when the text does not open with a closed ``---`` block.
        The body starts after the closing marker's line.
    """
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    if lines[0].rstrip() != "---":
        return None
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            return parse_front_matter(lines[1:end]), "\n".join(lines[end + 1 :])
    return None
