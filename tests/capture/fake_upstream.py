"""A loopback model API for the capture tests, answering in the real streaming formats.

Adapted from the issue 21 research's fake upstream (stdlib ``http.server``, HTTP/1.1 keep-alive,
chunked server-sent events). It answers the Anthropic Messages API, the OpenAI Responses API
and Chat Completions, and remembers what it received (raw body, headers) and the usage it sent,
so a test can compare them with what the proxy recorded. ``script`` gives the successive main
requests (those with tools) scripted replies: ``{"text"}``, ``{"tool_use": {"name", "input"}}``
(Anthropic) or ``{"function_call": {"name", "arguments"}}`` (Responses); ``{cwd}`` in a script
step is replaced by the working directory the request mentions.

Usage is deterministic: input is a quarter of the body's bytes, rounded up; for Anthropic the
part up to the last cache breakpoint is cache creation the first time its tools and system are
seen and cache read afterwards; for Responses the previous request's input is cached when the
tools are unchanged.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from steiner_tui.capture.encoding import decode_content

__all__ = ["FakeUpstream", "Received"]


@dataclass
class Received:
    """One request the fake received and what it answered."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    usage: dict[str, Any] | None = None
    reply: bytes = b""


def _tokens(size: int) -> int:
    return max(1, math.ceil(size / 4))


def _cache_split(body: dict[str, Any]) -> int:
    parts: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    parts += system if isinstance(system, list) else [{"type": "text", "text": system or ""}]
    for message in body.get("messages") or []:
        content = message.get("content")
        parts += content if isinstance(content, list) else [{"type": "text", "text": content}]
    last = max(
        (i for i, p in enumerate(parts) if isinstance(p, dict) and p.get("cache_control")),
        default=-1,
    )
    return len(json.dumps(parts[: last + 1], separators=(",", ":")).encode()) if last >= 0 else 0


