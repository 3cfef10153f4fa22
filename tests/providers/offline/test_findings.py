"""The offline summarizer keeps findings (issue 31): the assistant's stated facts, decisions with
their reasons, "later" as open work, "I review on ..." as a preference, a bare "the first one"
resolved against the options offered, and never an old state as current."""

from __future__ import annotations

from steiner_tui.engine.compaction.pastes import collapse_pastes, collapse_text
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state.artifacts import build_ledger
from steiner_tui.providers.offline import extractive_summary
from steiner_tui.providers.offline.extract import offered_options


def _section(summary: str, number: int) -> str:
    start = summary.index(f"## {number}.")
    end = summary.find("\n## ", start + 1)
    return summary[start : end if end >= 0 else len(summary)]


def _bash(n: int, command: str, output: str) -> list[Message]:
    call = ToolCall(f"b{n}", "bash", {"command": command})
    return [
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", output, tool_call_id=f"b{n}", name="bash"),
    ]


def test_findings_open_work_preferences_and_choices() -> None:
    messages = [
        Message("user", "Fix the rounding in billing/totals.py."),
        Message("assistant", "The retry limit is 3 attempts, set in config/retry.toml."),
        Message(
            "assistant", "Two options for caching the rates: a Redis cache, or an in-memory LRU."
        ),
        Message("user", "the first one"),
        Message("user", "Not now, but later we should cache the exchange rates per day."),
        Message("user", "The logging cleanup goes in a separate PR."),
        Message("user", "I review on Fridays, so batch the pull requests."),
    ]
    summary = extractive_summary(messages, max_tokens=6000, emergency=False)
    findings = _section(summary, 4)
    assert "Assistant: The retry limit is 3 attempts" in findings
    assert 'User: chose a Redis cache ("the first one" of: a Redis cache, an in-memory LRU)' in (
        findings
    )
    remaining = _section(summary, 6)
    assert "cache the exchange rates per day" in remaining and "logging cleanup" in remaining
    assert "I review on Fridays" in _section(summary, 8)


def test_no_old_state_is_shown_as_current() -> None:
    messages = [
        Message("user", "Fix the rounding."),
        Message("user", "We decided to round with floats because it is simpler."),
        Message("user", "We decided to use integer cents instead of floats because floats drift."),
        Message("user", "TODO: update the changelog."),
        *_bash(1, "pytest -q", "FAILED test_total\n[exit code: 1]"),
        *_bash(2, "pytest -q", "1 passed\n[exit code: 0]"),
        Message("assistant", "done: update the changelog"),
    ]
    summary = extractive_summary(messages, max_tokens=6000, emergency=False)
    assert "round with floats" not in summary
    assert "integer cents instead of floats because floats drift" in _section(summary, 4)
    assert "update the changelog" not in _section(summary, 6)
    assert "`pytest -q` (exit 0)" in summary and "(exit 1)" not in summary
    assert "failed" not in _section(summary, 5).lower()


def test_offered_options() -> None:
    assert offered_options("Pick one: red, green or blue.") == ["red", "green", "blue"]
    assert offered_options("No options here.") == []


def test_the_compact_focus_comes_first_and_stays_under_a_tight_cap() -> None:
    frames = [f'  File "app/m{i}.py", line {i}, in f{i}' for i in range(200)]
    messages = [
        Message("user", "Fix the importer."),
        *[Message("user", f"We decided to use parser {i} because it is fast.") for i in range(30)],
        Message("user", "We decided to keep the CSV reader because the XLSX one leaks memory."),
        Message(
            "user", "\n".join(["Here is the log:", "```", *frames, "ValueError: bad row", "```"])
        ),
    ]
    focus = "keep the decisions about the CSV reader"
    summary = extractive_summary(messages, max_tokens=900, emergency=False, steering=focus)
    findings = _section(summary, 4).splitlines()
    assert "CSV reader because the XLSX one leaks memory" in findings[1]
    assert sum('File "app/' in line for line in summary.splitlines()) == 0


def test_a_pasted_trace_reaches_the_summarizer_collapsed() -> None:
    frames = [f'  File "app/m{i}.py", line {i}, in f{i}\n    call_{i}()' for i in range(100)]
    text = "\n".join(["Traceback (most recent call last):", *frames, "KeyError: 'currency'"])
    collapsed = collapse_text(f"It broke:\n\n{text}\n\nCan you fix it?")
    lines = collapsed.splitlines()
    assert lines[0] == "It broke:" and lines[-1] == "Can you fix it?"
    assert len(lines) < 12 and "KeyError: 'currency'" in collapsed
    assert "similar lines collapsed for the summary" in collapsed
    assert collapse_text("short\ntext") == "short\ntext"
    # Fitting a summary input builds its request for each part it tries: collapsed once each.
    pasted, asked = Message("user", f"It broke:\n\n{text}"), Message("assistant", "Looking.")
    seen: dict[int, tuple[Message, Message]] = {}
    first = collapse_pastes((pasted, asked), seen)
    again = collapse_pastes((pasted,), seen)
    assert first == collapse_pastes((pasted, asked)) and first[1] is asked
    assert again[0] is first[0] and first[0].content != pasted.content


def test_a_numbered_or_lettered_pick_with_a_reason_is_a_decision_with_it() -> None:
    offer = "We could: (a) vendor the parser, or (b) pin the upstream release, or (c) fork it."
    for pick, place in (("b - pinning keeps the diff small", 1), ("go with 3. forks rot", 2)):
        messages = [
            Message("user", "The parser breaks on tabs."),
            Message("assistant", offer),
            Message("user", pick),
        ]
        findings = _section(extractive_summary(messages, max_tokens=6000, emergency=False), 4)
        choice = ("pin the upstream release", "fork it")[place - 1]
        reason = pick.split(" ", 2)[-1] if place == 1 else "forks rot"
        assert f"User: chose {choice} because {reason}" in findings
    assert offered_options(offer) == ["vendor the parser", "pin the upstream release", "fork it"]


def test_a_choice_replaced_after_a_compaction_is_marked_wherever_it_is_quoted() -> None:
    first = [
        Message("user", "Keep the retries in the client for now, the gateway has none yet."),
        Message("user", "Let's make the timeout 5 seconds while we test it."),
    ]
    summary = extractive_summary(first, max_tokens=6000, emergency=False)
    ledger = build_ledger(first).render()
    later = [
        Message("summary", f"{summary}\n\n{ledger}"),
        Message("user", "The gateway retries now, so let's drop the client's retries after all."),
    ]
    again = extractive_summary(later, max_tokens=6000, emergency=False)
    quoted = [line for line in again.splitlines() if "retries in the client" in line]
    assert quoted and all(line.endswith("(superseded)") for line in quoted)
    assert "timeout 5 seconds" in again and "timeout 5 seconds (superseded)" not in again
