"""Writing the chosen threshold or mode into the project config keeps the rest of the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from steiner_tui.config import ConfigError, load_config
from steiner_tui.config_write import write_compaction_mode, write_compaction_threshold

ORIGINAL = """# my settings
default_model = "offline"   # keep this comment

[context]
files = ["NOTES.md"]  # notes

[models."anthropic/claude-sonnet-4-6"]
max_tokens = 1024
"""


def test_the_threshold_and_mode_are_added_and_the_rest_is_kept(tmp_path: Path) -> None:
    config = tmp_path / ".steiner" / "config.toml"
    config.parent.mkdir()
    config.write_text(ORIGINAL)
    (tmp_path / "NOTES.md").write_text("notes")
    write_compaction_threshold(tmp_path, "anthropic/claude-sonnet-4-6", 90_000)
    write_compaction_threshold(tmp_path, "offline", 20_000)
    write_compaction_mode(tmp_path, "ask")
    text = config.read_text()
    assert text.startswith(ORIGINAL.rstrip("\n"))  # comments, order and values kept
    assert "compaction_threshold_tokens = 90000" in text
    loaded = load_config(tmp_path, {}, user_file=tmp_path / "none.toml")
    assert loaded.models["anthropic/claude-sonnet-4-6"].compaction_threshold_tokens == 90_000
    assert loaded.models["anthropic/claude-sonnet-4-6"].max_tokens == 1024
    assert loaded.models["offline"].compaction_threshold_tokens == 20_000
    assert loaded.compaction_mode_for("offline", "offline") == "ask"
    write_compaction_threshold(tmp_path, "offline", 21_000)  # changed in place
    assert config.read_text().count("compaction_threshold_tokens = 2") == 1


def test_a_new_file_is_created_and_an_invalid_result_is_refused(tmp_path: Path) -> None:
    written = write_compaction_threshold(tmp_path, "offline", 5000)
    assert written.read_text() == "[models.offline]\ncompaction_threshold_tokens = 5000\n"
    with pytest.raises(ConfigError):
        write_compaction_mode(tmp_path, "sometimes")
    assert "sometimes" not in written.read_text()
