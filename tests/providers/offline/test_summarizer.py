"""The extractive summarizer: sections, planted facts, carry-over, budgets, request detection."""

from __future__ import annotations

import json
from pathlib import Path

from steiner_tui.engine.compaction.archive import HISTORY_NOTE_MARKER
from steiner_tui.engine.compaction.room import OMITTED_MARKER, omitted_note
from steiner_tui.engine.compaction.summary_request import compaction_instruction, summary_problem
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.providers.offline import (
    SECTION_HEADINGS,
    OfflineProvider,
    extractive_summary,
    is_compaction_request,
)
from tests.providers.offline.support import ask


def _tokens(text: str) -> int:
    return 8 + (len(text) + 3) // 4


def _call(cid: str, name: str, **args: object) -> ToolCall:
    return ToolCall(cid, name, args, json.dumps(args))


def _section(summary: str, number: int) -> str:
    start = summary.index(SECTION_HEADINGS[number - 1])
    end = summary.index(SECTION_HEADINGS[number]) if number < 8 else len(summary)
    return summary[start:end]


def _transcript() -> list[Message]:
    return [
        Message("system", "You are a coding agent. Always be careful."),
        Message("user", "Add CSV export to the report module in app/report.py."),
        Message("assistant", "", tool_calls=(_call("1", "read", path="app/report.py"),)),
        Message("tool", json.dumps({"path": "app/report.py", "output": "x"}), tool_call_id="1"),
        Message("assistant", "", tool_calls=(_call("2", "edit", path="app/export.py"),)),
        Message("tool", "Edited app/export.py", tool_call_id="2"),
        Message("assistant", "", tool_calls=(_call("3", "bash", command="pytest -q tests"),)),
        Message(
            "tool",
            "FAILED tests/test_export.py::test_header - KeyError: 'name'\n[exit code: 1]",
            tool_call_id="3",
        ),
        Message("assistant", "We decided to write the header row with csv.DictWriter."),
        Message("user", "The export must handle 50000 rows. I prefer tabs over commas."),
        Message("user", "Please don't touch the legacy exporter. TODO: document the flag."),
    ]


def test_all_eight_headings_in_order_exactly_once() -> None:
    summary = extractive_summary(_transcript(), max_tokens=4096, emergency=False)
    positions = [summary.index(h) for h in SECTION_HEADINGS]
    assert positions == sorted(positions)
    assert all(summary.count(h) == 1 for h in SECTION_HEADINGS)
    assert "not a language model" in summary.splitlines()[0]


def test_planted_facts_land_in_their_sections() -> None:
    summary = extractive_summary(_transcript(), max_tokens=4096, emergency=False)
    assert 'Original request: "Add CSV export to the report module in app/report.py."' in (
        _section(summary, 1)
    )
    state = _section(summary, 2)
    assert "`app/report.py` (read)" in state and "`app/export.py` (edited)" in state
    assert "`pytest -q tests` (exit 1)" in _section(summary, 7)
    assert "KeyError: 'name'" in _section(summary, 5)
    findings = _section(summary, 4)
    assert "csv.DictWriter" in findings and "50000 rows" in findings
    assert "TODO: document the flag" in _section(summary, 6)
    prefs = _section(summary, 8)
    assert "I prefer tabs over commas." in prefs
    assert "Please don't touch the legacy exporter." in prefs
    assert "Always be careful" not in summary


def test_output_is_deterministic() -> None:
    first = extractive_summary(_transcript(), max_tokens=2000, emergency=False)
    assert extractive_summary(_transcript(), max_tokens=2000, emergency=False) == first


