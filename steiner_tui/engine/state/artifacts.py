"""The artifact ledger: what the session did to the world, kept by the engine, not a summarizer.

Summaries keep decisions well and file paths, commands and numbers badly (issue 31: a reverted
file still "(edited)", a command that failed then passed shown failing for ever). The ledger is
read from the tool calls themselves and the user's explicit words, so no summarizer can lose
or garble it:

* **files**: created / edited / deleted / reverted, with the lines added and removed and a
  short description of the edits since the last write (the names each adds and removes; the
  first and latest stay when they are many) (``write``, ``edit``, an edit undoing the last
  one; ``rm``, ``git rm``, ``git checkout --``, ``git restore`` in ``bash``, also as a step
  of a ``&&``/``;`` chain);
* **commands**: each command's latest exit status and its distinct error line;
* **TODOs**: a user's ``TODO:`` lines and work put off ("not now", "later", "a separate
  PR"), open until a later ``done: <same words>`` or a "that TODO is done" sharing its words;
* **decisions**: "we decided / let's <verb> / we'll <verb> / switch to ...", a sentence
  opening with "Use ..." and a user's "X for now", with the reason stated after (or, in "A,
  so B", before); a reversal ("instead", "after all", "scratch that") supersedes the current
  decision it shares the most words with.

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
from steiner_tui.engine.tool_results import NOTHING_WRITTEN

__all__ = [
    "LEDGER_HEADING",
    "Artifact",
    "ArtifactLedger",
    "build_ledger",
    "ledger_changes",
    "strip_ledger",
]

LEDGER_HEADING = "## Artifacts (kept by the engine from the tool calls)"
LEDGER_LIMIT = 40
_DETAIL_CHARS = 120
_EXIT = re.compile(r"\[exit code: (-?\d+)\]")
_ERROR = re.compile(
    r"(error|exception|failed|fail:|panic|fatal|denied|not found|no such|traceback)|"
    r"\bFAIL\b|\b[A-Z]+\d{2,}:"
)
_SEPARATOR = re.compile(r"^[\W_]+$")
_LOOKING = "look|see|check|try|find|figure|start|dig|debug|investigate|run|read|review|have|get"
_DECISION = re.compile(
    r"\b(?:we(?:'ve| have)? decided(?: to)?|decided to|we agreed(?: to)?|decision:|"
    # "let's/we'll <verb>" chooses how the work is done, unless it only looks around
    rf"(?:let's|we'll)(?!\s+(?:{_LOOKING})\b)|(?=switch to\s)|"
    # an imperative choice opening a sentence: "Use X for Y", "Stick with X"
    r"(?:^|(?<=[.!?:]\s))(?=(?:use|stick with)\s))\s*(?P<what>[^.;\n]+)",
    re.I,
)
_PROVISIONAL = re.compile(
    r"(?:^|(?<=[.!?:]\s))(?P<what>[^.!?\n:]*?),?\s+for now\b[,;]?\s*(?P<why>[^.!?\n]*)", re.I
)
"""A user's "X for now" is a choice made until a later one replaces it."""
_REASON = re.compile(r"\b(?:because|since|so that|so|as)\s+(?P<why>[^.;\n]+)", re.I)
_REVERSAL = re.compile(
    r"\b(?:instead(?! of)|after all|scratch (?:that|the)|change of plan|actually|no longer|"
    r"switch(?:ing)? to|drop (?:it|the|that))\b",
    re.I,
)
"""Words that say a choice replaces an earlier one."""
_WORD = re.compile(r"[a-z][a-z0-9_]{3,}")
_COMMON_TEXT = (
    "that this with from then them they when what will would should could into over only "
    "after before about because since there their these those just also here have been "
    "instead actually plan change scratch drop switch let's we'll keep make sure"
)
_COMMON = frozenset(_COMMON_TEXT.split())
_TODO = re.compile(r"^\s*(?:[-*]\s*)?(?:TODO|to do)\s*[:\-]\s*(?P<what>.+)$", re.I | re.M)
_DEFERRED = re.compile(
    r"\b(?:not now|later|(?:in|into|for) a separate (?:pr|pull request|change|commit)|"
    r"goes in a separate (?:pr|pull request|change))\b",
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?\n]")
_DONE = re.compile(r"^\s*(?:[-*]\s*)?done\s*:\s*(?P<what>.+)$", re.I | re.M)
_REMOVE = re.compile(r"^(?:git\s+rm|rm)\s+(?:-\S+\s+)*(?P<paths>[^;&|]+)$")
_REVERT = re.compile(
    r"^git\s+(?:checkout\s+(?:\S+\s+)?--|restore(?:\s+-\S+)*(?:\s+--)?)\s+(?P<paths>[^;&|]+)$"
)
_STEPS = re.compile(r"\s*(?:&&|;)\s*")
_TOKEN = re.compile(r"[A-Za-z_][\w./-]*\w")
_DISTINCT = re.compile(r"[A-Z]\w*[A-Z]|[_./]|\w[A-Z]")
_KEYWORDS_TEXT = (
    "and are def else for from func function import let not new null none package pub "
    "return self the this true false var val const use mut impl"
)
_KEYWORDS = frozenset(_KEYWORDS_TEXT.split())
_COUNTS = re.compile(r"^\+(?P<added>\d+)(?: -(?P<removed>\d+))? lines: (?P<how>.*)$")
_FILE_DETAIL_CHARS = 200
_DONE_SAID = re.compile(
    r"\b(?:(?:that|this|the)\s+(?:todo|item|task)\b[^.!?\n]*?\b(?:is|are|'s)\s+"
    r"(?:now\s+)?(?:done|finished|complete|completed|closed)|"
    r"(?:closes|completes|finishes|ticks off)\s+(?:that|this|the)\s+(?:todo|item|task))\b",
    re.I,
)
"""A sentence saying an open TODO is finished without repeating its words ("so that TODO is
done", "which closes that item"): the TODO it shares the most words with is done."""


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


