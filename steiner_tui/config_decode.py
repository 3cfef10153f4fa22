"""Decoding configuration tables into typed structures, with errors a person can act on.

A user needs *where* a value is wrong: the file that set the key, the key as written in TOML
and the value. ``Decoder`` walks the tables along the declared types (``msgspec.Struct``
fields, ``dict`` entries, array items), so every error and every unknown key is found at a
known path: it checks each value's type, range (``msgspec.Meta``) and ``Literal`` options,
drops unknown keys (warning once per file that holds each), runs the custom types' hook, and
builds each struct that checks itself (``__post_init__``) where it stands. msgspec then decodes
the cleaned tables. ``config`` declares the tables; this module knows nothing of them.
"""

from __future__ import annotations

import difflib
import functools
import json
import operator
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime, time
from typing import Annotated, Any, Literal

import msgspec

from steiner_tui.engine.frozen import thaw
from steiner_tui.errors import ConfigError

__all__ = ["ConfigError", "Decoder", "KeyPath", "files_setting", "value_text"]


_ABSENT = object()

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


_WORDS: dict[type, str] = {
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "a table",
    datetime: "a date-time",
    date: "a date",
    time: "a time",
}
_GOT: dict[type, str] = {**_WORDS, bool: "a boolean"}
_BOUNDS = (
    ("gt", operator.gt, "above"),
    ("ge", operator.ge, "of at least"),
    ("lt", operator.lt, "below"),
    ("le", operator.le, "of at most"),
)


def _got(value: Any) -> str:
    kind = next((k for k in _GOT if type(value) is k), None)
    if kind is None:
        kind = next((k for k in _GOT if isinstance(value, k)), type(value))
    return _GOT.get(kind, type(value).__name__)


def _is(value: Any, kind: type) -> bool:
    """``value`` is of the TOML type ``kind`` (a boolean is no integer; an integer is a number)."""
    if kind is float:
        return type(value) in (int, float)
    return type(value) is kind or (kind is not int and isinstance(value, kind))


def _range_reason(value: float, kind: type, meta: Sequence[msgspec.Meta]) -> str | None:
    for constraint in meta:
        for name, holds, words in _BOUNDS:
            bound = getattr(constraint, name)
            if bound is None or holds(value, bound):
                continue
            if kind is int and bound == 0 and name in ("gt", "ge"):
                return (
                    "expected a positive integer"
                    if name == "gt"
                    else ("expected an integer of 0 or more")
                )
            return f"expected {_WORDS[kind]} {words} {bound}"
    return None


def _unwrap(kind: Any) -> tuple[Any, list[msgspec.Meta], bool]:
    """``kind`` without ``Annotated`` and ``| None``, its constraints and whether it is
    optional (TOML has no null; a built-in provider's unset fields are)."""
    meta: list[msgspec.Meta] = []
    optional = False
    while True:
        if typing.get_origin(kind) is Annotated:
            kind, *extra = typing.get_args(kind)
            meta.extend(m for m in extra if isinstance(m, msgspec.Meta))
        elif typing.get_origin(kind) in (typing.Union, types.UnionType):
            options = [a for a in typing.get_args(kind) if a is not type(None)]
            optional = True
            if len(options) != 1:
                return kind, meta, optional
            kind = options[0]
        else:
            return kind, meta, optional


@functools.cache
def _fields(kind: type[msgspec.Struct]) -> tuple[dict[str, Any], frozenset[str]]:
    """A struct's field types and its required fields."""
    info = msgspec.inspect.type_info(kind)
    assert isinstance(info, msgspec.inspect.StructType)
    required = frozenset(f.name for f in info.fields if f.required)
    return typing.get_type_hints(kind, include_extras=True), required


def files_setting(origins: Sequence[tuple[str, Any]], path: Sequence[str | int]) -> list[str]:
    """The names of the ``origins`` that set the key at ``path``, in precedence order."""
    return [where for where, table in origins if _lookup(table, path) is not _ABSENT]


