"""Checking a tool call's arguments against the tool's JSON-schema parameters.

Only the subset our tools use is interpreted: ``required``, property ``type`` (string, integer,
number, boolean, array, object), ``minimum``, ``maximum``, ``exclusiveMinimum`` and ``enum``.
Models make small typing slips, so a few are forgiven and normalised rather than bounced: an
integral float or a digit string for an integer, a numeric string for a number, ``"true"`` or
``"false"`` for a boolean, and ``null`` for an optional argument (treated as absent). Unknown
keys are ignored. Everything else is a clear error naming the argument.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["validate_arguments"]

_MISSING = object()


def validate_arguments(
    tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any] | None
) -> dict[str, Any] | str:
    """Validate and normalise ``arguments``.

    Args:
        tool: The tool name, for messages.
        schema: The tool's ``parameters`` schema (an object schema).
        arguments: The decoded arguments, ``None`` when they were not a JSON object.

    Returns:
        The normalised arguments, or an error message starting ``invalid arguments for <tool>``.
    """
    if arguments is None or not isinstance(arguments, Mapping):
        return f"invalid arguments for {tool}: expected a JSON object"
    properties: Mapping[str, Any] = schema.get("properties", {})
    errors: list[str] = []
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        spec = properties.get(key)
        if spec is None:
            continue
        if value is None:
            continue
        checked = _check(key, value, spec)
        if isinstance(checked, _Error):
            errors.append(checked.message)
        else:
            out[key] = checked
    for key in schema.get("required", ()):
        if key not in out and not any(e.startswith(f"'{key}'") for e in errors):
            errors.insert(0, f"missing required argument '{key}'")
    if errors:
        return f"invalid arguments for {tool}: " + "; ".join(errors)
    return out


class _Error:
    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


def _check(key: str, value: Any, spec: Mapping[str, Any]) -> Any:
    kind = spec.get("type")
    converted = _convert(kind, value)
    if converted is _MISSING:
        return _Error(f"'{key}' must be {_article(kind)}, got {_json_type(value)}")
    if "enum" in spec and converted not in spec["enum"]:
        options = ", ".join(repr(v) for v in spec["enum"])
        return _Error(f"'{key}' must be one of {options}, got {converted!r}")
    if isinstance(converted, (int, float)) and not isinstance(converted, bool):
        if "minimum" in spec and converted < spec["minimum"]:
            return _Error(f"'{key}' must be at least {spec['minimum']}, got {converted}")
        if "exclusiveMinimum" in spec and converted <= spec["exclusiveMinimum"]:
            return _Error(f"'{key}' must be more than {spec['exclusiveMinimum']}, got {converted}")
        if "maximum" in spec and converted > spec["maximum"]:
            return _Error(f"'{key}' must be at most {spec['maximum']:g}, got {converted}")
    return converted


def _convert(kind: Any, value: Any) -> Any:
    if kind is None:
        return value
    if kind == "string":
        return value if isinstance(value, str) else _MISSING
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return _MISSING
    if isinstance(value, bool):
        return _MISSING
    if kind == "integer":
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value.strip())
        return _MISSING
    if kind == "number":
        if isinstance(value, (int, float)):
            return value
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                return _MISSING
        return _MISSING
    if kind == "array":
        return value if isinstance(value, (list, tuple)) else _MISSING
    if kind == "object":
        return value if isinstance(value, Mapping) else _MISSING
    return value


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
    return type(value).__name__
