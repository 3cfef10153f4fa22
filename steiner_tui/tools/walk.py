"""Walking the project for ``grep`` and ``glob``: fixed skips plus the root ``.gitignore``.

Version-control, virtualenv, dependency and cache folders are always skipped. The root
``.gitignore`` is honoured for its common forms: ``name``, ``*.ext``, ``dir/``, ``/anchored``,
``a/b`` (anchored because of the inner slash), ``**`` and ``!negation`` (the last matching line
wins). Nested ``.gitignore`` files and escapes are not interpreted, with one exception: a folder
below the search folder whose own ``.gitignore`` ignores everything in it (a ``*`` line and no
``!`` line) is skipped whole, as git skips it. That is how tools keep their caches out of git
(pytest, mypy, ruff and import-linter's grimp write such a file), and a cache's contents would
otherwise fill every search that names one of the project's modules. Symlinks are not followed
into folders, and a file link that resolves outside the project (or nowhere: a loop, a dangling
link) is skipped.

The walk is one ``os.scandir`` per folder: an ignored folder is pruned before it is listed,
each entry's type comes from the listing (no ``stat`` per file), paths stay strings, and the
lines of the ``.gitignore`` are compiled into a few alternations once, so a path costs at most
two regex matches however many lines there are. On 200,000 files this is what lets ``grep``
run close to a bare ``os.walk`` loop (``benchmarks/bench_walk.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import msgspec

from steiner_tui.tools.files import FileTooLarge, NotRegularFile, read_regular

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


class _Matcher(msgspec.Struct, frozen=True):
    """The rules that apply to one kind of entry (files, or folders), as two alternations.

    Each alternation lists its rules last line first, one capturing group each, so the group
    that matches is the last matching line of its kind; ``verdicts`` maps the group to
    ``(line index, ignored)``. Names and root-relative paths are matched separately (the two
    alternations) and the later line of the two wins, as in a loop over the lines.
    """

    by_name: re.Pattern[str] | None
    by_path: re.Pattern[str] | None
    name_verdicts: tuple[tuple[int, bool], ...]
    path_verdicts: tuple[tuple[int, bool], ...]

    @classmethod
    def build(cls, rules: Sequence[_Rule], for_dirs: bool) -> _Matcher:
        kept = [(i, r) for i, r in enumerate(rules) if for_dirs or not r.dir_only]
        by_name = [(i, r) for i, r in reversed(kept) if not r.anchored]
        by_path = [(i, r) for i, r in reversed(kept) if r.anchored]
        return cls(
            _alternation(r for _, r in by_name),
            _alternation(r for _, r in by_path),
            ((-1, False), *((i, not r.negated) for i, r in by_name)),
            ((-1, False), *((i, not r.negated) for i, r in by_path)),
        )

    def ignored(self, relative: str, name: str) -> bool:
        line, verdict = -1, False
        if self.by_name is not None and (found := self.by_name.match(name)):
            line, verdict = self.name_verdicts[found.lastindex or 0]
        if self.by_path is not None and (found := self.by_path.match(relative)):
            path_line, path_verdict = self.path_verdicts[found.lastindex or 0]
            if path_line > line:
                verdict = path_verdict
        return verdict


def _alternation(rules: Iterator[_Rule] | Sequence[_Rule]) -> re.Pattern[str] | None:
    """One pattern trying each rule's regex in turn: ``(?:(r1)|(r2)...)``; None for no rules.

    A rule's own regex has no capturing group (``glob_to_regex`` writes none), so the group
    that matched is the rule's; the first alternative that matches whole (each ends in ``\\Z``)
    is the one a loop over the rules in this order would find first.
    """
    parts = [f"({rule.regex.pattern})" for rule in rules]
    return re.compile("|".join(parts)) if parts else None


_NO_MATCHER = _Matcher(None, None, ((-1, False),), ((-1, False),))


class IgnoreRules(msgspec.Struct, frozen=True):
    """Parsed root ``.gitignore`` lines, in file order, and their compiled matchers."""

    rules: tuple[_Rule, ...] = ()
    files: _Matcher = _NO_MATCHER
    dirs: _Matcher = _NO_MATCHER

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
        return cls(tuple(rules), _Matcher.build(rules, False), _Matcher.build(rules, True))

    def ignored(self, relative: str, is_dir: bool) -> bool:
        """True when the root-relative path is ignored (its parents are checked by the walk)."""
        matcher = self.dirs if is_dir else self.files
        return matcher.ignored(relative, relative.rsplit("/", 1)[-1])


def load_ignore_rules(root: Path) -> IgnoreRules:
    """The root ``.gitignore`` rules (none when the file is missing or unreadable)."""
    try:
        return IgnoreRules.parse(
            (root / ".gitignore").read_text(encoding="utf-8", errors="replace")
        )
    except OSError:
        return IgnoreRules()


def walk_files(
    root: Path,
    start: Path,
    rules: IgnoreRules,
    descend: Callable[[str], bool] | None = None,
    only_regular: bool = False,
) -> Iterator[tuple[str, str]]:
    """Files under ``start`` (a folder inside ``root``) in sorted order, minus ignored ones.

    The order is ``os.walk``'s, top-down: a folder's files sorted by name, then each of its
    folders (sorted) in turn. A folder that cannot be listed is left out, as ``os.walk`` does.

    Args:
        root: The project root (its ``.gitignore`` gave ``rules``).
        start: The folder to walk, resolved.
        rules: The ignore rules.
        descend: Whether to go into a folder, given its path relative to ``start``; a caller
            that knows no file it wants is in there saves listing it (default: every folder).
        only_regular: Leave out named pipes, sockets and devices (a search hands the files to
            a reader that would wait on a pipe); the listing gives the type, no ``stat``.

    Yields:
        ``(absolute path, root-relative POSIX path)`` pairs; the absolute path is ``start``
        joined with the entry names, as ``os.walk`` would spell it.
    """
    real_root = root.resolve()
    base = Path(start).relative_to(real_root).as_posix()
    files, dirs = rules.files, rules.dirs
    top = "" if base == "." else base + "/"
    # (folder path, root-relative prefix ending in "/" or empty), the next to visit last
    pending = [(os.fspath(start), top)]
    while pending:
        folder, prefix = pending.pop()
        listed = _list(folder)
        if listed is None:
            continue
        file_entries, dir_entries = listed
        if prefix != top and _ignores_itself(file_entries):
            continue
        for entry in sorted(file_entries, key=lambda entry: entry.name):
            name = entry.name
            relative = prefix + name
            if files.ignored(relative, name):
                continue
            if entry.is_symlink() and not _file_inside(entry.path, real_root):
                continue
            if only_regular and not _regular(entry):
                continue
            yield entry.path, relative
        below = []
        for entry in dir_entries:
            name = entry.name
            if name in SKIPPED_DIRS or entry.is_symlink() or dirs.ignored(prefix + name, name):
                continue
            if descend is not None and not descend((prefix + name)[len(top) :]):
                continue
            below.append((entry.path, prefix + name + "/"))
        below.sort(reverse=True)
        pending.extend(below)


SELF_IGNORE_READ = 4096
"""The largest nested ``.gitignore`` read to see whether it ignores its whole folder (a tool's
is a line or two)."""


def _ignores_itself(file_entries: list[os.DirEntry[str]]) -> bool:
    """Whether the folder listed holds a ``.gitignore`` that ignores everything in it."""
    for entry in file_entries:
        if entry.name == ".gitignore" and not entry.is_symlink():
            try:
                text = read_regular(entry.path, SELF_IGNORE_READ)
            except (OSError, FileTooLarge, NotRegularFile):  # not a tool's one-line file
                return False
            lines = {line.strip() for line in text.decode("utf-8", "replace").splitlines()}
            return "*" in lines and not any(line.startswith("!") for line in lines)
    return False


def _regular(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _list(folder: str) -> tuple[list[os.DirEntry[str]], list[os.DirEntry[str]]] | None:
    """A folder's files and folders (a link to a folder counts as a folder, as in
    ``os.walk``); None when it cannot be listed to the end."""
    file_entries: list[os.DirEntry[str]] = []
    dir_entries: list[os.DirEntry[str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                (dir_entries if is_dir else file_entries).append(entry)
    except OSError:
        return None
    return file_entries, dir_entries


def _file_inside(link: str, real_root: Path) -> bool:
    """True when the file link ``link`` resolves to a file inside ``real_root``."""
    try:
        target = Path(os.path.realpath(link, strict=True))
    except (OSError, RuntimeError):
        return False  # dangling, a loop, or unreadable
    return target.is_relative_to(real_root) and target.is_file()
