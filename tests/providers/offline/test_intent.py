"""The offline model's intent rules on awkward project files."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.providers.offline.intent import classify


def test_a_named_file_that_is_a_symlink_loop_is_missing_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "la.txt").symlink_to("lb.txt")
    (tmp_path / "lb.txt").symlink_to("la.txt")
    (tmp_path / "ok.txt").write_text("fine\n")
    intent = classify("read la.txt and ok.txt", tmp_path)
    assert intent.paths == ("ok.txt",)
    assert intent.missing == ("la.txt",)
