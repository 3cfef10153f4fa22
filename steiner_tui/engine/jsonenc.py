"""Compact JSON in one fixed byte form: the hash input's, the tool definitions', history.md's.

The form is what the reference implementation writes for a JSON value it decoded
(docs/design.md, "5. Message hashes and request snapshots"):

* objects with keys sorted (by code point, which is UTF-8 byte order), no spaces;
* strings with non-ASCII characters raw, and ``<`` ``>`` ``&`` U+2028 U+2029 escaped as
  ``\\u003c`` and friends; a lone surrogate (possible only from a JSON escape) is written as
  U+FFFD, as the reference's decoder turns it into that character before anything is encoded;
* every number as the 64-bit float it decodes to, in its shortest form: fixed-point for
  magnitudes in [1e-6, 1e21) (``1.0`` is ``1``, ``0.00001`` stays ``0.00001``, ``1e16`` is
  ``10000000000000000``), exponent form outside it with the exponent unpadded (``1.5e-7``,
  ``1e+21``); integers beyond 2^53 are written as the float they round to.

A value no JSON encoder can write (NaN, infinities, an integer beyond the float range, a
non-string key, any other type) raises ``JSONValueError``. ``ToolCall`` checks its arguments
once when it is made, so nothing later in a turn (hashing, counting, snapshots) meets one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

import msgspec

from steiner_tui.engine.frozen import FrozenDict, freeze
from steiner_tui.engine.utf8 import go_text
from steiner_tui.errors import SteinerError

__all__ = ["JSONValueError", "frozen_json", "go_json", "go_number"]

_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


class JSONValueError(SteinerError, ValueError):
    """A value that has no JSON form (NaN, infinity, out-of-range number, unknown type)."""


def go_number(value: float | int) -> str:
    """One JSON number as the reference writes the float64 it decodes to.

    Raises:
        JSONValueError: NaN, an infinity, or an integer beyond the float range.
    """
    try:
        number = float(value)
    except OverflowError:
        raise JSONValueError(f"number {value} is beyond the 64-bit float range") from None
    if math.isnan(number) or math.isinf(number):
        raise JSONValueError(f"{number} has no JSON form")
    magnitude = abs(number)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        # repr is the shortest round-trip form and uses an exponent in this range.
        mantissa, _, exponent = repr(number).partition("e")
        if len(exponent) == 3 and exponent.startswith("-0"):
            exponent = "-" + exponent[2]
        return f"{mantissa}e{exponent}"
    text = format(Decimal(repr(number)).normalize(), "f")
    return text


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).translate(_ESCAPES)


def _encode(value: Any, out: Callable[[str], None]) -> None:
    if value is None:
        out("null")
    elif value is True:
        out("true")
    elif value is False:
        out("false")
    elif isinstance(value, str):
        out(_string(value))
    elif isinstance(value, (int, float)):
        out(go_number(value))
    elif isinstance(value, Mapping):
        out("{")
        first = True
        for key in sorted(value):
            if not isinstance(key, str):
                raise JSONValueError(f"object key {key!r} is not a string")
            if not first:
                out(",")
            first = False
            out(_string(key))
            out(":")
            _encode(value[key], out)
        out("}")
    elif isinstance(value, (list, tuple)):
        out("[")
        for index, item in enumerate(value):
            if index:
                out(",")
            _encode(item, out)
        out("]")
    else:
        raise JSONValueError(f"a {type(value).__name__} has no JSON form")


_SAFE_INT = 2**53


def _plain(value: Any) -> bool:
    """Whether msgspec writes ``value`` as the reference does, but for the escapes of
    ``_ESCAPES``: strings, booleans, None, integers a float holds exactly, and lists and
    dicts of them with string keys (a float, or anything else, takes the slow path)."""
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return True
    if kind is int:
        return bool(-_SAFE_INT <= value <= _SAFE_INT)
    # Loops, not ``all`` over generators: a tool call's arguments are checked at every call,
    # and a string or an integer inside without a call.
    if isinstance(value, dict):
        for key, item in value.items():
            if type(key) is not str:
                return False
            kind = type(item)
            if kind is str or (kind is int and -_SAFE_INT <= item <= _SAFE_INT):
                continue
            if not _plain(item):
                return False
        return True
    if kind is tuple or kind is list:
        for item in value:  # noqa: SIM110
            if not _plain(item):
                return False
        return True
    return False


def go_json(value: Any) -> str:
    """Encode ``value`` in the fixed byte form (``None`` gives ``null``).

    The result always encodes to UTF-8 (lone surrogates are written as U+FFFD).

    Raises:
        JSONValueError: the value (or one inside it) has no JSON form.
    """
    text = _plain_json(value) if _plain(value) else None
    if text is not None:
        return text
    parts: list[str] = []
    _encode(value, parts.append)
    return go_text("".join(parts))


def _plain_json(value: Any) -> str | None:
    """The fixed form of a value ``_plain`` accepts; None when a string holds a lone surrogate
    (``go_json``'s slow path replaces it)."""
    # msgspec writes such a value in this form but for five characters, which it leaves raw
    # inside strings only.
    try:
        text = msgspec.json.encode(value, order="sorted").decode()
    except UnicodeEncodeError:
        return None
    # Five tests of the text take 0.07 us (a regular expression over its bytes 0.23).
    if "<" in text or ">" in text or "&" in text or "\u2028" in text or "\u2029" in text:
        return text.translate(_ESCAPES)
    return text


def frozen_json(value: Any) -> tuple[Any, str]:
    """``freeze(value)`` and its ``go_json``; None and ``null`` for a value with no JSON form
    (a tool call's arguments, ``ToolCall``). A flat object of strings and integers a float
    holds exactly (most calls' arguments, thousands of them read back at a resume) is checked
    in one pass for both."""
    if type(value) is dict:
        for key, item in value.items():
            kind = type(item)
            if type(key) is not str or not (
                kind is str or (kind is int and -_SAFE_INT <= item <= _SAFE_INT)
            ):
                break
        else:
            frozen = FrozenDict(value)
            text = _plain_json(frozen)
            if text is not None:
                return frozen, text
    frozen = freeze(value)
    try:
        return frozen, go_json(frozen)
    except JSONValueError:
        return None, "null"
