"""What the person asked for, decided by fixed rules so the offline model stays deterministic.

Six intents: ``search`` ("find/grep/search X"), ``file`` (the message names a file that exists
under the project root), ``folder`` (it names a folder of the project: "src/", "the tools
folder", "what is in tests"), ``locate`` (it names a bare file name, "read.py", that is not at the
root: looked for in the whole project first, as a person would), ``overview`` (questions about
the project as a whole) and ``chat`` (everything else, answered directly). Paths are checked
against the project root and never escape it.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from steiner_tui.providers.offline.textutil import find_paths, unmention

__all__ = ["Intent", "classify", "notable_files"]


_OVERVIEW = re.compile(
    r"\b(what(?:'s| is) (?:in|inside) (?:this|the|my) "
    r"(?:project|repo|repository|folder|directory|codebase)|overview|structure|layout|"
    r"what (?:does|is) this (?:project|repo|repository)"
    r"|describe (?:this|the) (?:project|repo|repository|codebase)|about this (?:project|repo)"
    r"|tour of)\b",
    re.I,
)


_SEARCH = re.compile(r"\b(?:grep|search(?:\s+for)?|find|look\s+for|where\s+is)\s+(.+)", re.I | re.S)


_SLASHED = re.compile(r"(?<![\w@/.:~-])[\w.-]+(?:/[\w.-]+)+/?")


_FOLDER = re.compile(
    r"\b([\w.-]+)\s+(?:folder|directory|dir)\b"
    r"|\b(?:folder|directory|dir)\s+([\w./-]+)"
    r"|\b(?:what(?:'s|\s+is|\s+are)\s+(?:in|inside)|list(?:\s+the\s+files)?\s+(?:in|of)"
    r"|contents\s+of|describe|inside)\s+(?:the\s+)?([\w./-]+)",
    re.I,
)
"""Words that may name a folder: "the X folder", "directory X", "what is in X", "list X"."""


_REGEX_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")
"""grep takes a regex; the user asked for literal text."""


_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]+)\"|'([^']+)'")


_FILLER_WORDS_TEXT = (
    "all any every the a an usages usage uses occurrences occurrence references reference "
    "mentions of for to where is are defined definition calls call me please in files file "
    "code project repo word string text what how why this that it"
)
_FILLER_WORDS = frozenset(_FILLER_WORDS_TEXT.split())
_NOTABLE = ("pyproject.toml", "package.json", "Cargo.toml")
MAX_FILES = 3


class Intent(msgspec.Struct, frozen=True):
    """The classified request: its kind, files to read (for ``locate``: the bare names to look
    for), and a search pattern and scope."""

    kind: str
    paths: tuple[str, ...] = ()
    pattern: str = ""
    search_path: str = ""
    missing: tuple[str, ...] = ()
    """Paths the message named that do not exist under the project root."""
    outside: tuple[str, ...] = ()
    """Paths the message named that exist but lead out of the project root (a link, ``..``)."""
    unread: tuple[str, ...] = ()
    """Files the message named past the first ``MAX_FILES`` (the answer says so)."""


def _inside(root: Path, candidate: str) -> str | None:
    """``candidate`` relative to ``root`` (POSIX form) when it exists inside it."""
    try:
        base = root.resolve()
        target = (base / candidate).resolve()
        rel = target.relative_to(base)
    except (OSError, RuntimeError, ValueError):  # RuntimeError: a link loop (Python 3.11/3.12)
        return None
    if not target.exists() or rel == Path():
        return None
    return rel.as_posix() + ("/" if target.is_dir() else "")


def _escapes(root: Path, candidate: str) -> bool:
    """Whether ``candidate`` exists but resolves outside ``root``: the read tool refuses it."""
    try:
        target = (root / candidate).resolve()
        return target.exists() and not target.is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False


def _existing(text: str, root: Path) -> tuple[list[str], tuple[str, ...], tuple[str, ...]]:
    found: list[str] = []
    missing: list[str] = []
    outside: list[str] = []
    named = find_paths(text)
    # Folders are often named without a trailing slash ("in src/app"): existence decides.
    slashed = [m.rstrip(".") for m in _SLASHED.findall(text) if m.rstrip(".") not in named]
    for candidate in [*named, *slashed]:
        rel = _inside(root, candidate)
        if rel is None:
            if candidate in named and not candidate.endswith("/"):
                (outside if _escapes(root, candidate) else missing).append(candidate)
        elif rel not in found:
            found.append(rel)
    return found, tuple(missing), tuple(outside)


def _search_pattern(rest: str) -> str:
    quoted = _QUOTED.search(rest)
    if quoted:
        return next(g for g in quoted.groups() if g)
    for word in rest.split():
        cleaned = word.strip(".,;:!?()[]{}")
        if cleaned and cleaned.lower() not in _FILLER_WORDS:
            return cleaned
    return ""


def classify(text: str, root: Path) -> Intent:
    """Decide what ``text`` asks for, relative to the project at ``root``.

    Args:
        text: the user's words (skill envelopes and mode notice already removed).
        root: the project root; named paths must exist under it.

    Returns:
        The intent; ``chat`` when no rule applies.
    """
    text = unmention(text)
    existing, missing, outside = _existing(text, root)
    search = _SEARCH.search(text)
    overview = _OVERVIEW.search(text) is not None
    if search and not search.group(1).lower().startswith("out "):
        explicit = search.group(0).lower().startswith(("grep", "search"))
        pattern = _search_pattern(search.group(1))
        quoted = _QUOTED.search(search.group(1)) is not None
        if pattern and pattern not in existing and (explicit or quoted or not overview):
            scope = next((p for p in existing if p not in pattern), "")
            return Intent(
                "search",
                pattern=_REGEX_SPECIAL.sub(r"\\\1", pattern),
                search_path=scope.rstrip("/"),
                missing=missing,
                outside=outside,
            )
    files = tuple(p for p in existing if not p.endswith("/"))
    if files:
        return Intent(
            "file",
            paths=files[:MAX_FILES],
            missing=missing,
            outside=outside,
            unread=files[MAX_FILES:],
        )
    folders = [p for p in existing if p.endswith("/")]
    for match in _FOLDER.finditer(text):
        rel = _inside(root, next(g for g in match.groups() if g).rstrip("./")) or ""
        if rel.endswith("/") and rel not in folders:
            folders.append(rel)
    if folders:
        return Intent("folder", paths=(folders[0].rstrip("/"),), missing=missing, outside=outside)
    bare = tuple(p for p in missing if "/" not in p)
    if bare:
        return Intent("locate", paths=bare[:MAX_FILES], missing=missing, outside=outside)
    if overview:
        return Intent("overview", missing=missing, outside=outside)
    return Intent("chat", missing=missing, outside=outside)


def notable_files(entries: list[str], root: Path, folder: str = "") -> list[str]:
    """The README and package metadata files among ``entries`` directly in ``folder`` (the
    project's top level by default; or on disk), as paths from the project root; for a folder
    that has none, its first ``MAX_FILES`` files."""
    prefix = f"{folder}/" if folder else ""
    inner = [e.removeprefix(prefix) for e in entries if e.startswith(prefix)]
    names = [e.rstrip("/") for e in inner if "/" not in e.rstrip("/")]
    if not names:
        try:
            names = sorted(p.name for p in (root / folder).iterdir())
        except OSError:
            names = []
    readmes = sorted(n for n in names if n.lower().startswith("readme"))
    readmes.sort(key=lambda n: (n.lower() != "readme.md", n))
    picked = readmes[:1] + [n for n in _NOTABLE if n in names]
    found = [n for n in picked if (root / folder / n).is_file()]
    if folder and not found:  # a folder without a README: a look at its first files
        found = [n for n in names if (root / folder / n).is_file()][:MAX_FILES]
    return [f"{prefix}{n}" for n in found]
