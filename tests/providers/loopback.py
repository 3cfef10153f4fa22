"""A scripted HTTP server on 127.0.0.1 that speaks the model APIs' wire protocols to real SDKs.

Each POST takes the next scripted ``Reply``: a status, headers and body parts. Streaming bodies
go out with chunked transfer encoding, one HTTP chunk per part, as real SSE servers send them.
GETs, and the Ollama step of the runner's server-limits probe (``POST /api/show``), get a 404
and take no reply. A reply ends ``complete`` (terminating chunk), ``drop`` (socket shut down
mid-body: the client sees the connection cut) or ``stall`` (the handler waits, bounded, until
the server stops; the client's own timeout fires first). Requests are recorded for assertions.
The server binds port 0 and stops itself on ``stop()`` or leaving its ``with`` block.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "LoopbackServer",
    "Recorded",
    "Reply",
    "collect",
    "json_reply",
    "sse",
    "sse_data",
    "sse_reply",
]

STALL_LIMIT_SECONDS = 10.0
"""Upper bound on a stalled handler, so a server never outlives a broken test for long."""


def sse(event: str, data: Any) -> bytes:
    """One named SSE event (Anthropic, Responses API)."""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"event: {event}\ndata: {payload}\n\n".encode()


def sse_data(data: Any) -> bytes:
    """One unnamed SSE event (Chat Completions chunks, ``[DONE]``)."""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"data: {payload}\n\n".encode()


@dataclass
class Reply:
    status: int = 200
    parts: list[bytes] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    end: Literal["complete", "drop", "stall"] = "complete"
    content_type: str = "text/event-stream"


def sse_reply(parts: list[bytes], end: Literal["complete", "drop", "stall"] = "complete") -> Reply:
    return Reply(parts=parts, end=end)


def json_reply(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    return Reply(
        status=status,
        parts=[json.dumps(body).encode()],
        headers=headers or {},
        content_type="application/json",
    )


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _not_found(self) -> None:
        self.close_connection = True
        self.send_response(404)
        self.send_header("content-length", "0")
        self.send_header("connection", "close")
        self.end_headers()

    def do_GET(self) -> None:
        # The runner's probe of a local server's limits (/props, /v1/models...): not served.
        self._not_found()

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if self.path.endswith("/api/show"):  # the probe's Ollama step: no scripted reply
            self._not_found()
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.record(Recorded(self.path, headers, json.loads(raw)))
        reply = self.server.next_reply()
        self.close_connection = True
        self.send_response(reply.status)
        self.send_header("content-type", reply.content_type)
        self.send_header("connection", "close")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.content_type == "application/json":
            body = b"".join(reply.parts)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for part in reply.parts:
            self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            self.wfile.flush()
        if reply.end == "complete":
            self.wfile.write(b"0\r\n\r\n")
        elif reply.end == "drop":
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        else:
            self.server.stopping.wait(STALL_LIMIT_SECONDS)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, replies: list[Reply]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.replies = deque(replies)
        self.requests: list[Recorded] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()

    def record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def next_reply(self) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        return json_reply(500, {"error": {"message": "loopback: no scripted reply left"}})


class LoopbackServer:
    """A running scripted server; use as a context manager or call ``stop``."""

    def __init__(self, *replies: Reply) -> None:
        self._server = _Server(list(replies))
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[Recorded]:
        return self._server.requests

    def stop(self) -> None:
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=STALL_LIMIT_SECONDS)

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def collect(stream: Any) -> tuple[list[Any], Exception | None]:
    """Drain a provider stream: the events yielded, and the error that ended it (if any)."""
    events: list[Any] = []
    try:
        async for event in stream:
            events.append(event)
    except Exception as exc:
        return events, exc
    return events, None
