"""Decoding configuration tables into typed structures, with errors a person can act on.

msgspec's strict decode says *what* is wrong (``Expected `int`, got `str` - at `$.ui.theme```);
a user needs *where*: the file that set the key, the key as written in TOML and the value.
``Decoder`` turns msgspec's errors into a ``ConfigError`` naming all three, drops unknown
keys one at a time (warning once per file that holds each) and finds the entry of a ``dict``
table that failed, whose key msgspec does not name. ``config`` declares the tables; this module
knows nothing of them.
"""

from __future__ import annotations

import functools
import json
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

import msgspec

from steiner_tui.engine.frozen import thaw
from steiner_tui.errors import ConfigError

__all__ = ["ConfigError", "Decoder", "KeyPath", "files_setting", "value_text"]


_ABSENT = object()
# msgspec's error texts, read only when a file has an error (compiled then, not at start).


@functools.cache
def _at() -> re.Pattern[str]:
    return re.compile(r"^(?P<message>.*) - at `\$(?P<path>[^`]*)`$", re.DOTALL)


@functools.cache
def _step() -> re.Pattern[str]:
    return re.compile(r"\.(\w+)|\[(\d+|\.\.\.)\]")


@functools.cache
def _unknown() -> re.Pattern[str]:
    return re.compile(r"^Object contains unknown field `(?P<key>.*)`$")


_EACH = "[...]"
"""How msgspec names an entry of a ``dict`` in an error path (the key itself is not given)."""

KeyPath = list[str | int]
"""A key's place in the tables: table names and array indices."""


def _lookup(table: Any, path: Sequence[str | int]) -> Any:
    for step in path:
        if isinstance(step, int):
            if not isinstance(table, list) or step >= len(table):
                return _ABSENT
        elif not isinstance(table, Mapping) or step not in table:
            return _ABSENT
        table = table[step]
    return table


def _key_name(path: KeyPath) -> str:
    parts: list[str] = []
    for step in path:
        if isinstance(step, int):
            parts[-1] += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z0-9_-]+", step):
            parts.append(step)
        else:
            parts.append(json.dumps(step, ensure_ascii=False))
    return ".".join(parts)


def value_text(value: Any) -> str:
    if isinstance(value, Mapping):
        return "a table"
    try:
        return json.dumps(thaw(value), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


_TYPE_WORDS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "array": "an array",
    "object": "a table",
    "null": "nothing",
    "datetime": "a date-time",
    "date": "a date",
    "time": "a time",
}


def _words(kind: str, *, got: bool = False) -> str:
    parts = [part.strip(" `") for part in kind.split("|")]
    names = [
        "a boolean" if got and part == "bool" else _TYPE_WORDS.get(part, part)
        for part in parts
        if part != "null"  # TOML has no null: an optional key is simply left out
    ]
    return " or ".join(dict.fromkeys(names))


def _reason(message: str, kind: Any) -> str:
    """msgspec's message in plain words (options of a ``Literal`` listed)."""
    if match := re.fullmatch(r"Expected (.+), got `(\w+)`", message):
        return f"expected {_words(match.group(1))}, got {_words(match.group(2), got=True)}"
    if message == "Expected `int` >= 1":
        return "expected a positive integer"
    if message == "Expected `int` >= 0":
        return "expected an integer of 0 or more"
    if match := re.fullmatch(r"Expected `(\w+)` (>=|>|<=|<) (\S+)", message):
        words = {">=": "of at least", ">": "above", "<=": "of at most", "<": "below"}
        return f"expected {_words(match.group(1))} {words[match.group(2)]} {match.group(3)}"
    if message.startswith("Invalid enum value"):
        options = _literal_options(kind)
        if options:
            return "expected one of " + ", ".join(options)
    return message[:1].lower() + message[1:]


def _literal_options(kind: Any) -> tuple[str, ...]:
    for arg in (kind, *typing.get_args(kind)):
        if typing.get_origin(arg) is Literal:
            return tuple(str(option) for option in typing.get_args(arg))
    return ()


def _field_type(kind: Any, path: KeyPath) -> Any:
    """The declared type at ``path`` inside ``kind`` (``Any`` when it cannot be followed)."""
    for step in path:
        while typing.get_origin(kind) is Annotated:
            kind = typing.get_args(kind)[0]
        options = [a for a in typing.get_args(kind) if a is not type(None)]
        if typing.get_origin(kind) in (typing.Union, types.UnionType):
            kind = options[0] if len(options) == 1 else kind
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct) and isinstance(step, str):
            kind = typing.get_type_hints(kind, include_extras=True).get(step, Any)
        elif typing.get_origin(kind) is dict:
            kind = typing.get_args(kind)[1]
        elif typing.get_origin(kind) in (tuple, list):
            kind = typing.get_args(kind)[0]
        else:
            return Any
    return kind


