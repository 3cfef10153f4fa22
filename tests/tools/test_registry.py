"""The registry and executor: sorted, byte-stable definitions; validation; no crashes."""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from jsonschema_rs import meta

from steiner_tui.engine.frozen import thaw
from steiner_tui.engine.messages import ToolCall
from steiner_tui.engine.tooldefs import ToolDefinition, tools_json
from steiner_tui.tools.base import ToolContext, ToolResult, result_message
from steiner_tui.tools.delegate import DelegateTool
from steiner_tui.tools.registry import (
    ToolExecutor,
    default_tools,
    read_only_tools,
)
from steiner_tui.tools.schema import normalise_arguments, validate_arguments

TOOLS_JSON_SHA256 = "9dacea6dd487a6decf54e3f892c8dc44c7b677e5485eaa9272bb60d31db170aa"
"""Computed once from the definitions; a change here changes every session's cached prefix."""


def definitions() -> tuple[ToolDefinition, ...]:
    """The built-in tools' definitions as a session sends them."""
    return ToolExecutor(default_tools()).definitions()


def test_default_tools_sorted() -> None:
    names = [tool.definition.name for tool in default_tools()]
    assert names == ["bash", "display_file", "edit", "glob", "grep", "read", "write"]
    assert [t.definition.name for t in read_only_tools()] == [
        "display_file",
        "glob",
        "grep",
        "read",
    ]
    assert [d.name for d in definitions()] == names


def test_definitions_are_byte_stable() -> None:
    first = tools_json(definitions())
    second = tools_json(definitions())
    assert first == second
    assert hashlib.sha256(first.encode()).hexdigest() == TOOLS_JSON_SHA256


def test_definitions_are_byte_stable_across_processes() -> None:
    code = (
        "import hashlib\n"
        "from steiner_tui.tools.registry import ToolExecutor, default_tools\n"
        "from steiner_tui.engine.tooldefs import tools_json\n"
        "definitions = ToolExecutor(default_tools()).definitions()\n"
        "print(hashlib.sha256(tools_json(definitions).encode()).hexdigest())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345"},
    ).stdout.strip()
    assert out == TOOLS_JSON_SHA256


def test_every_parameter_is_described() -> None:
    for definition in definitions():
        assert definition.description
        params = definition.parameters
        assert params["type"] == "object"
        for name in params["required"]:
            assert name in params["properties"]
        for name, spec in params["properties"].items():
            assert spec.get("description"), f"{definition.name}.{name} has no description"


def test_validation_messages() -> None:
    schema = definitions()[5].parameters  # read
    assert validate_arguments("read", schema, None) == (
        "invalid arguments for read: expected a JSON object"
    )
    assert validate_arguments("read", schema, {}) == (
        "invalid arguments for read: missing required argument 'path'"
    )
    assert validate_arguments("read", schema, {"path": 3}) == (
        "invalid arguments for read: 'path' must be a string, got integer"
    )
    assert validate_arguments("read", schema, {"path": "a", "offset": 0}) == (
        "invalid arguments for read: 'offset' must be at least 1, got 0"
    )
    assert validate_arguments("read", schema, {"path": "a", "limit": True}) == (
        "invalid arguments for read: 'limit' must be an integer, got boolean"
    )


def test_validation_normalises_small_slips() -> None:
    schema = definitions()[5].parameters  # read
    args = {"path": "a", "offset": "3", "limit": 5.0, "extra": 1}
    assert validate_arguments("read", schema, args) == {"path": "a", "offset": 3, "limit": 5}
    assert validate_arguments("read", schema, {"path": "a", "offset": None}) == {"path": "a"}
    bash = definitions()[0].parameters
    assert validate_arguments("bash", bash, {"command": "x", "timeout": 601}) == (
        "invalid arguments for bash: 'timeout' must be at most 600, got 601"
    )
    assert validate_arguments("bash", bash, {"command": "x", "timeout": 0}) == (
        "invalid arguments for bash: 'timeout' must be more than 0, got 0"
    )
    edit = definitions()[2].parameters
    args = {"path": "p", "old_string": "a", "new_string": "b", "replace_all": "true"}
    assert validate_arguments("edit", edit, args)["replace_all"] is True  # type: ignore[index]


