"""What an opened tool block shows: the tool's result as the tool's own text, never as markup.

The model gets each tool's result as a string (``read`` a JSON object whose ``output`` holds
numbered lines, ``bash`` the output and its exit code, ``edit`` one sentence). The block shows
what a person wants to read instead:

- ``read``: the lines with their numbers, highlighted by the file's type;
- ``edit``: the change as a diff of ``old_string`` and ``new_string``, added lines in the
  success colour and removed ones in the error colour;
- ``write``: the sentence, then the written text highlighted by the file's type;
- everything else (``bash``, ``grep``, ``glob``, failures): the output as printed.

Highlighting is Textual's (``textual.highlight``: Pygments tokens styled with the theme's
variables), so the text stays ``Content`` and no part of it is ever read as markup or Markdown.
Control characters (an escape sequence in a command's output) show as their visible symbols
(``␛``): a program's output cannot restyle or move the terminal. At most ``MAX_LINES`` lines
show; the rest are counted.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from textual.content import Content

from steiner_tui.app.plain import printable
from steiner_tui.units import counted

__all__ = ["DIFF_STYLES", "MAX_LINES", "hunk_lines", "tool_body"]

MAX_LINES = 40
"""Output lines shown inside the block (the model saw all of it)."""


@functools.cache
def _numbered() -> re.Pattern[str]:
    """A numbered line of ``read``'s output (compiled when one is first shown, not at start)."""
    return re.compile(r"^\s*(\d+)\t(.*)$")


def _cut(lines: list[Content]) -> list[Content]:
    if len(lines) <= MAX_LINES:
        return lines
    hidden = len(lines) - MAX_LINES
    more = Content.styled(f"… {counted(hidden, 'more line')}", "$text-muted")
    return [*lines[:MAX_LINES], more]


def _plain(output: str, running: bool) -> list[Content]:
    text = printable(output).rstrip("\n")
    if not text:
        return [Content.styled("(running)" if running else "(empty)", "$text-muted")]
    return [Content(line).expand_tabs(4) for line in text.split("\n")]


def _language(path: str) -> str:
    # Speed: Pygments loads when a block opens (2 % of the first frame): issue 16's 1.5x first
    # frame was missed without this and ``workbench_session.follow_files``'s deferral.
    from textual.highlight import guess_language

    return guess_language("", path) if path else "text"


def _highlighted(code: str, language: str) -> list[Content]:
    from textual.highlight import highlight

    if not code:
        return []
    # Tabs expanded first: Textual's highlight() places its styles by the code as given while
    # Pygments expands the tabs it lexes, so each tab shifted the colours after it (Go, Makefiles).
    lines = highlight(printable(code).expandtabs(4), language=language).split("\n")
    # highlight() ends the text with a newline
    return lines[:-1] if len(lines) > 1 and not lines[-1].plain else lines


def _read_lines(output: str) -> list[Content] | None:
    try:
        fields = json.loads(output)
    except ValueError:
        return None
    if not isinstance(fields, dict) or not isinstance(fields.get("output"), str):
        return None
    path = str(fields.get("path", ""))
    numbers: list[str] = []
    code: list[str] = []
    notes: list[str] = []
    for line in fields["output"].split("\n"):
        match = _numbered().match(line)
        if match is None:
            notes.append(line)  # the continuation marker after the lines
        else:
            numbers.append(match.group(1))
            code.append(match.group(2))
    width = max((len(n) for n in numbers), default=1)
    highlighted = _highlighted("\n".join(code), _language(path))
    lines = [
        Content.assemble((f"{number:>{width}} ", "$text-muted"), text)
        for number, text in zip(numbers, highlighted, strict=False)
    ]
    if not lines:
        lines = [Content.styled(f"{path}: (empty file)", "$text-muted")]
    notes.append(str(fields.get("note", "")))  # the file is not valid UTF-8
    return [*_cut(lines), *(Content.styled(printable(n), "$text-muted") for n in notes if n)]


def _diff(arguments: Mapping[str, Any]) -> list[Content]:
    path = str(arguments.get("path", ""))
    old = str(arguments.get("old_string", "")).splitlines()
    new = str(arguments.get("new_string", "")).splitlines()
    diff = difflib.unified_diff(old, new, f"a/{path}", f"b/{path}", lineterm="", n=2)
    return [_diff_line(printable(line)) for line in diff]


DIFF_STYLES = {"@": "$text-accent", "+": "$text-success", "-": "$text-error"}
"""A diff line's style by its mark: hunk header, added, removed (else context, muted); the
config-save dialog's diff too."""


def _diff_line(line: str) -> Content:
    style = "bold" if line.startswith(("---", "+++")) else DIFF_STYLES.get(line[:1], "$text-muted")
    return Content.styled(line, style).expand_tabs(4)


def hunk_lines(hunks: str) -> list[Content]:
    """A unified diff's hunks without its file-name lines (a permission request's ``preview``)
    as lines styled by their mark, as text, never markup."""
    if not hunks:
        return []
    lines = printable(hunks).split("\n")
    return [Content.styled(line, DIFF_STYLES.get(line[:1], "$text-muted")) for line in lines]


def tool_body(name: str, arguments: Mapping[str, Any], status: str, output: str) -> list[Content]:
    """The lines an opened block shows under its title."""
    running = status == "running"
    if status == "done" and name == "read":
        lines = _read_lines(output)
        if lines is not None:
            return lines
    if status == "done" and name == "edit":
        return [*_plain(output, running), *_cut(_diff(arguments))]
    if status == "done" and name == "write":
        path = str(arguments.get("path", ""))
        written = _highlighted(str(arguments.get("content", "")), _language(path))
        return [*_plain(output, running), *_cut(written)]
    return _cut(_plain(output, running))
