"""The read tool's results feed the engine's file tracker and read dedup end to end."""

from __future__ import annotations

import json
from pathlib import Path

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state import FileTracker, observe_tool_result
from steiner_tui.tools.base import ToolResult, result_message
from steiner_tui.tools.read import read_file


def _turn(call_id: str, content: str, turn: int) -> list[Message]:
    call = ToolCall(call_id, "read", {"path": "m.py"})
    tool = result_message(call, ToolResult(content), turn)
    return [Message("assistant", tool_calls=(call,), turn=turn), tool]


def test_second_identical_read_becomes_a_note(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n")
    first = read_file(tmp_path, "m.py").content
    conversation = _turn("c1", first, 1)
    second = read_file(tmp_path, "m.py").content
    stored = observe_tool_result("read", second, FileTracker.rebuild(conversation))
    assert json.loads(stored)["output"] == "[file unchanged since turn 1: lines 1-2 of 2 in m.py]"


def test_changed_file_is_read_in_full(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n")
    conversation = _turn("c1", read_file(tmp_path, "m.py").content, 1)
    (tmp_path / "m.py").write_text("a = 1\nb = 3\n")
    second = read_file(tmp_path, "m.py").content
    assert observe_tool_result("read", second, FileTracker.rebuild(conversation)) == second


def test_capped_read_is_never_deduplicated(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x\n" * 2100)
    conversation = _turn("c1", read_file(tmp_path, "m.py").content, 1)
    second = read_file(tmp_path, "m.py").content
    assert observe_tool_result("read", second, FileTracker.rebuild(conversation)) == second
