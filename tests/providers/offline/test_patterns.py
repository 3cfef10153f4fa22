"""The summarizer's rules, one by one: sentence kinds, filler, error lines, text helpers."""

from __future__ import annotations

import pytest

from steiner_tui.providers.offline.filler import is_filler, is_lorem, is_repetitive
from steiner_tui.providers.offline.patterns import (
    Kind,
    classify_sentence,
    is_error_line,
    is_test_command,
    is_traceback_noise,
)
from steiner_tui.providers.offline.textutil import code_blocks, code_spans, condense, sentences
from steiner_tui.providers.offline.toolresults import error_lines, failure_lines


def _user(text: str) -> Kind | None:
    return classify_sentence(text, by_user=True)


def _assistant(text: str) -> Kind | None:
    return classify_sentence(text, by_user=False)


@pytest.mark.parametrize(
    "text",
    [
        "We decided to use Decimal instead of float for money.",
        "We'll use httpx for the payment client.",
        "I chose the second layout.",
        "Going with a nightly batch.",
        "We agreed to ship it behind a flag.",
        "Let's use ROUND_HALF_EVEN for display.",
        "Keep the ids as strings rather than integers.",
        "We settled on Postgres.",
    ],
)
def test_decisions(text: str) -> None:
    assert _user(text) is Kind.DECISION
    assert _assistant(text) is Kind.DECISION


@pytest.mark.parametrize(
    "text",
    [
        "TODO: make sure to round the tax line per item.",
        "TODO: always validate the currency code before saving.",
        "todo never log the card number",
        "FIXME: the export still writes 1.0000000001 for some totals.",
        "Next step: add a regression test.",
        "Remaining work: the PDF template.",
        "We still need to backfill old invoices.",
        "The migration is not yet applied.",
        "Don't forget to update the changelog.",
        "Please remember to bump the version.",
    ],
)
def test_open_work_wins_over_the_preference_words_it_contains(text: str) -> None:
    assert _user(text) is Kind.TODO


@pytest.mark.parametrize(
    "text",
    [
        "Traceback (most recent call last):",
        "TypeError: unsupported operand type(s) for +: 'float' and 'decimal.Decimal'",
        "Error: connection refused",
        "FAILED tests/test_a.py::test_b - AssertionError",
        "The build exits with exit code 2 on CI.",
        "It stopped with a non-zero exit.",
        "The export failed twice today.",
        "The parser crashes on empty input.",
        "There is an exception in the worker.",
    ],
)
def test_problems(text: str) -> None:
    assert _user(text) is Kind.PROBLEM


@pytest.mark.parametrize(
    "text",
    [
        "Please keep answers short.",
        "Keep your replies very brief.",
        "I prefer small commits.",
        "Please always show the command first.",
        "Please never push to main.",
        "Don't add new dependencies.",
        "Never touch the files under vendor/.",
        "Always run the linter before you say you're done.",
        "From now on, write commit messages in the imperative.",
    ],
)
def test_preferences_come_from_the_user_only(text: str) -> None:
    assert _user(text) is Kind.PREFERENCE
    assert _assistant(text) is not Kind.PREFERENCE


def test_a_decision_outranks_the_preference_words_in_it() -> None:
    assert _user("Please don't use floats; we decided on Decimal.") is Kind.DECISION
    # An error named mid-sentence does not hide the decision; one that opens the line does.
    assert _user("We decided to catch the TypeError in the parser.") is Kind.DECISION
    assert _user("KeyError: 'currency' since we decided to drop it") is Kind.PROBLEM


@pytest.mark.parametrize(
    "text",
    [
        "All tests pass now.",
        "Run pytest tests/billing before merging.",
        "I verified the totals by hand.",
        "The suite must pass on 3.11.",
    ],
)
def test_verification(text: str) -> None:
    assert _user(text) is Kind.VERIFICATION


def test_stated_facts_need_a_number_and_a_statement() -> None:
    assert _user("The public API allows 250 requests per minute.") is Kind.FACT
    assert _user("We have 37 merchants on the legacy plan.") is Kind.FACT
    assert _user("Look at module 12 and check helper 7.") is None
    assert _user("What does helper 7 return?") is None
    assert _user("Row 3") is None
    # The assistant's statements with a number, an identifier or an error code are findings.
    assert _assistant("The file has 40 lines.") is Kind.FACT
    assert _assistant("The handler is registered as LedgerHandler in cmd/main.go.") is Kind.FACT
    assert _assistant("That looks right to me.") is None


