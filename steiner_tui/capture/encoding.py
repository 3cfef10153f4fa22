"""Undo a request's or a reply's ``Content-Encoding``, for the record only.

Agents may compress what they post (Codex has a request-compression feature that sends
``Content-Encoding: zstd``), and the proxy forwards those bytes upstream unchanged; but the
capture decodes the JSON inside, so the recorded copy is the body without its encoding.
Understood: ``gzip`` (and ``x-gzip``), ``deflate`` (zlib-wrapped or raw, as servers and
clients disagree), ``zstd`` (the ``zstandard`` wheel: Python 3.11 has no zstd of its own) and
``identity``. Several encodings (``gzip, zstd``) are undone last first. ``br`` is not: no
Brotli wheel is a dependency, so a Brotli body is recorded as it came and says so.
"""

from __future__ import annotations

import gzip
import zlib

import msgspec
import zstandard

__all__ = ["Decoded", "decode_content"]


class Decoded(msgspec.Struct, frozen=True):
    """The body without its encoding, or the body as it came with ``problem`` saying why."""

    body: bytes
    problem: str = ""


def _zstd(body: bytes) -> bytes:
    # A streaming decompressor: clients write frames without the content size in the header.
    reader = zstandard.ZstdDecompressor().decompressobj()
    return reader.decompress(body)


def _deflate(body: bytes) -> bytes:
    try:
        return zlib.decompress(body)
    except zlib.error:
        return zlib.decompress(body, -zlib.MAX_WBITS)


def _one(body: bytes, encoding: str) -> bytes:
    if encoding in ("gzip", "x-gzip"):
        return gzip.decompress(body)
    if encoding == "deflate":
        return _deflate(body)
    if encoding == "zstd":
        return _zstd(body)
    raise ValueError(f"content encoding {encoding!r} is not understood")


def decode_content(body: bytes, header: str) -> Decoded:
    """``body`` with the encodings named by the ``Content-Encoding`` ``header`` undone."""
    encodings = [e.strip().lower() for e in header.split(",") if e.strip()]
    encodings = [e for e in encodings if e != "identity"]
    out = body
    try:
        for encoding in reversed(encodings):
            out = _one(out, encoding)
    except (ValueError, OSError, EOFError, zlib.error, zstandard.ZstdError) as exc:
        return Decoded(body, f"could not undo Content-Encoding {header!r}: {exc}")
    return Decoded(out)
