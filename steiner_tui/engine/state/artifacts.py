"""The artifact ledger: what the session did to the world, kept by the engine, not a summarizer.

Summaries keep decisions well and file paths, commands and numbers badly (issue 31: a reverted
file still "(edited)", a command that failed then passed shown failing for ever). The ledger is
read from the tool calls themselves and the user's explicit words, so no summarizer can lose
or garble it:

* **files**: created / edited / deleted / reverted, with the lines added and removed and a
  short description of the last edit (``write``, ``edit``; ``rm``, ``git rm``, ``git checkout
  --``, ``git restore`` in ``bash``);
* **commands**: each command's latest exit status and its distinct error line;
* **TODOs**: a user's ``TODO:`` lines and work put off ("not now", "later", "a separate
  PR"), open until a later ``done: <same words>``;
* **decisions**: "we decided / let's use / we'll go with ..." with the reason stated.

Latest state wins: an entry is keyed (a path, a command, a decision's subject) and a later
event replaces it; a replaced decision stays, marked ``superseded``, never as current. The
ledger rides with every summary as its own section (``render``), the next compaction reads it
back from the summary (``parse``), so it survives every stage, the emergency one included, and
a resume. It is capped (``LEDGER_LIMIT`` entries: superseded decisions go first, then
commands that passed, undescribed edits, done TODOs, then the oldest).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import msgspec

from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message, ToolCall
from steiner_tui.engine.skills.envelopes import strip_skill_blocks

__all__ = [
    "LEDGER_HEADING",
    "LEDGER_LIMIT",
    "Artifact",
    "ArtifactLedger",
    "build_ledger",
    "ledger_changes",
    "strip_ledger",
]

LEDGER_HEADING = "## Artifacts (kept by the engine from the tool calls)"
LEDGER_LIMIT = 40
_KINDS = ("file", "command", "todo", "decision")
_DETAIL_CHARS = 120
_EXIT = re.compile(r"\[exit code: (-?\d+)\]")
_ERROR = re.compile(
    r"(error|exception|failed|fail:|panic|fatal|denied|not found|no such|traceback)|"
    r"\bFAIL\b|\b[A-Z]+\d{2,}:"
)
_SEPARATOR = re.compile(r"^[\W_]+$")
_DECISION = re.compile(
    r"\b(?:we(?:'ve| have)? decided(?: to)?|decided to|let's (?:use|go with|keep)|"
    r"we'll (?:use|go with|keep)|we agreed(?: to)?|decision:)\s+(?P<what>[^.;\n]+)",
    re.I,
)
_REASON = re.compile(r"\b(?:because|since|so that|as)\s+(?P<why>[^.;\n]+)", re.I)
_TODO = re.compile(r"^\s*(?:[-*]\s*)?(?:TODO|to do)\s*[:\-]\s*(?P<what>.+)$", re.I | re.M)
_DEFERRED = re.compile(
    r"[^.!?\n]*\b(?:not now|later|(?:in|into|for) a separate (?:pr|pull request|change|commit)|"
    r"goes in a separate (?:pr|pull request|change))\b[^.!?\n]*",
    re.I,
)
_DONE = re.compile(r"^\s*(?:[-*]\s*)?done\s*:\s*(?P<what>.+)$", re.I | re.M)
_REMOVE = re.compile(r"^(?:git\s+rm|rm)\s+(?:-\S+\s+)*(?P<paths>[^;&|]+)$")
_REVERT = re.compile(
    r"^git\s+(?:checkout\s+(?:\S+\s+)?--|restore(?:\s+--\S+)*)\s+(?P<paths>[^;&|]+)$"
)


class Artifact(msgspec.Struct, frozen=True):
    """One ledger entry.

    Attributes:
        kind: ``file``, ``command``, ``todo`` or ``decision``.
        key: what it is about (a path, a command, a TODO's text, a decision's subject).
        state: ``created``/``edited``/``deleted``/``reverted``; ``exit N``; ``open``/``done``;
            ``current``/``superseded``.
        detail: how (``+3 -1 lines: ...``), the distinct error line, or the reason.
    """

    kind: str
    key: str
    state: str
    detail: str = ""

    def line(self) -> str:
        """The entry as the ledger section writes it."""
        detail = f" — {self.detail}" if self.detail else ""
        return f"- {self.kind} `{self.key}`: {self.state}{detail}"


_LINE = re.compile(r"^- (?P<kind>file|command|todo|decision) `(?P<key>[^`]*)`: (?P<rest>.*)$")


class ArtifactLedger(msgspec.Struct, frozen=True):
    """The entries, in the order they were first seen (latest state in each)."""

    entries: tuple[Artifact, ...] = ()

    def render(self) -> str:
        """The summary's ledger section ("" when empty)."""
        if not self.entries:
            return ""
        return "\n".join([LEDGER_HEADING, *(entry.line() for entry in self.entries)])

    @classmethod
    def parse(cls, summary: str) -> ArtifactLedger:
        """The ledger a summary carries (empty when it carries none)."""
        at = summary.find(LEDGER_HEADING)
        if at < 0:
            return cls()
        entries = []
        for line in summary[at + len(LEDGER_HEADING) :].splitlines():
            match = _LINE.match(line.strip())
            if match is None:
                if line.startswith("#"):
                    break
                continue
            state, _, detail = match.group("rest").partition(" — ")
            entries.append(Artifact(match.group("kind"), match.group("key"), state, detail))
        return cls(tuple(entries))

    def current(self, kind: str) -> tuple[Artifact, ...]:
        """The entries of ``kind`` that are not superseded."""
        return tuple(e for e in self.entries if e.kind == kind and e.state != "superseded")


