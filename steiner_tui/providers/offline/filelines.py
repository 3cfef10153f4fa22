"""The file lines of summary section 2: a backticked path and its verbs, grouped per folder.

A long session touches many files of one folder; listing them on one line (the folder, the
shared verbs, then the backticked file names) keeps the summary short without losing any path.
The extractor reads both forms back when a summary is carried forward.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["FILE_LINE", "GROUP_LINE", "GROUP_MIN", "group_file_lines"]


FILE_LINE = re.compile(r"^`([^`]+)`(?: \(([^)]*)\))?$")
"""One file: its path and its comma-separated verbs (read, edited, written, mentioned)."""


GROUP_LINE = re.compile(r"^`([^`]+/)` \(([^)]*)\): (`.+)$")
"""Several files of one folder with the same verbs: folder, verbs, backticked names."""


GROUP_MIN = 3


def group_file_lines(texts: Sequence[str]) -> list[str]:
    """Section-2 lines with ``GROUP_MIN`` or more files of one directory and verbs on one line.

    Other lines are returned unchanged, in their order; a group takes its first file's place.
    """
    keys: list[tuple[str, str, str] | None] = []
    for text in texts:
        match = FILE_LINE.match(text)
        path = match.group(1) if match else ""
        if not match or "/" not in path or path.endswith("/"):
            keys.append(None)
            continue
        parent, name = path.rsplit("/", 1)
        keys.append((parent + "/", match.group(2) or "mentioned", name))
    sizes: dict[tuple[str, str], int] = {}
    for key in keys:
        if key:
            sizes[key[:2]] = sizes.get(key[:2], 0) + 1
    out: list[str] = []
    done: set[tuple[str, str]] = set()
    for text, key in zip(texts, keys, strict=True):
        if key is None or sizes[key[:2]] < GROUP_MIN:
            out.append(text)
        elif key[:2] not in done:
            done.add(key[:2])
            names = ", ".join(f"`{k[2]}`" for k in keys if k and k[:2] == key[:2])
            out.append(f"`{key[0]}` ({key[1]}): {names}")
    return out
