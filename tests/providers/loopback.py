"""A scripted HTTP server on 127.0.0.1 that speaks the model APIs' wire protocols to real SDKs.

Each POST takes the next scripted ``Reply``: a status, headers and body parts. Streaming bodies
go out with chunked transfer encoding, one HTTP chunk per part, as real SSE servers send them.
GETs, and the Ollama step of the runner's server-limits probe (``POST /api/show``), get a 404
and take no reply. A reply ends ``complete`` (terminating chunk), ``drop`` (socket shut down
mid-body: the client sees the connection cut), ``reset`` (closed with a TCP reset: the client's
read fails with "connection reset by peer") or ``stall`` (the handler waits after its parts);
``stall_before_headers`` makes it wait before sending anything at all. A stalled handler waits
on an event the test controls (``release()``, also set by ``stop()``; bounded by
``STALL_LIMIT_SECONDS`` so a broken test cannot hang the server), or until the client closes
the connection: the client's own timeout fires first. A reply may keep its connection open
(``keep_alive``, as llama.cpp's stays open a moment after a stream): the client pools it, and
``wait_closed`` says whether the client closed every connection it made. Requests are recorded
for assertions. The server binds port 0 and stops itself on ``stop()`` or leaving its ``with``
block. A reply can be meant for some requests only (``when``), e.g. the one that carries a
later turn's text.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "LoopbackServer",
    "mentions",
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


def mentions(value: Any, text: str) -> bool:
    """True when a string inside the JSON ``value`` contains ``text``."""
    if isinstance(value, str):
        return text in value
    if isinstance(value, dict):
        return any(mentions(v, text) for v in value.values())
    if isinstance(value, list):
        return any(mentions(v, text) for v in value)
    return False


@dataclass
class Reply:
    status: int = 200
    parts: list[bytes] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    end: Literal["complete", "drop", "reset", "stall"] = "complete"
    content_type: str = "text/event-stream"
    stall_before_headers: bool = False
    """Wait for ``release()`` before sending the status line (the client sees no response)."""
    hang_up: bool = False
    """Close the connection without a response (a server that accepted it, then went away)."""
    when: Callable[[Recorded], bool] | None = None
    """Only for requests this accepts (taken before replies for any request). A test that
    gives up on a request under load may leave its reply queued: a later turn's reply marked
    with ``when`` still goes to that turn."""
    keep_alive: bool = False
    """Keep the connection open after a complete reply (the client pools it for the next)."""


def sse_reply(
    parts: list[bytes], end: Literal["complete", "drop", "reset", "stall"] = "complete"
) -> Reply:
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

    def handle(self) -> None:
        with self.server.connections:
            self.server.open_connections += 1
        try:
            super().handle()  # until the client closes a connection kept alive
        finally:
            with self.server.connections:
                self.server.open_connections -= 1
                self.server.connections.notify_all()

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
        request = Recorded(self.path, headers, json.loads(raw))
        self.server.record(request)
        reply = self.server.next_reply(request)
        self.close_connection = not (reply.keep_alive and reply.end == "complete")
        if reply.stall_before_headers:
            self._stall()
            return
        if reply.hang_up:
            self.close_connection = True
            return
        self.send_response(reply.status)
        self.send_header("content-type", reply.content_type)
        if self.close_connection:
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
        elif reply.end == "reset":
            self.wfile.flush()
            linger = struct.pack("ii", 1, 0)  # close at once, with a reset
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            self.connection.close()
        else:
            self._stall()

    def _stall(self) -> None:
        """Wait for ``release()``, or until the client closes the connection."""
        deadline = time.monotonic() + STALL_LIMIT_SECONDS
        while not self.server.released.wait(0.02) and time.monotonic() < deadline:
            try:
                readable, _, _ = select.select([self.connection], [], [], 0)
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    return
            except OSError:  # reset by the client
                return


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, replies: list[Reply]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.replies = deque(replies)
        self.requests: list[Recorded] = []
        self.released = threading.Event()
        """Set by the test (``release()``) or ``stop()``: stalled handlers return."""
        self.connections = threading.Condition()
        self.open_connections = 0
        """Connections accepted and not yet closed by the client."""
        self._lock = threading.Lock()

    def record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def next_reply(self, request: Recorded) -> Reply:
        """The first reply meant for ``request``, else the first one meant for any."""
        with self._lock:
            chosen = next((r for r in self.replies if r.when and r.when(request)), None)
            if chosen is None:
                chosen = next((r for r in self.replies if r.when is None), None)
            if chosen is not None:
                self.replies.remove(chosen)
                return chosen
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

    def wait_closed(self) -> bool:
        """Whether the client has closed every connection it made (waits for it, bounded)."""
        with self._server.connections:
            return self._server.connections.wait_for(
                lambda: self._server.open_connections == 0, STALL_LIMIT_SECONDS
            )

    def release(self) -> None:
        """Let stalled handlers return (the ones still waiting close their connection)."""
        self._server.released.set()

    def stop(self) -> None:
        self._server.released.set()
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
