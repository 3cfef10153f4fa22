"""The records of ``session.jsonl``: one JSON object per line, each with a ``type``.

Record types (every one carries ``"type"``; ``gen`` is a generation id):

* ``header``: ``version``, ``session_id``, ``project_root``, ``created``, ``alias``, ``model``,
  ``prompt_cache_key``, optional ``forked_from``. Always the first line.
* ``message``: ``gen``, ``message`` (``message_to_dict``: the message exactly as stored,
  skill envelopes included).
* ``partial``: ``gen``, ``turn``, ``text``, ``reasoning``: a slice of a reply still streaming.
  Consecutive partials concatenate; any later ``message``, ``request`` or ``generation``
  record supersedes them. Left over at the end of the log, they become an ``incomplete``
  assistant message.
* ``request``: a request snapshot's metadata (index, model, time, message hashes, estimate,
  bytes, max_tokens, compaction flag); never the messages again.
* ``generation``: a whole generation (``id``, ``summary``, ``messages``, ``backend_state``,
  ``created_at``, ``outcome``); ``reset: true`` starts the lineage over with it (a fork, or a
  conversation replaced wholesale). Compaction writes one per new generation, so the lineage
  rebuilds exactly.
* ``backend_state``: ``gen``, ``state`` (string or null).
* ``last_main_request``: ``alias``, ``model``, ``prompt_cache_key``, ``at``.
* ``usage``, ``mode``, ``skill``, ``resumed``, ``warning``, ``error``: bookkeeping.

Lines are UTF-8 JSON written with ``ensure_ascii=False``; text holding lone surrogates (which
UTF-8 cannot carry) is written with ASCII escapes instead, so every string round-trips.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.events import CompactionOutcome, HealthEvent, RequestSnapshot
from steiner_tui.engine.messages import Message
from steiner_tui.engine.serialize import message_from_dict, message_to_dict

__all__ = [
    "LOG_FILE_NAME",
    "LOG_VERSION",
    "META_FILE_NAME",
    "encode_record",
    "format_time",
    "generation_from_record",
    "generation_record",
    "last_main_request_from_record",
    "last_main_request_record",
    "message_record",
    "outcome_from_dict",
    "outcome_to_dict",
    "parse_time",
    "request_record",
]

LOG_VERSION = 1
LOG_FILE_NAME = "session.jsonl"
META_FILE_NAME = "meta.json"


def encode_record(record: Mapping[str, Any]) -> bytes:
    """One log line: compact JSON plus ``\\n``, as UTF-8 bytes."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates: ASCII escapes carry them exactly.
        return (json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n").encode()


def format_time(moment: datetime | None) -> str | None:
    """ISO 8601 text of ``moment`` (None stays None)."""
    return moment.isoformat() if moment is not None else None


def parse_time(value: Any) -> datetime | None:
    """The datetime written by ``format_time``.

    Raises:
        ValueError: not None and not an ISO 8601 string.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected an ISO 8601 time, got {value!r}")
    return datetime.fromisoformat(value)


def message_record(gen: int, message: Message) -> dict[str, Any]:
    """A ``message`` record."""
    return {"type": "message", "gen": gen, "message": message_to_dict(message)}


def request_record(snapshot: RequestSnapshot) -> dict[str, Any]:
    """A ``request`` record: the snapshot's metadata without its messages, blocks or tools."""
    return {
        "type": "request",
        "index": snapshot.index,
        "request_id": snapshot.request_id,
        "model": snapshot.model,
        "provider": snapshot.provider,
        "time": format_time(snapshot.time),
        "hashes": list(snapshot.message_hashes),
        "block_message_count": snapshot.block_message_count,
        "prompt_bytes": snapshot.prompt_bytes,
        "blocks_bytes": snapshot.blocks_bytes,
        "tools_bytes": snapshot.tools_bytes,
        "max_tokens": snapshot.max_tokens,
        "estimated_prompt_tokens": snapshot.estimated_prompt_tokens,
        "raw_prompt_tokens": snapshot.raw_prompt_tokens,
        "estimate_strategy": snapshot.estimate_strategy,
        "compaction": snapshot.compaction,
        "generation": snapshot.generation_id,
    }


def outcome_to_dict(outcome: CompactionOutcome) -> dict[str, Any]:
    """A compaction outcome as plain JSON (``pending_archive`` is transient and left out)."""
    health = outcome.health
    return {
        "applied": outcome.applied,
        "stage_count": outcome.stage_count,
        "modes": list(outcome.modes),
        "before_tokens": outcome.before_tokens,
        "after_tokens": outcome.after_tokens,
        "summary_model": outcome.summary_model,
        "fallback_status": outcome.fallback_status,
        "fallback_reason": outcome.fallback_reason,
        "backend_state_cleared": outcome.backend_state_cleared,
        "health": None
        if health is None
        else {
            "severity": health.severity,
            "state": health.state,
            "guidance": health.guidance,
            "stage_count": health.stage_count,
        },
        "at": format_time(outcome.at),
        "summarized_count": outcome.summarized_count,
        "retained_count": outcome.retained_count,
        "steering": outcome.steering,
        "manual": outcome.manual,
        "summary": outcome.summary,
    }


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string")
    return value


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key!r} must be an integer")
    return value