def strip_ledger(summary: str) -> str:
    """``summary`` without its ledger section (the next one is rebuilt, never carried twice)."""
    at = summary.find(LEDGER_HEADING)
    if at < 0:
        return summary
    rest = summary[at + len(LEDGER_HEADING) :]
    tail = [line for line in rest.splitlines() if not _LINE.match(line.strip())]
    return (summary[:at].rstrip() + "\n" + "\n".join(tail).strip()).strip()


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 1] + "…"


def _lines(text: str) -> int:
    return len(text.splitlines()) if text else 0


def _joined(text: str) -> str:
    """A short one-line form of an edit's text (its lines joined by `` / ``)."""
    lines = " / ".join(line.strip() for line in text.splitlines() if line.strip())
    return lines if len(lines) <= 60 else lines[:59] + "…"


def _first(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _error_line(output: str) -> str:
    """The distinct error line of a command's output: the last line naming an error, never a
    separator (``=====``) or the exit marker."""
    found = ""
    for line in output.replace("\\n", "\n").splitlines():
        text = line.strip()
        if len(text.split()) < 2 or _SEPARATOR.match(text) or _EXIT.search(text):
            continue  # a bare "FAIL" or a separator line says nothing of its own
        if _ERROR.search(text.lower()) or _ERROR.search(text):
            if re.search(r"\b0 (?:failed|errors?)\b", text):
                continue
            found = text
    return _clip(found)


class _Book:
    """The ledger being built: entries by (kind, key), in first-seen order."""

    def __init__(self, ledger: ArtifactLedger) -> None:
        self.entries: dict[tuple[str, str], Artifact] = {(e.kind, e.key): e for e in ledger.entries}

    def put(self, entry: Artifact) -> None:
        self.entries.pop((entry.kind, entry.key), None)  # latest last
        self.entries[(entry.kind, entry.key)] = entry

    def get(self, kind: str, key: str) -> Artifact | None:
        return self.entries.get((kind, key))

    def file(self, path: str, state: str, detail: str) -> None:
        earlier = self.get("file", path)
        if earlier is not None and earlier.state == "created" and state == "edited":
            state = "created"  # still new to the project, edited since
        self.put(Artifact("file", path, state, _clip(detail)))

    def ledger(self, limit: int | None = LEDGER_LIMIT) -> ArtifactLedger:
        entries = list(self.entries.values())
        excess = len(entries) - limit if limit is not None else 0
        if excess > 0:
            # What gives way first, oldest first in each tier (``_tier``).
            order = sorted(range(len(entries)), key=lambda i: (_tier(entries[i]), i))
            gone = set(order[:excess])
            entries = [e for i, e in enumerate(entries) if i not in gone]
        return ArtifactLedger(tuple(entries))


def _tier(entry: Artifact) -> int:
    if entry.state == "superseded":
        return 0
    if entry.kind == "command" and entry.state == "exit 0":
        return 1
    if entry.kind == "file" and not entry.detail:
        return 2
    return 3 if entry.state == "done" else 4


def _results(messages: Sequence[Message]) -> dict[str, str]:
    return {m.tool_call_id: m.content for m in messages if m.role == "tool"}


def _failed(result: str) -> bool:
    head = result.lstrip()[:200].lower()
    return head.startswith(("error", "cannot", "the user rejected", "old_string")) or (
        "not found in" in head and head.startswith("old_string")
    )


def _observe_call(book: _Book, call: ToolCall, result: str | None) -> None:
    args = call.arguments or {}
    if result is None or _failed(result):
        return
    if call.name == "write":
        path = str(args.get("path", ""))
        content = str(args.get("content", ""))
        created = "(new file)" in result or "created" in result.lower()
        earlier = book.get("file", path)
        state = "created" if created or (earlier and earlier.state == "created") else "edited"
        book.file(path, state, f"+{_lines(content)} lines: wrote {_first(content)[:60]!r}")
    elif call.name == "edit":
        path = str(args.get("path", ""))
        old, new = str(args.get("old_string", "")), str(args.get("new_string", ""))
        change = f"{_joined(old)!r} -> {_joined(new)!r}"
        detail = f"+{_lines(new)} -{_lines(old)} lines: {change}" if old or new else ""
        book.file(path, "edited", detail)
    elif call.name == "bash":
        _observe_command(book, str(args.get("command", "")).strip(), result)


def _observe_command(book: _Book, command: str, result: str) -> None:
    if not command:
        return
    codes = _EXIT.findall(result)
    code = int(codes[-1]) if codes else 0
    error = _error_line(result) if code != 0 else ""
    book.put(Artifact("command", _clip(command), f"exit {code}", error))
    if code != 0:
        return
    for pattern, state in ((_REMOVE, "deleted"), (_REVERT, "reverted")):
        match = pattern.match(command)
        if match:
            for path in match.group("paths").split():
                book.file(path, state, f"by `{_clip(command)}`")


_INSTEAD = re.compile(r"\b(?:instead of|rather than|over)\s+(?P<old>[\w./-]+)", re.I)


def _replaces(new: str, old: str) -> bool:
    """Whether decision ``new`` reverses ``old``: what ``new`` replaces ("instead of floats")
    is what ``old`` chose ("round with floats"); parallel decisions ("Decimal instead of float
    for money", "... for tax rates") replace nothing of each other."""
    replaced = _INSTEAD.search(new)
    if replaced is None:
        return False
    word = replaced.group("old").lower().rstrip("s")
    chosen = _INSTEAD.split(old)[0].lower()
    return bool(re.search(rf"\b{re.escape(word)}s?\b", chosen))


def _observe_text(book: _Book, message: Message) -> None:
    # A skill's body is instructions, not the person's words: only their own text counts.
    text = strip_skill_blocks(message.content) if message.role == "user" else message.content
    if message.role == "user":
        for match in _TODO.finditer(text):
            what = _clip(match.group("what"))
            book.put(Artifact("todo", what, "open"))
        for match in _DEFERRED.finditer(text):  # "not now, later ...", "a separate PR"
            if not _TODO.match(match.group(0)):
                book.put(Artifact("todo", _clip(match.group(0).strip()), "open"))
    for match in _DONE.finditer(text):
        done = match.group("what").strip().lower()
        for entry in list(book.entries.values()):
            if entry.kind == "todo" and entry.state == "open" and done in entry.key.lower():
                book.put(Artifact("todo", entry.key, "done"))
    if message.role not in ("user", "assistant"):
        return
    for match in _DECISION.finditer(text):
        what = match.group("what").strip()
        tail = text[match.end() : match.end() + 200]
        reason = _REASON.search(what) or _REASON.search(tail.split("\n\n")[0])
        core = _REASON.split(what)[0].strip() if _REASON.search(what) else what
        for entry in list(book.entries.values()):
            current = entry.kind == "decision" and entry.state == "current"
            if current and _replaces(core, entry.key):
                book.put(Artifact("decision", entry.key, "superseded", entry.detail))
        why = f"because {reason.group('why').strip()}" if reason else ""
        book.put(Artifact("decision", _clip(core), "current", _clip(why)))


def build_ledger(
    messages: Iterable[Message],
    previous: ArtifactLedger | None = None,
    *,
    limit: int | None = LEDGER_LIMIT,
) -> ArtifactLedger:
    """The ledger after ``messages``, on top of ``previous`` (the last summary's), capped at
    ``limit`` entries (None: all of them, for a reader that settles a summary against it).

    A ``summary`` message among ``messages`` contributes the ledger it carries (when no
    ``previous`` is given), so a generation's own messages are enough.
    """
    items = list(messages)
    base = previous
    if base is None:
        summaries = [m for m in items if m.role == "summary"]
        base = ArtifactLedger.parse(summaries[-1].content) if summaries else ArtifactLedger()
    book = _Book(base)
    results = _results(items)
    for message in items:
        if message.role == "assistant" or (
            message.role == "user" and message.source != SUB_AGENT_RESULT_SOURCE
        ):
            _observe_text(book, message)
        for call in message.tool_calls:
            _observe_call(book, call, results.get(call.id))
    return book.ledger(limit)


def ledger_changes(before: ArtifactLedger, after: ArtifactLedger) -> tuple[str, ...]:
    """What changed from one generation's ledger to the next, one line per entry."""
    old = {(e.kind, e.key): e for e in before.entries}
    changes = []
    for entry in after.entries:
        earlier = old.pop((entry.kind, entry.key), None)
        if earlier is None:
            changes.append(f"new: {entry.line()[2:]}")
        elif earlier != entry:
            changes.append(f"{earlier.state} -> {entry.line()[2:]}")
    changes += [f"dropped: {entry.line()[2:]}" for entry in old.values()]
    return tuple(changes)
