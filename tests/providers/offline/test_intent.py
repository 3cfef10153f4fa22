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


def test_a_mentioned_path_is_read_and_an_address_is_not_a_path(tmp_path: Path) -> None:
    """``@src/app.py`` (the prompt's ``@`` completion) was no path to the offline model: it
    echoed the message instead of reading the file."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print(1)\n")
    (tmp_path / "notes.md").write_text("notes\n")
    intent = classify("what does @src/app.py do? see\n@notes.md", tmp_path)
    assert (intent.kind, intent.paths) == ("file", ("src/app.py", "notes.md"))
    assert classify("mail me@notes.md", tmp_path).kind == "chat"
    assert classify("what is in @src/", tmp_path).paths == ("src",)