def test_previous_summary_is_carried_forward_without_history_notes() -> None:
    first = extractive_summary(_transcript(), max_tokens=4096, emergency=False)
    noted = f"{first}\n{HISTORY_NOTE_MARKER} sessions/s1/history.md]"
    later = [
        Message("system", noted),
        Message("user", "Now add JSON export too. I prefer tabs over commas."),
        Message("assistant", "", tool_calls=(_call("9", "write", path="app/json_export.py"),)),
        Message("tool", "Wrote app/json_export.py", tool_call_id="9"),
    ]
    second = extractive_summary(later, max_tokens=4096, emergency=False)
    assert HISTORY_NOTE_MARKER not in second
    assert "csv.DictWriter" in second and "50000 rows" in second
    assert "`app/json_export.py` (written)" in second
    assert second.count("I prefer tabs over commas.") == 1
    assert second.count("Original request:") == 1
    assert 'User asked: "Now add JSON export too."' in second
    # Summarizing a summary alone is stable, except that "unanswered" notes are re-derived.
    third = extractive_summary([Message("summary", second)], max_tokens=4096, emergency=False)
    assert third == second.replace('- Unanswered: "Now add JSON export too."\n', "")


def _long_transcript() -> list[Message]:
    messages = _transcript()
    for i in range(200):
        call = _call(f"f{i}", "read", path=f"pkg/module_{i}.py")
        messages += [
            Message("user", f"Look at pkg/module_{i}.py and check helper number {i}, thanks."),
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", json.dumps({"output": "x"}), tool_call_id=call.id),
            Message("assistant", f"I updated pkg/module_{i}.py to use the new helper."),
        ]
    return messages


def test_budget_is_respected_and_preferences_outlive_old_detail() -> None:
    messages = _long_transcript()
    full = extractive_summary(messages, max_tokens=100_000, emergency=False)
    assert _tokens(full) > 3000
    small = extractive_summary(messages, max_tokens=800, emergency=False)
    assert _tokens(small) <= 800
    assert all(h in small for h in SECTION_HEADINGS)
    assert "I prefer tabs over commas." in small
    assert "Original request:" in small
    assert "module_199" in small and "module_0.py" not in small
    emergency = extractive_summary(messages, max_tokens=800, emergency=True)
    assert _tokens(emergency) <= 400 and all(h in emergency for h in SECTION_HEADINGS)
    tiny = extractive_summary(messages, max_tokens=10, emergency=False)
    assert [h for h in SECTION_HEADINGS if h in tiny] == list(SECTION_HEADINGS)


def test_many_files_of_one_folder_share_a_line_and_expand_when_carried() -> None:
    messages = [Message("user", "Tidy the package please, all of it.")]
    for i in range(4):
        call = _call(f"e{i}", "edit", path=f"pkg/m{i}.py")
        messages += [
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", "ok", tool_call_id=call.id),
        ]
    summary = extractive_summary(messages, max_tokens=4096, emergency=False)
    assert "- `pkg/` (edited): `m0.py`, `m1.py`, `m2.py`, `m3.py`" in summary
    carried = extractive_summary(
        [Message("system", summary), Message("user", "Also look at pkg/m9.py.")],
        max_tokens=4096,
        emergency=False,
    )
    assert "`pkg/` (edited): `m0.py`, `m1.py`, `m2.py`, `m3.py`" in carried
    assert "`pkg/m9.py` (mentioned)" in carried


def test_unanswered_request_is_remaining_work() -> None:
    messages = [*_transcript(), Message("user", "Next, wire the export button in the UI.")]
    summary = extractive_summary(messages, max_tokens=4096, emergency=False)
    assert 'Unanswered: "Next, wire the export button in the UI."' in _section(summary, 6)


async def test_provider_answers_compaction_requests_with_a_summary(tmp_path: Path) -> None:
    provider = OfflineProvider(tmp_path)
    instruction = Message("user", compaction_instruction("normal"))
    flagged = ChatRequest(
        "offline", (*_transcript(), instruction), max_tokens=4096, compaction=True
    )
    reply = await ask(provider, flagged)
    assert reply.calls == [] and reply.done.stop_reason == "stop"
    assert reply.text == extractive_summary(_transcript(), max_tokens=4096, emergency=False)
    unflagged = ChatRequest("offline", (*_transcript(), instruction), max_tokens=4096)
    assert is_compaction_request(unflagged)
    assert (await ask(provider, unflagged)).text == reply.text
    assert not is_compaction_request(ChatRequest("offline", tuple(_transcript())))


