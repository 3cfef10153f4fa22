"""Checking a tool call's arguments against the tool's JSON Schema (Draft 2020-12).

Each tool declares its parameters once, as the JSON Schema in its ``ToolDefinition``: the same
object the model is sent. A call's arguments go through two steps:

1. **Normalise** (``normalise_arguments``). Models make small typing slips that are not worth a
   round trip, so before validation each *declared* property is forgiven one: an integral float
   or a digit string for an ``integer``, a numeric string for a ``number``, ``"true"`` or
   ``"false"`` (any case) for a ``boolean``, and ``null`` for an optional argument (treated as
   absent). Undeclared keys are dropped: tools read only what they declare. Nothing else is
   changed, so a wrong value still fails in step 2.
2. **Validate** with ``jsonschema_rs``'s ``Draft202012Validator`` (a compiled implementation of
   the whole of Draft 2020-12) against the declared schema. Every error is reported, each
   phrased with the argument's name, in one message starting ``invalid arguments for <tool>``.

The executor imports this module at module level like any other, so the validator's import is
part of start-up (``docs/ARCHITECTURE.md``, "Start-up"): a native module of a few milliseconds,
where the pure-Python ``jsonschema`` read every draft's metaschema when imported.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

from jsonschema_rs import Draft202012Validator, ValidationError, ValidationErrorKind

from steiner_tui.engine.frozen import thaw
from steiner_tui.engine.jsonenc import go_json

__all__ = ["normalise_arguments", "validate_arguments"]

_VALIDATORS: dict[str, Draft202012Validator] = {}
"""Validators by the schema's canonical JSON (schemas are constants; a handful exist)."""


def _validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    plain = thaw(schema)
    key = go_json(plain)
    validator = _VALIDATORS.get(key)
    if validator is None:
        validator = _VALIDATORS[key] = Draft202012Validator(plain)
    return validator


def _normalise_value(kind: Any, value: Any) -> Any:
    """One declared value with the forgiven slips of its ``type`` turned into the right type."""
    if kind == "integer" and not isinstance(value, bool):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value.strip())
    elif kind == "number" and isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return number if math.isfinite(number) else value
    elif kind == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def normalise_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Step 1: the declared arguments with small slips forgiven (see the module docstring).

    Args:
        schema: the tool's ``parameters`` schema (an object schema).
        arguments: the decoded arguments.

    Returns:
        A new dict holding only declared, non-null arguments.
    """
    properties: Mapping[str, Any] = schema.get("properties", {})
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        spec = properties.get(key)
        if spec is None or value is None:
            continue
        out[key] = _normalise_value(spec.get("type"), thaw(value))
    return out


def _article(kind: Any) -> str:
    return {"integer": "an integer", "array": "an array", "object": "an object"}.get(
        str(kind), f"a {kind}"
    )


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return "null" if value is None else type(value).__name__


def _phrase(error: ValidationError) -> str:
    """One validation error in words, naming the argument."""
    path = [str(part) for part in error.instance_path]
    key = path[0] if path else ""
    name = "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in path[1:])
    where = f"'{key}{name}'"
    value = cast(Any, error.instance)
    match error.kind:
        case ValidationErrorKind.Required(missing):
            return f"missing required argument '{missing}'"
        case ValidationErrorKind.Type(types):
            kinds = " or ".join(_article(kind) for kind in types)
            return f"{where} must be {kinds}, got {_json_type(value)}"
        case ValidationErrorKind.Enum(options):
            listed = ", ".join(repr(option) for option in options)
            return f"{where} must be one of {listed}, got {value!r}"
        case ValidationErrorKind.Minimum(bound):
            return f"{where} must be at least {bound:g}, got {value:g}"
        case ValidationErrorKind.ExclusiveMinimum(bound):
            return f"{where} must be more than {bound:g}, got {value:g}"
        case ValidationErrorKind.Maximum(bound):
            return f"{where} must be at most {bound:g}, got {value:g}"
        case ValidationErrorKind.ExclusiveMaximum(bound):
            return f"{where} must be less than {bound:g}, got {value:g}"
    return f"{where}: {error.message}" if key else error.message


def validate_arguments(
    tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any] | None
) -> dict[str, Any] | str:
    """Normalise and validate ``arguments`` against the tool's schema.

    Args:
        tool: The tool name, for messages.
        schema: The tool's ``parameters`` schema (an object schema).
        arguments: The decoded arguments, ``None`` when they were not a JSON object.

    Returns:
        The normalised arguments, or an error message starting ``invalid arguments for <tool>``.
    """
    if arguments is None or not isinstance(arguments, Mapping):
        return f"invalid arguments for {tool}: expected a JSON object"
    normalised = normalise_arguments(schema, arguments)
    order = {key: index for index, key in enumerate(normalised)}
    errors = sorted(
        _validator(schema).iter_errors(normalised),
        key=lambda e: (
            not isinstance(e.kind, ValidationErrorKind.Required),
            order.get(str(e.instance_path[0]) if e.instance_path else "", -1),
        ),
    )
    if errors:
        return f"invalid arguments for {tool}: " + "; ".join(_phrase(e) for e in errors)
    return normalised
