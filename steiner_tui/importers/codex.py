"""Codex rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``).

Why it exists: Codex records every thread as a rollout, a JSONL of ``{timestamp, type,
payload}`` lines, but its ``token_count`` events are easy to misread. The rules, checked
against Codex 0.169.0:

* A request is a ``token_usage_record`` (one per response, with its ``response_id`` and the
  response's own ``usage``). Rollouts without them fall back to ``event_msg``/``token_count``
  events, counted only when ``info.total_token_usage`` changes: Codex writes some twice with
  the same totals, and one after a compaction with a zeroed ``last_token_usage``. The
  per-request figure is ``last_token_usage``; ``total_token_usage`` is the thread's running
  sum and never a request's context.
* The context of a request is its ``input_tokens``: OpenAI counts the cached part
  (``cached_input_tokens``) inside it.
* The window is the rollout's own: ``model_context_window`` in its ``token_count`` events
  (and ``task_started`` from about 0.1xx), the latest one named (``importers.window``).
* A compaction is a ``compacted`` line: ``message`` is the summary and ``replacement_history``
  the history that replaced the old one. The rollout names no trigger; the context before it
  is that of the last request before the summarizer's own (``compaction_response_id``, else
  the last usage written before a local compaction). A remote compaction (the server's
  ``/responses/compact``) is recorded with an empty ``message`` and no usage of its own: the
  context before it is the last request's.
* A sub-agent is a thread of its own, in a rollout of its own beside its parent's: its
  ``session_meta`` names the thread that started it (``parent_thread_id``, also under
  ``source.subagent.thread_spawn``) and its nickname. The parent's ``spawn_agent`` call (a
  function of the ``multi_agent_v1`` namespace) is answered by a ``function_call_output``
  whose output is ``{"agent_id": <the thread's id>, "nickname"}``, and Codex also writes an
  ``item_completed`` event of type ``CollabAgentToolCall`` (``tool: spawn_agent``) with the
  call's id and the ``receiver_thread_ids``. Either ties the sub-agent to the call
  (``spawned``); ``discover.import_paths`` puts each sub-agent under its parent.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from steiner_tui.capture.wire import json_object
from steiner_tui.importers.jsonl import apply_each, read_records, text_bytes
from steiner_tui.importers.model import (
    ImportedGeneration,
    ImportedRequest,
    ImportedSession,
    LineProblem,
    SubAgentLink,
)
from steiner_tui.importers.ranking import rank_costs
from steiner_tui.importers.window import agent_window

__all__ = ["KNOWN_RECORDS", "import_codex_rollout", "is_codex_record"]

KNOWN_RECORDS = frozenset(
    {
        "session_meta",
        "response_item",
        "world_state",
        "turn_context",
        "event_msg",
        "token_usage_record",
        "compacted",
    }
)
"""Record types this importer knows; others are counted and reported."""


def is_codex_record(record: dict[str, Any]) -> bool:
    """Whether a parsed line looks like a Codex rollout's."""
    kind = record.get("type")
    return "payload" in record and isinstance(kind, str) and kind in KNOWN_RECORDS


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _request(usage: Any, model: str, time: str, line: int, response_id: str) -> ImportedRequest:
    usage = usage if isinstance(usage, dict) else {}
    total = _int(usage.get("input_tokens"))
    cached = _int(usage.get("cached_input_tokens"))
    return ImportedRequest(
        total,
        cached,
        _int(usage.get("output_tokens")),
        model,
        time,
        total - cached,
        _int(usage.get("cache_write_input_tokens")),
        response_id,
        line,
        line,
    )


def _json_text(value: Any, key: str) -> str:
    """``key`` of ``value`` (an object, or its JSON) when it is a string, else "": a
    ``spawn_agent`` call's task (``message``), its output's thread id (``agent_id``)."""
    found = json_object(value).get(key)
    return found if isinstance(found, str) else ""


