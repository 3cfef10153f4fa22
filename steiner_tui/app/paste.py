"""Pastes: a long one is shown collapsed, a paste too long for the prompt is kept in files.

A paste over ``PASTE_LINES`` lines is one placeholder line in the prompt (``placeholder``) and,
once sent, a collapsed ``[pasted 600 lines]`` in the conversation; the model gets the whole
text. The prompt keeps the text in memory until the message is sent, so a paste deleted before
sending leaves nothing behind.

A paste too long for the prompt is written, when its message is sent, to
``<project>/.steiner/pastes/paste-<n>.txt`` (the project's own steiner folder, inside the
project so the ``read`` tool can page through them; numbered so no paste replaces another). A
paste larger than the read tool opens (``MAX_FILE_BYTES``) is kept in parts of about one size,
cut at line ends, each a file of its own. The folder is git-ignored by a ``.steiner/.gitignore``
written with the first such paste. Nothing of the paste is lost, and the message holds one line
naming the files (``sessions.titles.paste_line``: a session's title leaves it out).
"""

from __future__ import annotations

from pathlib import Path

from steiner_tui.sessions.titles import paste_line
from steiner_tui.tools.files import MAX_FILE_BYTES

__all__ = [
    "PASTE_LINES",
    "byte_size",
    "line_count",
    "paste_notice",
    "placeholder",
    "save_pastes",
]

PASTE_LINES = 10
"""A paste of more lines than this is shown collapsed, in the prompt and in the conversation."""

PASTES_DIR = Path(".steiner") / "pastes"
"""Where long pastes are kept, relative to the project."""


def byte_size(text: str) -> str:
    """``text``'s UTF-8 size in the workbench's one style: ``31,457,280 B``."""
    return f"{len(text.encode('utf-8', errors='surrogatepass')):,} B"


def line_count(text: str) -> int:
    """How many lines ``text`` shows (a final line end starts no new line)."""
    return text.count("\n") + (not text.endswith("\n"))


def placeholder(text: str, number: int, *, kept: bool) -> str:
    """The prompt's line for paste ``number``: ``[pasted 600 lines #1]`` (``kept``: too long
    for the prompt, named by its size and written to files when sent)."""
    size = byte_size(text) if kept else f"{line_count(text):,} lines"
    return f"[pasted {size} #{number}]"


def _cut(data: bytes, start: int, limit: int) -> int:
    """Where the part beginning at ``start`` ends: after the last line end within ``limit``
    bytes, else at the last character boundary (never inside a UTF-8 sequence)."""
    end = start + limit
    if end >= len(data):
        return len(data)
    line_end = data.rfind(b"\n", start, end)
    if line_end >= start:
        return line_end + 1
    while end > start + 1 and data[end] & 0xC0 == 0x80:  # a continuation byte
        end -= 1
    return end


def _write_next(folder: Path, data: bytes) -> str:
    number = 1
    while True:
        path = folder / f"paste-{number}.txt"
        try:
            with path.open("xb") as file:
                file.write(data)
        except FileExistsError:
            number += 1
            continue
        return (PASTES_DIR / path.name).as_posix()


IGNORE = (
    "# steiner-tui: pasted text kept for the model, not part of the project\npastes/\n.gitignore\n"
)
"""The ``.steiner/.gitignore`` written with the first paste (an existing file is kept); it
ignores itself too, or ``git status`` listed ``.steiner/`` as new after a paste."""


def _ignore_pastes(steiner_dir: Path) -> None:
    """Keep pastes out of git: ``.steiner/.gitignore`` ignores ``pastes/`` and itself (written
    once)."""
    try:
        with (steiner_dir / ".gitignore").open("x", encoding="utf-8") as file:
            file.write(IGNORE)
    except FileExistsError:
        return


def save_pastes(project_root: Path, text: str, *, limit: int = MAX_FILE_BYTES) -> tuple[str, ...]:
    """Write ``text`` to the next free ``paste-<n>.txt`` files, at most ``limit`` bytes each;
    returns their project-relative paths, in order.

    Raises:
        OSError: the folder or a file cannot be written.
    """
    folder = project_root / PASTES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    _ignore_pastes(folder.parent)
    data = text.encode("utf-8", errors="surrogatepass")
    saved: list[str] = []
    start = 0
    while start < len(data) or not saved:
        remaining = len(data) - start
        parts = max(1, -(-remaining // limit))
        end = _cut(data, start, -(-remaining // parts))  # parts of about one size
        saved.append(_write_next(folder, data[start:end]))
        start = end
    return tuple(saved)


def paste_notice(size: str, saved: tuple[str, ...], *, reads: bool = True) -> tuple[str, str]:
    """The line the prompt holds for a paste of ``size`` kept in ``saved``, and the notice
    (``reads``: the model can call its read tool; a server may ignore tools)."""
    if len(saved) == 1:
        where, them, files, names = saved[0], "it", "the file", "name"
    else:
        where, them, files = f"{len(saved)} parts, {', '.join(saved)}", "them in order", "the files"
        names = "names"
    kept = f"{size} pasted: too long for the prompt, kept in {where}; the prompt names {files}"
    if reads:
        return paste_line(size, where, several=len(saved) > 1), (
            f"{kept} and the model reads {them} with its read tool."
        )
    return paste_line(size, where, several=len(saved) > 1), (
        f"{kept}, but this model cannot read files (its server ignores tools): it gets the "
        f"{names} only. Paste less, or switch to a model that calls tools (/model)."
    )