class Decoder:
    """Decodes merged tables into a struct, turning what is wrong into ``ConfigError``s and
    unknown keys into warnings (module docstring)."""

    def __init__(
        self,
        origins: list[tuple[str, Mapping[str, Any]]],
        dec_hook: Callable[[type, Any], Any] | None = None,
    ) -> None:
        self.origins = origins
        self.dec_hook = dec_hook
        self.warnings: list[str] = []
        self._problems: list[ConfigError] = []
        """The problems found so far by the walk of one ``decode``."""

    def decode(self, data: Any, kind: Any, prefix: KeyPath | None = None) -> Any:
        """``data`` decoded as ``kind``, unknown keys dropped (and warned about).

        Raises:
            ConfigError: a value has the wrong type, is out of range or is refused.
        """
        try:  # valid tables decode at once; the walk finds where the others are wrong
            return msgspec.convert(data, kind, dec_hook=self.dec_hook)
        except msgspec.ValidationError:
            self._problems = []
            cleaned = self._check(data, kind, prefix or [])
            if self._problems:
                raise ConfigError.joined(self._problems) from None
        return msgspec.convert(cleaned, kind, dec_hook=self.dec_hook)

    def _each(self, value: Any, kind: Any, path: KeyPath) -> Any:
        """``_check`` of one key, entry or item among others: a problem with it is kept and
        the walk goes on, so every wrong value is named at once (``_ABSENT`` for this one),
        not one a run."""
        try:
            return self._check(value, kind, path)
        except ConfigError as error:
            self._problems.append(error)
            return _ABSENT

    def _check(self, value: Any, kind: Any, path: KeyPath) -> Any:
        """``value`` checked against ``kind`` at ``path``, without its unknown keys."""
        kind, meta, optional = _unwrap(kind)
        origin = typing.get_origin(kind)
        if kind is Any or origin in (typing.Union, types.UnionType) or (optional and value is None):
            return value
        if origin is Literal:
            options = typing.get_args(kind)
            if not _is(value, type(options[0])):
                raise self._expected(path, type(options[0]), value)
            if value not in options:
                raise self.error(path, "expected one of " + ", ".join(map(str, options)))
            return value
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
            return self._struct(value, kind, path)
        if origin in (dict, Mapping):
            if not isinstance(value, Mapping):
                raise self._expected(path, dict, value)
            entry = typing.get_args(kind)[1]
            return {key: self._each(item, entry, [*path, key]) for key, item in value.items()}
        if origin in (tuple, list):
            if not isinstance(value, list):
                raise self._expected(path, list, value)
            item_kind = typing.get_args(kind)[0]
            return [self._each(item, item_kind, [*path, i]) for i, item in enumerate(value)]
        if kind in _WORDS:
            if not _is(value, kind):
                raise self._expected(path, kind, value)
            reason = _range_reason(value, kind, meta) if meta else None
            if reason:
                raise self.error(path, reason)
            return value
        if self.dec_hook is not None:
            try:
                self.dec_hook(kind, value)
            except ValueError as exc:
                text = str(exc)
                raise self.error(path, text[:1].lower() + text[1:]) from None
        return value

    def _struct(self, value: Any, kind: type[msgspec.Struct], path: KeyPath) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise self._expected(path, dict, value)
        hints, required = _fields(kind)
        out: dict[str, Any] = {}
        known = len(self._problems)
        for key, item in value.items():
            if key in hints:
                out[key] = self._each(item, hints[key], [*path, key])
            else:
                self.warn_unknown([*path, key], hints)
        if len(self._problems) > known:
            return out  # the struct cannot be built: what is wrong in it is said already
        missing = next((name for name in hints if name in required and name not in out), None)
        if missing is not None:
            raise self.error([*path, missing], "is required")
        if hasattr(kind, "__post_init__"):  # a struct that checks itself: build it here
            try:
                msgspec.convert(out, kind, dec_hook=self.dec_hook)
            except msgspec.ValidationError as exc:
                raise self.error(path, str(exc)) from None
        return out

    def _expected(self, path: KeyPath, kind: type, value: Any) -> ConfigError:
        return self.error(path, f"expected {_WORDS[kind]}, got {_got(value)}")

    def _files_with(self, path: KeyPath) -> list[str]:
        return files_setting(self.origins, path)

    def warn_unknown(self, path: KeyPath, known: Iterable[str] = ()) -> None:
        """Warn, per file that holds it, that the key at ``path`` is not known (naming the
        ``known`` key it is closest to, when one is close: a misspelling)."""
        close = difflib.get_close_matches(str(path[-1]), list(known), n=1, cutoff=0.75)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        for where in self._files_with(path) or ["defaults"]:
            self.warnings.append(f"{where}: unknown key '{_key_name(path)}' ignored{hint}")

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
