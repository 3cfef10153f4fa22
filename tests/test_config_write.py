"""Writing the chosen threshold or mode into the project config keeps the rest of the file; the
change is planned (and shown as a diff) before it is written, and written only as planned."""

from __future__ import annotations

from pathlib import Path

import pytest

from steiner_tui.config import ConfigError, load_config
from steiner_tui.config_write import (
    diff_lines,
    plan_compaction_mode,
    plan_compaction_threshold,
    write_change,
)

ORIGINAL = """# my settings
default_model = "offline"   # keep this comment

[context]
files = ["NOTES.md"]  # notes

[models."anthropic/claude-sonnet-4-6"]
max_tokens = 1024
"""


def _config(root: Path, text: str) -> Path:
    config = root / ".steiner" / "config.toml"
    config.parent.mkdir()
    config.write_text(text)
    return config


def test_the_threshold_and_mode_are_added_and_the_rest_is_kept(tmp_path: Path) -> None:
    config = _config(tmp_path, ORIGINAL)
    (tmp_path / "NOTES.md").write_text("notes")
    write_change(plan_compaction_threshold(tmp_path, "anthropic/claude-sonnet-4-6", 90_000))
    write_change(plan_compaction_threshold(tmp_path, "offline", 20_000))
    write_change(plan_compaction_mode(tmp_path, "ask"))
    text = config.read_text()
    assert text.startswith(ORIGINAL.rstrip("\n"))  # comments, order and values kept
    assert "compaction_threshold_tokens = 90000" in text
    loaded = load_config(tmp_path, {}, user_file=tmp_path / "none.toml", trust_project=True)
    assert loaded.models["anthropic/claude-sonnet-4-6"].compaction_threshold_tokens == 90_000
    assert loaded.models["anthropic/claude-sonnet-4-6"].max_tokens == 1024
    assert loaded.models["offline"].compaction_threshold_tokens == 20_000
    assert loaded.compaction_mode_for("offline", "offline") == "ask"
    write_change(plan_compaction_threshold(tmp_path, "offline", 21_000))  # changed in place
    assert config.read_text().count("compaction_threshold_tokens = 2") == 1


def test_a_new_file_is_created_and_an_invalid_result_is_refused(tmp_path: Path) -> None:
    change = plan_compaction_threshold(tmp_path, "offline", 5000)
    assert change.before is None and not change.path.exists()  # planning writes nothing
    written = write_change(change)
    assert written.read_text() == "[models.offline]\ncompaction_threshold_tokens = 5000\n"
    with pytest.raises(ConfigError):
        plan_compaction_mode(tmp_path, "sometimes")
    assert "sometimes" not in written.read_text()


def test_a_file_that_is_not_toml_is_refused_when_planning(tmp_path: Path) -> None:
    config = _config(tmp_path, "this is = = not toml\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        plan_compaction_mode(tmp_path, "ask")
    assert config.read_text() == "this is = = not toml\n"


def test_the_diff_shows_a_new_file_all_added_and_a_change_in_its_context(
    tmp_path: Path,
) -> None:
    new = plan_compaction_mode(tmp_path, "ask")
    assert diff_lines(new) == ["@@ -0,0 +1,2 @@", "+[compaction]", '+mode = "ask"']
    _config(tmp_path, ORIGINAL)
    changed = diff_lines(plan_compaction_threshold(tmp_path, "anthropic/claude-sonnet-4-6", 9000))
    assert changed == [
        "@@ -6,3 +6,4 @@",
        " ",
        ' [models."anthropic/claude-sonnet-4-6"]',
        " max_tokens = 1024",
        "+compaction_threshold_tokens = 9000",
    ]


def test_a_change_is_written_only_over_the_text_it_was_planned_from(tmp_path: Path) -> None:
    config = _config(tmp_path, ORIGINAL)
    change = plan_compaction_mode(tmp_path, "off")
    config.write_text(ORIGINAL + "# edited meanwhile\n")
    with pytest.raises(ConfigError, match="changed since"):
        write_change(change)
    assert config.read_text().endswith("# edited meanwhile\n")  # the edit is not lost
    unchanged = plan_compaction_mode(tmp_path, "off")
    write_change(unchanged)
    same = plan_compaction_mode(tmp_path, "off")
    assert same.before == same.after and diff_lines(same) == []  # nothing left to change
    assert write_change(same) == config
