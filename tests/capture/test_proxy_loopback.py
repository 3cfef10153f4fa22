"""The capture proxy between a client and a loopback upstream speaking the real formats."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import zstandard

from steiner_tui.capture.report import capture_report
from steiner_tui.capture.store import list_captures, read_capture
from tests.capture.fake_upstream import FakeUpstream
from tests.capture.helpers import ProxyThread

SECRET = "sk-ant-test-0123456789abcdef-SECRET"

ANTHROPIC_BODY: dict[str, Any] = {
    "model": "claude-test",
    "max_tokens": 1024,
    "stream": True,
    "system": [
        {"type": "text", "text": "x-anthropic-billing-header: cc_version=1;"},
        {"type": "text", "text": "You are a test agent.", "cache_control": {"type": "ephemeral"}},
    ],
    "tools": [
        {"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}},
        {
            "name": "Bash",
            "description": "Run a command ünïcode",
            "input_schema": {"type": "object"},
        },
    ],
    "messages": [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "<system-reminder>\nContents of /p/CLAUDE.md (project instructions,"
                    " checked into the codebase):\n\nBe brief.\n</system-reminder>",
                },
                {"type": "text", "text": "read the notes"},
            ],
        },
        {
            "role": "system",
            "content": [
                {
                    "type": "text",
                    "text": "# Environment\ncwd /p",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
    ],
}


def second_anthropic_body() -> dict[str, Any]:
    """The next request: the system message re-sent as a string without its breakpoint."""
    body = json.loads(json.dumps(ANTHROPIC_BODY))
    body["messages"][1] = {"role": "system", "content": "# Environment\ncwd /p"}
    body["messages"] += [
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/p/a.py"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": "print('hi')",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
    ]
    return body


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    fake = FakeUpstream().start()
    yield fake
    fake.stop()


@pytest.fixture
def proxy(tmp_path: Path, upstream: FakeUpstream) -> Iterator[ProxyThread]:
    thread = ProxyThread(tmp_path / "sessions", upstream.url).start()
    yield thread
    thread.stop()


def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> httpx2.Response:
    # Indented JSON on purpose: the accounting must follow the raw text, not a re-encoding.
    content = json.dumps(body, indent=1, ensure_ascii=False).encode()
    with httpx2.Client(timeout=30) as client:
        return client.post(url, content=content, headers=headers)


def check_accounting(request: dict[str, Any]) -> None:
    figures = request["bytes"]
    sections = figures["sections"]
    assert figures["total"] == sum(s["bytes"] for s in sections.values()) + figures["framing"]
    for name in ("system", "tools", "messages", "input"):
        if name in sections:
            section = sections[name]
            assert section["bytes"] == sum(section["items"]) + section["framing"]
    if "tools" in sections:
        assert [t["bytes"] for t in request["tools"]][: len(sections["tools"]["items"])] == (
            sections["tools"]["items"]
        )
    key = "messages" if "messages" in sections else "input"
    assert [m["bytes"] for m in request["messages"]] == sections[key]["items"]


def test_anthropic_requests_recorded_and_replies_streamed_unchanged(
    tmp_path: Path, upstream: FakeUpstream, proxy: ProxyThread
) -> None:
    headers = {"x-api-key": SECRET, "anthropic-version": "2023-06-01"}
    first = post(f"{proxy.url}/v1/messages?beta=true", ANTHROPIC_BODY, headers)
    second = post(f"{proxy.url}/v1/messages?beta=true", second_anthropic_body(), headers)
    assert first.status_code == second.status_code == 200
    received = [r for r in upstream.received if r.method == "POST"]
    assert [r.path for r in received] == ["/v1/messages?beta=true"] * 2
    assert received[0].headers["x-api-key"] == SECRET  # the key passes through
    assert first.content == received[0].reply and second.content == received[1].reply

    info, recorded = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    assert [r.body for r in recorded] == [r.body for r in received]
    report = capture_report(recorded)["requests"]
    assert len(report) == 2
    for request in report:
        check_accounting(request)
        assert request["bytes"]["total"] == len(received[report.index(request)].body)
    one, two = report
    assert [(b["source"], b["cache_control"]) for b in one["blocks"]] == [
        ("system", False),
        ("system", True),
        ("instructions", False),
        ("system_message", True),
    ]
    assert one["blocks"][2]["path"] == "/p/CLAUDE.md"
    assert [t["name"] for t in one["tools"]] == ["Read", "Bash"]
    assert one["tools_bytes"] == report[0]["bytes"]["sections"]["tools"]["bytes"]
    sent = received[0].usage
    assert sent is not None
    assert one["usage"] == {
        "input_tokens": sent["input_tokens"],
        "cache_read_tokens": sent["cache_read_input_tokens"],
        "cache_creation_tokens": sent["cache_creation_input_tokens"],
        "output_tokens": sent["output_tokens"],
    }
    assert one["prefix"]["compared_with"] is None
    # The system message came back as a string without cache_control: the same content.
    assert two["prefix"]["matching_messages"] == 2
    assert two["prefix"]["first_diverging"] is None
    assert two["prefix"]["broken_by"] == ""
    [result] = two["tool_results"]
    assert (result["tool"], result["target"], result["message"]) == ("Read", "/p/a.py", 3)
    assert 0 < result["bytes"] < two["messages"][3]["bytes"]
    assert [c.capture_id for c in list_captures(tmp_path / "sessions")] == [info.capture_id]


def test_a_changed_system_block_breaks_the_prefix(proxy: ProxyThread, tmp_path: Path) -> None:
    changed = json.loads(json.dumps(ANTHROPIC_BODY))
    changed["system"][1]["text"] = "You are another agent."
    post(f"{proxy.url}/v1/messages", ANTHROPIC_BODY, {"x-api-key": "k"})
    post(f"{proxy.url}/v1/messages", changed, {"x-api-key": "k"})
    _, recorded = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    prefix = capture_report(recorded)["requests"][1]["prefix"]
    assert prefix["system_changed"] and prefix["broken_by"] == "system"


def test_responses_and_chat_completions(
    tmp_path: Path, upstream: FakeUpstream, proxy: ProxyThread
) -> None:
    responses = {
        "model": "gpt-test",
        "stream": True,
        "tools": [{"type": "function", "name": "exec_command", "parameters": {}}],
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "You are Codex."}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>\nhi\n"
                        "</INSTRUCTIONS>",
                    },
                    {"type": "input_text", "text": "<environment_context>x</environment_context>"},
                ],
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "exec_command",
                "arguments": '{"cmd": "cat a.txt"}',
            },
            {"type": "function_call_output", "call_id": "c1", "output": "hello"},
        ],
    }
    chat = {
        "model": "gpt-test",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
    }
    headers = {"authorization": f"Bearer {SECRET}"}
    assert post(f"{proxy.url}/v1/responses", responses, headers).status_code == 200
    assert post(f"{proxy.url}/v1/chat/completions", chat, headers).status_code == 200
    _, recorded = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    one, two = capture_report(recorded)["requests"]
    for request in (one, two):
        check_accounting(request)
    assert [b["source"] for b in one["blocks"]] == ["developer", "instructions", "environment"]
    assert one["blocks"][1]["path"] == "/p/AGENTS.md"
    assert one["tool_results"][0]["tool"] == "exec_command"
    assert one["tool_results"][0]["target"] == "cat a.txt"
    sent = [r.usage for r in upstream.received]
    assert sent[0] is not None and sent[1] is not None
    cached = sent[0]["input_tokens_details"]["cached_tokens"]
    assert (
        one["usage"]["input_tokens"] + one["usage"]["cache_read_tokens"]
        == (sent[0]["input_tokens"])
    )
    assert one["usage"]["cache_read_tokens"] == cached
    assert two["usage"]["input_tokens"] == sent[1]["prompt_tokens"]
    assert two["usage"]["output_tokens"] == sent[1]["completion_tokens"]
    assert [b["source"] for b in two["blocks"]] == ["system"]


def test_keys_never_reach_a_file(tmp_path: Path, proxy: ProxyThread) -> None:
    post(f"{proxy.url}/v1/messages", ANTHROPIC_BODY, {"x-api-key": SECRET})
    post(
        f"{proxy.url}/v1/responses",
        {"model": "m", "input": "hi"},
        {"Authorization": f"Bearer {SECRET}"},
    )
    files = [p for p in (tmp_path / "sessions").rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path


def test_an_unreachable_upstream_is_a_502_and_recorded(tmp_path: Path) -> None:
    thread = ProxyThread(tmp_path / "sessions", "http://127.0.0.1:9").start()
    try:
        reply = post(f"{thread.url}/v1/messages", ANTHROPIC_BODY, {"x-api-key": "k"})
    finally:
        thread.stop()
    assert reply.status_code == 502
    _, recorded = read_capture(tmp_path / "sessions", thread.writer.capture_id)
    assert recorded[0].reply is not None and recorded[0].reply.status == 502


def test_other_paths_are_forwarded_not_recorded(
    tmp_path: Path, upstream: FakeUpstream, proxy: ProxyThread
) -> None:
    with httpx2.Client() as client:
        assert client.head(f"{proxy.url}/api/hello").status_code == 404
        upgrade = client.get(
            f"{proxy.url}/v1/responses", headers={"Upgrade": "websocket", "Connection": "Upgrade"}
        )
    # 426 at once: Codex falls back to POST after one try (a 404 costs it five retries).
    assert upgrade.status_code == 426
    assert [r.method for r in upstream.received] == ["HEAD"]
    _, recorded = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    assert recorded == []


@pytest.mark.parametrize("encoding", ["zstd", "gzip", "deflate", "gzip, zstd"])
def test_a_compressed_body_goes_upstream_unchanged_and_is_recorded_decoded(
    tmp_path: Path, upstream: FakeUpstream, proxy: ProxyThread, encoding: str
) -> None:
    plain = json.dumps({"model": "gpt-5.5", "stream": True, "input": "say hi"}).encode()
    body = plain
    for name in (e.strip() for e in encoding.split(",")):
        if name == "zstd":  # a streamed frame, without the content size, as a client writes it
            writer = zstandard.ZstdCompressor(write_content_size=False).compressobj()
            body = writer.compress(body) + writer.flush()
        elif name == "gzip":
            body = gzip.compress(body)
        else:
            body = zlib.compress(body)
    with httpx2.Client(timeout=30) as client:
        reply = client.post(
            f"{proxy.url}/v1/responses",
            content=body,
            headers={"Content-Encoding": encoding, "Content-Type": "application/json"},
        )
    assert reply.status_code == 200
    [received] = upstream.received
    assert received.body == body  # byte for byte
    assert received.headers["Content-Encoding"] == encoding
    _, [recorded] = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    assert recorded.body == plain
    [request] = capture_report([recorded])["requests"]
    assert request["model"] == "gpt-5.5"
    assert request["usage"]["input_tokens"] > 0


def test_a_body_that_cannot_be_decoded_is_recorded_as_it_came(
    tmp_path: Path, upstream: FakeUpstream, proxy: ProxyThread
) -> None:
    with httpx2.Client(timeout=30) as client:
        client.post(
            f"{proxy.url}/v1/responses", content=b"not zstd", headers={"Content-Encoding": "zstd"}
        )
    _, [recorded] = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    assert recorded.body == b"not zstd"
    log = tmp_path / "sessions" / ".captures" / proxy.writer.capture_id / "requests.jsonl"
    assert "could not undo Content-Encoding 'zstd'" in log.read_text()