async def test_emergency_instruction_halves_the_budget(tmp_path: Path) -> None:
    messages = _long_transcript()
    emergency = Message("user", compaction_instruction("emergency"))
    request = ChatRequest("offline", (*messages, emergency), max_tokens=600, compaction=True)
    text = (await ask(OfflineProvider(tmp_path), request)).text
    assert 250 < _tokens(text) <= 300
    assert text == extractive_summary(messages, max_tokens=600, emergency=True)


async def test_steering_text_keeps_matching_items(tmp_path: Path) -> None:
    messages = [
        Message("user", "Start the refactor of the storage layer now."),
        Message("user", "Look at the zebra_cache module as well."),
    ]
    for i in range(60):
        messages.append(Message("user", f"Check widget_{i} and its caller in the old views."))
    steer = Message("user", compaction_instruction("normal", steering="focus on zebra_cache"))
    plain = Message("user", compaction_instruction("normal"))
    provider = OfflineProvider(tmp_path)

    async def summarize(instruction: Message) -> str:
        request = ChatRequest("offline", (*messages, instruction), max_tokens=300, compaction=True)
        return (await ask(provider, request)).text

    steered, unsteered = await summarize(steer), await summarize(plain)
    assert "zebra_cache" in steered and "zebra_cache" not in unsteered
    assert "Check widget_0 " not in steered and "Check widget_59 " in steered


def test_an_older_summarys_filler_and_scaffolding_are_not_carried() -> None:
    older = "\n\n".join(
        [
            "_Extractive summary written by the offline model (not a language model): "
            "bullets are quoted or condensed from the conversation._",
            f'{SECTION_HEADINGS[0]}\n- Original request: "Add CSV export."',
            f"{SECTION_HEADINGS[1]}\n- None recorded.",
            f"{SECTION_HEADINGS[2]}\n- None recorded.",
            f"{SECTION_HEADINGS[3]}\n- User: We decided to use Decimal instead of float.\n"
            "- User: 12.\n- User: Row 3: Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n"
            "- _Left out to fit the summary cap: 7 entries; the history archive has them all._",
            f"{SECTION_HEADINGS[4]}\n- User: Sed ut perspiciatis unde omnis iste natus error sit.",
            f"{SECTION_HEADINGS[5]}\n- None recorded.",
            f"{SECTION_HEADINGS[6]}\n- None recorded.",
            f"{SECTION_HEADINGS[7]}\n- Please keep answers short.",
        ]
    )
    summary = extractive_summary([Message("summary", older)], max_tokens=4096, emergency=False)
    findings = _section(summary, 4)
    assert "- User: We decided to use Decimal instead of float." in findings
    assert "Lorem" not in summary and "User: 12." not in summary and "natus" not in summary
    assert "_Left out to fit the summary cap: 7 entries;" in findings
    assert summary.count("Extractive summary written") == 1
    assert "- None recorded." in _section(summary, 5)


def test_a_long_folder_line_is_carried_whole() -> None:
    messages: list[Message] = [Message("user", "Read the whole catalog package.")]
    for i in range(30):
        call = _call(f"r{i}", "read", path=f"services/catalog/module_{i:03d}.py")
        messages += [
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", json.dumps({"output": "x"}), tool_call_id=call.id),
        ]
    first = extractive_summary(messages, max_tokens=4096, emergency=False)
    again = extractive_summary([Message("summary", first)], max_tokens=4096, emergency=False)
    assert "`module_000.py`" in again and "`module_029.py`" in again
    unanswered = '- Unanswered: "Read the whole catalog package."'
    assert again == first.replace(unanswered, "- None recorded.")