def _clip(text: str, limit: int = _DETAIL_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _key(text: str) -> str:
    """An entry's key: clipped, without backticks (the ledger line quotes it in them)."""
    return _clip(text.replace("`", "'"))


def _lines(text: str) -> int:
    return len(text.splitlines()) if text else 0


def _joined(text: str) -> str:
    """A short one-line form of an edit's text (its lines joined by `` / ``)."""
    lines = " / ".join(line.strip() for line in text.splitlines() if line.strip())
    return lines if len(lines) <= 60 else lines[:59] + "…"


def _names(text: str, other: str) -> list[str]:
    """The identifiers and paths of ``text`` that ``other`` lacks, the distinctive ones
    (CamelCase, snake_case, dotted, paths) first."""
    known = set(_TOKEN.findall(other))
    found = [t for t in dict.fromkeys(_TOKEN.findall(text)) if t not in known]
    found = [t for t in found if len(t) > 2 and t.lower() not in _KEYWORDS]
    return sorted(found, key=lambda t: _DISTINCT.search(t) is None)


def _edit_how(old: str, new: str) -> str:
    """A short description of an edit: the names it adds and removes, else its text."""
    added, removed = _names(new, old)[:3], _names(old, new)[:2]
    parts = [f"adds {', '.join(added)}"] if added else []
    parts += [f"removes {', '.join(removed)}"] if removed else []
    return " and ".join(parts) if parts else f"{_joined(old)!r} -> {_joined(new)!r}"


def _join_how(earlier: str, latest: str) -> str:
    """Two descriptions of a file's edits as one; the first and the latest stay when long."""
    first = earlier.split("; ")[0]
    joined = f"{earlier}; {latest}"
    room = _FILE_DETAIL_CHARS - 24
    return joined if len(joined) <= room else f"{first}; …; {latest}"[:room]


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
        self.edits: dict[str, list[tuple[str, str]]] = {}
        """Per path, the (old, new) texts of the edits since it was written or reverted."""

    def put(self, entry: Artifact) -> None:
        self.entries.pop((entry.kind, entry.key), None)  # latest last
        self.entries[(entry.kind, entry.key)] = entry

    def get(self, kind: str, key: str) -> Artifact | None:
        return self.entries.get((kind, key))

    def file(self, path: str, state: str, detail: str) -> None:
        earlier = self.get("file", path)
        if earlier is not None and earlier.state == "created" and state == "edited":
            state = "created"  # still new to the project, edited since
        if state not in ("edited", "created"):
            self.edits.pop(path, None)
        self.put(Artifact("file", path, state, _clip(detail)))

    def edit(self, path: str, old: str, new: str) -> None:
        """An edit: its lines and a short description, added to the edits made since the
        file was written or reverted; an edit that undoes the last one reverts it."""
        earlier = self.get("file", path)
        done = self.edits.setdefault(path, [])
        if done and done[-1] == (new, old):
            done.pop()
            if not done and earlier is not None and earlier.state == "edited":
                self.file(path, "reverted", "its edit undone by a reverse edit")
                return
        else:
            done.append((old, new))
        how = _edit_how(old, new)
        added, removed = _lines(new), _lines(old)
        counts = _COUNTS.match(earlier.detail) if earlier is not None else None
        if counts and counts.group("removed") is not None:  # edits since the last write
            added += int(counts.group("added"))
            removed += int(counts.group("removed") or 0)
            how = _join_how(counts.group("how"), how)
        elif earlier is not None and earlier.state == "reverted":
            how += "; an earlier edit was reverted"
        detail = f"+{added} -{removed} lines: {how}" if old or new else ""
        state = "created" if earlier is not None and earlier.state == "created" else "edited"
        self.put(Artifact("file", path, state, _clip(detail, _FILE_DETAIL_CHARS)))

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
        if result.endswith(NOTHING_WRITTEN):  # the file already held the text
            return
        path = str(args.get("path", ""))
        content = str(args.get("content", ""))
        created = "(new file)" in result or "created" in result.lower()
        earlier = book.get("file", path)
        state = "created" if created or (earlier and earlier.state == "created") else "edited"
        book.edits.pop(path, None)
        book.file(path, state, f"+{_lines(content)} lines: wrote {_first(content)[:60]!r}")
    elif call.name == "edit":
        old, new = str(args.get("old_string", "")), str(args.get("new_string", ""))
        book.edit(str(args.get("path", "")), old, new)
    elif call.name == "bash":
        _observe_command(book, str(args.get("command", "")).strip(), result)


def _observe_command(book: _Book, command: str, result: str) -> None:
    if not command:
        return
    codes = _EXIT.findall(result)
    code = int(codes[-1]) if codes else 0
    error = _error_line(result) if code != 0 else ""
    book.put(Artifact("command", _key(command), f"exit {code}", error))
    if code != 0:
        return
    for step in _STEPS.split(command):  # "rm x && git add -A": each step of a chain
        for pattern, state in ((_REMOVE, "deleted"), (_REVERT, "reverted")):
            match = pattern.match(step)
            if match:
                for path in match.group("paths").split():
                    if not path.startswith("-"):
                        book.file(path, state, f"by `{_key(command)}`")


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


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}


