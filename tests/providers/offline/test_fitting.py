"""The summary cap: respected, lines never cut, what was left out said per section."""

from __future__ import annotations

import json
import re
from itertools import pairwise

import pytest

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.providers.offline import SECTION_HEADINGS, extractive_summary
from steiner_tui.providers.offline.markers import LEFT_OUT_MARKER

NOTE = re.compile(re.escape(LEFT_OUT_MARKER) + r" (\d+) entr")


def _tokens(text: str) -> int:
    return 8 + (len(text) + 3) // 4


def _call(cid: str, name: str, **args: object) -> ToolCall:
    return ToolCall(cid, name, args, json.dumps(args))


def _transcript() -> list[Message]:
    messages = [
        Message("user", "Add CSV export to the report module in app/report.py."),
        Message("user", "We decided to write the header row with csv.DictWriter."),
        Message("user", "TODO: document the --csv flag in README.md."),
        Message("user", "Please keep answers short."),
    ]
    for i in range(120):
        read = _call(f"r{i}", "read", path=f"pkg/module_{i}.py")
        test = _call(f"t{i}", "bash", command=f"pytest tests/test_module_{i}.py -q")
        messages += [
            Message(
                "user", f"Rename helper_{i} in pkg/module_{i}.py and update all of its callers."
            ),
            Message("assistant", "", tool_calls=(read,)),
            Message("tool", json.dumps({"output": "x"}), tool_call_id=read.id),
            Message("assistant", "", tool_calls=(test,)),
            Message(
                "tool", json.dumps({"output": "1 passed", "exit_code": 0}), tool_call_id=test.id
            ),
            Message("assistant", f"I renamed helper_{i}; the callers in pkg/ are updated."),
        ]
    return messages


def _sections(summary: str) -> list[list[str]]:
    starts = [summary.index(h) for h in SECTION_HEADINGS] + [len(summary)]
    bodies = [summary[a:b] for a, b in pairwise(starts)]
    return [[x[2:] for x in body.splitlines() if x.startswith("- ")] for body in bodies]


FULL = extractive_summary(_transcript(), max_tokens=10**6, emergency=False)


@pytest.mark.parametrize("cap", [300, 450, 700, 1000, 1500, 2500, 4000])
def test_every_cap_is_respected_and_every_loss_is_counted(cap: int) -> None:
    summary = extractive_summary(_transcript(), max_tokens=cap, emergency=False)
    assert _tokens(FULL) > 4000 >= cap
    assert _tokens(summary) <= cap
    full, capped = _sections(FULL), _sections(summary)
    for number, (before, after) in enumerate(zip(full, capped, strict=True), start=1):
        notes = [NOTE.match(line) for line in after]
        left_out = sum(int(m.group(1)) for m in notes if m)
        kept = [line for line, m in zip(after, notes, strict=True) if not m]
        for line in kept:
            # Whole, or condensed: the start of a line of the full summary, cut at a word.
            assert line in before or any(b.startswith(line.split("…")[0]) for b in before)
        if number != 2:  # section 2 groups files per folder, so its lines are not 1:1
            assert len(kept) + left_out == len(before)
        assert (kept == ["None recorded."]) == (before == ["None recorded."])
    # The facts that matter most are kept in full; the oldest routine detail goes first.
    assert "- User: We decided to write the header row with csv.DictWriter." in summary
    assert "- User: TODO: document the --csv flag in README.md." in summary
    assert "- Please keep answers short." in summary
    assert 'Original request: "Add CSV export' in summary


def test_emergency_summaries_are_half_as_long_and_lose_more() -> None:
    normal = extractive_summary(_transcript(), max_tokens=1200, emergency=False)
    emergency = extractive_summary(_transcript(), max_tokens=1200, emergency=True)
    assert _tokens(emergency) <= 600 < _tokens(normal) <= 1200
    lost = [sum(int(n) for n in NOTE.findall(s)) for s in (normal, emergency)]
    assert 0 < lost[0] < lost[1]
    assert "csv.DictWriter" in emergency and "Please keep answers short." in emergency


def test_below_the_bare_headings_the_headings_and_counts_remain() -> None:
    tiny = extractive_summary(_transcript(), max_tokens=10, emergency=False)
    assert [h for h in SECTION_HEADINGS if h in tiny] == list(SECTION_HEADINGS)
    assert "None recorded." not in tiny.split(SECTION_HEADINGS[1])[0]
    assert NOTE.search(tiny)


def test_sections_say_none_recorded_only_when_nothing_of_their_kind_exists() -> None:
    summary = extractive_summary(_transcript()[:4], max_tokens=4096, emergency=False)
    sections = _sections(summary)
    assert sections[2] == ["None recorded."] and sections[4] == ["None recorded."]
    assert sections[3] == ["User: We decided to write the header row with csv.DictWriter."]
    assert sections[5] == [
        'Unanswered: "Add CSV export to the report module in app/report.py."',
        "User: TODO: document the --csv flag in README.md.",
    ]
