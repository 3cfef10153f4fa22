"""``steiner-tui context``: the dry-run report, as JSON and as a table, in a temp project."""

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
    return subprocess.run(
        [sys.executable, "-m", "steiner_tui", "context", *args],
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
    assert set(data) == {"blocks", "messages", "tools_bytes", "estimate", "window"}
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
    estimate = data["estimate"]
    assert estimate["strategy"] == "heuristic"
    assert estimate["confidence"] == "low"
    assert estimate["tokens"] >= estimate["raw_tokens"] > 0
    window = data["window"]
    assert window["context_size"] == 32768
    # The smallest prompt at 70% usage.
    assert 32768 * 0.7 <= window["soft_threshold"] < 32768 * 0.7 + 1
    assert window["hard_limit"] == 32768 - max(256, min(2048, 32768 // 100))


def test_table_report(env: dict[str, str], project: Path) -> None:
    data = report(env, project)
    hashes = [m["hash"] for m in data["messages"]]
    done = context(env, str(project))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for text in ("project_context", "global_agents_md", "session_date", "truncated", *hashes):
        assert text in out, text
    assert "tools:" in out
    assert "estimate (offline):" in out
    window = data["window"]
    assert f"context {window['context_size']}, soft threshold {window['soft_threshold']}" in out
    assert f"hard limit {window['hard_limit']}" in out
    assert f"tools: {data['tools_bytes']} bytes" in out


def test_escaping_context_path_is_reported(env: dict[str, str], project: Path) -> None:
    (project / ".steiner" / "config.toml").write_text(
        '[context]\nfiles = ["../outside.md"]\n', encoding="utf-8"
    )
    done = context(env, "--json", str(project))
    assert done.returncode == 2
    assert 'project context path "../outside.md" escapes project root' in done.stderr
    assert done.stdout == ""


def test_missing_folder_is_an_error(env: dict[str, str], tmp_path: Path) -> None:
    done = context(env, str(tmp_path / "nope"))
    assert done.returncode == 2
    assert "is not a folder" in done.stderr
