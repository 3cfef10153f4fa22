"""Plain-JSON forms of messages and events, for the event log and `context --json`.

Messages are written compactly (defaults left out); events as ``{"type": kind, ...fields}`` with
nested structs and dataclasses turned into dicts. Both one-way: nothing here reads them back.
Frozen mappings are thawed and sequences (tuples, chains) become lists so ``json.dumps`` sees only
plain values.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from steiner_tui.engine.events import EngineEvent
from steiner_tui.engine.frozen import thaw
from steiner_tui.engine.messages import Message

__all__ = ["event_to_dict", "to_jsonable"]


def message_to_dict(message: Message) -> dict[str, Any]:
    """A compact dict: defaults are left out, so the log stays small."""
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.reasoning:
        out["reasoning"] = message.reasoning
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "name": c.name,
                "arguments": thaw(c.arguments) if c.arguments is not None else None,
                "raw_arguments": c.raw_arguments,
            }
            for c in message.tool_calls
        ]
    if message.images:
        out["images"] = [{"media_type": i.media_type, "data": i.data} for i in message.images]
    for key in ("name", "tool_call_id", "source"):
        value = getattr(message, key)
        if value:
            out[key] = value
    if message.turn:
        out["turn"] = message.turn
    if message.incomplete:
        out["incomplete"] = True
    return out


def to_jsonable(value: Any) -> Any:
    """Turn structs, dataclasses, enums, paths, datetimes, mappings and tuples into JSON values."""
    if isinstance(value, Message):
        return message_to_dict(value)
    if isinstance(value, msgspec.Struct):
        return {name: to_jsonable(getattr(value, name)) for name in value.__struct_fields__}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # Fields left out of repr are values derived and cached on the object: the log keeps
        # what was given. (A struct keeps such values outside its fields: a tool call's encoded
        # arguments are not among its ``__struct_fields__``.)
        return {
            f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value) if f.repr
        }
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (Sequence, set, frozenset)) and not isinstance(value, (str, bytes)):
        return [to_jsonable(v) for v in value]  # tuples, chains, a snapshot's counted sources
    return value


def event_to_dict(event: EngineEvent) -> dict[str, Any]:
    """``{"type": event.kind, ...fields}``."""
    body = to_jsonable(event)
    assert isinstance(body, dict)
    return {"type": event.kind, **body}