def outcome_from_dict(data: Mapping[str, Any]) -> CompactionOutcome:
    """Rebuild an outcome written by ``outcome_to_dict``.

    Raises:
        ValueError: a field has the wrong type.
    """
    health_data = data.get("health")
    health = None
    if health_data is not None:
        health = HealthEvent(
            _str(health_data, "severity"),
            _str(health_data, "state"),
            _str(health_data, "guidance"),
            _int(health_data, "stage_count"),
        )
    return CompactionOutcome(
        applied=bool(data["applied"]),
        stage_count=_int(data, "stage_count"),
        modes=tuple(str(mode) for mode in data.get("modes", ())),
        before_tokens=_int(data, "before_tokens"),
        after_tokens=_int(data, "after_tokens"),
        summary_model=_str(data, "summary_model"),
        fallback_status=_str(data, "fallback_status"),
        fallback_reason=_str(data, "fallback_reason"),
        backend_state_cleared=bool(data.get("backend_state_cleared", False)),
        health=health,
        at=parse_time(data.get("at")),
        summarized_count=_int(data, "summarized_count"),
        retained_count=_int(data, "retained_count"),
        steering=_str(data, "steering"),
        manual=bool(data.get("manual", False)),
        summary=_str(data, "summary"),
    )


def generation_record(generation: ConversationGeneration, *, reset: bool = False) -> dict[str, Any]:
    """A ``generation`` record holding the whole generation."""
    outcome = generation.outcome
    return {
        "type": "generation",
        "reset": reset,
        "id": generation.id,
        "summary": generation.summary,
        "backend_state": generation.backend_state,
        "created_at": format_time(generation.created_at),
        "outcome": None if outcome is None else outcome_to_dict(outcome),
        "messages": [message_to_dict(message) for message in generation.messages],
    }


def generation_from_record(data: Mapping[str, Any]) -> ConversationGeneration:
    """Rebuild a generation written by ``generation_record``.

    Raises:
        ValueError: a field has the wrong type.
    """
    backend = data.get("backend_state")
    if backend is not None and not isinstance(backend, str):
        raise ValueError("'backend_state' must be a string or null")
    outcome = data.get("outcome")
    messages = data.get("messages", [])
    if not isinstance(messages, list):
        raise ValueError("'messages' must be a list")
    return ConversationGeneration(
        id=_int(data, "id"),
        messages=tuple(message_from_dict(item) for item in messages),
        summary=_str(data, "summary"),
        backend_state=backend,
        outcome=None if outcome is None else outcome_from_dict(outcome),
        created_at=parse_time(data.get("created_at")),
    )


def last_main_request_record(last: LastMainRequest) -> dict[str, Any]:
    """A ``last_main_request`` record."""
    return {
        "type": "last_main_request",
        "alias": last.provider_alias,
        "model": last.backend_model,
        "prompt_cache_key": last.prompt_cache_key,
        "at": format_time(last.at),
    }


def last_main_request_from_record(data: Mapping[str, Any]) -> LastMainRequest:
    """Rebuild a LastMainRequest written by ``last_main_request_record``.

    Raises:
        ValueError: a field has the wrong type.
    """
    return LastMainRequest(
        _str(data, "alias"),
        _str(data, "model"),
        _str(data, "prompt_cache_key"),
        parse_time(data.get("at")),
    )