def _observe_text(book: _Book, message: Message) -> None:
    # A skill's body is instructions, not the person's words: only their own text counts.
    text = strip_skill_blocks(message.content) if message.role == "user" else message.content
    if message.role == "user":
        for match in _TODO.finditer(text):
            what = _key(match.group("what"))
            book.put(Artifact("todo", what, "open"))
        # "not now, later ...", "a separate PR": the sentence (split first: a search for the
        # sentence around a match is quadratic on a long unpunctuated paste)
        for sentence in _SENTENCE_END.split(text):
            if _DEFERRED.search(sentence) and not _TODO.match(sentence):
                book.put(Artifact("todo", _key(sentence.strip()), "open"))
    for match in _DONE.finditer(text):
        done = match.group("what").strip().lower()
        for entry in list(book.entries.values()):
            if entry.kind == "todo" and entry.state == "open" and done in entry.key.lower():
                book.put(Artifact("todo", entry.key, "done"))
    for match in _DONE_SAID.finditer(text):
        _close_todo(book, _sentence_at(text, match.start()))
    if message.role not in ("user", "assistant"):
        return
    for match in _DECISION.finditer(text):
        what = match.group("what").strip()
        tail = text[match.end() : match.end() + 200]
        reason = _REASON.search(what) or _REASON.search(tail.split("\n\n")[0])
        core = _REASON.split(what)[0].strip() if _REASON.search(what) else what
        why = reason.group("why").strip() if reason else _reason_before(text, match.start())
        _decide(book, text, core, why)
    if message.role == "user":
        for match in _PROVISIONAL.finditer(text):
            if _DECISION.search(match.group(0)) is None and match.group("what").strip():
                _decide(book, text, match.group("what").strip(), match.group("why").strip())


