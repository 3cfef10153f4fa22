"""Gemini CLI sessions (``~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json``).

Why it exists: Gemini CLI records each chat as one JSON object, ``{sessionId, projectHash,
startTime, lastUpdated, messages}``, but shows no context per request. The rules, checked
against a real session (``tests/importers/data/gemini-cli``):

* A request is a ``gemini`` message with ``tokens``: one model response. Its context is the
  prompt the API counted, ``input`` (the cached part, ``cached``, inside it, as Gemini's
  ``promptTokenCount`` holds ``cachedContentTokenCount``) plus ``tool`` (the tool-use prompt);
  its output is ``output`` plus ``thoughts`` (the model's thinking, billed as output). Their sum
  is ``total``.
* What costs the most: each tool call's ``result`` (its function responses) by tool and the
  file or command of its ``args``.
* The file names no compaction (``/compress`` is not recorded in it) and no window: the window
  is the model's (``importers.window``).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from steiner_tui.capture.wire import call_target
from steiner_tui.importers.jsonl import read_document, text_bytes
from steiner_tui.importers.model import ImportedRequest, ImportedSession, LineProblem
from steiner_tui.importers.ranking import rank_costs
from steiner_tui.importers.window import agent_window

__all__ = ["MESSAGE_TYPES", "import_gemini_session", "is_gemini_session"]

MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
"""Message types this importer knows; others are counted and reported."""


def is_gemini_session(value: Any) -> bool:
    """Whether a parsed file is a Gemini CLI session object."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("sessionId"), str)
        and isinstance(value.get("messages"), list)
        and "projectHash" in value
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def import_gemini_session(path: Path) -> ImportedSession:
    """Read one session file.

    Raises:
        OSError: the file cannot be read.
        ValueError: it is not a Gemini CLI session.
    """
    problems: list[LineProblem] = []  # by line of the file: its bytes that are not UTF-8
    value = json.loads(read_document(path, problems))
    if not is_gemini_session(value):
        raise ValueError(f"{path}: not a Gemini CLI session")
    requests: list[ImportedRequest] = []
    results: list[tuple[str, str, int]] = []
    types: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    for number, message in enumerate(value["messages"], 1):
        if not isinstance(message, dict):
            problems.append(LineProblem(number, "not a JSON object", unit="message"))
            continue
        kind = str(message.get("type", "?"))
        types[kind] += 1
        if kind not in MESSAGE_TYPES:
            unknown[kind] += 1
        calls = message.get("toolCalls")
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict):
                target = call_target(call.get("args"))
                results.append((str(call.get("name", "?")), target, text_bytes(call.get("result"))))
        tokens = message.get("tokens")
        if kind != "gemini" or not isinstance(tokens, dict):
            continue
        prompt = _int(tokens.get("input"))
        tool = _int(tokens.get("tool"))
        requests.append(
            ImportedRequest(
                prompt + tool,
                _int(tokens.get("cached")),
                _int(tokens.get("output")) + _int(tokens.get("thoughts")),
                str(message.get("model", "")),
                str(message.get("timestamp", "")),
                prompt + tool - _int(tokens.get("cached")),
                0,
                str(message.get("id", "")),
                number,
                number,
            )
        )
    model = requests[-1].model if requests else ""
    return ImportedSession(
        id=value["sessionId"],
        source="gemini-cli",
        path=str(path),
        requests=tuple(requests),
        record_types=types,
        unknown_records=unknown,
        problems=tuple(problems),
        ranking=rank_costs(results),
        window=agent_window("gemini-cli", model),
    )
