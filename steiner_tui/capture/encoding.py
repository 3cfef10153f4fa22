"""Undo a request's or a reply's ``Content-Encoding``, for the record only, within a limit.

Agents may compress what they post (Codex has a request-compression feature that sends
``Content-Encoding: zstd``), and the proxy forwards those bytes upstream unchanged; but the
capture decodes the JSON inside, so the recorded copy is the body without its encoding.
Understood: ``gzip`` (and ``x-gzip``), ``deflate`` (zlib-wrapped or raw, as servers and
clients disagree), ``zstd`` (the ``zstandard`` wheel: Python 3.11 has no zstd of its own) and
``identity``. Several encodings (``gzip, zstd``) are undone last first. ``br`` is not: no
Brotli wheel is a dependency, so a Brotli body is recorded as it came and says so.

Decoding streams and stops past ``DECODED_CAP``: a 1 MB gzip body once decoded to 4.1 GB (98 KB
of zstd to 6 GB). Such a body is recorded as it came, with the reason.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable

import msgspec
import zstandard

from steiner_tui.errors import CaptureError
from steiner_tui.units import byte_count

__all__ = ["DECODED_CAP", "Decoded", "decode_content"]

DECODED_CAP = 64 * 1024 * 1024
"""The most bytes a body is decoded to (an agent's largest requests are a few MB)."""
_PIECE = 1024 * 1024


class Decoded(msgspec.Struct, frozen=True):
    """The body without its encoding, or the body as it came with ``problem`` saying why."""

    body: bytes
    problem: str = ""


class _TooLarge(CaptureError, ValueError):
    """A body inflating past the cap (caught here: the body is kept as it came)."""


def _bounded_zlib(body: bytes, wbits: int, limit: int, members: bool) -> bytes:
    """``body`` inflated, at most ``limit`` bytes (``members``: gzip's, one after another)."""
    out = bytearray()
    data = body
    while True:
        inflater = zlib.decompressobj(wbits)
        chunk = data
        while chunk:  # a piece at a time: the output never holds two copies of a large body
            out += inflater.decompress(chunk, min(_PIECE, limit - len(out) + 1))
            if len(out) > limit:
                raise _TooLarge
            chunk = inflater.unconsumed_tail
        out += inflater.flush()
        if len(out) > limit:
            raise _TooLarge
        if not inflater.eof:
            raise EOFError("the compressed data ends before its end marker")
        data = inflater.unused_data
        if not members or not data.strip(b"\0"):
            return bytes(out)


def _gzip(body: bytes, limit: int) -> bytes:
    return _bounded_zlib(body, 16 + zlib.MAX_WBITS, limit, members=True)


def _deflate(body: bytes, limit: int) -> bytes:
    try:
        return _bounded_zlib(body, zlib.MAX_WBITS, limit, members=False)
    except zlib.error:
        return _bounded_zlib(body, -zlib.MAX_WBITS, limit, members=False)


def _zstd(body: bytes, limit: int) -> bytes:
    # Streamed: clients write frames without the content size in the header.
    out = bytearray()
    with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(body)) as reader:
        while piece := reader.read(_PIECE):
            out += piece
            if len(out) > limit:
                raise _TooLarge
    return bytes(out)


_DECODERS: dict[str, Callable[[bytes, int], bytes]] = {
    "gzip": _gzip,
    "x-gzip": _gzip,
    "deflate": _deflate,
    "zstd": _zstd,
}


def decode_content(body: bytes, header: str, limit: int | None = None) -> Decoded:
    """``body`` with the encodings named by the ``Content-Encoding`` ``header`` undone, when
    it decodes to at most ``limit`` bytes (default ``DECODED_CAP``)."""
    cap = DECODED_CAP if limit is None else limit
    encodings = [e.strip().lower() for e in header.split(",") if e.strip()]
    encodings = [e for e in encodings if e != "identity"]
    out = body
    try:
        for encoding in reversed(encodings):
            decoder = _DECODERS.get(encoding)
            if decoder is None:
                raise ValueError(f"content encoding {encoding!r} is not understood")
            out = decoder(out, cap)
    except _TooLarge:
        return Decoded(
            body,
            f"Content-Encoding {header!r} decodes to over {byte_count(cap)}: recorded as it came",
        )
    except (ValueError, OSError, EOFError, zlib.error, zstandard.ZstdError) as exc:
        return Decoded(body, f"could not undo Content-Encoding {header!r}: {exc}")
    return Decoded(out)
