"""What a generation kept and what its summary dropped (the lineage browser's diff)."""

from __future__ import annotations

from steiner_tui.engine.compaction.diff import (
    DroppedFacts,
    dropped_facts,
    extract_facts,
    generation_parts,
)
from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.skills.envelopes import (
    render_skill_activation,
    render_skill_deactivation,
)


def _envelope(name: str) -> str:
    return render_skill_activation(name, f"Follow {name} 12345 rules in docs/{name}.md")[0]


def test_extracts_paths_commands_and_numbers_in_order() -> None:
    messages = [
        Message("user", "Fix the bug in `steiner_tui/app/app.py:42`, see README.md."),
        Message(
            "assistant",
            "Run `uv run pytest -q tests/app` then `git status`. "
            "Took 1.5 s for 120 tests on v8.2.8.",
            tool_calls=(
                ToolCall("c1", "bash", {"command": "ls -la src"}),
                ToolCall("c2", "read", {"path": "./pyproject.toml"}),
            ),
        ),
    ]
    facts = extract_facts(messages, summary="Earlier: edited styles/main.tcss and 3 files.")
    assert facts.paths == (
        "pyproject.toml",
        "styles/main.tcss",
        "steiner_tui/app/app.py",
        "README.md",
        "tests/app",
    )
    assert facts.commands == ("ls -la src", "uv run pytest -q tests/app", "git status")
    assert facts.numbers == ("42", "1.5", "120", "v8.2.8")


def test_prose_is_not_mistaken_for_facts() -> None:
    text = (
        "Use `pytest` and `foo` e.g. here, i.e. there; steiner_tui.engine is a package. "
        "Pick 1 or 2 of https://example.com/x and 2024/01/02, hash 3f2a9c01."
    )
    facts = extract_facts([Message("assistant", text)])
    assert facts.paths == ()
    assert facts.commands == ()
    assert "1" not in facts.numbers and "2" not in facts.numbers


def test_fenced_shell_blocks_give_one_command_per_line() -> None:
    text = "Do this:\n```bash\n$ make build\n# a comment\nuv sync\n```\nand `ruff check .`"
    facts = extract_facts([Message("assistant", text)])
    assert facts.commands == ("make build", "uv sync", "ruff check .")


def test_skill_envelopes_and_tool_results_are_not_facts() -> None:
    messages = [
        Message("user", _envelope("code-review") + "\n\nplease look at notes.txt"),
        Message("tool", "  10\tdef main():\n  11\t    run('lib/other.py')", tool_call_id="c1"),
    ]
    facts = extract_facts(messages)
    assert facts == DroppedFacts(paths=("notes.txt",))


def test_dropped_facts_lists_only_what_the_new_generation_lost() -> None:
    previous = ConversationGeneration(
        0,
        (
            Message("user", "Edit src/engine/budget.py and src/app.py; the limit is 8000."),
            Message(
                "assistant",
                "Done, 14 tests pass.",
                tool_calls=(ToolCall("c1", "bash", {"command": "uv run  pytest -x"}),),
            ),
        ),
    )
    current = ConversationGeneration(
        1,
        (
            Message("summary", "User asked to edit budget.py... see app.py; 14 tests pass."),
            Message("tool", "ran: uv run pytest -x\n8000 bytes", tool_call_id="c9"),
        ),
        summary="User asked to edit budget.py... see app.py; 14 tests pass.",
    )
    dropped = dropped_facts(previous, current)
    # "budget.py" alone does not keep the full path; "app.py" does not keep "src/app.py".
    assert dropped.paths == ("src/engine/budget.py", "src/app.py")
    assert dropped.commands == ()  # whitespace-normalised match in the tool result
    assert dropped.numbers == ()  # 8000 survives in a tool result, 14 in the summary
    assert not dropped.empty and DroppedFacts().empty


def test_dropped_facts_when_summary_keeps_everything() -> None:
    said = "Touched a/b.py with `make lint`, 42 lines."
    previous = ConversationGeneration(0, (Message("user", said),))
    current = ConversationGeneration(1, (Message("summary", said),), summary=said)
    assert dropped_facts(previous, current).empty
    lost = dropped_facts(current, ConversationGeneration(2, (), summary="nothing"))
    assert lost == DroppedFacts(("a/b.py",), ("make lint",), ("42",))


def test_generation_parts_splits_summary_replay_and_retained() -> None:
    replay = Message("user", _envelope("code-review") + "\n\n" + _envelope("test-first"))
    retained = (Message("user", "next step"), Message("assistant", "ok"))
    generation = ConversationGeneration(
        1, (Message("summary", "S"), replay, *retained), summary="S"
    )
    parts = generation_parts(generation)
    assert parts.summary == "S"
    assert parts.replayed_skills == ("code-review", "test-first")
    assert parts.retained == retained


def test_generation_parts_without_summary_keeps_every_message() -> None:
    first = Message("user", _envelope("code-review"))
    generation = ConversationGeneration(0, (first, Message("assistant", "hi")))
    parts = generation_parts(generation)
    assert parts.replayed_skills == ()
    assert parts.retained == generation.messages
    # A user message with text after its envelopes is a retained turn, not a replay.
    mixed = Message("user", render_skill_deactivation("x") + "\n\nhello")
    later = ConversationGeneration(2, (Message("summary", "S"), mixed), summary="S")
    assert generation_parts(later).retained == (mixed,)


def test_identifiers_are_code_names_in_backticks() -> None:
    text = (
        "Fixed `split_budget()` in `SessionLog`, see `engine.tokens`; `foo` and `src/a.py` "
        "are not identifiers, nor is `uv run pytest -q`."
    )
    facts = extract_facts([Message("assistant", text)])
    assert facts.identifiers == ("split_budget()", "SessionLog", "engine.tokens")
    assert facts.paths == ("src/a.py",) and facts.commands == ("uv run pytest -q",)


def test_an_identifier_named_again_is_kept() -> None:
    previous = ConversationGeneration(0, (Message("user", "Rename `split_budget` and `OldName`."),))
    current = ConversationGeneration(1, (Message("summary", "split_budget was renamed."),))
    assert dropped_facts(previous, current).identifiers == ("OldName",)