def _command(arguments: Any) -> str:
    found = json_object(arguments)
    for key in ("cmd", "command", "path", "file_path"):
        value = found.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return " ".join(str(v) for v in value)
    return ""


SPAWN_TOOL = "spawn_agent"
"""The call that starts a sub-agent (Codex's ``multi_agent_v1`` namespace)."""


def _parent_of(meta: dict[str, Any]) -> str:
    parent = meta.get("parent_thread_id")
    if isinstance(parent, str) and parent:
        return parent
    source = meta.get("source")
    spawn = source.get("subagent", {}) if isinstance(source, dict) else {}
    spawn = spawn.get("thread_spawn", {}) if isinstance(spawn, dict) else {}
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    return parent if isinstance(parent, str) else ""


def _spawn_links(
    calls: dict[str, tuple[str, str]],
    outputs: dict[str, Any],
    events: list[dict[str, Any]],
    prompts: dict[str, str],
) -> tuple[SubAgentLink, ...]:
    """Each sub-agent the rollout's ``spawn_agent`` calls started, with the call's id."""
    links: dict[str, SubAgentLink] = {}
    for call_id, (tool, _) in calls.items():
        agent = _json_text(outputs.get(call_id), "agent_id") if tool == SPAWN_TOOL else ""
        if agent:
            prompt = prompts.get(call_id, "")
            links[agent] = SubAgentLink(agent, call_id, tool, prompt, "function_call_output")
    for item in events:
        if item.get("tool") != SPAWN_TOOL:
            continue
        call_id = str(item.get("id", ""))
        receivers = item.get("receiver_thread_ids")
        for agent in receivers if isinstance(receivers, list) else ():
            if isinstance(agent, str) and agent not in links:
                prompt = str(item.get("prompt") or prompts.get(call_id, ""))
                links[agent] = SubAgentLink(
                    agent, call_id, SPAWN_TOOL, prompt, "CollabAgentToolCall"
                )
    return tuple(links.values())


