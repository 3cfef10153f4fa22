"""history.md rendering rules, line by line."""

from __future__ import annotations

from steiner_tui.engine.compaction.history_render import render_history, summarize_call
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Image, Message, ToolCall
from steiner_tui.engine.skills.envelopes import (
    prepend_skill_blocks,
    render_skill_activation,
    render_skill_deactivation,
)
from steiner_tui.engine.tool_results import (
    CANCELLED_RESULT,
    INTERRUPTED_TOOL_RESULT,
    default_tool_status,
)

ALPHA = render_skill_activation("alpha", "Alpha body.")[0]


def test_full_render_line_by_line() -> None:
    read = ToolCall("c1", "read", {"path": "src/a.py"})
    bash = ToolCall("c2", "bash", {"command": "make   test"})
    show = ToolCall("c3", "display_file", {"path": "src/a.py"})
    edit = ToolCall("c4", "edit", {"path": "b.py"})
    grep = ToolCall("c5", "grep", {"pattern": "TODO"})
    messages = [
        Message("summary", "Earlier work.\n[history archive: old note]\nMore."),
        Message(
            "user",
            prepend_skill_blocks([ALPHA, render_skill_deactivation("beta")], "Fix the bug."),
            images=(Image("image/png", "AAAA"),),
        ),
        Message(
            "assistant",
            "Looking.",
            reasoning="secret thoughts",
            tool_calls=(read, bash, show, edit, grep),
        ),
        Message("tool", "FILE BODY", tool_call_id="c1"),
        Message("tool", "error: exit status 2", tool_call_id="c2"),
        Message("tool", "shown", tool_call_id="c3"),
        Message("tool", "The user rejected this edit call.", tool_call_id="c4"),
        Message("user", "SUB-AGENT BODY", source=SUB_AGENT_RESULT_SOURCE),
        Message("assistant", "Done."),
    ]
    assert render_history(messages).split("\n") == [
        "### Summary",
        "",
        "Earlier work.",
        "More.",
        "",
        "### User",
        "",
        "[active skill: alpha]",
        "",
        "Fix the bug.",
        "",
        "[image: image/png]",
        "",
        "### Assistant",
        "",
        "Looking.",
        "",
        "- ✓ read path=src/a.py",
        "  > FILE BODY",
        "- ✗ bash command=make test",
        "  > error: exit status 2",
        "- ✗ edit path=b.py (rejected)",
        "- … grep pattern=TODO (no result)",
        "",
        "### Sub-agent result",
        "",
        "[body omitted]",
        "",
        "### Assistant",
        "",
        "Done.",
        "",
    ]


def test_omitted_content_never_appears() -> None:
    messages = [
        Message(
            "assistant", "", reasoning="REASONING", tool_calls=(ToolCall("d", "display_file", {}),)
        ),
        Message("tool", "TOOL BODY", tool_call_id="d"),
    ]
    assert render_history(messages) == ""


def test_summarize_call_cuts_long_values() -> None:
    call = ToolCall("c", "bash", {"command": "y" * 100, "timeout": 5})
    assert summarize_call(call) == "bash command=" + "y" * 80 + "..., timeout=5"
    assert summarize_call(ToolCall("c", "list", None)) == "list"


def test_tool_status_is_injectable() -> None:
    messages = [
        Message("assistant", "", tool_calls=(ToolCall("c1", "read", {"path": "a"}),)),
        Message("tool", "fine", tool_call_id="c1"),
    ]
    assert "- ✗ read path=a" in render_history(messages, tool_status=lambda _: "failed")
    assert default_tool_status(Message("tool", "Error: nope")) == "failed"
    assert default_tool_status(Message("tool", "ok")) == "done"


def test_one_guess_reads_cancelled_calls_and_the_archive_keeps_its_marks() -> None:
    """The guess the transcript shows says cancelled; the archive, which has no mark for it,
    writes the bytes it always wrote for those texts (done)."""
    calls = (ToolCall("c1", "read", {"path": "a"}), ToolCall("c2", "bash", {"command": "ls"}))
    messages = [
        Message("assistant", "", tool_calls=calls),
        Message("tool", CANCELLED_RESULT, tool_call_id="c1"),
        Message("tool", INTERRUPTED_TOOL_RESULT, tool_call_id="c2"),
    ]
    assert [default_tool_status(m) for m in messages[1:]] == ["cancelled", "cancelled"]
    assert default_tool_status(Message("tool", "The user rejected this read call.")) == "rejected"
    text = render_history(messages)
    assert text == "### Assistant\n\n- ✓ read path=a\n- ✓ bash command=ls\n"
    assert text == render_history(messages, tool_status=lambda _: "done")


def test_a_tool_result_keeps_its_first_lines_and_exit_status() -> None:
    bash = ToolCall("c1", "bash", {"command": "go test ./..."})
    output = "\n".join(["", "--- FAIL: TestRound (0.00s)", *[f"line {i}" for i in range(9)]])
    messages = [
        Message("assistant", "", tool_calls=(bash,)),
        Message("tool", f"{output}\n[exit code: 1]", tool_call_id="c1"),
    ]
    assert render_history(messages).split("\n")[2:9] == [
        "- ✓ bash command=go test ./... (exit 1)",
        "  > --- FAIL: TestRound (0.00s)",
        "  > line 0",
        "  > line 1",
        "  > line 2",
        "  > line 3",
        "",
    ]
