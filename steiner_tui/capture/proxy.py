"""The capture proxy: a local HTTP server between a coding agent and its model API.

Why a proxy: Claude Code and Codex do not show what they send. Pointed at this server
(``ANTHROPIC_BASE_URL`` for Claude Code, a ``[model_providers]`` entry for Codex), every
request passes through it, is forwarded to the upstream and recorded as it was sent.

* The server is aiohttp's (``aiohttp.web``): a small, well-kept asyncio server that streams a
  response chunk by chunk (``StreamResponse.write``) and binds to a socket it is handed, so the
  caller knows the port before anything runs and stops the server by its handle. The upstream
  is called with ``httpx2``, the HTTP client the provider SDKs already bring.
* Requests are forwarded as they came (method, path and query, body, headers, API keys
  included), except hop-by-hop headers and ``Accept-Encoding``, which asks the upstream for an
  uncompressed reply so its usage can be read. A compressed request body (``Content-Encoding:
  zstd``, gzip, deflate) goes upstream byte for byte; the capture records it decoded
  (``capture.encoding``). The reply's bytes are streamed back unchanged, chunk by chunk, as they
  arrive.
* Only the model calls are recorded (``POST`` to ``…/messages``, ``…/responses``,
  ``…/chat/completions``): the body when it arrives, the reply's status, size and usage when
  it ends, before the reply's last chunk goes out (so an agent that has its whole reply finds
  it recorded). A reply that stops before its end (the agent closed its connection: killed
  mid-request; the upstream broke off, when the agent's connection is dropped too) is recorded
  with what came and why it was cut short. Headers are never recorded or logged: keys travel in
  them. Other requests (Claude Code's ``HEAD /api/hello``) are forwarded and not recorded.
  A WebSocket upgrade (Codex tries ``GET /v1/responses`` with ``Upgrade: websocket`` first when
  it is pointed at the proxy with ``openai_base_url``) is answered at once with 426 Upgrade
  Required and nothing is recorded or forwarded: the proxy reads model calls as HTTP bodies,
  and Codex falls back to ``POST /v1/responses``.
* Forwarding comes first, recording is best effort: a request is sent upstream while its body
  is decoded (at most ``capture.encoding.DECODED_CAP``) and written in a thread, and a record
  that cannot be written (a full disk) is told to ``on_problem``, never a failed request. A
  reply is kept for its usage up to ``capture.store.RECORD_CAP``.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from typing import Any

import httpx2
import msgspec
from aiohttp import web

from steiner_tui.capture.decode import API_ANTHROPIC, api_of_path
from steiner_tui.capture.encoding import decode_content
from steiner_tui.capture.store import RECORD_CAP, CaptureWriter
from steiner_tui.capture.usage import Usage, reply_usage

__all__ = [
    "CaptureProxy",
    "ProxyEvent",
]

ANTHROPIC_UPSTREAM = "https://api.anthropic.com"
OPENAI_UPSTREAM = "https://api.openai.com"

_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "accept-encoding",
    }
)
_REPLY_DROPPED = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "content-length", "trailer", "upgrade"}
)


class ProxyEvent(msgspec.Struct, frozen=True):
    """What the proxy tells its owner about one recorded request (no headers, no body)."""

    seq: int
    method: str
    path: str
    status: int
    request_bytes: int
    reply_bytes: int
    usage: Usage | None
    cut: str = ""
    """Why the reply stopped before its end ("" when it ended)."""


def upstream_for(path: str, headers: dict[str, str], upstream: str | None) -> str:
    """The base URL a request goes to: ``upstream`` when given, else the API's own."""
    if upstream:
        return upstream.rstrip("/")
    if (
        api_of_path(path) == API_ANTHROPIC
        or "anthropic-version" in headers
        or ("x-api-key" in headers)
    ):
        return ANTHROPIC_UPSTREAM
    return OPENAI_UPSTREAM


