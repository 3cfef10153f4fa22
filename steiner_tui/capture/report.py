"""A capture as figures: each request decoded, with its usage and its cache-prefix stability.

``capture_report`` is what ``steiner-tui capture show --json`` prints and what the workbench
renders. The prefix of a request is compared with the request before it in the same
conversation: the latest earlier request of the same API and model whose first message is the
same (a sub-agent's requests, interleaved with the main ones, are compared among themselves),
or else the latest earlier request of the same API: the first request of another API (Codex
beside Claude Code through one proxy) is compared with none, as no cache of another provider
can serve it. The prompt cache can reuse a request only up to the first
difference, so ``prefix`` says how many leading messages match and which one broke it, and
whether the system blocks or the tool list changed (either breaks the whole cache).
"""

from __future__ import annotations

from typing import Any

import msgspec

from steiner_tui.capture.decode import DecodedRequest, decode_request
from steiner_tui.capture.store import RecordedRequest
from steiner_tui.capture.usage import Usage

__all__ = ["CapturedRequest", "Prefix", "capture_report", "decode_all"]


class Prefix(msgspec.Struct, frozen=True):
    """How much of the request before it this request repeats.

    ``compared_with`` is that request's sequence number (0: none before it);
    ``matching_messages`` how many leading messages are the same; ``first_diverging`` the
    index of the first message that differs (None when the earlier request's messages are all
    repeated); ``broken_by`` names the first part that changed (``system``, ``tools``,
    ``messages[i] (role)``) or is "" when the whole earlier prefix is reused.
    """

    compared_with: int
    matching_messages: int
    first_diverging: int | None
    system_changed: bool
    tools_changed: bool
    broken_by: str

    def to_json(self) -> dict[str, Any]:
        return {
            "compared_with": self.compared_with or None,
            "matching_messages": self.matching_messages,
            "first_diverging": self.first_diverging,
            "system_changed": self.system_changed,
            "tools_changed": self.tools_changed,
            "broken_by": self.broken_by,
        }


class CapturedRequest(msgspec.Struct, frozen=True):
    """One recorded request with its decoded body, usage and prefix."""

    recorded: RecordedRequest
    decoded: DecodedRequest
    prefix: Prefix

    @property
    def usage(self) -> Usage | None:
        return self.recorded.reply.usage if self.recorded.reply is not None else None


def prefix_of(current: DecodedRequest, previous: DecodedRequest | None, seq: int = 0) -> Prefix:
    """Compare ``current`` with the request before it (``seq`` is that request's number)."""
    if previous is None:
        return Prefix(0, 0, None, False, False, "")
    matching = 0
    for mine, theirs in zip(current.messages, previous.messages, strict=False):
        if mine.hash != theirs.hash:
            break
        matching += 1
    diverging = matching if matching < len(previous.messages) else None
    system_changed = current.system_hash != previous.system_hash
    tools_changed = current.tools_hash != previous.tools_hash
    if system_changed:
        broken = "system"
    elif tools_changed:
        broken = "tools"
    elif diverging is not None:
        role = current.messages[diverging].role if diverging < len(current.messages) else "gone"
        broken = f"messages[{diverging}] ({role})"
    else:
        broken = ""
    return Prefix(seq, matching, diverging, system_changed, tools_changed, broken)


def _thread_key(decoded: DecodedRequest) -> tuple[str, str, str]:
    first = decoded.messages[0].hash if decoded.messages else ""
    return decoded.api, decoded.model, first


def decode_all(recorded: list[RecordedRequest]) -> list[CapturedRequest]:
    """Decode every recorded model request (other paths are skipped) and compare prefixes."""
    out: list[CapturedRequest] = []
    latest: dict[tuple[str, str, str], CapturedRequest] = {}
    latest_of_api: dict[str, CapturedRequest] = {}
    for request in recorded:
        decoded = decode_request(request.path, request.body)
        if not decoded.api:
            continue
        key = _thread_key(decoded)
        before = latest.get(key) or latest_of_api.get(decoded.api)
        prefix = prefix_of(
            decoded,
            before.decoded if before is not None else None,
            before.recorded.seq if before is not None else 0,
        )
        captured = CapturedRequest(request, decoded, prefix)
        latest[key] = latest_of_api[decoded.api] = captured
        out.append(captured)
    return out


def _request_json(request: CapturedRequest) -> dict[str, Any]:
    decoded, recorded = request.decoded, request.recorded
    reply = recorded.reply
    usage = request.usage
    return {
        "seq": recorded.seq,
        "time": recorded.time.isoformat(),
        "path": recorded.path,
        "api": decoded.api,
        "model": decoded.model,
        "stream": decoded.stream,
        "problem": decoded.problem,
        "bytes": decoded.accounting.to_json(),
        "blocks": [block.to_json() for block in decoded.blocks],
        "messages": [message.to_json() for message in decoded.messages],
        "tools_bytes": decoded.tools_bytes,
        "tools": [tool.to_json() for tool in decoded.tools],
        "tool_results": [result.to_json() for result in decoded.tool_results],
        "usage": usage.to_json() if usage is not None else None,
        "reply": (
            {
                "status": reply.status,
                "bytes": reply.bytes,
                "content_type": reply.content_type,
                "cut": reply.cut or None,
            }
            if reply is not None
            else None
        ),
        "prefix": request.prefix.to_json(),
    }


def capture_report(recorded: list[RecordedRequest]) -> dict[str, Any]:
    """``{"requests": [...]}``: every model request of a capture as plain JSON data."""
    return {"requests": [_request_json(request) for request in decode_all(recorded)]}
