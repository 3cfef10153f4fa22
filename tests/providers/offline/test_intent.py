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


def test_a_named_file_that_links_outside_the_root_is_outside_not_missing(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("elsewhere\n")
    (root / "outside.txt").symlink_to(tmp_path / "secret.txt")
    intent = classify("read outside.txt and gone.txt", root)
    assert (intent.kind, intent.paths) == ("locate", ("gone.txt",))  # looked for, not read
    assert intent.outside == ("outside.txt",)
    assert intent.missing == ("gone.txt",)
