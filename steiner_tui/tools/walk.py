"""Walking the project for ``grep`` and ``glob``: fixed skips plus the root ``.gitignore``.

Version-control, virtualenv, dependency and cache folders are always skipped. The root
``.gitignore`` is honoured for its common forms: ``name``, ``*.ext``, ``dir/``, ``/anchored``,
``a/b`` (anchored because of the inner slash), ``**`` and ``!negation`` (the last matching line
wins). Nested ``.gitignore`` files and escapes are not interpreted. Symlinks are not followed
into folders, and a file link that resolves outside the project, or into a loop, is skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec

__all__ = ["SKIPPED_DIRS", "IgnoreRules", "glob_to_regex", "load_ignore_rules", "walk_files"]

SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "node_modules", "__pycache__", ".mypy_cache",
     ".ruff_cache", ".pytest_cache"}
)  # fmt: skip


def glob_to_regex(pattern: str) -> str:
    """Translate a glob (``*``, ``?``, ``[...]``, ``**``) over ``/``-separated paths to a regex."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[" and (close := pattern.find("]", i + 2)) > 0:
            body = pattern[i + 1 : close]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = close + 1
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


class _Rule(msgspec.Struct, frozen=True):
    regex: re.Pattern[str]
    anchored: bool
    dir_only: bool
    negated: bool


class IgnoreRules(msgspec.Struct, frozen=True):
    """Parsed root ``.gitignore`` lines, in file order."""

    rules: tuple[_Rule, ...] = ()

    @classmethod
    def parse(cls, text: str) -> IgnoreRules:
        """Parse ``.gitignore`` text (blank lines and ``#`` comments skipped)."""
        rules = []
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            line = line.removeprefix("!")
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            line = line.lstrip("/")
            if line:
                regex = re.compile(glob_to_regex(line) + r"\Z")
                rules.append(_Rule(regex, anchored, dir_only, negated))
        return cls(tuple(rules))

    def ignored(self, relative: str, is_dir: bool) -> bool:
        """True when the root-relative path is ignored (its parents are checked by the walk)."""
        name = relative.rsplit("/", 1)[-1]
        result = False
        for rule in self.rules:
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.match(relative if rule.anchored else name):
                result = not rule.negated
        return result


def load_ignore_rules(root: Path) -> IgnoreRules:
    """The root ``.gitignore`` rules (none when the file is missing or unreadable)."""
    try:
        return IgnoreRules.parse(
            (root / ".gitignore").read_text(encoding="utf-8", errors="replace")
        )
    except OSError:
        return IgnoreRules()


def walk_files(root: Path, start: Path, rules: IgnoreRules) -> Iterator[tuple[Path, str]]:
    """Files under ``start`` (a folder inside ``root``) in sorted order, minus ignored ones.

    Yields:
        ``(absolute path, root-relative POSIX path)`` pairs.
    """
    real_root = root.resolve()
    for folder, dirnames, filenames in os.walk(start):
        here = Path(folder)
        base = here.relative_to(real_root).as_posix()
        prefix = "" if base == "." else base + "/"
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIPPED_DIRS
            and not (here / d).is_symlink()
            and not rules.ignored(prefix + d, True)
        )
        for name in sorted(filenames):
            relative = prefix + name
            if rules.ignored(relative, False):
                continue
            path = here / name
            if path.is_symlink():
                try:
                    target = path.resolve()
                except RuntimeError:  # a link loop (``a -> b -> a``): Python 3.11/3.12 raise
                    continue
                if not target.is_relative_to(real_root) or not target.is_file():
                    continue
            yield path, relative
