"""Data shown as text: control characters as visible symbols, so data cannot drive a terminal.

Every byte the workbench shows or a command prints that it did not write itself (replies, file
names, titles, paths, provider errors, captured bodies) passes through ``printable`` first. An
escape sequence in data could otherwise set the clipboard (OSC 52), the window title, or clear
the screen. ESC and the other C0 controls become their Unicode pictures (``␛``, ``␀``, DEL
``␡``), the C1 controls (U+0080-U+009F, which some terminals read as ESC + a letter: U+009B is
a CSI) the text ``\\x9b``. Newlines and tabs are kept where a layout has room for them;
``one_line`` shows them as pictures too, for a table cell or a log line.

Textual-free, so the commands, the capture proxy and the importers use it as the TUI does. The
app also never puts data into a markup string (``Content(...)``, ``rich.text.Text(...)``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["json_text", "one_line", "printable"]


def _table(keep: str) -> dict[int, str]:
    table = {code: chr(0x2400 + code) for code in range(0x20) if chr(code) not in keep}
    table[0x7F] = "\u2421"
    table.update({code: f"\\x{code:02x}" for code in range(0x80, 0xA0)})
    return table


_LAYOUT = _table("\n\t")
_ONE_LINE = _table("")


# A search for the controls and a replacement of each match, not ``str.translate``: translate
# looks every character up in the table (190 ms for a 1 MB history.md, holding the GIL, so a
# thread froze the UI as much), the search skips text without controls (6 ms).
_LAYOUT_CONTROLS = re.compile(f"[{re.escape(''.join(map(chr, _LAYOUT)))}]")
_ONE_LINE_CONTROLS = re.compile(f"[{re.escape(''.join(map(chr, _ONE_LINE)))}]")


def _picture(table: dict[int, str]) -> Callable[[re.Match[str]], str]:
    return lambda match: table[ord(match.group())]


_LAYOUT_PICTURE = _picture(_LAYOUT)
_ONE_LINE_PICTURE = _picture(_ONE_LINE)


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab as a visible symbol (``␛``)."""
    return _LAYOUT_CONTROLS.sub(_LAYOUT_PICTURE, text)


def one_line(text: str) -> str:
    """``text`` with every control character, newlines and tabs too, as a visible symbol."""
    return _ONE_LINE_CONTROLS.sub(_ONE_LINE_PICTURE, text)


def json_text(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with C1 controls as ``\\u`` escapes.

    ``json.dumps`` escapes C0 itself; a C1 control can only stand inside a string, where the
    escape is the same value, so the JSON reads back unchanged.
    """
    return _C1.sub(_c1_escape, text)


_C1 = re.compile("[\x80-\x9f]")


def _c1_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"