def test_a_fact_said_twice_or_echoed_is_one_bullet_in_the_users_words() -> None:
    messages = [
        Message("user", "We decided to use Decimal instead of float for money."),
        Message("assistant", "We decided to use Decimal instead of float for money."),
        Message("user", "we decided to use decimal instead of float for money"),
        Message("user", "Please keep answers short. Please keep answers short!"),
    ]
    summary = extractive_summary(messages, max_tokens=4096, emergency=False)
    findings = _section(summary, 4)
    assert findings.count("Decimal instead of float") + findings.count("decimal instead") == 1
    assert "- User: " in findings and "Assistant:" not in findings
    assert _section(summary, 8).count("keep answers short") == 1


def _routine(first: int, last: int) -> list[Message]:
    turns: list[Message] = []
    for n in range(first, last + 1):
        turns += [
            Message("user", f"Turn {n}: what next?"),
            Message("assistant", f"Done with turn {n}: it does what it says."),
        ]
    return turns


def test_a_statement_repeated_with_other_numbers_is_its_latest_bullet_with_a_count() -> None:
    # 2,500 routine turns made an emergency summary of one line shape, which the engine
    # rejects: the session stayed over its window after /compact.
    messages = [Message("user", "Tidy the report module."), *_routine(1, 400)]
    summary = extractive_summary(messages, max_tokens=2048, emergency=True)
    assert summary_problem(summary, 100_000) == ""
    findings = _section(summary, 4)
    assert findings.count("- Assistant: Done with turn") == 1
    assert "turn 400: it does what it says. (and 399 more alike but for their numbers)" in findings
    assert 'User asked: "Turn 400: what next?" (and 399 more alike' in _section(summary, 1)

    carried = extractive_summary(
        [Message("summary", summary), *_routine(401, 402)], max_tokens=2048, emergency=False
    )
    assert "turn 402: it does what it says. (and 401 more alike" in _section(carried, 4)


def test_two_statements_alike_but_for_their_numbers_or_any_with_other_names_stay_apart() -> None:
    messages = [
        *(
            Message("user", f"We decided to rename helper_{n} in pkg/module_{n}.py.")
            for n in (1, 2, 3)
        ),
        Message("user", "We decided to fix issue 12 first."),
        Message("user", "We decided to fix issue 13 after that."),
        Message("user", "We decided to ship version 2."),
        Message("user", "We decided to ship version 3."),
    ]
    findings = _section(extractive_summary(messages, max_tokens=4096, emergency=False), 4)
    assert "issue 12" in findings and "issue 13" in findings
    assert "version 2" in findings and "version 3" in findings
    assert all(f"rename helper_{n} in pkg/module_{n}.py" in findings for n in (1, 2, 3))
    assert "more alike" not in findings


def test_a_request_after_the_note_of_turns_left_out_is_not_the_original_request() -> None:
    """A summary request whose oldest turns were left out to fit it: its first request was
    summarized as the "Original request" of the session."""
    first = Message("user", f"{omitted_note(9_187, 1, 2_297)}\n\nTidy the parser module.")
    messages = [first, Message("assistant", "Done."), Message("user", "Now the lexer, please.")]
    task = _section(extractive_summary(messages, max_tokens=2048, emergency=True), 1)
    assert "Original request" not in task
    assert (
        "- Turns 1-2297 (9,187 messages) are not in this summary: left out of its request to fit"
        " it; the history archive has them" in task
    )
    assert 'User asked: "Tidy the parser module."' in task and OMITTED_MARKER not in task
    # A note of its own (before a reply the request keeps): no empty request after it.
    alone = [Message("user", omitted_note(2, 1, 1)), Message("assistant", "Done."), messages[2]]
    task = _section(extractive_summary(alone, max_tokens=2048, emergency=True), 1)
    assert task.splitlines()[1:3] == [
        "- Turn 1 (2 messages) is not in this summary: left out of its request to fit it; the"
        " history archive has them",
        '- User asked: "Now the lexer, please."',
    ]
