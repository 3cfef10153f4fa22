"""The prompts sent in a project, kept for its later sessions (``sessions.prompt_history``)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from steiner_tui.sessions.prompt_history import append_prompt, prompt_history_file, read_prompts


def test_prompts_come_back_oldest_first_and_the_file_is_private(tmp_path: Path) -> None:
    path = prompt_history_file(tmp_path / "config", tmp_path / "project")
    assert read_prompts(path) == []  # none kept yet
    for text in ("fix the parser", 'say "hi"\nin two lines', "ünïcode ✓"):
        append_prompt(path, text)
    assert read_prompts(path) == ["fix the parser", 'say "hi"\nin two lines', "ünïcode ✓"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_one_file_per_project_by_its_resolved_path(tmp_path: Path) -> None:
    config = tmp_path / "config"
    (tmp_path / "a").mkdir()
    assert prompt_history_file(config, tmp_path / "a") == prompt_history_file(
        config, tmp_path / "a" / ".." / "a"
    )
    assert prompt_history_file(config, tmp_path / "a") != prompt_history_file(
        config, tmp_path / "b"
    )


def test_a_torn_or_foreign_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b'"first"\n{"not": "a string"}\n\xff\xfe\n"second"\n"tor')
    assert read_prompts(path) == ["first", "second"]


def test_a_long_history_is_trimmed_to_its_newest(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    for n in range(25):
        append_prompt(path, f"prompt {n}")
    assert read_prompts(path, limit=10) == [f"prompt {n}" for n in range(15, 25)]
    lines = path.read_text().splitlines()  # over twice the limit: rewritten with the newest
    assert [json.loads(line) for line in lines] == [f"prompt {n}" for n in range(15, 25)]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
