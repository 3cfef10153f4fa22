"""The screenshots of a capture and of an import, for ``steiner-tui screenshots``.

Both are drawn from data made here, so the pictures are the same on every run and nothing is
downloaded: a capture of two requests shaped like Claude Code 2.1.328's (three system blocks,
two with a cache breakpoint; a dozen tools; CLAUDE.md in a ``<system-reminder>``; a
``role: "system"`` message; then a Read tool result), written through the capture store and
shown in the workbench (conversation and context panel) and in the request inspector; and a
Claude Code transcript of 60 requests with one automatic compaction near 170,000 tokens (where
Claude Code compacts in a 200,000-token window), imported by the importer and shown as its
tokens-per-request chart.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from steiner_tui.app.readonly import ReadOnlyApp
from steiner_tui.capture.store import CaptureWriter
from steiner_tui.capture.usage import Usage
from steiner_tui.importers.claude import import_claude_session
from steiner_tui.importers.store import save_import

__all__ = ["capture_shots", "sample_claude_requests", "write_sample_transcript"]

_TOOLS = (
    ("Agent", 5270),
    ("Bash", 3906),
    ("Edit", 966),
    ("ListAgents", 1973),
    ("Read", 1923),
    ("ReportFindings", 2422),
    ("ScheduleWakeup", 4923),
    ("Skill", 1811),
    ("ToolSearch", 1449),
    ("Workflow", 5716),
    ("Write", 639),
)
_PROJECT = "/home/me/src/budgetkit"


def _tool(name: str, size: int) -> dict[str, Any]:
    text = f"{name}: " + "Describes when and how to use the tool. " * (size // 41)
    return {"name": name, "description": text, "input_schema": {"type": "object"}}


def sample_claude_requests() -> list[bytes]:
    """Two request bodies shaped like Claude Code's for ``claude -p "read the notes"``."""
    reminder = (
        "<system-reminder>\nCodebase and user instructions are shown below. Be sure to adhere "
        f"to these instructions.\n\nContents of {_PROJECT}/CLAUDE.md (project instructions, "
        "checked into the codebase):\n\nKeep answers short.\n</system-reminder>"
    )
    environment = (
        f"# Environment\nPrimary working directory: {_PROJECT}\nPlatform: linux\n"
        "Today's date is 2026-03-02.\n" + "Deferred tools: CronCreate, WebFetch, WebSearch.\n" * 40
    )
    first: dict[str, Any] = {
        "model": "claude-opus-5-5",
        "max_tokens": 128000,
        "stream": True,
        "system": [
            {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.328.593;"},
            {
                "type": "text",
                "text": "You are a Claude agent, built on Anthropic's Claude Agent SDK.",
                "cache_control": {"type": "ephemeral"},
            },
            {
                "type": "text",
                "text": "You are an interactive agent that helps users with "
                "software engineering tasks. " * 80,
                "cache_control": {"type": "ephemeral"},
            },
        ],
        "tools": [_tool(name, size) for name, size in _TOOLS],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": reminder},
                    {"type": "text", "text": "read the notes and say hi"},
                ],
            },
            {
                "role": "system",
                "content": [
                    {"type": "text", "text": environment, "cache_control": {"type": "ephemeral"}}
                ],
            },
        ],
    }
    second = json.loads(json.dumps(first))
    second["messages"][1] = {"role": "system", "content": environment}
    second["messages"] += [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me read the notes."},
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Read",
                    "input": {"file_path": f"{_PROJECT}/CLAUDE.md"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "content": "Keep answers short.",
                    "cache_control": {"type": "ephemeral"},
                },
            ],
        },
    ]
    return [json.dumps(body, ensure_ascii=False).encode() for body in (first, second)]


def write_sample_transcript(folder: Path) -> Path:
    """A Claude Code session of 60 requests with an automatic compaction after the 41st."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "5e55a0e1-0000-4000-8000-000000000001.jsonl"
    lines: list[dict[str, Any]] = []
    context, last, session = 18_000, 0, path.stem

    def assistant(n: int, size: int) -> None:
        for part in range(2):  # one line per content block, as Claude Code writes them
            lines.append(
                {
                    "type": "assistant",
                    "sessionId": session,
                    "requestId": f"req_{n:03d}",
                    "timestamp": f"2026-03-02T09:{n // 2:02d}:{(n % 2) * 30:02d}Z",
                    "cwd": _PROJECT,
                    "version": "2.1.39",
                    "message": {
                        "id": f"msg_{n:03d}",
                        "model": "claude-opus-4-6",
                        "content": [],
                        "usage": {
                            "input_tokens": 3,
                            "cache_creation_input_tokens": 900,
                            "cache_read_input_tokens": size - 903,
                            "output_tokens": 40 + part * 200,
                        },
                    },
                }
            )

    for n in range(60):
        if n == 41:
            pre = last + 240
            lines.append(
                {
                    "type": "system",
                    "subtype": "compact_boundary",
                    "sessionId": session,
                    "uuid": "b1",
                    "timestamp": "2026-03-02T09:20:40Z",
                    "compactMetadata": {"trigger": "auto", "preTokens": pre},
                }
            )
            lines.append(
                {
                    "type": "user",
                    "sessionId": session,
                    "isCompactSummary": True,
                    "parentUuid": "b1",
                    "message": {
                        "role": "user",
                        "content": "This session is being continued from a previous conversation. "
                        "The split now keeps the remainder with the first source.",
                    },
                }
            )
            context = 26_000
        assistant(n, context)
        last = context
        context += 2_300 + (n % 5) * 700
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def write_sample_capture(sessions: Path, capture_id: str) -> str:
    """Record the two sample Claude Code requests, with their replies' usage, as a capture in
    ``sessions``; returns its id."""
    writer = CaptureWriter(
        sessions,
        "https://api.anthropic.com",
        capture_id,
        clock=lambda: datetime(2026, 3, 2, 9, 30, 12, tzinfo=UTC),
    )
    usages = [Usage(3, 0, 14_211, 12), Usage(57, 14_211, 81, 30)]
    for body, usage in zip(sample_claude_requests(), usages, strict=True):
        seq = writer.request("POST", "/v1/messages?beta=true", body)
        writer.reply(seq, 200, "text/event-stream", 1800, usage)
    writer.close()
    return writer.capture_id


async def capture_shots(scratch: Path, size: tuple[int, int], title: str) -> list[tuple[str, str]]:
    """``capture-workbench``, ``capture-inspector`` and ``import-chart``: (name, SVG) pairs."""
    sessions = scratch / "sessions"
    capture_id = write_sample_capture(sessions, "screenshots-capture")
    shots: list[tuple[str, str]] = []
    app = ReadOnlyApp(capture=(sessions, capture_id), follow=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        shots.append(("capture-workbench", app.export_screenshot(title=title)))
        await pilot.press("f2")  # the request inspector over the capture
        await pilot.pause()
        await pilot.press("down")  # from the latest request's detail to its blocks
        await pilot.pause()
        shots.append(("capture-inspector", app.export_screenshot(title=title)))
    imported = import_claude_session(write_sample_transcript(scratch / "claude"))
    save_import(sessions, imported)
    app = ReadOnlyApp(imported=imported.to_json())
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        shots.append(("import-chart", app.export_screenshot(title=title)))
    return shots
