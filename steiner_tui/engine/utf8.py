"""Text as the reference implementation holds it: valid UTF-8, lone surrogates as U+FFFD.

A Python ``str`` can hold a lone surrogate (``"\\ud800"``, from a JSON escape such as a model's
tool-call arguments or a session file), which has no UTF-8 form: ``str.encode`` raises. The
reference's JSON decoder turns such an escape into U+FFFD, and joins an escaped surrogate pair
into the one character it stands for. Hashes, byte counts and JSON therefore use that form
(docs/design.md, "5. Message hashes and request snapshots"). Text without surrogates, which is
nearly all text, takes the fast path: one ``encode``.
"""

from __future__ import annotations

__all__ = ["go_text", "utf8", "utf8_len"]


def _replace_surrogates(text: str) -> str:
    # UTF-16 with surrogatepass joins pairs; decoding with "replace" turns lone halves into U+FFFD.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def utf8(text: str) -> bytes:
    """The UTF-8 bytes of ``text``, lone surrogates written as U+FFFD."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _replace_surrogates(text).encode()


def utf8_len(text: str) -> int:
    """``len(utf8(text))``."""
    # ``isascii`` reads a flag CPython keeps on the string: no pass over the text.
    return len(text) if text.isascii() else len(utf8(text))


def go_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (unchanged when it has none)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return _replace_surrogates(text)
    return text
