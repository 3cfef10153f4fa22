"""``steiner-tui context``: the dry-run report, as JSON and as a table, in a temp project.

The report is what the app's and ``exec``'s first request sends: the same session factory, the
project's configuration (a broken file is an error), ``[skills] enabled``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    config_home = tmp_path / "xdg"
    (config_home / "steiner").mkdir(parents=True)
    (config_home / "steiner" / "AGENTS.md").write_text("Global: be brief.", encoding="utf-8")
    return {**os.environ, "XDG_CONFIG_HOME": str(config_home), "COLUMNS": "200"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".steiner").mkdir(parents=True)
    (root / "AGENTS.md").write_text("Project: use tabs.", encoding="utf-8")
    (root / "notes.md").write_text("N" * 40, encoding="utf-8")
    (root / "more.md").write_text("M" * 40, encoding="utf-8")
    (root / ".steiner" / "config.toml").write_text(
        '[context]\nfiles = ["notes.md", "more.md"]\nbudget_bytes = 60\n', encoding="utf-8"
    )
    return root


def context(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return steiner(env, "context", *args)


def steiner(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "steiner_tui", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def report(env: dict[str, str], project: Path) -> dict[str, Any]:
    done = context(env, "--json", str(project))
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_json_report(env: dict[str, str], project: Path) -> None:
    data = report(env, project)
    assert set(data) == {
        "request",
        "blocks",
        "block_message_count",
        "messages",
        "sources",
        "tools_bytes",
        "estimate",
        "window",
        "top",
        "price",
        "cache",
    }
    assert data["price"]["input"] == 0.0
    assert data["cache"]["cause"] == "first"
    assert set(data["cache"]) >= {
        "reused_tokens",
        "rewritten_tokens",
        "cause",
        "detail",
        "cost_usd",
    }
    assert data["request"] == {
        "index": 1,
        "model": "offline",
        "provider": "offline",
        "dry_run": True,
    }
    rows = [(b["source"], b["role"], b["truncated"]) for b in data["blocks"]]
    assert rows == [
        ("preamble", "system", False),
        ("global_agents_md", "system", False),
        ("project_agents_md", "system", False),
        ("project_context", "user", False),
        ("project_context", "user", True),
        ("session_date", "user", False),
    ]
    paths = [b["path"] for b in data["blocks"]]
    assert paths[1] == str(Path(env["XDG_CONFIG_HOME"]) / "steiner" / "AGENTS.md")
    assert paths[3:5] == [str(project / "notes.md"), str(project / "more.md")]
    assert [b["bytes"] for b in data["blocks"]][3:5] == [40, 20]
    assert all(b["tokens"] > 0 for b in data["blocks"])

    messages = data["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert all(re.fullmatch(r"[0-9a-f]{8}", m["hash"]) for m in messages)
    system_blocks = sum(b["bytes"] for b in data["blocks"][:3])
    assert messages[0]["bytes"] == len("system") + system_blocks + 2 * len("\n\n")

    assert data["tools_bytes"] > 0
    assert data["block_message_count"] == 2
    sources = data["sources"]
    assert sum(row["tokens"] for row in sources) == data["estimate"]["raw_tokens"]
    assert [row["source"] for row in sources][-1] == "tools"
    estimate = data["estimate"]
    assert estimate["strategy"] == "heuristic"
    assert estimate["confidence"] == "low"
    assert estimate["tokens"] >= estimate["raw_tokens"] > 0
    window = data["window"]
    assert window["context_size"] == 32768
    # The smallest prompt at 70% usage.
    assert 32768 * 0.7 <= window["soft_threshold"] < 32768 * 0.7 + 1
    assert window["hard_limit"] == 32768 - max(256, min(2048, 32768 // 100))
    doctor = window["doctor"]
    assert (doctor["effective"], doctor["registry"], doctor["known"]) == (32768, 32768, True)
    assert doctor["soft_limit"] == window["soft_threshold"] and doctor["problem"] is None
    # A quarter of the room the fixed part of a request leaves under the trigger.
    assert doctor["tool_result_max"] == (doctor["soft_limit"] - doctor["fixed_prompt"]) // 4


def test_table_report(env: dict[str, str], project: Path) -> None:
    data = report(env, project)
    hashes = [m["hash"] for m in data["messages"]]
    done = context(env, str(project))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for text in ("project context", "global AGENTS.md", "session date", "truncated", *hashes):
        assert text in out, text
    assert "estimate (offline):" in out
    assert "request #1 (dry run): offline/offline" in out
    window = data["window"]
    assert f"context {window['context_size']:,} (source: registry), soft threshold " in out
    assert f"soft threshold {window['soft_threshold']:,}" in out
    assert f"hard limit {window['hard_limit']:,}" in out
    assert f"tools: {data['tools_bytes']:,} B" in out


def test_escaping_context_path_is_reported(env: dict[str, str], project: Path) -> None:
    (project / ".steiner" / "config.toml").write_text(
        '[context]\nfiles = ["../outside.md"]\n', encoding="utf-8"
    )
    done = context(env, "--json", str(project))
    assert done.returncode == 2
    # The configuration is loaded as the app loads it: the error names the file and the key.
    assert (
        "config.toml" in done.stderr and '"../outside.md": escapes the project root' in done.stderr
    )
    assert done.stdout == ""


def test_missing_folder_is_an_error(env: dict[str, str], tmp_path: Path) -> None:
    done = context(env, str(tmp_path / "nope"))
    assert done.returncode == 2
    assert "is not a folder" in done.stderr


def test_a_broken_configuration_is_an_error(env: dict[str, str], project: Path) -> None:
    (project / ".steiner" / "config.toml").write_text("[context\n", encoding="utf-8")
    done = context(env, "--json", str(project))
    assert done.returncode == 2
    assert "not valid TOML" in done.stderr and done.stdout == ""


def test_enabled_skills_go_out_with_the_first_message(env: dict[str, str], project: Path) -> None:
    before = report(env, project)
    (project / ".steiner" / "config.toml").write_text(
        '[skills]\nenabled = ["code-review"]\n', encoding="utf-8"
    )
    data = report(env, project)
    assert [m["role"] for m in data["messages"]] == ["system", "user", "user"]
    assert data["messages"][:2] != before["messages"][:2]  # the project context changed too
    skills = [row for row in data["sources"] if row["source"] == "skill"]
    assert [row["name"] for row in skills] == ["code-review"] and skills[0]["tokens"] > 0


def test_the_report_is_what_exec_sends_first(
    env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    (project / ".steiner" / "config.toml").write_text(
        '[skills]\nenabled = ["code-review"]\n', encoding="utf-8"
    )
    data = report(env, project)
    events = tmp_path / "events.jsonl"
    done = steiner(env, "--project", str(project), "exec", "hello", "--events", str(events))
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    first = next(r for r in records if r["type"] == "request")
    assert first["index"] == 1
    prefix = data["block_message_count"]
    assert first["block_message_count"] == prefix
    hashes = [m["hash"] for m in data["messages"]]
    assert first["message_hashes"][:prefix] == hashes[:prefix]  # the system hash included
    assert first["tools_bytes"] == data["tools_bytes"]
    assert first["blocks_bytes"] == sum(b["bytes"] for b in data["blocks"])
    # The enabled skill's envelope leads the first message; the prompt follows it.
    pending, sent = data["messages"][prefix], first["messages"][prefix]
    assert sent["role"] == "user" and sent["content"].endswith("\n\nhello")
    assert len(("user" + sent["content"]).encode()) == pending["bytes"] + len("hello")


def test_json_top_ranks_what_costs_the_most(env: dict[str, str], project: Path) -> None:
    top = report(env, project)["top"]
    assert [row["tokens"] for row in top] == sorted((row["tokens"] for row in top), reverse=True)
    kinds = {(row["kind"], row["label"]) for row in top}
    assert ("context_file", str(project / "notes.md")) in kinds
    assert ("agents_md", str(project / "AGENTS.md")) in kinds
    assert ("tool_definition", "read") in kinds and ("preamble", "preamble") in kinds
    assert all(row["action"] == "" for row in top)  # a dry run holds no tool results


def test_a_claude_model_is_counted_with_its_generations_ctok_family(
    env: dict[str, str], project: Path
) -> None:
    env = {**env, "ANTHROPIC_API_KEY": "not-used-by-a-dry-run"}
    done = context(env, "--json", "--model", "anthropic/claude-opus-4-7", str(project))
    assert done.returncode == 0, done.stderr
    estimate = json.loads(done.stdout)["estimate"]
    assert (estimate["strategy"], estimate["tokenizer"]) == ("ctok", "ctok-v4.7")
    assert estimate["confidence"] == "medium"
    done = context(env, "--model", "anthropic/claude-sonnet-4-5", str(project))
    assert done.returncode == 0, done.stderr
    assert "ctok, medium, tokenizer ctok-v3" in " ".join(done.stdout.split())