class _Reader:
    """What the rollout's records say, one record at a time (``read_each`` reports a record
    it cannot use by its line)."""

    def __init__(self, use_records: bool) -> None:
        self.use_records = use_records
        """The rollout has ``token_usage_record`` lines: they, not token counts, are requests."""
        self.model = ""
        self.window = 0
        """The latest ``model_context_window`` the rollout names."""
        self.requests: list[ImportedRequest] = []
        self.previous_total: Any = None
        self.generations: list[ImportedGeneration] = []
        self.calls: dict[str, tuple[str, str]] = {}
        self.results: list[tuple[str, str, int]] = []
        self.outputs: dict[str, Any] = {}
        self.prompts: dict[str, str] = {}
        self.collab: list[dict[str, Any]] = []

    def read(self, number: int, record: dict[str, Any]) -> None:
        record_kind = record.get("type")
        payload = record.get("payload")
        if not isinstance(payload, dict):
            return
        time = str(record.get("timestamp", ""))
        if record_kind == "event_msg":
            info = payload.get("info")
            window = (info if isinstance(info, dict) else payload).get("model_context_window")
            if isinstance(window, int) and not isinstance(window, bool) and window > 0:
                self.window = window
        if record_kind == "turn_context":
            self.model = str(payload.get("model", self.model))
        elif record_kind == "token_usage_record" and self.use_records:
            response = str(payload.get("response_id", ""))
            self.requests.append(_request(payload.get("usage"), self.model, time, number, response))
        elif record_kind == "event_msg" and payload.get("type") == "token_count":
            if not self.use_records:
                self._token_count(number, payload, time)
        elif record_kind == "response_item":
            self._item(payload)
        elif record_kind == "event_msg" and payload.get("type") == "item_completed":
            item = payload.get("item")
            if isinstance(item, dict) and item.get("type") == "CollabAgentToolCall":
                self.collab.append(item)
        elif record_kind == "compacted":
            self._compacted(number, payload, time)

    def _token_count(self, number: int, payload: dict[str, Any], time: str) -> None:
        info = payload.get("info")
        if not isinstance(info, dict):
            return
        total = info.get("total_token_usage")
        if total == self.previous_total:
            return
        self.previous_total = total
        self.requests.append(_request(info.get("last_token_usage"), self.model, time, number, ""))

    def _item(self, payload: dict[str, Any]) -> None:
        item_type = str(payload.get("type", ""))
        if item_type in ("function_call", "custom_tool_call", "local_shell_call"):
            arguments = payload.get("arguments", payload.get("input", payload.get("action")))
            call_id = str(payload.get("call_id", ""))
            self.calls[call_id] = (str(payload.get("name", item_type)), _command(arguments))
            self.prompts[call_id] = _json_text(arguments, "message")
        elif item_type in ("function_call_output", "custom_tool_call_output"):
            call_id = str(payload.get("call_id", ""))
            tool, target = self.calls.get(call_id, ("?", ""))
            self.outputs[call_id] = payload.get("output", "")
            self.results.append((tool, target, text_bytes(payload.get("output", ""))))

    def _compacted(self, number: int, payload: dict[str, Any], time: str) -> None:
        requests = self.requests
        summarizer = str(payload.get("compaction_response_id") or "")
        index = next(
            (i for i, r in enumerate(requests) if summarizer and r.request_id == summarizer),
            None,
        )
        if index is None and not payload.get("message"):
            # A remote compaction (the server's ``/responses/compact``, recorded with an empty
            # message, as in 0.104): no usage of a summarizer of Codex's own is written, so
            # the last request before it is the last real turn.
            index = len(requests)
        elif index is None:
            # A local compaction without response ids: the summarizer's usage is the last one
            # written before.
            index = len(requests) - 1 if requests else None
        pre = requests[index - 1].context_tokens if index is not None and index > 0 else None
        history = payload.get("replacement_history")
        self.generations.append(
            ImportedGeneration(
                None,
                pre,
                str(payload.get("message", "")),
                len(requests),
                number,
                time,
                len(history) if isinstance(history, list) else 0,
            )
        )


def import_codex_rollout(path: Path, end: int | None = None) -> ImportedSession:
    """Read one rollout (its first ``end`` bytes)."""
    problems: list[LineProblem] = []
    types: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    records: list[tuple[int, dict[str, Any]]] = []
    for number, record in read_records(path, problems, end):
        kind = str(record.get("type", "?"))
        payload = record.get("payload")
        sub = payload.get("type") if isinstance(payload, dict) else None
        types[f"{kind}/{sub}" if sub and kind in ("event_msg", "response_item") else kind] += 1
        if kind not in KNOWN_RECORDS:
            unknown[kind] += 1
            continue
        records.append((number, record))
    meta: dict[str, Any] = next(
        (
            r["payload"]
            for _, r in records
            if r.get("type") == "session_meta" and isinstance(r.get("payload"), dict)
        ),
        {},
    )
    reader = _Reader(any(r.get("type") == "token_usage_record" for _, r in records))
    apply_each(records, problems, reader.read)
    model = reader.requests[-1].model if reader.requests else reader.model
    return ImportedSession(
        id=str(meta.get("id") or path.stem.removeprefix("rollout-")),
        source="codex",
        path=str(path),
        window=agent_window("codex", model, reader.window),
        requests=tuple(reader.requests),
        generations=tuple(reader.generations),
        record_types=types,
        unknown_records=unknown,
        problems=tuple(sorted(problems, key=lambda p: p.line)),
        ranking=rank_costs(reader.results),
        cwd=str(meta.get("cwd", "")),
        version=str(meta.get("cli_version", "")),
        parent_id=_parent_of(meta),
        spawned=_spawn_links(reader.calls, reader.outputs, reader.collab, reader.prompts),
    )
