"""Shared file rules for the tools: paths stay inside the project, and what counts as readable.

Every path a tool receives is resolved (symlinks included) and refused when it lands outside the
project root; a hard link to a private file is refused too (``PRIVATE_HARD_LINK``). Only regular
files are read: a named pipe, socket or device is refused without waiting on it
(``read_regular``). Files over 10 MiB are refused before they are read; a NUL byte in the first
8 KiB marks a binary file, unless the magic bytes say PNG, JPEG, GIF or WebP (an image the model
can be shown). Error strings are the tools' user-facing messages, so they live here once.
"""

from __future__ import annotations

import errno
import math
import os
import stat
from pathlib import Path

import msgspec

from steiner_tui.errors import ToolError

__all__ = [
    "MAX_FILE_BYTES",
    "PATH_PARAMETER",
    "ResolvedPath",
    "binary_message",
    "image_media_type",
    "is_binary",
    "load_file",
    "read_regular",
    "resolve_in_root",
    "split_lines",
    "FileTooLarge",
    "NotRegularFile",
]

MAX_FILE_BYTES = 10 * 1024 * 1024
PATH_PARAMETER = {
    "type": "string",
    "description": "File path, relative to the project root (or absolute inside it).",
}
"""The ``path`` parameter of the tools that take one file."""
BINARY_SNIFF_BYTES = 8 * 1024
_MIB = 1024 * 1024
PRIVATE_HARD_LINK = (
    "a hard link to a file only its owner may read (its other name may be outside the project)"
)
"""Why a private file with more than one name is not read: a link is how a secret outside the
project (``~/.ssh``, ``~/.netrc``: mode 0600) would be brought in. Shared files with several
names, such as a uv environment's files (links into uv's cache), are readable by all and read."""
_GROWTH_READ = 64 * 1024
"""How much more to ask for when a file holds more than its ``fstat`` size said."""


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
    try:
        resolved = lexical.resolve()
    except RuntimeError:  # Python 3.11/3.12 raise it for a link loop (``a -> b -> a``)
        return f"cannot {verb} {given}: a symlink loop"
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


class NotRegularFile(ToolError):
    """Not a regular file: ``kind`` says what it is (a named pipe, a socket, a device)."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class FileTooLarge(ToolError):
    """Over the limit: ``size`` is at least what the file holds."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a directory" if stat.S_ISDIR(mode) else "not a file"


def read_regular(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, never waiting on a pipe or a device.

    The file is opened without waiting (a named pipe with no writer blocks a plain ``open``
    for ever, in a thread nothing can cancel) and checked on the open descriptor, so a file
    swapped for a pipe after a check is refused too. At most ``limit`` + 1 bytes are read: a
    file that grows while it is read (a log being written) is refused rather than read on.
    Reads ask for the size ``fstat`` gave plus one byte, not for ``limit``: a buffer of the
    limit's size, made and dropped for every small file, cost more than the read itself.

    Raises:
        NotRegularFile: a named pipe, socket, device or folder.
        PermissionError: a hard link to a private file (``PRIVATE_HARD_LINK``).
        FileTooLarge: over ``limit`` bytes.
        OSError: it cannot be opened or read (``FileNotFoundError``: it is gone).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode, size = (info := os.fstat(fd)).st_mode, info.st_size
        if not stat.S_ISREG(mode):
            raise NotRegularFile(_kind(mode))
        if info.st_nlink > 1 and not mode & stat.S_IROTH:
            raise PermissionError(errno.EACCES, PRIVATE_HARD_LINK)
        if size > limit:
            raise FileTooLarge(size)
        chunks: list[bytes] = []
        total, ask = 0, size + 1
        while total <= limit and (chunk := os.read(fd, min(ask, limit + 1 - total))):
            chunks.append(chunk)
            total += len(chunk)
            if total == size and len(chunk) < ask:
                break  # a short read of all fstat said: the end (saves a read per file)
            ask = max(ask - len(chunk), _GROWTH_READ)
    finally:
        os.close(fd)
    if total > limit:
        raise FileTooLarge(total)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def load_file(target: ResolvedPath, verb: str) -> bytes | str:
    """The file's bytes, or an error message (missing, a folder, not a regular file, or over
    the size limit)."""
    given = target.given
    try:
        if target.path.is_dir():
            return f"cannot {verb} {given}: is a directory"
        return read_regular(target.path)
    except NotRegularFile as exc:
        return f"cannot {verb} {given}: not a regular file ({exc.kind})"
    except FileTooLarge as exc:
        return too_large_message(verb, given, exc.size)
    except FileNotFoundError:
        return f"cannot {verb} {given}: no such file"
    except OSError as exc:
        return f"cannot {verb} {given}: {exc.strerror or exc}"


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
    return data.find(b"\0", 0, BINARY_SNIFF_BYTES) >= 0


def split_lines(text: str) -> list[str]:
    """The file's lines without terminators (``\\r\\n`` or ``\\n``); no phantom last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