@dataclass
class _State:
    received: list[Received] = field(default_factory=list)
    prefixes: set[str] = field(default_factory=set)
    previous: tuple[str, int] | None = None
    script: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: _State
    reply_text = "Hi! How can I help you today?"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _body(self) -> bytes:
        size = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(size) if size else b""

    def _remember(self, body: bytes) -> Received:
        received = Received(self.command, self.path, dict(self.headers.items()), body)
        with self.state.lock:
            self.state.received.append(received)
        return received

    def _json(self, code: int, value: Any, received: Received) -> None:
        data = json.dumps(value).encode()
        received.reply = data
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_fake_" + uuid.uuid4().hex[:16])
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[tuple[str | None, Any]], received: Received) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("request-id", "req_fake_" + uuid.uuid4().hex[:16])
        self.end_headers()
        sent = []
        for name, value in events:
            payload = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
            data = ((f"event: {name}\n" if name else "") + f"data: {payload}\n\n").encode()
            sent.append(data)
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        received.reply = b"".join(sent)

    def do_HEAD(self) -> None:
        self._remember(b"")
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._json(404, {"error": {"message": f"no route {self.path}"}}, self._remember(b""))

    def do_POST(self) -> None:
        received = self._remember(self._body())
        # A compressed body is kept as it came (``received.body``) and read decoded.
        raw = decode_content(received.body, self.headers.get("Content-Encoding", "")).body
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        path = self.path.split("?", 1)[0]
        if path.endswith("/messages/count_tokens"):
            self._json(200, {"input_tokens": _tokens(len(raw))}, received)
        elif path.endswith("/messages"):
            self._anthropic(raw, body, received)
        elif path.endswith("/responses"):
            self._responses(raw, body, received)
        elif path.endswith("/responses/compact"):
            # OpenAI's remote compaction: the history that replaces the old one, no usage.
            summary = {"type": "input_text", "text": "Summary of the work so far (fake)."}
            message = {"type": "message", "role": "user", "content": [summary]}
            self._json(200, {"output": [message]}, received)
        elif path.endswith("/chat/completions"):
            self._chat(raw, body, received)
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}}, received)

    def _step(self, body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("tools") or not body.get("stream"):
            return {}
        dumped = json.dumps(body)
        with self.state.lock:
            # The first step whose "when" text the body holds and whose "unless" text it does
            # not (a sub-agent's requests interleave with the main ones).
            found = next(
                (
                    i
                    for i, s in enumerate(self.state.script)
                    if s.get("when", "") in dumped
                    and not (s.get("unless") and s["unless"] in dumped)
                ),
                None,
            )
            if found is None:
                return {}
            step = self.state.script.pop(found)
        cwd_found = re.search(r"Primary working directory: (\S+?)(?:\\n|\s)", dumped) or re.search(
            r"<cwd>(.*?)</cwd>", dumped
        )
        cwd = cwd_found.group(1).replace("\\\\", "\\") if cwd_found else "."
        agent = re.search(r'agent_id\\?"\s*:\s*\\?"([0-9a-f-]+)', dumped)
        text = json.dumps(step).replace("{cwd}", cwd)
        text = text.replace("{agent_id}", agent.group(1) if agent else "")
        return dict(json.loads(text))

    def _anthropic(self, raw: bytes, body: dict[str, Any], received: Received) -> None:
        total = _tokens(len(raw))
        split = _cache_split(body)
        cached = min(total, _tokens(split)) if split else 0
        key = hashlib.sha256(
            json.dumps([body.get("tools"), body.get("system")], sort_keys=True).encode()
        ).hexdigest()
        with self.state.lock:
            seen = key in self.state.prefixes
            self.state.prefixes.add(key)
        last = (body.get("messages") or [{}])[-1].get("content")
        last_text = last if isinstance(last, str) else json.dumps(last)
        if "<summary>" in last_text and "Do NOT call any tools" in last_text:
            step = {
                "text": f"<analysis>\nA greeting.\n</analysis>\n<summary>\n{self.reply_text}\n"
                "</summary>"
            }
        else:
            step = self._step(body)
        text = str(step.get("text", self.reply_text))
        tool = step.get("tool_use")
        output = _tokens(len(text.encode()) + (len(json.dumps(tool)) if tool else 0))
        usage = {
            "input_tokens": total - cached,
            "cache_creation_input_tokens": 0 if seen else cached,
            "cache_read_input_tokens": cached if seen else 0,
            "output_tokens": 1,
        }
        received.usage = dict(usage, output_tokens=output)
        model = body.get("model", "claude-fake")
        message_id = "msg_fake_" + uuid.uuid4().hex[:20]
        if not body.get("stream"):
            content = [{"type": "text", "text": text}]
            self._json(
                200,
                {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": content,
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": received.usage,
                },
                received,
            )
            return
        events: list[tuple[str | None, Any]] = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": usage,
                    },
                },
            ),
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            ("ping", {"type": "ping"}),
        ]
        for i, word in enumerate(text.split(" ")):
            events.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": word if i == 0 else " " + word},
                    },
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
        stop = "end_turn"
        if tool:
            stop = "tool_use"
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": 1,
                        "content_block": {
                            "type": "tool_use",
                            "id": "toolu_fake_" + uuid.uuid4().hex[:20],
                            "name": tool["name"],
                            "input": {},
                        },
                    },
                )
            )
            arguments = json.dumps(tool["input"])
            for i in range(0, len(arguments), 20):
                events.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": 1,
                            "delta": {
                                "type": "input_json_delta",
                                "partial_json": arguments[i : i + 20],
                            },
                        },
                    )
                )
            events.append(("content_block_stop", {"type": "content_block_stop", "index": 1}))
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": received.usage,
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        self._sse(events, received)

    def _responses(self, raw: bytes, body: dict[str, Any], received: Received) -> None:
        total = _tokens(len(raw))
        shape = json.dumps([body.get("instructions"), body.get("tools")], sort_keys=True)
        with self.state.lock:
            previous = self.state.previous
            self.state.previous = (shape, total)
        cached = min(total, previous[1]) if previous and previous[0] == shape else 0
        step = self._step(body)
        text = str(step.get("text", self.reply_text))
        call = step.get("function_call")
        output = _tokens(len(text.encode()) + (len(json.dumps(call)) if call else 0))
        usage = {
            "input_tokens": total,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": total + output,
        }
        received.usage = usage
        response_id = "resp_fake_" + uuid.uuid4().hex[:20]
        item_id = "msg_fake_" + uuid.uuid4().hex[:20]
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
        item = {
            "id": item_id,
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [part],
        }
        base = {
            "id": response_id,
            "object": "response",
            "created_at": 1,
            "model": body.get("model", "gpt-fake"),
            "output": [],
            "tools": [],
            "usage": None,
            "error": None,
            "incomplete_details": None,
            "metadata": {},
        }
        outputs: list[dict[str, Any]] = [item]
        function_item = None
        if call:
            arguments = call["arguments"]
            arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)
            function_item = {
                "id": "fc_fake_" + uuid.uuid4().hex[:20],
                "type": "function_call",
                "status": "completed",
                "call_id": "call_fake_" + uuid.uuid4().hex[:20],
                "name": call["name"],
                "arguments": arguments,
            }
            if "namespace" in call:  # a tool of a namespace (Codex's multi_agent_v1)
                function_item["namespace"] = call["namespace"]
            outputs.append(function_item)
        if not body.get("stream"):
            self._json(200, dict(base, status="completed", output=outputs, usage=usage), received)
            return
        events: list[tuple[str | None, Any]] = []

        def event(name: str, value: dict[str, Any]) -> None:
            events.append((name, {"type": name, "sequence_number": len(events), **value}))

        event("response.created", {"response": dict(base, status="in_progress")})
        event("response.in_progress", {"response": dict(base, status="in_progress")})
        event(
            "response.output_item.added",
            {"output_index": 0, "item": dict(item, status="in_progress", content=[])},
        )
        event(
            "response.content_part.added",
            {
                "item_id": item_id,
                "output_index": 0,
                "content_index": 0,
                "part": dict(part, text=""),
            },
        )
        for i, word in enumerate(text.split(" ")):
            event(
                "response.output_text.delta",
                {
                    "item_id": item_id,
                    "output_index": 0,
                    "content_index": 0,
                    "logprobs": [],
                    "delta": word if i == 0 else " " + word,
                },
            )
        event(
            "response.output_text.done",
            {
                "item_id": item_id,
                "output_index": 0,
                "content_index": 0,
                "text": text,
                "logprobs": [],
            },
        )
        event(
            "response.content_part.done",
            {"item_id": item_id, "output_index": 0, "content_index": 0, "part": part},
        )
        event("response.output_item.done", {"output_index": 0, "item": item})
        if function_item:
            event(
                "response.output_item.added",
                {
                    "output_index": 1,
                    "item": dict(function_item, status="in_progress", arguments=""),
                },
            )
            event(
                "response.function_call_arguments.done",
                {
                    "item_id": function_item["id"],
                    "output_index": 1,
                    "arguments": function_item["arguments"],
                },
            )
            event("response.output_item.done", {"output_index": 1, "item": function_item})
        event(
            "response.completed",
            {"response": dict(base, status="completed", output=outputs, usage=usage)},
        )
        self._sse(events, received)

    def _chat(self, raw: bytes, body: dict[str, Any], received: Received) -> None:
        total = _tokens(len(raw))
        text = self.reply_text
        output = _tokens(len(text.encode()))
        usage = {
            "prompt_tokens": total,
            "completion_tokens": output,
            "total_tokens": total + output,
            "prompt_tokens_details": {"cached_tokens": 0},
        }
        received.usage = usage
        model = body.get("model", "gpt-fake")
        if not body.get("stream"):
            self._json(
                200,
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text},
                        }
                    ],
                    "usage": usage,
                },
                received,
            )
            return

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        events: list[tuple[str | None, Any]] = [(None, chunk({"role": "assistant"}, None))]
        events += [(None, chunk({"content": w + " "}, None)) for w in text.split(" ")]
        events.append((None, chunk({}, "stop")))
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append(
                (
                    None,
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion.chunk",
                        "model": model,
                        "choices": [],
                        "usage": usage,
                    },
                )
            )
        events.append((None, "[DONE]"))
        self._sse(events, received)


class FakeUpstream:
    """The fake on 127.0.0.1 in a thread of its own; ``stop`` shuts it down by its handle."""

    def __init__(self, script: list[dict[str, Any]] | None = None) -> None:
        self.state = _State(script=list(script or []))
        handler = type("Handler", (_Handler,), {"state": self.state})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def received(self) -> list[Received]:
        with self.state.lock:
            return list(self.state.received)

    def start(self) -> FakeUpstream:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()
