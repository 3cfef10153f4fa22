"""A reply that does not reach its end is recorded as cut short, saying which side broke off.

The agent killed mid-request closes its connection; an upstream that dies mid-stream leaves the
chunked reply unfinished. Either way the proxy records what came (the usage of a
``message_start`` is the input side only, its ``output_tokens`` a placeholder), and the record
says the reply was cut short and by whom, so nobody reads the partial figures as a whole reply.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pytest

from steiner_tui.capture.report import capture_report, decode_all
from steiner_tui.capture.snapshots import to_snapshots
from steiner_tui.capture.store import RecordedRequest, read_capture
from tests.capture.helpers import ProxyThread
from tests.capture.test_proxy_loopback import ANTHROPIC_BODY

START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "usage": {
            "input_tokens": 40,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "output_tokens": 1,
        },
    },
}
DELTA = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}


def chunk(name: str, value: dict[str, Any]) -> bytes:
    data = f"event: {name}\ndata: {json.dumps(value)}\n\n".encode()
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


class Upstream:
    """Sends ``message_start``, then waits for ``go``; then either sends deltas until the
    client is gone (``break_off`` False) or drops the connection mid-reply."""

    def __init__(self, *, break_off: bool) -> None:
        self.break_off = break_off
        self.go = threading.Event()
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.write(chunk("message_start", START))
                self.wfile.flush()
                upstream.go.wait(30)
                if break_off:
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                for _ in range(200):  # the proxy finds the agent gone on one of these writes
                    try:
                        self.wfile.write(chunk("content_block_delta", DELTA))
                        self.wfile.flush()
                    except OSError:
                        return
                    if upstream.done.wait(0.01):
                        return

        self.done = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.go.set()
        self.done.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()


@pytest.fixture(params=[False, True], ids=["agent-gone", "upstream-broke-off"])
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Upstream, ProxyThread]]:
    upstream = Upstream(break_off=request.param)
    proxy = ProxyThread(tmp_path / "sessions", upstream.url).start()
    yield upstream, proxy
    proxy.stop()
    upstream.stop()


def _recorded(base: Path, capture_id: str) -> RecordedRequest:
    """The request once its reply is recorded (the proxy records it as the stream ends)."""
    for _ in range(3000):
        _, [request] = read_capture(base, capture_id)
        if request.reply is not None:
            return request
        threading.Event().wait(0.01)
    raise AssertionError("the reply was never recorded")


def test_a_reply_cut_short_is_recorded_as_such(
    tmp_path: Path, setup: tuple[Upstream, ProxyThread]
) -> None:
    upstream, proxy = setup
    content = json.dumps(ANTHROPIC_BODY).encode()
    with (
        httpx2.Client(timeout=30) as client,
        client.stream(
            "POST", f"{proxy.url}/v1/messages", content=content, headers={"x-api-key": "k"}
        ) as reply,
    ):
        chunks = reply.iter_raw()
        assert b"message_start" in next(chunks)
        if not upstream.break_off:
            reply.close()  # the agent is killed: its connection goes
        upstream.go.set()
        if upstream.break_off:
            with pytest.raises(httpx2.HTTPError):
                b"".join(chunks)
    recorded = _recorded(tmp_path / "sessions", proxy.writer.capture_id)
    assert recorded.reply is not None
    expected = "the upstream broke off" if upstream.break_off else "the agent closed the connection"
    assert recorded.reply.cut.startswith(expected)
    assert recorded.reply.usage is not None and recorded.reply.usage.input_tokens == 40
    [request] = capture_report([recorded])["requests"]
    assert request["reply"]["cut"].startswith(expected)
    [snapshot] = to_snapshots(decode_all([recorded]))
    assert f"reply cut short: {expected}" in snapshot.estimate_strategy
