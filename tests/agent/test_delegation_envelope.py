"""The sub-agent result envelope, the delegate tool's definition and validation, write scope."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from steiner_tui.agent.delegation import (
    MAX_RESULT_BYTES,
    TRUNCATION_MARKER,
    child_cache_key,
    child_tools,
    in_write_scope,
    render_sub_agent_result,
)
from steiner_tui.agent.delegation.envelope import MAX_REASON_BYTES, cap_utf8
from steiner_tui.tools.base import ToolContext, ToolResult
from steiner_tui.tools.delegate import DelegateTool, DelegationRequest, tools_with_delegate
from steiner_tui.tools.registry import default_tools


def test_envelope_exact_bytes() -> None:
    assert render_sub_agent_result("explore-1", "explore", "done", "Found it.") == (
        '<steiner-sub-agent-result id="explore-1" type="explore" status="done">\n'
        "Found it.\n"
        "</steiner-sub-agent-result>"
    )
    assert render_sub_agent_result("code-2", "code", "failed", "", 'bad "x" <y> & z\nw') == (
        '<steiner-sub-agent-result id="code-2" type="code" status="failed" '
        'reason="bad &quot;x&quot; &lt;y&gt; &amp; z&#10;w">\n'
        "\n"
        "</steiner-sub-agent-result>"
    )


def test_output_at_the_cap_is_kept_and_over_it_is_cut() -> None:
    exact = "a" * MAX_RESULT_BYTES
    assert cap_utf8(exact, MAX_RESULT_BYTES, TRUNCATION_MARKER) == (exact, False)
    text, cut = cap_utf8(exact + "b", MAX_RESULT_BYTES, TRUNCATION_MARKER)
    assert cut and text.endswith(TRUNCATION_MARKER)
    assert len(text.encode()) == MAX_RESULT_BYTES


@given(st.text(min_size=0, max_size=12_000))
def test_capped_output_is_bounded_and_a_prefix(output: str) -> None:
    body, cut = cap_utf8(output, MAX_RESULT_BYTES, TRUNCATION_MARKER)
    assert len(body.encode("utf-8", "surrogatepass")) <= MAX_RESULT_BYTES
    if cut:
        assert output.startswith(body[: -len(TRUNCATION_MARKER)])
    else:
        assert body == output


def test_multibyte_output_cut_on_a_character_boundary() -> None:
    body, cut = cap_utf8("é" * 5000, MAX_RESULT_BYTES, TRUNCATION_MARKER)
    assert cut
    head = body[: -len(TRUNCATION_MARKER)]
    assert set(head) == {"é"}
    assert len(body.encode()) <= MAX_RESULT_BYTES


def test_long_reason_is_capped() -> None:
    envelope = render_sub_agent_result("x-1", "explore", "failed", "", "r" * 5000)
    reason = envelope.split('reason="')[1].split('"')[0]
    assert len(reason.encode()) <= MAX_REASON_BYTES and reason.endswith("...")


def test_delegate_definition_sorted_with_the_others() -> None:
    names = [tool.definition.name for tool in tools_with_delegate(default_tools(), _Recorder())]
    assert names == sorted(names)
    assert "delegate" in names
    definition = DelegateTool(_Recorder()).definition
    assert list(definition.parameters["required"]) == ["type", "task"]
    assert list(definition.parameters["properties"]["type"]["enum"]) == [
        "code",
        "documentor",
        "explore",
    ]


class _Recorder:
    def __init__(self) -> None:
        self.requests: list[DelegationRequest] = []

    async def delegate(self, request: DelegationRequest, ctx: ToolContext) -> ToolResult:
        self.requests.append(request)
        return ToolResult("ok")


async def test_delegate_tool_validates_and_forwards(tmp_path: Path) -> None:
    recorder = _Recorder()
    tool = DelegateTool(recorder)
    ctx = ToolContext(project_root=tmp_path)
    bad = await tool.run({"type": "review", "task": "x"}, ctx)
    assert bad.status == "failed" and "unknown sub-agent type 'review'" in bad.content
    empty = await tool.run({"type": "explore", "task": "   "}, ctx)
    assert empty.status == "failed" and "task is empty" in empty.content
    ok = await tool.run({"type": "code", "task": " fix it ", "wait": False}, ctx)
    assert ok.content == "ok"
    assert recorder.requests == [DelegationRequest("code", "fix it", False)]


def test_child_tool_sets() -> None:
    def names(kind: str) -> list[str]:
        return [t.definition.name for t in child_tools(kind, ("docs",))]

    assert names("explore") == ["display_file", "glob", "grep", "read"]
    assert names("code") == sorted(t.definition.name for t in default_tools())
    assert names("documentor") == ["display_file", "edit", "glob", "grep", "read", "write"]
    assert "delegate" not in names("code")


def test_child_cache_key() -> None:
    assert child_cache_key("steiner-abc", "abc", "explore-1") == "steiner-abc-explore-1"
    assert child_cache_key("", "abc", "code-2") == "steiner-abc-code-2"


@pytest.mark.parametrize(
    ("path", "inside"),
    [
        ("docs/a.md", True),
        ("docs", True),
        ("./docs/deep/b.md", True),
        ("README.md", True),
        ("docs/../src/x.py", False),
        ("docsx/a.md", False),
        ("src/a.py", False),
    ],
)
def test_write_scope(tmp_path: Path, path: str, inside: bool) -> None:
    assert in_write_scope(tmp_path, path, ("docs", "README.md")) is inside
