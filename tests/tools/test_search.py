"""grep and glob: matches, filters, caps, and the folders and files they skip."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from steiner_tui.tools.glob import glob_files
from steiner_tui.tools.grep import grep
from steiner_tui.tools.walk import IgnoreRules, glob_to_regex


@pytest.fixture
def tree(project: Path) -> Path:
    files = {
        "main.py": "import os\nTODO = 1\n",
        "src/app.py": "def run():\n    # todo later\n    return 1\n",
        "src/deep/util.py": "TODO: refactor\n",
        "src/notes.md": "TODO in docs\n",
        "node_modules/pkg/index.py": "TODO\n",
        ".venv/lib/x.py": "TODO\n",
        ".git/config": "TODO\n",
        "build/out.py": "TODO\n",
        "debug.log": "TODO\n",
        "keep.log": "TODO\n",
        "secret.txt": "TODO\n",
        "sub/secret.txt": "TODO\n",
    }
    for name, text in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (project / "blob.bin").write_bytes(b"TODO\x00\x01")
    (project / ".gitignore").write_text("# comment\nbuild/\n*.log\n!keep.log\n/secret.txt\n")
    return project


def test_grep_lists_path_line_text(tree: Path) -> None:
    result = grep(tree, "TODO")
    assert result.status == "done"
    assert result.content.split("\n") == [
        "keep.log:1:TODO",
        "main.py:2:TODO = 1",
        "src/notes.md:1:TODO in docs",
        "src/deep/util.py:1:TODO: refactor",
        "sub/secret.txt:1:TODO",
    ]
    assert result.data["matches"] == 5


def test_grep_case_insensitive_glob_and_path(tree: Path) -> None:
    insensitive = grep(tree, "todo", path="src", case_insensitive=True)
    assert insensitive.content.split("\n") == [
        "src/app.py:2:    # todo later",
        "src/notes.md:1:TODO in docs",
        "src/deep/util.py:1:TODO: refactor",
    ]
    only_py = grep(tree, "todo", glob="*.py", case_insensitive=True)
    assert [line.split(":")[0] for line in only_py.content.split("\n")] == [
        "main.py",
        "src/app.py",
        "src/deep/util.py",
    ]
    by_path = grep(tree, "TODO", glob="src/**/*.py")
    assert by_path.content == "src/deep/util.py:1:TODO: refactor"
    single = grep(tree, "return", path="src/app.py")
    assert single.content == "src/app.py:3:    return 1"


def test_grep_no_match_bad_regex_bad_path(tree: Path) -> None:
    assert grep(tree, "zzz").content == "No matches for zzz"
    bad = grep(tree, "(")
    assert bad.status == "failed" and bad.content.startswith("invalid regex '(':")
    assert grep(tree, "x", path="../").content == "cannot search ../: outside the project root"
    assert grep(tree, "x", path="nope").content == "cannot search nope: no such file or directory"


def test_grep_caps_matches(project: Path) -> None:
    (project / "many.txt").write_text("hit\n" * 250)
    result = grep(project, "hit")
    lines = result.content.split("\n")
    assert len(lines) == 201
    assert lines[199] == "many.txt:200:hit"
    assert lines[200] == "[... truncated at 200 matches; narrow the pattern, path or glob]"
    assert result.data["truncated"] is True


def test_glob_sorted_with_ignores(tree: Path) -> None:
    result = glob_files(tree, "**/*.py")
    assert result.content.split("\n") == [
        "main.py",
        "src/app.py",
        "src/deep/util.py",
    ]
    assert glob_files(tree, "*.py").content == "main.py"
    assert glob_files(tree, "*.py", path="src").content == "src/app.py"
    assert glob_files(tree, "**/secret.txt").content == "sub/secret.txt"
    assert glob_files(tree, "*.log").content == "keep.log"
    assert glob_files(tree, "*.rs").content == "No files match *.rs"
    assert glob_files(tree, "x", path="main.py").content == "cannot search main.py: not a folder"


def test_glob_caps_paths(project: Path) -> None:
    for i in range(520):
        (project / f"f{i:03}.txt").write_text("")
    lines = glob_files(project, "*.txt").content.split("\n")
    assert len(lines) == 501
    assert lines[0] == "f000.txt" and lines[499] == "f499.txt"
    assert lines[500] == "[... truncated at 500 of 520 paths; narrow the pattern]"


def test_glob_to_regex_forms() -> None:
    def matches(pattern: str, path: str) -> bool:
        return re.match(glob_to_regex(pattern) + r"\Z", path) is not None

    assert matches("**/*.py", "a.py") and matches("**/*.py", "a/b/c.py")
    assert not matches("*.py", "a/b.py")
    assert matches("src/**", "src/a/b") and matches("a?c", "abc")
    assert matches("[ab].txt", "a.txt") and not matches("[!ab].txt", "a.txt")


def test_ignore_rules_last_match_wins_and_dir_only() -> None:
    rules = IgnoreRules.parse("out/\n*.tmp\n!keep.tmp\ndocs/gen\n")
    assert rules.ignored("x/out", True) and not rules.ignored("x/out", False)
    assert rules.ignored("a/b.tmp", False) and not rules.ignored("a/keep.tmp", False)
    assert rules.ignored("docs/gen", True) and not rules.ignored("x/docs/gen", True)


def test_symlink_loop_is_skipped_not_a_failure(tree: Path) -> None:
    """A link loop (``a -> b -> a``) in the project is skipped: grep and glob still answer."""
    (tree / "loop1").symlink_to("loop2")
    (tree / "loop2").symlink_to("loop1")
    (tree / "src" / "self").symlink_to("self")
    found = grep(tree, "TODO")
    assert found.status != "failed", found.content
    assert "main.py" in found.content
    listed = glob_files(tree, "**")
    assert listed.status != "failed", listed.content
    assert "main.py" in listed.content.splitlines()
    assert not any("loop" in line for line in listed.content.splitlines())