def test_completed_work_comes_from_the_assistant_only() -> None:
    assert _assistant("I added the CSV exporter.") is Kind.DONE
    assert _assistant("The exporter is now wired in.") is Kind.DONE
    assert _user("I added a note to the ticket.") is None


def test_filler_gets_no_kind() -> None:
    cicero = "Sed ut perspiciatis unde omnis iste natus error sit voluptatem accusantium."
    assert _user(cicero) is None  # "error" is one of its words
    assert _user("Row 31: Ut enim ad minim veniam, quis nostrud exercitation ullamco.") is None
    assert _user("test test test test test test test test") is None
    assert _user("12.") is None and _user("-----") is None


@pytest.mark.parametrize(
    "text",
    [
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
        "Row 12: Duis aute irure dolor in reprehenderit in voluptate velit esse.",
        "Nemo enim ipsam voluptatem quia voluptas sit aspernatur aut odit aut fugit.",
    ],
)
def test_lorem_is_filler(text: str) -> None:
    assert is_lorem(text) and is_filler(text)


@pytest.mark.parametrize(
    "text",
    [
        "Fix the lorem ipsum placeholder in the footer.",
        "There is an error in the totals.",
        "We decided to use Decimal instead of float.",
        "See src/a.py, src/b.py, src/c.py, src/d.py, src/e.py, src/f.py and src/g.py.",
        "`services/catalog/` (read): `module_000.py`, `module_001.py`, `module_002.py`, "
        "`module_003.py`, `module_004.py`, `module_005.py`",
        "OK",
    ],
)
def test_ordinary_text_is_not_filler(text: str) -> None:
    assert not is_filler(text)


def test_repetition_and_lines_without_words() -> None:
    assert is_repetitive("paste paste paste paste paste paste paste paste paste")
    assert not is_repetitive("the cat sat on the mat and the dog")
    assert is_filler("=====") and is_filler("1.") and is_filler("12:34 -> 56")


def test_traceback_noise_and_error_lines() -> None:
    assert is_traceback_noise("Traceback (most recent call last):")
    assert is_traceback_noise('  File "billing/totals.py", line 12, in total')
    assert is_traceback_noise("    ^^^^^^^^")
    assert not is_traceback_noise("TypeError: bad operand")
    assert is_error_line("E   AssertionError: assert 1 == 2")
    assert is_error_line("src/a.py:3: error: Incompatible types")
    assert is_error_line("error[E0308]: mismatched types")
    assert is_error_line("tests/test_a.py::test_b FAILED")
    assert not is_error_line("Traceback (most recent call last):")
    assert not is_error_line("5 passed in 0.1s")


def test_error_lines_skip_the_traceback_frames() -> None:
    output = "\n".join(
        [
            "collected 3 items",
            "Traceback (most recent call last):",
            '  File "a.py", line 3, in f',
            "    return x + y",
            "TypeError: unsupported operand type(s)",
            "=== 1 failed, 2 passed in 0.1s ===",
        ]
    )
    assert error_lines(output) == ["TypeError: unsupported operand type(s)"]
    assert failure_lines(output) == [
        "TypeError: unsupported operand type(s)",
        "=== 1 failed, 2 passed in 0.1s ===",
    ]
    assert error_lines("all good\n3 passed") == []


def test_test_commands() -> None:
    assert is_test_command("pytest -q tests") and is_test_command("uv run mypy --strict src")
    assert not is_test_command("git log --oneline")


def test_sentences_drop_list_numbers_and_fences() -> None:
    text = (
        "Here is the list:\n1. Lorem ipsum dolor.\n2) Second item. Third one.\n- dash\n```\nx\n```"
    )
    assert sentences(text) == [
        "Here is the list:",
        "Lorem ipsum dolor.",
        "Second item.",
        "Third one.",
        "dash",
    ]
    assert code_blocks("a\n```text\nKeyError: 'x'\n```\nb") == ["KeyError: 'x'\n"]


def test_code_spans_and_condense_keep_what_a_cut_removes() -> None:
    text = "Please run `make migrate DB=staging` later, then `pytest -x` on tests/billing/x.py."
    assert code_spans(text) == ["make migrate DB=staging", "pytest -x"]
    short = condense(text, 40)
    assert short.startswith("Please run `make migrate DB=staging`")
    assert "(`pytest -x`, tests/billing/x.py)" in short
    assert condense("short text", 40) == "short text"
