"""The offline model's own output is recognised by its markers (and never mined for facts)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from steiner_tui.engine.messages import INTERRUPTION_NOTE, Message, ToolCall, to_provider_message
from steiner_tui.providers.offline import HONESTY_NOTE
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
    cut = replace(final, content=final.content[:60], incomplete=True)
    assert is_own_reply(to_provider_message(cut))
    assert INTERRUPTION_NOTE in to_provider_message(cut).content


def test_other_messages_are_not_the_offline_models() -> None:
    call = ToolCall("toolu_1", "read", {"path": "a.py"}, '{"path": "a.py"}')
    assert not is_own_reply(Message("assistant", "I decided to use Decimal for money."))
    assert not is_own_reply(Message("assistant", "", tool_calls=(call,)))
    assert not is_own_reply(Message("user", f"{OFFLINE_NOTE_MARKER} pasted"))