def _decide(book: _Book, text: str, core: str, why: str) -> None:
    """Record decision ``core``; what it replaces ("instead of X", or a reversal such as
    "after all" / "scratch that" naming the earlier choice's words) is superseded."""
    current = [e for e in book.entries.values() if e.kind == "decision" and e.state == "current"]
    replaced = [e for e in current if _replaces(core, e.key)]
    if not replaced and _REVERSAL.search(text):
        words = _content_words(text)
        shared = [(len(words & _content_words(e.key)), i) for i, e in enumerate(current)]
        best = max(shared, default=(0, -1))
        replaced = [current[best[1]]] if best[0] else []
    for entry in replaced:
        if _WORD.findall(entry.key.lower()) != _WORD.findall(core.lower()):  # not a repeat
            book.put(Artifact("decision", entry.key, "superseded", entry.detail))
    core = core.rstrip(" ,;:-")
    book.put(Artifact("decision", _key(core), "current", _clip(f"because {why}" if why else "")))


def _sentence_at(text: str, at: int) -> str:
    start = max(text.rfind(mark, 0, at) for mark in (". ", "! ", "? ", "\n")) + 1
    ends = [e for e in (text.find(mark, at) for mark in (". ", "\n")) if e >= 0]
    return text[start : min(ends) if ends else len(text)]


def _reason_before(text: str, at: int) -> str:
    """A reason given before the choice: the clause before it in its sentence ("X parses
    stderr, so switch to JSON"), else the sentence before it when that states something."""
    sentence_start = max(text.rfind(mark, 0, at) for mark in (". ", "! ", "\n")) + 1
    clause = text[sentence_start:at].split(":")[-1].strip(" ,;-")
    cause = re.match(r"(?P<cause>.+?)[,;]?\s+so$", clause, flags=re.I)
    if cause and len(cause.group("cause").split()) >= 3:
        return cause.group("cause")
    before = text[:sentence_start].rstrip(" .!\n")
    previous = re.split(r"[.!?]\s|\n", before)[-1].split(":")[-1].strip()
    return previous if len(previous.split()) >= 4 and not previous.endswith("?") else ""


def _close_todo(book: _Book, sentence: str) -> None:
    """Mark done the open TODO sharing the most words (two at least) with ``sentence``."""
    words = _content_words(sentence.replace("-", " "))
    best: tuple[int, Artifact | None] = (1, None)
    for entry in book.entries.values():
        if entry.kind == "todo" and entry.state == "open":
            shared = len(words & _content_words(entry.key.replace("-", " ")))
            best = (shared, entry) if shared > best[0] else best
    if best[1] is not None:
        book.put(Artifact("todo", best[1].key, "done"))


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
