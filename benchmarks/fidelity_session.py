"""A scripted long coding session with 30 planted facts, for summary-fidelity measurements.

The session is built as ``Message``s directly (no runner): early turns plant facts (file paths,
commands, numbers, decisions, user preferences) among ordinary work; later turns are filler work
of the same shape (requests, reads, edits, test runs). ``fact_share`` reports which planted facts
are still present in a list of messages, e.g. the active generation after compactions.

Reused by ``bench_summary_fidelity.py`` and, later, by the runner-driven benchmark.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from steiner_tui.engine.messages import Message, ToolCall

__all__ = ["FACTS", "Fact", "build_session", "fact_share", "filler_turns", "present_facts"]


@dataclass(frozen=True, slots=True)
class Fact:
    """A planted fact: its kind and the text that must survive (matched case-insensitively)."""

    kind: str
    probe: str


FACTS: tuple[Fact, ...] = (
    Fact("path", "services/billing/invoice_totals.py"),
    Fact("path", "config/rate_limits.toml"),
    Fact("path", "migrations/0042_add_currency.sql"),
    Fact("path", "docs/adr/0007-money-as-integers.md"),
    Fact("path", "tests/billing/test_rounding.py"),
    Fact("path", "scripts/backfill_currency.py"),
    Fact("command", "make migrate DB=staging"),
    Fact("command", "pytest tests/billing -k rounding -x"),
    Fact("command", "ruff check services/billing"),
    Fact("command", "python scripts/backfill_currency.py --dry-run"),
    Fact("command", "docker compose up -d postgres"),
    Fact("command", "git log --oneline -5 -- services/billing"),
    Fact("number", "250 requests per minute"),
    Fact("number", "10,000 EUR"),
    Fact("number", "port 6543"),
    Fact("number", "37 merchants"),
    Fact("number", "45 minutes"),
    Fact("number", "4 decimal places"),
    Fact("decision", "integer cents instead of floats"),
    Fact("decision", "ROUND_HALF_EVEN"),
    Fact("decision", "currency column nullable"),
    Fact("decision", "httpx instead of requests"),
    Fact("decision", "retry logic in payments/client.py"),
    Fact("decision", "feature flag billing_v2"),
    Fact("preference", "small commits with one logical change"),
    Fact("preference", "new dependencies without asking"),
    Fact("preference", "run the linter before"),
    Fact("preference", "files under vendor/"),
    Fact("preference", "Google style docstrings"),
    Fact("preference", "keep answers short"),
)
"""The 30 planted facts, six of each kind."""


class _Builder:
    """Appends turns with unique, deterministic tool-call ids."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = 0

    def user(self, text: str) -> None:
        self.messages.append(Message("user", text))

    def say(self, text: str) -> None:
        self.messages.append(Message("assistant", text))

    def tool(self, name: str, args: dict[str, object], result: str, text: str = "") -> None:
        self.calls += 1
        call = ToolCall(f"call_{self.calls}", name, args, json.dumps(args, sort_keys=True))
        self.messages.append(Message("assistant", text, tool_calls=(call,)))
        self.messages.append(Message("tool", result, tool_call_id=call.id, name=name))


def _code(path: str, lines: int = 40) -> str:
    body = [f'"""Module {path}."""', "", "from __future__ import annotations", ""]
    for i in range(lines):
        body.append(f"def helper_{i}(value: int) -> int:")
        body.append(f"    return value * {i} + {lines - i}  # keep in sync with the caller")
    text = "\n".join(body)
    return json.dumps(
        {
            "path": path,
            "startLine": 1,
            "endLine": len(body),
            "totalLines": len(body),
            "file_hash": "0" * 8,
            "output": text,
        }
    )


def _bash(output: str, code: int = 0) -> str:
    return json.dumps({"output": output, "exit_code": code})


def _ok() -> str:
    return json.dumps({"ok": True})


