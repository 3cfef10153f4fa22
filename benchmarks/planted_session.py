"""A session with decisions, TODOs, errors and preferences planted among filler text.

Issue 17's report, as a benchmark: user messages state decisions ("We decided to use Decimal
instead of float for money", three times over), TODO lines (two of them worded like
preferences), errors (bash results with a non-zero exit, a pasted traceback) and preferences
("please keep answers short") in between pasted lorem ipsum, numbered lorem lines, repeated text,
tool results with file contents and the offline model's own replies (written by the real
``answers.reply_to``, so they carry its disclaimer). ``score`` says, for one summary, which
planted items sit in their own section (kept), in another one (misfiled) or nowhere (dropped),
and counts the bullets that quote filler or the model's own boilerplate (decoys).

The scoring reads the summary text with fixed probes only; it does not use the summarizer's
own classification, so it measures the same way before and after a change.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.fidelity_session import filler_turns
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.providers.offline import SECTION_HEADINGS
from steiner_tui.providers.offline.answers import reply_to

__all__ = [
    "DECOYS",
    "KINDS",
    "PLANTED",
    "Planted",
    "Score",
    "build_planted_session",
    "noise_turns",
    "score",
    "sections",
    "user_plants",
]

KINDS = ("decision", "todo", "error", "preference")
_SECTION = {"decision": 4, "todo": 6, "error": 5, "preference": 8}


@dataclass(frozen=True, slots=True)
class Planted:
    """A planted item: its kind and the text that must survive in its section."""

    kind: str
    probe: str

    @property
    def section(self) -> int:
        """The number (1-8) of the section this item belongs in."""
        return _SECTION[self.kind]


PLANTED: tuple[Planted, ...] = (
    Planted("decision", "Decimal instead of float for money"),
    Planted("decision", "Decimal instead of float for tax rates"),
    Planted("decision", "Decimal instead of float in the CSV export"),
    Planted("decision", "ISO 4217 codes instead of currency symbols"),
    Planted("decision", "keep invoice numbers as strings"),
    Planted("decision", "nightly batch rather than a cron job per merchant"),
    Planted("decision", "ROUND_HALF_EVEN for display"),
    Planted("decision", "cache the exchange rates for 24 hours"),
    Planted("todo", "round the tax line per item"),
    Planted("todo", "validate the currency code before saving"),
    Planted("todo", "still writes 1.0000000001 for some totals"),
    Planted("todo", "add a regression test in tests/test_totals.py"),
    Planted("todo", "backfill the currency column for old invoices"),
    Planted("todo", "the PDF invoice template"),
    Planted("todo", "document the rounding rules in docs/money.md"),
    Planted("todo", "wire the exporter into the CLI"),
    Planted("error", "unsupported operand type(s) for +: 'float' and 'decimal.Decimal'"),
    Planted("error", "No module named 'babel'"),
    Planted("error", "could not lock config file .git/config"),
    Planted("error", "KeyError: 'currency'"),
    Planted("error", "invalid literal for Decimal: '12,50'"),
    Planted("error", "non-zero exit when the rates file is missing"),
    Planted("preference", "keep answers short"),
    Planted("preference", "small commits with one logical change each"),
    Planted("preference", "add new dependencies without asking"),
    Planted("preference", "touch the files under vendor/"),
    Planted("preference", "show the command before running it"),
    Planted("preference", "commit messages in the imperative"),
)
"""Eight decisions, eight TODOs, six errors and six preferences."""

LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt "
    "ut labore et dolore magna aliqua.",
    "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea "
    "commodo consequat.",
    "Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat "
    "nulla pariatur.",
    "Sed ut perspiciatis unde omnis iste natus error sit voluptatem accusantium doloremque "
    "laudantium, totam rem aperiam.",
    "Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit "
    "anim id est laborum.",
    "Nemo enim ipsam voluptatem quia voluptas sit aspernatur aut odit aut fugit, sed quia "
    "consequuntur magni dolores eos qui ratione voluptatem sequi nesciunt.",
)

DECOYS: dict[str, tuple[str, ...]] = {
    "filler": (
        "consectetur adipiscing",
        "quis nostrud",
        "reprehenderit in voluptate",
        "natus error sit",
        "sint occaecat",
        "voluptas sit aspernatur",
        "paste paste paste",
    ),
    "own output": (
        "You wrote:",
        "offline model: fixed rules",
        "config.toml",
        "OPENAI_API_KEY",
        "I received ",
        "Not found under the project root",
        "I cannot reason about that",
    ),
    "file contents": ("remove the legacy float path", 'raise ValueError("bad amount")'),
}
"""Text that must not appear in any section: filler, the model's own boilerplate, and what a
file that was read says (a comment in a file is not the session's open work)."""


def lorem_lines(count: int, start: int = 0, *, style: str = "numbered") -> list[str]:
    """``count`` pasted lorem lines: ``numbered`` ("3. Lorem ..."), ``rows`` ("Row 3: ...")."""
    out = []
    for i in range(start, start + count):
        text = LOREM[i % len(LOREM)]
        out.append(f"{i + 1}. {text}" if style == "numbered" else f"Row {i + 1}: {text}")
    return out


def _bash(output: str, code: int) -> str:
    return json.dumps({"output": f"{output}\n[exit code: {code}]", "exit_code": code})


def _read(path: str, text: str) -> str:
    lines = text.count("\n") + 1
    return json.dumps(
        {"path": path, "startLine": 1, "endLine": lines, "totalLines": lines, "output": text}
    )


_TOTALS_PY = '''"""Invoice totals."""

from decimal import Decimal


def total(lines):
    # TODO: remove the legacy float path once the backfill is done
    if not lines:
        raise ValueError("bad amount")
    return sum(Decimal(str(line.amount)) for line in lines)
'''

_PYTEST_FAILURE = "\n".join(
    [
        "============================= test session starts ==============================",
        *[f"tests/test_totals.py::test_case_{i} PASSED" for i in range(30)],
        "tests/test_totals.py::test_mixed FAILED",
        "=================================== FAILURES ===================================",
        "Traceback (most recent call last):",
        '  File "billing/totals.py", line 12, in total',
        "    return sum(line.amount for line in lines) + tax",
        "TypeError: unsupported operand type(s) for +: 'float' and 'decimal.Decimal'",
        "========================= 1 failed, 30 passed in 0.42s =========================",
    ]
)


class _Session:
    """Appends messages; the offline model's replies are written by its real answering code."""

    def __init__(self, root: Path, *, answer: bool = True) -> None:
        self.root = root
        self.answer = answer
        self.messages: list[Message] = []
        self.calls = 0

    def user(self, *lines: str) -> None:
        """A user message; the offline model answers it (disclaimer included)."""
        self.messages.append(Message("user", "\n".join(lines)))
        if self.answer:
            request = ChatRequest("offline", tuple(self.messages))
            self.messages.append(Message("assistant", reply_to(request, self.root).text))

    def model(self, text: str) -> None:
        """A reply from another model (the session switched models): a source like the user."""
        self.messages.append(Message("assistant", text))

    def tool(self, name: str, args: dict[str, object], result: str) -> None:
        self.calls += 1
        call = ToolCall(f"call_p{self.calls}", name, args, json.dumps(args, sort_keys=True))
        self.messages.append(Message("assistant", "", tool_calls=(call,)))
        self.messages.append(Message("tool", result, tool_call_id=call.id, name=name))


def _plant(s: _Session) -> None:
    s.user(
        "We're adding multi-currency invoice export to the billing app. The totals code is in "
        "billing/totals.py."
    )
    s.tool("read", {"path": "billing/totals.py"}, _read("billing/totals.py", _TOTALS_PY))
    s.user("We decided to use Decimal instead of float for money.")
    s.user("Here is the sample text the customer sent:", *lorem_lines(14))
    s.user(
        "TODO: make sure to round the tax line per item.",
        "TODO: always validate the currency code before saving.",
    )
    s.user("Please keep answers short.")
    s.tool("bash", {"command": "pytest tests/test_totals.py -q"}, _bash(_PYTEST_FAILURE, 1))
    s.user("More of the customer's text:", *lorem_lines(12, 3, style="rows"))
    s.user("We decided to use Decimal instead of float for tax rates as well.")
    s.user(
        "Paste from the spec:",
        *lorem_lines(4, 7),
        "We'll go with ISO 4217 codes instead of currency symbols.",
        *lorem_lines(4, 11),
        "FIXME: the CSV export still writes 1.0000000001 for some totals.",
        *lorem_lines(4, 15),
    )
    s.user(
        "I prefer small commits with one logical change each. Don't add new dependencies "
        "without asking."
    )
    s.tool(
        "bash",
        {"command": "python -m billing.export --format csv"},
        _bash(
            'Traceback (most recent call last):\n  File "billing/export.py", line 3\n'
            "ModuleNotFoundError: No module named 'babel'",
            1,
        ),
    )
    s.user("paste paste paste paste paste paste paste paste paste paste paste paste")
    s.user("We decided to use Decimal instead of float in the CSV export too.")
    s.user("Next step: add a regression test in tests/test_totals.py.")
    s.model("We chose to cache the exchange rates for 24 hours; the ECB publishes once a day.")
    s.model("Next step: wire the exporter into the CLI.")
    s.user("=====", *lorem_lines(6, 2), "=====")
    s.user(
        "I ran it by hand and got:",
        "```",
        "Traceback (most recent call last):",
        '  File "billing/export.py", line 40, in row',
        "KeyError: 'currency'",
        "```",
    )
    s.user("We agreed to keep invoice numbers as strings. Never touch the files under vendor/.")
    s.tool(
        "bash",
        {"command": "git commit -am 'Use Decimal for money'"},
        _bash("error: could not lock config file .git/config: File exists", 128),
    )
    s.user("ValueError: invalid literal for Decimal: '12,50'")
    s.user("The export fails with a non-zero exit when the rates file is missing.")
    s.user("Please always show the command before running it.")
    s.user("We still need to backfill the currency column for old invoices.")
    s.user("Going with a nightly batch rather than a cron job per merchant.", *lorem_lines(5, 4))
    s.user("Remaining work: the PDF invoice template.")
    s.user("Let's use ROUND_HALF_EVEN for display rounding.")
    s.user("From now on, write commit messages in the imperative.")
    s.user("TODO: document the rounding rules in docs/money.md.")


def user_plants() -> list[str]:
    """The user messages of the planted turns, in order, for a session driven by the runner."""
    s = _Session(Path(), answer=False)
    _plant(s)
    return [m.content for m in s.messages if m.role == "user"]


def noise_turns(root: Path, start: int, count: int) -> list[Message]:
    """``count`` turns of routine work and pasted filler, with the offline model's replies."""
    s = _Session(root)
    s.calls = 1000 + start * 10
    for i, message in enumerate(filler_turns(start, count)):
        s.messages.append(message)
        if message.role == "user" and i % 4 == 0:
            s.user("Some more of the sample text:", *lorem_lines(8, start + i, style="rows"))
    return s.messages


def build_planted_session(root: Path, noise: int = 60) -> list[Message]:
    """The planted turns, then ``noise`` turns of routine work and filler (root: a project)."""
    s = _Session(root)
    _plant(s)
    return s.messages + noise_turns(root, 0, noise)


def sections(summary: str) -> list[str]:
    """The eight sections' bodies (text after each heading), in order; empty when missing."""
    out = []
    for number, heading in enumerate(SECTION_HEADINGS):
        start = summary.find(heading)
        if start < 0:
            out.append("")
            continue
        following = SECTION_HEADINGS[number + 1] if number + 1 < len(SECTION_HEADINGS) else None
        # The last section ends at the next heading too (the engine's artifact ledger follows).
        end = summary.find(following or "\n## ", start + len(heading))
        out.append(summary[start + len(heading) : end if end >= 0 else len(summary)])
    return out


@dataclass(frozen=True, slots=True)
class Score:
    """One summary's reading: planted items kept, misfiled and dropped, and decoy bullets."""

    kept: dict[str, list[Planted]]
    misfiled: dict[str, list[Planted]]
    dropped: dict[str, list[Planted]]
    decoys: dict[str, list[str]]
    """Per decoy group, the bullets (lines) that quote one of its probes."""


def score(summary: str, planted: Sequence[Planted] = PLANTED, retained: str = "") -> Score:
    """Read ``summary`` against the planted items and the decoys.

    Args:
        summary: the summary text.
        planted: the items to look for.
        retained: the text of the turns the compaction kept as they were; an item found there
            is not summarized yet, so it counts as kept.
    """
    bodies = sections(summary)
    kept: dict[str, list[Planted]] = {k: [] for k in KINDS}
    misfiled: dict[str, list[Planted]] = {k: [] for k in KINDS}
    dropped: dict[str, list[Planted]] = {k: [] for k in KINDS}
    for item in planted:
        where = [n + 1 for n, body in enumerate(bodies) if item.probe.lower() in body.lower()]
        waiting = item.probe.lower() in retained.lower()
        bucket = kept if item.section in where or waiting else misfiled if where else dropped
        bucket[item.kind].append(item)
    lines = [line for body in bodies for line in body.splitlines() if line.strip()]
    decoys = {
        group: [line for line in lines if any(p.lower() in line.lower() for p in probes)]
        for group, probes in DECOYS.items()
    }
    return Score(kept, misfiled, dropped, decoys)


# -- probe sessions (issue 31): five long sessions, one per language, five kinds of probe ------

PROBE_KINDS = ("fact", "decision", "file change", "todo", "preference")


@dataclass(frozen=True, slots=True)
class Probe:
    """A planted probe: answerable when every text of ``all_of`` is on one line of the active
    generation; a ``stale`` text on a line without ``superseded``/``reverted``/``done`` marks
    a conflict (an old state shown as current)."""

    kind: str
    all_of: tuple[str, ...]
    stale: str = ""


@dataclass(frozen=True, slots=True)
class Language:
    """What one session is about."""

    name: str
    ext: str
    test: str
    build: str
    module: str
    helper: str


LANGUAGES = (
    Language("python", "py", "pytest -q", "ruff check .", "billing/totals", "round_amount"),
    Language("go", "go", "go test ./...", "go vet ./...", "internal/ledger/post", "PostEntry"),
    Language(
        "typescript", "ts", "npm test", "npx tsc --noEmit", "src/cart/checkout", "applyCoupon"
    ),
    Language("rust", "rs", "cargo test", "cargo clippy", "src/parser/lexer", "next_token"),
    Language("java", "java", "mvn -q test", "mvn -q verify", "src/main/Orders", "placeOrder"),
)


def _probe_plant(s: _Session, lang: Language, n: int) -> list[Probe]:
    """The planted turns of one session; returns its probes."""
    main = f"{lang.module}.{lang.ext}"
    new = f"{lang.module}_limits.{lang.ext}"
    gone = f"{lang.module}_legacy.{lang.ext}"
    back = f"{lang.module}_format.{lang.ext}"
    port, limit, attempts = 8400 + n, 250 + n, 3 + n
    err = f"E{4100 + n}: ledger imbalance on {lang.helper}"
    probes: list[Probe] = []
    s.user(f"We need to fix the rounding of totals in {main}. Please look at {lang.helper} first.")
    s.tool("read", {"path": main}, _read(main, f"// {lang.helper}\nfn {lang.helper}() {{}}\n"))
    s.model(
        f"The bug is in {lang.helper}: it rounds each line before summing, so a total of "
        f"{limit} lines drifts by up to {limit} cents."
    )
    probes.append(Probe("fact", (lang.helper, f"{limit} cents")))
    s.model(f"The retry limit is {attempts} attempts, set in config/retry.toml.")
    probes.append(Probe("fact", (f"{attempts} attempts",)))
    s.tool(
        "bash", {"command": "./scripts/serve --check"}, _bash(f"server listening on port {port}", 0)
    )
    s.model(f"The dev server listens on port {port}.")
    probes.append(Probe("fact", (f"port {port}",)))
    s.tool("bash", {"command": lang.test}, _bash(f"FAIL {lang.helper}\n{err}\n=====", 1))
    s.model(f"The test fails with `{err}`.")
    probes.append(Probe("fact", (err,)))
    s.model(f"The handler is registered as LedgerHandler{n} in cmd/main.{lang.ext}.")
    probes.append(Probe("fact", (f"LedgerHandler{n}",)))
    s.user("We decided to round with floats because it is simpler.")
    s.user(
        "We decided to use integer cents instead of floats because floats drift on large invoices."
    )
    probes.append(Probe("decision", ("integer cents", "drift"), stale="round with floats"))
    s.user(f"We decided to keep {lang.helper} pure because it is called from two threads.")
    probes.append(Probe("decision", (f"keep {lang.helper} pure", "two threads")))
    s.model("Two options for caching the rates: a Redis cache, or an in-memory LRU.")
    s.user("the first one")
    probes.append(Probe("decision", ("Redis cache",)))
    s.user("Let's use ISO 4217 codes because symbols are ambiguous.")
    probes.append(Probe("decision", ("ISO 4217", "ambiguous")))
    s.tool(
        "write",
        {"path": new, "content": f"MAX_LINES = {limit}\nMAX_RETRY = {attempts}\n"},
        f"Wrote 30 bytes to {new} (new file).",
    )
    probes.append(Probe("file change", (new, "created", "+2")))
    s.tool(
        "edit",
        {
            "path": main,
            "old_string": "total += round(x)",
            "new_string": "total += x\ntotal = round(total)",
        },
        f"Edited {main}: replaced 1 occurrence.",
    )
    probes.append(Probe("file change", (main, "+2 -1", "round(total)")))
    s.tool(
        "edit",
        {"path": back, "old_string": "fmt(a)", "new_string": "fmt(a, b)"},
        f"Edited {back}: replaced 1 occurrence.",
    )
    s.tool("bash", {"command": f"git checkout -- {back}"}, _bash("", 0))
    probes.append(Probe("file change", (back, "reverted"), stale="edited"))
    s.tool("bash", {"command": f"git rm {gone}"}, _bash(f"rm '{gone}'", 0))
    probes.append(Probe("file change", (gone, "deleted")))
    s.tool("bash", {"command": lang.test}, _bash("ok all tests passed", 0))
    probes.append(Probe("fact", (lang.test, "exit 0"), stale="exit 1"))
    s.user(f"TODO: add a regression test for {lang.helper} with {limit} lines.")
    probes.append(Probe("todo", (f"regression test for {lang.helper}",)))
    s.user("Not now, but later we should cache the exchange rates per day.")
    probes.append(Probe("todo", ("cache the exchange rates per day",)))
    s.user("The logging cleanup goes in a separate PR.")
    probes.append(Probe("todo", ("logging cleanup",)))
    s.user("TODO: update the changelog.")
    s.model("done: update the changelog")
    probes.append(Probe("todo", ("update the changelog", "done"), stale="open"))
    s.user(f"Always run `{lang.build}` before you commit.")
    probes.append(Probe("preference", (lang.build,)))
    s.user("Never push to main directly.")
    probes.append(Probe("preference", ("push to main",)))
    s.user("I review on Fridays, so batch the pull requests.")
    probes.append(Probe("preference", ("review on Fridays",)))
    s.user("Keep answers short.")
    probes.append(Probe("preference", ("answers short",)))
    return probes


def build_probe_session(root: Path, index: int) -> tuple[list[Message], list[Probe], int]:
    """Session ``index`` (0-4): its planted turns, then routine work and filler; the probes
    and how many messages the planted turns take."""
    lang = LANGUAGES[index]
    s = _Session(root)
    probes = _probe_plant(s, lang, index)
    return s.messages + noise_turns(root, 10 * index, 30), probes, len(s.messages)


def answered(probe: Probe, text: str) -> bool:
    """Whether one line of ``text`` holds every text of the probe."""
    wanted = [t.lower() for t in probe.all_of]
    return any(all(w in line.lower() for w in wanted) for line in text.lower().splitlines())


def conflicted(probe: Probe, text: str) -> bool:
    """Whether an old state shows as current: a line naming the probe's subject and its stale
    text, without a mark that it is over."""
    if not probe.stale:
        return False
    subject, stale = probe.all_of[0].lower(), probe.stale.lower()
    over = ("superseded", "reverted", "done", "exit 0")
    for line in text.lower().splitlines():
        named = (subject in line or probe.kind == "decision") and stale in line
        if named and not any(mark in line for mark in over):
            return True
    return False
