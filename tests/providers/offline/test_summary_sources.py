"""The offline model's own output is never a source of its summaries; its tool calls are."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from steiner_tui.engine.messages import INTERRUPTION_NOTE, Message, ToolCall, to_provider_message
from steiner_tui.providers.offline import HONESTY_NOTE, extractive_summary
from steiner_tui.providers.offline.markers import (
    ANSWER_OPENINGS,
    OFFLINE_NOTE_MARKER,
    is_own_reply,
)
from tests.providers.offline.support import drive, make_project

PROMPTS = (
    "What is in this project?",
    "What does src/demo_widget/core.py do?",
    "find render_chart",
    "We decided to use Decimal instead of float for money.",
    "read docs/nowhere.md please",
    "What does core.py do?",
    "what is in the src folder?",
)


@pytest.mark.parametrize("prompt", PROMPTS)
async def test_every_reply_of_the_offline_model_is_recognised_by_its_markers(
    tmp_path: Path, prompt: str
) -> None:
    messages = await drive(make_project(tmp_path), prompt)
    replies = [m for m in messages if m.role == "assistant"]
    assert replies and all(is_own_reply(m) for m in replies)
    final = replies[-1]
    assert final.content.startswith(ANSWER_OPENINGS)
    assert HONESTY_NOTE.startswith(OFFLINE_NOTE_MARKER) and OFFLINE_NOTE_MARKER in final.content
    # A reply cut before its disclaimer is still recognised by its opening.
    cut = msgspec.structs.replace(final, content=final.content[:60], incomplete=True)
    assert is_own_reply(to_provider_message(cut))
    assert INTERRUPTION_NOTE in to_provider_message(cut).content


def test_other_messages_are_not_the_offline_models() -> None:
    call = ToolCall("toolu_1", "read", {"path": "a.py"}, '{"path": "a.py"}')
    assert not is_own_reply(Message("assistant", "I decided to use Decimal for money."))
    assert not is_own_reply(Message("assistant", "", tool_calls=(call,)))
    assert not is_own_reply(Message("user", f"{OFFLINE_NOTE_MARKER} pasted"))


async def test_summary_quotes_the_user_not_the_models_echo_or_disclaimer(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    messages = await drive(root, "We decided to use Decimal instead of float for money.")
    messages += (await drive(root, "What does src/demo_widget/core.py do?"))[1:]
    summary = extractive_summary(messages, max_tokens=4096, emergency=False)
    assert "- User: We decided to use Decimal instead of float for money." in summary
    assert summary.count("Decimal instead of float") == 1
    assert "config.toml" not in summary and "ANTHROPIC_API_KEY" not in summary
    assert "You wrote" not in summary and "Assistant:" not in summary
    assert "I received" not in summary
    # Its tool calls are actions, and they count.
    assert "`src/demo_widget/core.py` (read)" in summary


def test_a_summary_the_offline_model_wrote_as_a_reply_is_not_mined() -> None:
    previous = extractive_summary(
        [Message("user", "Add CSV export. TODO: write the docs.")], max_tokens=4096, emergency=False
    )
    later = [
        Message("user", "Please summarize."),
        Message("assistant", previous),
        Message("user", "Now add JSON export."),
    ]
    summary = extractive_summary(later, max_tokens=4096, emergency=False)
    assert "Assistant:" not in summary and "write the docs" not in summary


def test_tool_results_with_file_contents_are_not_open_work(tmp_path: Path) -> None:
    content = "def f():\n    # TODO: remove the legacy float path\n    raise ValueError('x')\n"
    call = ToolCall("c1", "read", {"path": "m.py"}, '{"path": "m.py"}')
    result = json.dumps({"path": "m.py", "totalLines": 3, "output": content})
    messages = [
        Message("user", "Look at m.py please."),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", result, tool_call_id="c1", name="read"),
    ]
    summary = extractive_summary(messages, max_tokens=4096, emergency=False)
    assert "legacy float path" not in summary and "ValueError" not in summary
    assert "`m.py` (read)" in summary
