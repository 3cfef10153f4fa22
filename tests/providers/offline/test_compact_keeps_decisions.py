"""The offline summary of a reported session, reproduced through the real runner and ``/compact``.

The report (issue 17): a 16.5 KB summary left out all three "We decided to use Decimal instead
of float" messages, filed ``TODO:`` lines under "User Preferences" while "Remaining Work" said
"None recorded", filled "Key Findings and Decisions" with pasted lorem lines, and listed a path
(``config.toml``) taken from the offline model's own disclaimer.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.events import EngineEvent
from steiner_tui.engine.messages import Message
from steiner_tui.providers.offline import (
    OFFLINE_MODEL_INFO,
    SECTION_HEADINGS,
    OfflineProvider,
    extractive_summary,
)
from steiner_tui.sessions.history_archive import FileHistoryArchive

LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.",
    "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip.",
    "Sed ut perspiciatis unde omnis iste natus error sit voluptatem accusantium.",
    "Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt.",
)
LOREM_PROBES = ("consectetur adipiscing", "quis nostrud", "natus error", "sint occaecat")
DECISIONS = (
    "We decided to use Decimal instead of float for money.",
    "We decided to use Decimal instead of float for tax rates as well.",
    "We decided to use Decimal instead of float in the CSV export too.",
)
TODOS = (
    "TODO: make sure to round the tax line per item.",
    "TODO: always validate the currency code before saving.",
)


def _lorem(count: int, style: str) -> str:
    lines = [LOREM[i % len(LOREM)] for i in range(count)]
    if style == "rows":
        return "\n".join(f"Row {i + 1}: {line}" for i, line in enumerate(lines))
    return "\n".join(f"{i + 1}. {line}" for i, line in enumerate(lines))


def _messages() -> list[str]:
    out = [
        "We're adding invoice export to the billing app. The totals code is in billing/totals.py.",
        DECISIONS[0],
        "Here is the sample text the customer sent:\n" + _lorem(40, "numbered"),
        "\n".join(TODOS),
        "Please keep answers short.",
        "I ran the tests and got:\nTraceback (most recent call last):\n"
        '  File "billing/totals.py", line 12, in total\n'
        "TypeError: unsupported operand type(s) for +: 'float' and 'decimal.Decimal'",
        DECISIONS[1],
        "More of the customer's text:\n" + _lorem(60, "rows"),
        DECISIONS[2],
    ]
    out += [f"What does helper_7 in services/module_{i:02d}.py return?" for i in range(24)]
    return out


def _project(root: Path) -> Path:
    for path in ["billing/totals.py", *(f"services/module_{i:02d}.py" for i in range(24))]:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        body = [f'"""Module {path}."""']
        body += [f"def helper_{i}(value: int) -> int:\n    return value * {i}" for i in range(12)]
        target.write_text("\n\n".join(body) + "\n", encoding="utf-8")
    return root


class _Sink:
    def emit(self, event: EngineEvent) -> None:
        pass


async def _session(tmp_path: Path) -> InteractiveDriver:
    project = _project(tmp_path / "project")
    main = MainModel(
        "offline", "offline", OfflineProvider(project), OFFLINE_MODEL_INFO, prompt_cache_key="t"
    )
    archive = FileHistoryArchive(tmp_path / "sessions" / "t")
    request = SessionRequest(
        project,
        model=main,
        session_id="t",
        record=False,
        delegation=None,
        compaction=CompactionSettings(archive=archive),
        sink=_Sink(),
        clock=ManualClock(),
    )
    driver = build_session(request).driver
    for text in _messages():
        result = await driver.submit(text)
        assert result.status == "done", result.error
    return driver


def _sections(summary: str) -> list[str]:
    starts = [summary.index(h) for h in SECTION_HEADINGS] + [len(summary)]
    return [summary[a:b] for a, b in pairwise(starts)]


def _assert_report_fixed(summary: str) -> None:
    sections = _sections(summary)
    for decision in DECISIONS:
        assert f"- User: {decision}" in sections[3]
    for todo in TODOS:
        assert f"- User: {todo}" in sections[5] and todo not in sections[7]
    assert "TypeError: unsupported operand type(s)" in sections[4]
    assert "Please keep answers short." in sections[7]
    assert not any(probe in summary for probe in LOREM_PROBES)
    assert "config.toml" not in summary and "You wrote" not in summary


async def test_the_reported_summary_keeps_decisions_and_todos_in_their_sections(
    tmp_path: Path,
) -> None:
    driver = await _session(tmp_path)
    transcript = list(driver.lineage.active.messages)
    assert any("config.toml" in m.content for m in transcript if m.role == "assistant")
    outcome = await driver.compact()
    assert outcome is not None
    _assert_report_fixed(driver.lineage.active.summary)
    # Under a tight cap the same facts are kept in full and the routine ones give way.
    assert (
        8 + (len(extractive_summary(transcript, max_tokens=10**6, emergency=False)) + 3) // 4 > 700
    )
    for cap in (400, 550, 700):
        summary = extractive_summary(transcript, max_tokens=cap, emergency=False)
        assert 8 + (len(summary) + 3) // 4 <= cap
        _assert_report_fixed(summary)
        assert "_Left out to fit the summary cap:" in summary


async def test_a_summary_of_that_summary_keeps_what_it_kept(tmp_path: Path) -> None:
    driver = await _session(tmp_path)
    transcript = list(driver.lineage.active.messages)
    first = extractive_summary(transcript, max_tokens=600, emergency=False)
    assert "_Left out to fit the summary cap:" in first
    again = extractive_summary([Message("summary", first)], max_tokens=600, emergency=False)
    # Everything it kept, its left-out counts included; "Unanswered" notes are re-derived.
    assert again == "\n".join(x for x in first.split("\n") if "Unanswered: " not in x)