def _planted(b: _Builder) -> None:
    b.user(
        "We are adding multi-currency support to the billing service. The rounding bug is in "
        "services/billing/invoice_totals.py; please start there."
    )
    b.tool(
        "read",
        {"path": "services/billing/invoice_totals.py"},
        _code("services/billing/invoice_totals.py"),
    )
    b.say("The totals are summed as floats before rounding, which explains the drift.")
    b.user(
        "I prefer small commits with one logical change each. Keep answers short; I read "
        "them on my phone."
    )
    b.say("Understood.")
    b.user("The public API allows 250 requests per minute per key. Check the limits file.")
    b.tool(
        "read",
        {"path": "config/rate_limits.toml"},
        json.dumps(
            {
                "path": "config/rate_limits.toml",
                "totalLines": 3,
                "output": "[api]\nper_minute = 250\nburst = 20\n",
            }
        ),
    )
    b.say("config/rate_limits.toml matches: per_minute = 250, burst 20.")
    b.user(
        "We decided to store money as integer cents instead of floats. The reasoning is in "
        "docs/adr/0007-money-as-integers.md."
    )
    b.say("I will convert the totals to integer cents.")
    b.user("Start the database for the tests.")
    b.tool(
        "bash",
        {"command": "docker compose up -d postgres"},
        _bash("Container billing-postgres-1  Started"),
    )
    b.user("The staging database listens on port 6543, not the default.")
    b.say("Noted.")
    b.tool(
        "write",
        {
            "path": "migrations/0042_add_currency.sql",
            "content": "ALTER TABLE invoices ADD COLUMN currency char(3);",
        },
        _ok(),
        "Adding the migration.",
    )
    b.say("I decided to keep the currency column nullable until the backfill finishes.")
    b.user("Run it against staging.")
    b.tool("bash", {"command": "make migrate DB=staging"}, _bash("applied 0042_add_currency"))
    b.user(
        "Let's use Decimal with ROUND_HALF_EVEN for display rounding. Invoices over 10,000 "
        "EUR need a second approval."
    )
    b.tool(
        "edit",
        {"path": "tests/billing/test_rounding.py", "old": "x", "new": "y"},
        _ok(),
        "Adding a regression test.",
    )
    b.tool(
        "bash",
        {"command": "pytest tests/billing -k rounding -x"},
        _bash(
            "FAILED tests/billing/test_rounding.py::test_half_even - AssertionError: 1.005 != 1.00",
            1,
        ),
    )
    b.say("The new test fails as expected before the fix.")
    b.user("Please don't add new dependencies without asking me first.")
    b.say("Understood.")
    b.user(
        "We'll go with httpx instead of requests for the payment client, it is already installed."
    )
    b.say("We chose to put the retry logic in payments/client.py, next to the session setup.")
    b.user("Always run the linter before you say you're done.")
    b.tool("bash", {"command": "ruff check services/billing"}, _bash("All checks passed!"))
    b.user("Who touched billing recently?")
    b.tool(
        "bash",
        {"command": "git log --oneline -5 -- services/billing"},
        _bash("a1b2c3d fix totals\n9f8e7d6 add invoice model"),
    )
    b.user(
        "We have 37 merchants still on the legacy plan. Amounts are stored with 4 decimal "
        "places internally."
    )
    b.say("Then the backfill must convert from 4 decimal places to cents.")
    b.say("I wrote scripts/backfill_currency.py to fill the column.")
    b.tool(
        "bash",
        {"command": "python scripts/backfill_currency.py --dry-run"},
        _bash("would update 1204 invoices"),
    )
    b.user("Never touch the files under vendor/. Use Google style docstrings in new code.")
    b.user(
        "The nightly job must finish within 45 minutes. We agreed to ship the migration "
        "behind the feature flag billing_v2."
    )
    b.say("Noted; the migration stays behind billing_v2.")


_REQUESTS = (
    "Can you tidy up the docstrings in {path}?",
    "Rename helper_3 to scale_amount in {path} and update its callers.",
    "What does helper_7 in {path} return for negative values?",
    "Add type hints to the remaining functions of {path}.",
)


def filler_turns(start: int, count: int) -> list[Message]:
    """``count`` turns of ordinary work (request, read, edit, sometimes a test run, reply).

    Args:
        start: index of the first filler turn (makes paths and ids unique across calls).
        count: how many user turns to produce.

    Returns:
        The messages, oldest first.
    """
    b = _Builder()
    b.calls = start * 10
    for i in range(start, start + count):
        path = f"services/catalog/module_{i:03d}.py"
        b.user(_REQUESTS[i % len(_REQUESTS)].format(path=path))
        b.tool("read", {"path": path}, _code(path))
        b.tool("edit", {"path": path, "old": "a", "new": "b"}, _ok())
        if i % 3 == 0:
            test = f"pytest tests/catalog/test_module_{i:03d}.py -q"
            b.tool("bash", {"command": test}, _bash(f"{5 + i % 7} passed in 0.{i % 9}s"))
        b.say(f"I updated {path}; its public functions keep their signatures.")
    return b.messages


def build_session(filler: int = 45) -> list[Message]:
    """The opening session: the planted turns, then ``filler`` ordinary turns (60+ turns)."""
    b = _Builder()
    _planted(b)
    return b.messages + filler_turns(0, filler)


def present_facts(messages: Iterable[Message], facts: Sequence[Fact] = FACTS) -> list[Fact]:
    """The facts whose probe appears in any message's content or tool-call arguments."""
    haystack = "\n".join(
        m.content + "".join(c.raw_arguments for c in m.tool_calls) for m in messages
    ).lower()
    return [f for f in facts if f.probe.lower() in haystack]


def fact_share(messages: Iterable[Message], facts: Sequence[Fact] = FACTS) -> float:
    """The share (0..1) of ``facts`` present in ``messages``."""
    return len(present_facts(messages, facts)) / len(facts)
