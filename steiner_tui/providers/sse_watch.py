"""What the SDKs' event-stream decoders do not tell: ``data: [DONE]``, and bytes not UTF-8.

The OpenAI SDK ends its iteration at ``data: [DONE]`` exactly as at the end of the body, so a
Chat Completions reply that a local server ends with ``[DONE]`` and no ``finish_reason`` could
not be told from a stream cut off where its body may end (a proxy's clean close). Both SDKs
decode each line as strict UTF-8, so one bad byte in a delta ended the reply with "'utf-8'
codec can't decode byte 0xe9 in position 195"; their decoders are not public.

``watch_event_stream`` is a response hook for the SDK's HTTP client (``event_hooks``, public
httpx API): it wraps an event stream's bytes before the SDK reads them, as httpx wraps them
itself. The wrapper notes a ``data: [DONE]`` line, and hands on each byte that is not UTF-8 as
U+FFFD, noting which (valid text passes unchanged). The provider finds the ``StreamWatch`` in
the response's ``extensions`` (``watch_of``).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx2

__all__ = ["StreamWatch", "watch_event_stream", "watch_of"]

_KEY = "steiner_tui.stream_watch"
_LINE_END = re.compile(rb"\r\n|\r|\n")
_DONE = (b"data: [DONE]", b"data:[DONE]")
"""How the SDK recognises the end marker (data that starts with ``[DONE]``)."""
_NOT_UTF8 = re.compile("[\udc80-\udcff]")
"""A byte that is not UTF-8, as ``surrogateescape`` decodes it."""
_LISTED = 8


class StreamWatch(httpx2.AsyncByteStream):
    """An event stream's bytes, passed on with what the SDK's decoder will not say."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._line = b""
        self.done = False
        """A ``data: [DONE]`` line arrived."""
        self.not_utf8: list[int] = []
        """The bytes that were not UTF-8 (each handed on as U+FFFD), in order."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._see_lines(chunk)
            if chunk.isascii() and not self._decoder.getstate()[0]:
                yield chunk  # valid as it came, no character pending: not decoded and encoded
            elif passed := self._utf8(self._decoder.decode(chunk)):
                yield passed
        if rest := self._utf8(self._decoder.decode(b"", final=True)):
            yield rest  # a character cut short at the end

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _see_lines(self, chunk: bytes) -> None:
        lines = _LINE_END.split(self._line + chunk)
        self._line = lines.pop()
        if len(self._line) > len(_DONE[0]):
            self._line = b"-"  # a longer line cannot be the marker: its end is not kept
        self.done = self.done or any(line.startswith(_DONE) for line in lines)

    def _utf8(self, text: str) -> bytes:
        if not text.isascii():
            bad = _NOT_UTF8.findall(text)
            if bad:
                self.not_utf8 += (ord(char) - 0xDC00 for char in bad)
                text = _NOT_UTF8.sub("\ufffd", text)
        return text.encode()

    def said(self) -> str:
        """``the server sent bytes that are not UTF-8 (0xE9 0xFF): each is shown as �``."""
        listed = " ".join(f"0x{byte:02X}" for byte in self.not_utf8[:_LISTED])
        more = " …" if len(self.not_utf8) > _LISTED else ""
        return (
            f"the server sent bytes that are not UTF-8 in the reply ({listed}{more}): each is "
            "shown as \ufffd"
        )


async def watch_event_stream(response: Any) -> None:
    """The response hook: an event stream's bytes go through a ``StreamWatch``."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        watch = StreamWatch(response.stream)
        response.stream = watch
        response.extensions[_KEY] = watch


def watch_of(events: object) -> StreamWatch | None:
    """The watch over an SDK stream's response (None without one: another HTTP client)."""
    response = getattr(events, "response", None)
    watch = getattr(response, "extensions", {}).get(_KEY)
    return watch if isinstance(watch, StreamWatch) else None