class CaptureProxy:
    """Forwards requests to the upstream and records the model calls in ``writer``."""

    def __init__(
        self,
        writer: CaptureWriter,
        upstream: str | None = None,
        *,
        on_event: Callable[[ProxyEvent], None] | None = None,
        on_problem: Callable[[str], None] | None = None,
        timeout: float = 600.0,
    ) -> None:
        self.writer = writer
        self.upstream = upstream
        self.on_event = on_event
        self.on_problem = on_problem
        self._timeout = httpx2.Timeout(timeout, connect=30.0)
        self._client: httpx2.AsyncClient | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on ``host:port`` (0: any free port); returns the port."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
        self.port = int(sock.getsockname()[1])
        app = web.Application(client_max_size=1 << 30)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._client = httpx2.AsyncClient(timeout=self._timeout, follow_redirects=False)
        # auto_decompress off: the body is read as sent, so it goes upstream byte for byte.
        self._runner = web.AppRunner(
            app,
            access_log=None,
            handle_signals=False,
            shutdown_timeout=1.0,
            auto_decompress=False,
        )
        await self._runner.setup()
        await web.SockSite(self._runner, sock).start()
        return self.port

    async def stop(self) -> None:
        """Stop listening and close the upstream connections."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("upgrade", "").lower() == "websocket":
            return web.json_response(
                {"error": {"message": "the capture proxy speaks plain HTTP only: use POST"}},
                status=426,
                headers={"Upgrade": "HTTP/1.1", "Connection": "Upgrade"},
            )
        body = await request.read()
        path = request.raw_path
        headers = {k.lower(): v for k, v in request.headers.items()}
        # Forwarded first: decoding and writing the record run in a thread meanwhile.
        recording: asyncio.Future[int] | None = None
        if request.method == "POST" and api_of_path(request.path):
            encoding = headers.get("content-encoding", "")
            recording = asyncio.ensure_future(
                asyncio.to_thread(self._record_request, request.method, path, body, encoding)
            )
        forward = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        forward["Accept-Encoding"] = "identity"
        url = upstream_for(path, headers, self.upstream) + path
        assert self._client is not None
        try:
            upstream = await self._client.send(
                self._client.build_request(request.method, url, content=body, headers=forward),
                stream=True,
            )
        except httpx2.HTTPError as exc:
            message = (
                f"the capture proxy could not reach {url.split('?', 1)[0]}: {type(exc).__name__}"
            )
            seq = await recording if recording is not None else 0
            if seq:
                await self._record(self.writer.reply, seq, 502, "application/json", 0, None)
                self._tell(seq, request, 502, len(body), 0, None)
            return web.json_response(
                {"error": {"type": "proxy_error", "message": message}}, status=502
            )
        reply = web.StreamResponse(status=upstream.status_code, reason=upstream.reason_phrase)
        for key, value in upstream.headers.multi_items():
            if key.lower() not in _REPLY_DROPPED:
                reply.headers.add(key, value)
        seq = await recording if recording is not None else 0
        chunks: list[bytes] = []
        kept = 0
        reply_recorded = not seq
        cut = "the agent closed the connection"  # unless the upstream breaks off first
        try:
            await reply.prepare(request)
            async for chunk in upstream.aiter_raw():
                if seq and kept < RECORD_CAP:  # the usage is read from what is kept
                    chunks.append(chunk)
                    kept += len(chunk)
                await reply.write(chunk)
            # Recorded before the reply's last chunk: once the agent has the whole reply, the
            # capture has its usage too.
            if seq:
                await self._record_reply(seq, request, len(body), upstream, b"".join(chunks))
            reply_recorded = True
            await reply.write_eof()
        except ConnectionError:
            pass  # the agent went away: keep what came
        except httpx2.HTTPError as exc:
            cut = f"the upstream broke off ({type(exc).__name__})"
            # The agent sees the break as it would without the proxy: the connection drops,
            # where ending the chunked reply would pass a cut reply off as a whole one.
            if request.transport is not None:
                request.transport.abort()
        finally:
            await upstream.aclose()
            if not reply_recorded:
                await self._record_reply(seq, request, len(body), upstream, b"".join(chunks), cut)
        return reply

    async def _record_reply(
        self,
        seq: int,
        request: web.Request,
        size: int,
        upstream: httpx2.Response,
        raw: bytes,
        cut: str = "",
    ) -> None:
        content_type = upstream.headers.get("content-type", "")
        encoding = upstream.headers.get("content-encoding", "")
        text = (await asyncio.to_thread(decode_content, raw, encoding)).body
        usage = reply_usage(api_of_path(request.path), content_type, text)
        status = upstream.status_code
        await self._record(self.writer.reply, seq, status, content_type, len(raw), usage, cut)
        self._tell(seq, request, status, size, len(raw), usage, cut)

    def _record_request(self, method: str, path: str, body: bytes, encoding: str) -> int:
        """Decode and record a request (in a thread); its sequence number, 0 if not recorded."""
        decoded = decode_content(body, encoding)
        try:
            return self.writer.request(method, path, decoded.body, decoded.problem)
        except OSError as exc:
            self._problem(f"request to {path.split('?', 1)[0]} not recorded: {exc}")
            return 0

    async def _record(self, write: Callable[..., None], *args: Any) -> None:
        """``write(*args)`` in a thread, best effort: a write that fails is a problem told to
        ``on_problem``, never a failed reply."""
        try:
            await asyncio.to_thread(write, *args)
        except OSError as exc:
            self._problem(f"reply to request {args[0]} not recorded: {exc}")

    def _problem(self, text: str) -> None:
        if self.on_problem is not None:
            with contextlib.suppress(Exception):  # the owner's display must not break a request
                self.on_problem(text)

    def _tell(
        self,
        seq: int,
        request: web.Request,
        status: int,
        size: int,
        reply_bytes: int,
        usage: Usage | None,
        cut: str = "",
    ) -> None:
        if self.on_event is not None:
            event = ProxyEvent(
                seq, request.method, request.path, status, size, reply_bytes, usage, cut
            )
            with contextlib.suppress(Exception):  # the owner's display must not break a request
                self.on_event(event)
