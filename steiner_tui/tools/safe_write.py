"""Writing a file for write and edit: inside the project at the moment of writing, not before.

A path is checked when the call arrives, but the permission prompt may stay open for minutes,
and a symlink put in place of the file (or of a folder on its way) meanwhile would carry the
write out of the project. So the write resolves the path again after the prompt, and then
opens every folder from the project root down and the file itself with ``O_NOFOLLOW``: a
symlink found at write time refuses the write instead of being followed.

The file must also still hold what the change was computed from (``shown``: the diff the
person approved): one changed on disk while the prompt waited (in the person's editor) is not
overwritten with a change made against its old text.

Refused too, before the prompt and again at write time:

- a file with more than one hard link: its other names may be outside the project (a uv
  environment's files are hard links into uv's cache), and writing it would change them all;
- steiner-tui's own configuration: the project's ``.steiner/config.toml`` and everything in
  the user config folder (the user config, its ``[trust] folders``, global skills and
  AGENTS.md). Those are changed by the person, never by the model.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from steiner_tui import paths
from steiner_tui.tools.files import ResolvedPath, read_regular, resolve_in_root

__all__ = ["UNCHECKED", "unwritable", "write_inside"]

UNCHECKED = object()
"""``write_inside``'s ``shown`` when what the file held was not read (too large to compare)."""

CHANGED_MEANWHILE = "it changed on disk while permission was asked; nothing written (read it again)"


def unwritable(root: Path, target: ResolvedPath, verb: str) -> str | None:
    """Why ``target`` may not be written (a message), or ``None``."""
    real_root = root.resolve()
    config = paths.config_dir().resolve()
    if target.path == paths.project_config_file(real_root) or target.path.is_relative_to(config):
        return (
            f"cannot {verb} {target.given}: steiner-tui's configuration is changed by the "
            "person only (refused like a path outside the project)"
        )
    try:
        info = os.lstat(target.path)
    except OSError:
        return None
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        return f"cannot {verb} {target.given}: {_hard_link(info.st_nlink)}"
    return None


def _hard_link(links: int) -> str:
    return (
        f"the file has {links} hard links, and its other names may be outside the project "
        "(writing it would change them too)"
    )


def write_inside(
    root: Path, target: ResolvedPath, data: bytes, verb: str, shown: object = UNCHECKED
) -> str:
    """Write ``data`` to ``target`` (parents created), following no symlink; an error message
    (``cannot VERB PATH: ...``, as ``unwritable`` and ``files.load_file`` say it), or ``""``
    when written.

    The path is resolved again first: it must still name the same file inside the project,
    and that file must hold ``shown`` (its bytes when the change was computed, None: there was
    no file), unless ``shown`` is ``UNCHECKED``.
    """
    again = resolve_in_root(root, target.given, verb)
    if isinstance(again, str) or again.path != target.path:
        error = "a symlink on its path changed while permission was asked; nothing written"
    elif (reason := unwritable(root, again, verb)) is not None:
        return reason
    elif shown is not UNCHECKED and _held(again.path) != shown:
        error = CHANGED_MEANWHILE
    else:
        try:
            error = _write(root.resolve(), again.path.relative_to(root.resolve()).parts, data)
        except OSError as exc:
            error = exc.strerror or str(exc)
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                error = "a symlink was put on its path; nothing written"
    return f"cannot {verb} {target.given}: {error}" if error else ""


def _held(path: Path) -> object:
    """What ``path`` holds now: its bytes, None for no file, or a value equal to nothing (a
    file that cannot be read as it was)."""
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return object()


def _write(real_root: Path, parts: tuple[str, ...], data: bytes) -> str:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    folder = os.open(real_root, flags)
    try:
        for name in parts[:-1]:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, dir_fd=folder)
            inner = os.open(name, flags, dir_fd=folder)
            os.close(folder)
            folder = inner
        fd = os.open(
            parts[-1],
            os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
            0o666,
            dir_fd=folder,
        )
    finally:
        os.close(folder)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_nlink > 1:
            return _hard_link(info.st_nlink)
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return ""
