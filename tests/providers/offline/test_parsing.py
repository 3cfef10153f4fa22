"""Text helpers and tool-result parsing against the real tools' output shapes."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.envelopes import render_skill_activation
from steiner_tui.providers.offline.answers import context_line
from steiner_tui.providers.offline.textutil import (
    SESSION_DATE_SUFFIX,
    find_paths,
    user_text,
    word_chunks,
)
from steiner_tui.providers.offline.toolresults import (
    exit_code,
    glob_entries,
    grep_matches,
    parse_tool_output,
)
from steiner_tui.tools.bash import run_command
from steiner_tui.tools.glob import glob_files
from steiner_tui.tools.grep import grep
from steiner_tui.tools.read import read_file


def test_word_chunks_join_back_exactly() -> None:
    for text in ("", "  lead", "a  b\n\nc ", "one"):
        assert "".join(word_chunks(text)) == text
    assert word_chunks("a  b\nc") == ["a  ", "b\n", "c"]


def test_user_text_drops_notice_and_envelopes() -> None:
    envelope, _ = render_skill_activation("x", "body with </steiner-skill> inside")
    notice = "[execution mode: plan] Plan mode. Project edits are restricted; plan artifacts may "
    notice += "be written under .steiner/plans/. Discuss proposals in conversation, do not edit "
    notice += "while requirements are moving, and write a handoff plan only when ready."
    assert user_text(f"{notice}\n\n{envelope}\n\n  hello ") == "hello"
    assert user_text("plain") == "plain"


def test_find_paths_skips_urls_and_prose() -> None:
    text = "See src/app.py, ./tests/ and docs/guide.md (e.g. https://x.org/a.py) and/or 3.14."
    assert find_paths(text) == ["src/app.py", "./tests/", "docs/guide.md"]


def test_find_paths_takes_a_quoted_mention_whole() -> None:
    text = 'what does @"docs/my notes/read me.md" say, and @src/app.py?'
    assert find_paths(text) == ["docs/my notes/read me.md", "src/app.py"]


def test_real_read_result_is_parsed_without_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    result = parse_tool_output(read_file(tmp_path, "a.txt").content)
    assert result.text == "alpha\nbeta"
    assert result.total_lines == 2 and not result.failed
    missing = parse_tool_output(read_file(tmp_path, "nope.txt").content)
    assert missing.failed


def test_real_glob_and_grep_results(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("needle = 1\n")
    (tmp_path / "top.md").write_text("needle\n")
    assert glob_entries(glob_files(tmp_path, "**").content) == ["pkg/m.py", "top.md"]
    assert glob_entries(glob_files(tmp_path, "*.rs").content) == []
    assert sorted(grep_matches(grep(tmp_path, "needle").content)) == [
        ("pkg/m.py", "needle = 1"),
        ("top.md", "needle"),
    ]
    assert grep_matches(grep(tmp_path, "absent").content) == []


async def test_real_bash_exit_code(tmp_path: Path) -> None:
    result = await run_command("echo exit 7; exit 3", cwd=tmp_path, time_limit=10)
    assert exit_code(result.content) == 3
    assert parse_tool_output(result.content).failed


def test_context_line_names_visible_sources() -> None:
    messages = [
        Message("system", "Preamble.\n\n# AGENTS.md\nrules"),
        Message("system", "## 1. Task and Goal\n- x"),
        Message("user", f"Current date: 2026-09-13 (UTC, UTC+00:00), {SESSION_DATE_SUFFIX}"),
        Message("user", "hi"),
    ]
    line = context_line(messages)
    assert line.startswith("I received 4 messages (~")
    assert "2 system, 2 user." in line
    assert (
        "Visible sources: system instructions, a summary of earlier conversation, "
        "the session date." in line
    )


def test_context_line_names_the_projects_agents_md(tmp_path: Path) -> None:
    """It merges into the system message with no heading: the offline model finds its text."""
    (tmp_path / "AGENTS.md").write_text("Run tests with `pytest -q`.\n")
    messages = [
        Message("system", "Preamble.\n\nRun tests with `pytest -q`."),
        Message("user", "hi"),
    ]
    line = context_line(messages, root=tmp_path)
    assert "Visible sources: system instructions, AGENTS.md." in line
    (tmp_path / "AGENTS.md").write_text("Something else.\n")  # not what was sent
    assert "AGENTS.md" not in context_line(messages, root=tmp_path)
    assert "AGENTS.md" not in context_line(messages, root=tmp_path / "nowhere")


def test_context_line_groups_its_token_figure() -> None:
    # As every other figure: it said "~12008 tokens".
    line = context_line([Message("user", "x" * 48_000)])
    assert line.startswith("I received 1 message (~12,008 tokens)")  # was "1 messages"
