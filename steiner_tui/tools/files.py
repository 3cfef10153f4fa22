"""Shared file rules for the tools: paths stay inside the project, and what counts as readable.

Every path a tool receives is resolved (symlinks included) and refused when it lands outside the
project root. Files over 10 MiB are refused before they are read; a NUL byte in the first 8 KiB
marks a binary file, unless the magic bytes say PNG, JPEG, GIF or WebP (an image the model can
be shown). Error strings are the tools' user-facing messages, so they live here once.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import msgspec

__all__ = [
    "BINARY_SNIFF_BYTES",
    "MAX_FILE_BYTES",
    "ResolvedPath",
    "binary_message",
    "image_media_type",
    "is_binary",
    "load_file",
    "resolve_in_root",
    "split_lines",
    "too_large_message",
]

MAX_FILE_BYTES = 10 * 1024 * 1024
BINARY_SNIFF_BYTES = 8 * 1024
_MIB = 1024 * 1024


class ResolvedPath(msgspec.Struct, frozen=True):
    """A path inside the project: as given, resolved on disk, and relative to the root."""

    given: str
    path: Path
    relative: str


def resolve_in_root(root: Path, given: str, verb: str) -> ResolvedPath | str:
    """Resolve ``given`` (relative to ``root`` or absolute) and keep it inside ``root``.

    Args:
        root: The project root.
        given: The path the model sent.
        verb: The action for error messages (``read``, ``write``...).

    Returns:
        The resolved path, or an error message when it is empty or escapes the root.
    """
    if not given.strip():
        return "path must not be empty"
    real_root = root.resolve()
    lexical = Path(os.path.normpath(root / given))
    resolved = lexical.resolve()
    if not resolved.is_relative_to(real_root):
        return f"cannot {verb} {given}: outside the project root"
    norm_root = Path(os.path.normpath(root))
    if lexical.is_relative_to(norm_root):
        relative = lexical.relative_to(norm_root).as_posix()
    elif lexical.is_relative_to(real_root):
        relative = lexical.relative_to(real_root).as_posix()
    else:
        relative = resolved.relative_to(real_root).as_posix()
    return ResolvedPath(given=given, path=resolved, relative=relative or ".")


def too_large_message(verb: str, given: str, size: int) -> str:
    """``cannot read <path>: file is N MiB, over the 10 MiB limit`` (N rounded up, 1 decimal)."""
    mib = math.ceil(size * 10 / _MIB) / 10
    return f"cannot {verb} {given}: file is {mib:.1f} MiB, over the 10 MiB limit"


def binary_message(verb: str, given: str, size: int) -> str:
    """``cannot read <path>: binary file (N bytes)``."""
    return f"cannot {verb} {given}: binary file ({size} bytes)"


def load_file(target: ResolvedPath, verb: str) -> bytes | str:
    """The file's bytes, or an error message (missing, a folder, or over the size limit)."""
    try:
        if target.path.is_dir():
            return f"cannot {verb} {target.given}: is a directory"
        size = target.path.stat().st_size
        if size > MAX_FILE_BYTES:
            return too_large_message(verb, target.given, size)
        return target.path.read_bytes()
    except FileNotFoundError:
        return f"cannot {verb} {target.given}: no such file"
    except OSError as exc:
        return f"cannot {verb} {target.given}: {exc.strerror or exc}"


def image_media_type(head: bytes) -> str | None:
    """The media type of a PNG, JPEG, GIF or WebP file from its first bytes, else ``None``."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def is_binary(data: bytes) -> bool:
    """True when the first 8 KiB hold a NUL byte."""
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def split_lines(text: str) -> list[str]:
    """The file's lines without terminators (``\\r\\n`` or ``\\n``); no phantom last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
