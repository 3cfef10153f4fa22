"""The answering policy, driven through the real read-only tools on a small project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.skills.envelopes import render_skill_activation
from steiner_tui.engine.state.read_results import file_unchanged_note
from steiner_tui.providers.offline import HONESTY_NOTE, MAX_TOOL_ROUNDS, OfflineProvider
from steiner_tui.providers.offline.textutil import md_text
from steiner_tui.providers.offline.writeup import file_answer
from tests.providers.offline.support import ask, drive, make_project, tool_defs, tool_rounds


def _final(messages: list[Message]) -> str:
    assert messages[-1].role == "assistant" and not messages[-1].tool_calls
    return messages[-1].content


async def test_project_overview_lists_files_then_reads_readme_and_metadata(
    tmp_path: Path,
) -> None:
    messages = await drive(make_project(tmp_path), "What is in this project?")
    rounds = tool_rounds(messages)
    assert [c.name for c in rounds[0]] == ["glob"]
    assert sorted(str((c.arguments or {})["path"]) for c in rounds[1]) == [
        "README.md",
        "pyproject.toml",
    ]
    answer = _final(messages)
    assert 'Title: "Demo Widget"' in answer
    assert "turns CSV files into small charts" in answer
    assert "`README.md`" in answer and "`pyproject.toml`" in answer
    assert "`src/` (2 files)" in answer and "`tests/` (1 file)" in answer
    assert "`demo-widget` version 1.2.0" in answer
    assert "`rich`, `click`" in answer
    assert "**`README.md`** (7 lines)" in answer


async def test_honesty_note_and_context_line_appear_once(tmp_path: Path) -> None:
    answer = _final(await drive(make_project(tmp_path), "give me an overview"))
    assert answer.count(HONESTY_NOTE) == 1
    assert "not a language model" in HONESTY_NOTE
    assert "ANTHROPIC_API_KEY" in HONESTY_NOTE and "OPENAI_API_KEY" in HONESTY_NOTE
    assert answer.count("I received 7 messages (~") == 1
    assert "1 system, 1 user, 2 assistant, 3 tool" in answer


async def test_a_named_file_is_read_and_outlined(tmp_path: Path) -> None:
    messages = await drive(make_project(tmp_path), "What does src/demo_widget/core.py do?")
    rounds = tool_rounds(messages)
    assert len(rounds) == 1
    assert [(c.name, dict(c.arguments or {})) for c in rounds[0]] == [
        ("read", {"path": "src/demo_widget/core.py"})
    ]
    answer = _final(messages)
    assert "**`src/demo_widget/core.py`** (9 lines)" in answer
    assert "`class Chart`, `def render_chart`" in answer
    # A one-line docstring is quoted without its closing quotes (it showed `Widget."""`).
    assert "- Docstring: Chart rendering for Demo Widget.\n" in answer


async def test_quoted_file_text_is_shown_as_written_not_as_markdown(tmp_path: Path) -> None:
    # A grep match of `__all__ = [...]` showed as a bold "all"; a docstring's *stars* and
    # <tags>, a heading with a code span, a path with underscores in bold did the same.
    root = make_project(tmp_path)
    (root / "src" / "demo_widget" / "api.py").write_text(
        '"""The *public* <api> of demo_widget: `__all__`."""\n__all__ = ["render_chart"]\n'
    )
    answer = _final(await drive(root, "find __all__"))
    assert '- `src/demo_widget/api.py`: `__all__ = ["render_chart"]`' in answer
    answer = _final(await drive(root, "What does src/demo_widget/api.py do?"))
    assert "**`src/demo_widget/api.py`** (2 lines)" in answer
    assert (
        "Docstring: The \\*public\\* \\<api\\> of demo\\_widget: \\`\\_\\_all\\_\\_\\`." in answer
    )
    echo = _final(await drive(root, "is *this* [fine](x)?"))
    assert echo.startswith('You wrote: "is \\*this\\* \\[fine\\](x)?"')


async def test_find_runs_grep_and_reports_matches(tmp_path: Path) -> None:
    messages = await drive(make_project(tmp_path), "find render_chart")
    rounds = tool_rounds(messages)
    assert [(c.name, dict(c.arguments or {})) for c in rounds[0]] == [
        ("grep", {"pattern": "render_chart"})
    ]
    answer = _final(messages)
    assert "found 2 matching lines in 2 files" in answer
    assert "`src/demo_widget/core.py`" in answer and "`tests/test_core.py`" in answer


async def test_a_count_of_one_is_singular(tmp_path: Path) -> None:
    # It said "found 1 matching lines in 1 files" and "(1 lines)".
    root = make_project(tmp_path)
    answer = _final(await drive(root, "search for 'render_chart' in tests/test_core.py"))
    assert "found 1 matching line in 1 file:" in answer
    answer = _final(await drive(root, "What does tests/test_core.py do?"))
    assert "**`tests/test_core.py`** (1 line)" in answer


async def test_search_scope_and_missing_paths(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    messages = await drive(root, "search for 'Chart' in src/demo_widget")
    assert dict(tool_rounds(messages)[0][0].arguments or {}) == {
        "pattern": "Chart",
        "path": "src/demo_widget",
    }
    missing = await drive(root, "read docs/nowhere.md please")
    assert tool_rounds(missing) == []
    assert "Not found under the project root: `docs/nowhere.md`." in _final(missing)


async def test_a_bare_file_name_not_at_the_root_is_looked_for_then_read(tmp_path: Path) -> None:
    # "What does core.py do?" answered "Not found under the project root: `core.py`." while the
    # project has exactly one core.py: a person (and any coding agent) looks for it first.
    messages = await drive(make_project(tmp_path), "What does core.py do?")
    rounds = tool_rounds(messages)
    assert [(c.name, dict(c.arguments or {})) for r in rounds for c in r] == [
        ("glob", {"pattern": "**/core.py"}),
        ("read", {"path": "src/demo_widget/core.py"}),
    ]
    answer = _final(messages)
    assert answer.startswith(
        "I looked for `core.py` in the whole project: it is `src/demo_widget/core.py`."
    )
    assert "**`src/demo_widget/core.py`** (9 lines)" in answer
    assert "Not found" not in answer


@pytest.mark.parametrize(
    "prompt",
    ["what's in src/demo_widget/?", "describe src/demo_widget"],
)
async def test_a_named_folder_is_listed_and_its_files_looked_at(
    tmp_path: Path, prompt: str
) -> None:
    # "what's in src/?" or "the tests folder" had no rule: the model echoed the message.
    messages = await drive(make_project(tmp_path), prompt)
    rounds = tool_rounds(messages)
    assert [(c.name, dict(c.arguments or {})) for c in rounds[0]] == [
        ("glob", {"pattern": "**", "path": "src/demo_widget"})
    ]
    assert [dict(c.arguments or {})["path"] for c in rounds[1]] == [
        "src/demo_widget/__init__.py",
        "src/demo_widget/core.py",
    ]
    answer = _final(messages)
    assert answer.startswith("Here is what the tools showed about the folder `src/demo_widget/`.")
    assert "- Files in `src/demo_widget/` (2): `__init__.py`, `core.py`" in answer
    assert "- Top-level definitions (2): `class Chart`, `def render_chart`" in answer


async def test_the_folder_word_names_a_folder_of_the_project_only(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    listed = await drive(root, "list the files in tests")
    assert dict(tool_rounds(listed)[0][0].arguments or {}) == {"pattern": "**", "path": "tests"}
    assert "- Files in `tests/` (1): `test_core.py`" in _final(listed)
    nowhere = await drive(root, "what is in the docs folder?")
    assert tool_rounds(nowhere) == [] and _final(nowhere).startswith("You wrote:")


async def test_a_bare_name_the_project_has_twice_or_not_at_all_is_not_guessed(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path)
    (root / "tests" / "__init__.py").write_text("")
    twice = await drive(root, "what is in __init__.py?")
    assert [c.name for r in tool_rounds(twice) for c in r] == ["glob"]
    assert (
        "I looked for `__init__.py` in the whole project: 2 files have that name, "
        "`src/demo_widget/__init__.py`, `tests/__init__.py`. Name the one you mean by its path."
    ) in _final(twice)
    nowhere = _final(await drive(root, "explain nothing.py"))
    assert nowhere.startswith("I looked for `nothing.py` in the whole project: no file has")
    assert "Not found" not in nowhere


async def test_a_bare_name_beside_a_file_that_exists_says_how_to_have_it_looked_for(
    tmp_path: Path,
) -> None:
    answer = _final(await drive(make_project(tmp_path), "read README.md and core.py"))
    assert (
        "Not found under the project root: `core.py`. Ask about a file name on its own and I "
        "will look for it in the project."
    ) in answer


async def test_a_link_out_of_the_project_is_named_as_outside(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    (tmp_path / "elsewhere.txt").write_text("not the project's\n")
    (root / "outside.txt").symlink_to(tmp_path / "elsewhere.txt")
    messages = await drive(root, "read outside.txt")
    assert tool_rounds(messages) == []
    assert "Outside the project root, so not read: `outside.txt`." in _final(messages)
    assert "Not found" not in _final(messages)


@pytest.mark.parametrize(
    "prompt", ["what is in this project?", "show README.md", "grep Chart", "hi"]
)
async def test_never_more_than_two_tool_rounds(tmp_path: Path, prompt: str) -> None:
    messages = await drive(make_project(tmp_path), prompt)
    assert len(tool_rounds(messages)) <= MAX_TOOL_ROUNDS


async def test_answers_after_two_rounds_even_when_more_would_help(tmp_path: Path) -> None:
    assert MAX_TOOL_ROUNDS == 2
    root = make_project(tmp_path)
    round_messages: list[Message] = []
    for i in range(2):
        call = ToolCall(f"c{i}", "grep", {"pattern": "x"})
        round_messages += [
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", "README.md:1:x", tool_call_id=call.id, name="grep"),
        ]
    request = ChatRequest(
        "offline",
        (Message("user", "what is in this project?"), *round_messages),
        tool_defs("glob", "grep", "read"),
    )
    reply = await ask(OfflineProvider(root), request)
    assert reply.calls == [] and HONESTY_NOTE in reply.text


async def test_only_offered_tools_are_called(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    messages = await drive(root, "what is in this project?", tools=("read",))
    rounds = tool_rounds(messages)
    assert {c.name for r in rounds for c in r} == {"read"}
    assert 'Title: "Demo Widget"' in _final(messages)
    none = await drive(root, "what is in this project?", tools=())
    assert tool_rounds(none) == []
    assert "No tools were offered" in _final(none)


async def test_skill_envelopes_and_mode_notice_do_not_hide_the_request(tmp_path: Path) -> None:
    envelope, _ = render_skill_activation("review", "Review carefully.")
    notice = "[execution mode: build] Build mode. Normal workspace editing."
    prompt = f"{notice}\n\n{envelope}\n\nfind render_chart"
    rounds = tool_rounds(await drive(make_project(tmp_path), prompt))
    assert rounds[0][0].name == "grep"


async def test_other_messages_are_answered_directly(tmp_path: Path) -> None:
    messages = await drive(make_project(tmp_path), "Please refactor the chart code.")
    assert tool_rounds(messages) == []
    answer = _final(messages)
    assert 'You wrote: "Please refactor the chart code."' in answer
    assert "I received 2 messages" in answer


async def test_context_blocks_are_not_taken_for_the_request(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    request = ChatRequest(
        "offline",
        (
            Message("system", "Preamble.\n\nAGENTS.md says hi"),
            Message("user", "find nothing_here"),
            Message(
                "user",
                "Current date: 2026-09-13 (UTC, UTC+00:00), recorded when this session started.",
            ),
        ),
        tool_defs("grep"),
    )
    reply = await ask(OfflineProvider(root), request)
    assert reply.calls[0].name == "grep"
    assert dict(reply.calls[0].arguments or {}) == {"pattern": "nothing_here"}


@pytest.mark.parametrize("name", ["server.log", "notes.txt"])
async def test_a_file_without_headings_is_outlined_by_its_first_lines(
    tmp_path: Path, name: str
) -> None:
    # A log said "Starts with:" before each of its first three lines; a .txt said nothing.
    root = make_project(tmp_path)
    (root / name).write_text("first entry\n\nsecond entry\nthird entry\nfourth entry\n")
    answer = _final(await drive(root, f"read {name}"))
    assert "Line 1: `first entry`" in answer
    assert "Line 3: `second entry`" in answer and "Line 4: `third entry`" in answer
    assert "fourth entry" not in answer and "Starts with" not in answer


def test_a_read_the_engine_deduplicated_is_not_described_as_the_file() -> None:
    """ "read README.md" after an overview: the read came back as the dedup note, and the
    answer gave the note as the README's title and first paragraph."""
    note = "[file unchanged since turn 1: lines 1-4 of 4 in README.md]"
    content = json.dumps(
        {"path": "README.md", "startLine": 1, "endLine": 4, "totalLines": 4, "output": note}
    )
    answer = file_answer([(ToolCall("c1", "read", {"path": "README.md"}), content)])
    assert "Title" not in answer and "First paragraph" not in answer
    assert f"**`README.md`**: {md_text(note)}" in answer


async def test_a_read_the_engine_deduplicated_is_answered_from_the_earlier_read(
    tmp_path: Path,
) -> None:
    """ "read README.md" after an overview that read it: the answer was only the engine's note
    ("file unchanged since turn 1") while the README's text was in the conversation."""
    root = make_project(tmp_path)
    overview = await drive(root, "What is in this project?")
    call = ToolCall("c9", "read", {"path": "README.md"})
    note = file_unchanged_note(1, 1, 7, 7, "README.md")
    deduplicated = json.dumps(
        {"path": "README.md", "startLine": 1, "endLine": 7, "totalLines": 7, "output": note}
    )
    messages = (
        *overview,
        Message("user", "read README.md"),
        Message("assistant", "Reading `README.md`.", tool_calls=(call,)),
        Message("tool", deduplicated, tool_call_id="c9", name="read"),
    )
    request = ChatRequest("offline", messages, tool_defs("glob", "grep", "read"))
    answer = (await ask(OfflineProvider(root), request)).text
    assert "**`README.md`** (7 lines, unchanged since I read it in turn 1)" in answer
    assert "Demo Widget" in answer and "file unchanged" not in answer
    # Once that read has left the conversation (compacted away), the note is all there is.
    gone = (*(m for m in messages[:-1] if m.role != "tool"), messages[-1])
    request = ChatRequest("offline", gone, tool_defs("glob", "grep", "read"))
    answer = (await ask(OfflineProvider(root), request)).text
    assert f"**`README.md`**: {md_text(note)}" in answer


async def test_files_named_past_the_cap_are_said_to_be_unread(tmp_path: Path) -> None:
    """A 30 MB paste kept in 4 parts named 4 files to read in order: the answer covered
    3 and said nothing of the 4th."""
    root = make_project(tmp_path)
    for part in range(1, 5):
        (root / f"paste-{part}.txt").write_text(f"part {part}\n")
    prompt = "read paste-1.txt, paste-2.txt, paste-3.txt, paste-4.txt in order"
    messages = await drive(root, prompt)
    assert [str((c.arguments or {})["path"]) for c in tool_rounds(messages)[0]] == [
        "paste-1.txt",
        "paste-2.txt",
        "paste-3.txt",
    ]
    assert "Not read this turn (3 files at most): `paste-4.txt`." in _final(messages)
