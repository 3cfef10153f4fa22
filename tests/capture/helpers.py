"""The capture proxy on 127.0.0.1 in a thread with its own event loop, stopped by its handle."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from steiner_tui.capture.proxy import CaptureProxy, ProxyEvent
from steiner_tui.capture.store import CaptureWriter

__all__ = ["ProxyThread"]


class ProxyThread:
    """``start`` returns once the proxy listens; ``stop`` waits until it has closed."""

    def __init__(self, base: Path, upstream: str, capture_id: str | None = None) -> None:
        self.writer = CaptureWriter(base, upstream, capture_id)
        self.events: list[ProxyEvent] = []
        self.proxy = CaptureProxy(self.writer, upstream, on_event=self.events.append)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ProxyThread:
        self._thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self.proxy.start(), self.loop).result(30)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)
        self.loop.close()
        self.writer.close()