def files_setting(origins: Sequence[tuple[str, Any]], path: Sequence[str | int]) -> list[str]:
    """The names of the ``origins`` that set the key at ``path``, in precedence order."""
    return [where for where, table in origins if _lookup(table, path) is not _ABSENT]


class Decoder:
    """Decodes merged tables into a struct, turning msgspec errors into ``ConfigError``s.

    Unknown keys are removed one at a time (each strict decode names the first it meets) and
    reported per file that holds them; an error inside a ``dict`` table, whose key msgspec does
    not name, is found again by decoding that table's entries one by one.
    """

    def __init__(
        self,
        origins: list[tuple[str, Mapping[str, Any]]],
        dec_hook: Callable[[type, Any], Any] | None = None,
    ) -> None:
        self.origins = origins
        self.dec_hook = dec_hook
        self.warnings: list[str] = []

    def decode(self, data: Any, kind: Any, prefix: KeyPath | None = None) -> Any:
        """``data`` decoded as ``kind``, unknown keys dropped (and warned about)."""
        return self.clean(data, kind, prefix or [])[0]

    def clean(self, data: Any, kind: Any, prefix: KeyPath) -> tuple[Any, Any]:
        """``(decoded, data without its unknown keys)``.

        Raises:
            ConfigError: a value has the wrong type or is out of range.
        """
        while True:
            try:
                return msgspec.convert(data, kind, dec_hook=self.dec_hook), data
            except msgspec.ValidationError as exc:
                data = self._handle(data, kind, prefix, str(exc))

    def _handle(
        self, data: dict[str, Any], kind: Any, prefix: KeyPath, text: str
    ) -> dict[str, Any]:
        match = _at().match(text)
        message, where = (match.group("message"), match.group("path")) if match else (text, "")
        steps: KeyPath = []
        for name, index in _step().findall(where):
            steps.append(name if name else (_EACH if index == "..." else int(index)))
        if _EACH in steps:
            cut = steps.index(_EACH)
            return self._entries(data, kind, prefix, steps[:cut])
        unknown = _unknown().match(message)
        if unknown:
            key = unknown.group("key")
            self.warn_unknown([*prefix, *steps, key])
            cleaned: dict[str, Any] = _without(data, [*steps, key])
            return cleaned
        full = [*prefix, *steps]
        raise self.error(full, _reason(message, _field_type(kind, steps)))

    def _entries(
        self, data: dict[str, Any], kind: Any, prefix: KeyPath, at: KeyPath
    ) -> dict[str, Any]:
        table = _lookup(data, at)
        entry_kind = _field_type(kind, [*at, _EACH])
        cleaned = {
            key: self.clean(value, entry_kind, [*prefix, *at, key])[1]
            for key, value in table.items()
        }
        return _replace(data, at, cleaned)

    def _files_with(self, path: KeyPath) -> list[str]:
        return files_setting(self.origins, path)

    def warn_unknown(self, path: KeyPath) -> None:
        """Warn, per file that holds it, that the key at ``path`` is not known."""
        for where in self._files_with(path) or ["defaults"]:
            self.warnings.append(f"{where}: unknown key '{_key_name(path)}' ignored")

    def error(self, path: KeyPath, reason: str) -> ConfigError:
        """The error for the value at ``path``, naming the file that set it and its value."""
        files = self._files_with(path)
        value = _ABSENT
        for _, table in self.origins:
            found = _lookup(table, path)
            value = found if found is not _ABSENT else value
        if value is _ABSENT:
            parents = [self._files_with(path[:cut]) for cut in range(len(path), 0, -1)]
            where = next((found[-1] for found in parents if found), "defaults")
            return ConfigError(f"{where}: '{_key_name(path)}' {reason}")
        if isinstance(value, Mapping):
            where = " + ".join(files) or "defaults"
            return ConfigError(f"{where}: '{_key_name(path)}': {reason}")
        where = files[-1] if files else "defaults"
        return ConfigError(f"{where}: '{_key_name(path)}' = {value_text(value)}: {reason}")


def _without(data: Any, path: KeyPath) -> Any:
    if not path:
        return data
    head, *rest = path
    if isinstance(data, Mapping):
        if not rest:
            return {k: v for k, v in data.items() if k != head}
        return {**data, head: _without(data[head], rest)}
    if isinstance(data, list) and isinstance(head, int):
        return [*data[:head], _without(data[head], rest), *data[head + 1 :]]
    return data


def _replace(data: dict[str, Any], path: KeyPath, value: Any) -> dict[str, Any]:
    if not path:
        return {str(key): item for key, item in value.items()}
    head, *rest = path
    return {**data, str(head): _replace(dict(data[str(head)]), rest, value) if rest else value}