async def test_executor_reports_unknown_tool_and_bad_arguments(tmp_path: Path) -> None:
    executor = ToolExecutor(default_tools())
    ctx = ToolContext(project_root=tmp_path)
    unknown = await executor.execute(ToolCall("1", "fly", {}), ctx)
    assert unknown.status == "failed"
    assert unknown.content == (
        "unknown tool 'fly'; available tools: bash, display_file, edit, glob, grep, read, write"
    )
    raw = await executor.execute(ToolCall("2", "read", None, raw_arguments='{"path": '), ctx)
    assert raw.content == (
        'invalid arguments for read: expected a JSON object (received: {"path": )'
    )


class _Boom:
    definition = ToolDefinition("boom", "Always breaks.", {"type": "object", "properties": {}})
    read_only = True

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        raise RuntimeError("kaput")


class _Waits:
    definition = ToolDefinition("waits", "Never ends.", {"type": "object", "properties": {}})
    read_only = True

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def test_executor_turns_exceptions_into_failed_results(tmp_path: Path) -> None:
    executor = ToolExecutor([_Boom()])
    result = await executor.execute(ToolCall("1", "boom", {}), ToolContext(project_root=tmp_path))
    assert result.status == "failed"
    assert result.content == "boom failed unexpectedly: RuntimeError: kaput"


async def test_executor_lets_cancellation_through(tmp_path: Path) -> None:
    tool = _Waits()
    executor = ToolExecutor([tool])
    task = asyncio.create_task(
        executor.execute(ToolCall("1", "waits", {}), ToolContext(project_root=tmp_path))
    )
    await tool.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_executor_rejects_duplicate_names() -> None:
    with pytest.raises(ValueError, match="duplicate tool name 'boom'"):
        ToolExecutor([_Boom(), _Boom()])


def test_executor_definitions_sorted() -> None:
    executor = ToolExecutor([_Boom(), *default_tools()])
    assert [d.name for d in executor.definitions()][:2] == ["bash", "boom"]
    assert executor.get("boom") is not None and executor.get("nope") is None


def test_result_message_and_frozen_result() -> None:
    call = ToolCall("c1", "read", {"path": "a"})
    result = ToolResult("body", data={"k": [1]})
    message = result_message(call, result, turn=4)
    assert (message.role, message.content, message.name) == ("tool", "body", "read")
    assert (message.tool_call_id, message.turn) == ("c1", 4)
    with pytest.raises(TypeError):
        result.data["k"] = 2  # type: ignore[index]
    assert result.data["k"] == (1,)


def test_every_schema_is_a_valid_draft_2020_12_schema() -> None:
    for definition in (*definitions(), DelegateTool.definition):
        meta.validate(thaw(definition.parameters))
    with pytest.raises(ValueError, match="anyOf"):
        meta.validate({"type": 3})


def test_validation_reports_every_error_naming_each_argument() -> None:
    schema = definitions()[5].parameters  # read
    assert validate_arguments("read", schema, {"offset": "x", "limit": 0}) == (
        "invalid arguments for read: missing required argument 'path'; "
        "'offset' must be an integer, got string; 'limit' must be at least 1, got 0"
    )
    assert validate_arguments("read", schema, {"limit": 0}) == (
        "invalid arguments for read: missing required argument 'path'; "
        "'limit' must be at least 1, got 0"
    )
    delegate = DelegateTool.definition.parameters
    assert validate_arguments("delegate", delegate, {"type": "x", "task": 3}) == (
        "invalid arguments for delegate: 'type' must be one of 'code', 'documentor', 'explore', "
        "got 'x'; 'task' must be a string, got integer"
    )


def test_normalisation_only_forgives_the_documented_slips() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "b": {"type": "boolean"},
            "s": {"type": "string"},
        },
    }
    assert normalise_arguments(schema, {"n": "-4", "x": "2.5", "b": "TRUE", "s": 3}) == {
        "n": -4,
        "x": 2.5,
        "b": True,
        "s": 3,
    }
    assert normalise_arguments(schema, {"n": 2.5, "x": "nan", "b": 1, "other": 1}) == {
        "n": 2.5,
        "x": "nan",
        "b": 1,
    }
    assert validate_arguments("t", schema, {"n": 2.5}) == (
        "invalid arguments for t: 'n' must be an integer, got number"
    )
