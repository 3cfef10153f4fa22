"""The quoted form of skill names in envelope tags, and reading it back.

The envelope's ``name`` attribute is a double-quoted literal with a fixed byte form, so a name can
never hold a raw newline or an unescaped quote and the envelope bytes never vary: printable
characters (letters, marks, numbers, punctuation, symbols and the ASCII space: exactly Python's
``str.isprintable``) are written raw, ``"`` and ``\\`` with a backslash; ``\\a \\b \\f \\n \\r
\\t \\v`` have their short escapes; other control characters (below U+0020, and U+007F) are
written ``\\xHH``, the rest ``\\uHHHH`` or ``\\UHHHHHHHH``, in lowercase hex.

Python strings hold code points, not bytes. A lone surrogate is treated as the three bytes that
UTF-8 with ``surrogatepass`` gives it, which are not valid UTF-8 and so are escaped byte by byte
(``\\xed\\xa0\\x80``); unquoting decodes with ``surrogatepass`` again, so every ``str`` round-trips.

(docs/design.md, "3. Skill envelopes and mode notices")
"""

from __future__ import annotations

__all__ = ["go_quote", "go_unquote"]

_SIMPLE_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}
_UNESCAPES = {
    "a": 0x07,
    "b": 0x08,
    "f": 0x0C,
    "n": 0x0A,
    "r": 0x0D,
    "t": 0x09,
    "v": 0x0B,
    "\\": 0x5C,
    '"': 0x22,
}
_HEX = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")
_HEX_WIDTH = {"x": 2, "u": 4, "U": 8}


def _quote_char(ch: str) -> str:
    code = ord(ch)
    if ch in ('"', "\\"):
        return "\\" + ch
    if 0xD800 <= code <= 0xDFFF:
        return "".join(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
    if ch.isprintable():
        return ch
    simple = _SIMPLE_ESCAPES.get(ch)
    if simple is not None:
        return simple
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def go_quote(name: str) -> str:
    """Quote ``name`` in the envelope's byte form (see the module docstring).

    Args:
        name: any string (lone surrogates included).

    Returns:
        The double-quoted literal: printable runes raw, the rest escaped with lowercase hex.
    """
    if name.isprintable() and '"' not in name and "\\" not in name:
        return f'"{name}"'
    return '"' + "".join(_quote_char(ch) for ch in name) + '"'


def _escape(body: str, i: int, out: bytearray) -> int:
    """Decode the escape whose letter is at ``body[i]``; return the index after it."""
    if i >= len(body):
        raise ValueError("unterminated escape")
    letter = body[i]
    simple = _UNESCAPES.get(letter)
    if simple is not None:
        out.append(simple)
        return i + 1
    width = _HEX_WIDTH.get(letter)
    if width is not None:
        digits = body[i + 1 : i + 1 + width]
        if len(digits) != width or not _HEX.issuperset(digits):
            raise ValueError(f"bad \\{letter} escape")
        value = int(digits, 16)
        if letter == "x":
            out.append(value)
        elif value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            raise ValueError(f"invalid rune in \\{letter} escape")
        else:
            out += chr(value).encode("utf-8")
        return i + 1 + width
    if letter in _OCTAL:
        digits = body[i : i + 3]
        if len(digits) != 3 or not _OCTAL.issuperset(digits):
            raise ValueError("bad octal escape")
        value = int(digits, 8)
        if value > 0xFF:
            raise ValueError("octal escape above \\377")
        out.append(value)
        return i + 3
    # Includes \', which a double-quoted literal does not allow.
    raise ValueError(f"unknown escape \\{letter}")


def go_unquote(text: str) -> str:
    """Invert ``go_quote``: interpret a double-quoted string literal.

    Accepts raw characters other than a newline or an unescaped quote, and the escapes
    ``\\a \\b \\f \\n \\r \\t \\v \\\\ \\"``, ``\\xHH``, ``\\uHHHH``,
    ``\\UHHHHHHHH`` and octal ``\\NNN``.

    Raises:
        ValueError: when ``text`` is not such a literal, or its bytes are not UTF-8 (surrogates
            encoded as by ``surrogatepass`` are allowed).
    """
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError("not a double-quoted string")
    body = text[1:-1]
    if "\n" in body:
        raise ValueError("raw newline in quoted string")
    if "\\" not in body:
        if '"' in body:
            raise ValueError("unescaped quote in quoted string")
        return body
    out = bytearray()
    i = 0
    while i < len(body):
        slash = body.find("\\", i)
        chunk = body[i:] if slash < 0 else body[i:slash]
        if '"' in chunk:
            raise ValueError("unescaped quote in quoted string")
        out += chunk.encode("utf-8", "surrogatepass")
        if slash < 0:
            break
        i = _escape(body, slash + 1, out)
    try:
        return out.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as exc:
        raise ValueError("quoted string is not valid UTF-8") from exc
