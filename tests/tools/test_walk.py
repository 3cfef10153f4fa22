"""The fast walk and search behind grep and glob give what the plain loops they replaced gave.

Each test holds the plain version as a reference: ``os.walk`` with a filter, a loop over the
``.gitignore`` lines (the last match wins), ``regex.search`` on every line of every file. The
fast ones (one ``scandir`` per folder, the lines compiled into alternations, ripgrep) must agree
with them on every case, edges included, for the patterns both regex engines read alike (no
look-around, atomic groups or possessive quantifiers: ripgrep refuses those, see
``test_grep_ripgrep.py``; a lone CR is a line end to ripgrep's ``$``, so the texts end their
lines with LF or CRLF).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steiner_tui.tools.files import FileTooLarge, is_binary, read_regular, split_lines
from steiner_tui.tools.glob import glob_files
from steiner_tui.tools.grep import MATCH_TEXT_CAP, grep
from steiner_tui.tools.walk import (
    SKIPPED_DIRS,
    IgnoreRules,
    glob_to_regex,
    load_ignore_rules,
    walk_files,
)


def _ignored_by_loop(rules: IgnoreRules, relative: str, is_dir: bool) -> bool:
    """The reference: every line in order, the last one that matches decides."""
    name = relative.rsplit("/", 1)[-1]
    result = False
    for rule in rules.rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.regex.match(relative if rule.anchored else name):
            result = not rule.negated
    return result


def _walk_by_os_walk(root: Path, start: Path, rules: IgnoreRules) -> list[str]:
    """The reference walk: ``os.walk`` pruned in place, sorted, symlinks checked by path."""
    real_root = root.resolve()
    found = []
    for folder, dirnames, filenames in os.walk(start):
        here = Path(folder)
        base = here.relative_to(real_root).as_posix()
        prefix = "" if base == "." else base + "/"
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIPPED_DIRS
            and not (here / d).is_symlink()
            and not _ignored_by_loop(rules, prefix + d, True)
        )
        for name in sorted(filenames):
            relative = prefix + name
            if _ignored_by_loop(rules, relative, False):
                continue
            path = here / name
            if path.is_symlink():
                target = Path(os.path.realpath(path))
                if not target.is_relative_to(real_root) or not target.is_file():
                    continue
            found.append(relative)
    return found


def _write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@pytest.fixture
def tricky(project: Path) -> Path:
    """Folders and files in an order where files-first, sorting and pruning all show."""
    _write(
        project,
        {
            "b.txt": b"x\n",
            "a/z.txt": b"x\n",
            "a/b/c.txt": b"x\n",
            "a/a.txt": b"x\n",
            "a.txt": b"x\n",
            "A.txt": b"x\n",
            "_/x.txt": b"x\n",
            "node_modules/m.js": b"x\n",
            "deep/out/gen.txt": b"x\n",
            "deep/out.txt": b"x\n",
            "docs/gen/g.md": b"x\n",
            "x/docs/gen/g.md": b"x\n",
            "keep.log": b"x\n",
            "drop.log": b"x\n",
            "logs/keep.log": b"x\n",
        },
    )
    (project / ".gitignore").write_text("out/\n*.log\n!keep.log\ndocs/gen\n/_\n")
    (project / "link_in.txt").symlink_to("a.txt")
    (project.parent / "outside.txt").write_text("x\n")
    (project / "link_out.txt").symlink_to(project.parent / "outside.txt")
    (project / "link_dir_out").symlink_to("/")
    (project / "link_dangling.txt").symlink_to("missing")
    (project / "loop.txt").symlink_to("loop.txt")  # resolves nowhere: a loop
    (project / "link_dir").symlink_to("a")
    os.mkfifo(project / "pipe.fifo")
    return project


def test_walk_gives_the_order_and_entries_of_os_walk(tricky: Path) -> None:
    rules = load_ignore_rules(tricky)
    walked = [relative for _, relative in walk_files(tricky, tricky, rules)]
    assert walked == _walk_by_os_walk(tricky, tricky, rules)
    assert walked == [
        ".gitignore", "A.txt", "a.txt", "b.txt", "keep.log", "link_in.txt", "pipe.fifo",
        "a/a.txt", "a/z.txt", "a/b/c.txt", "deep/out.txt", "logs/keep.log", "x/docs/gen/g.md",
    ]  # fmt: skip
    below = (tricky / "a").resolve()
    assert [r for _, r in walk_files(tricky, below, rules)] == ["a/a.txt", "a/z.txt", "a/b/c.txt"]
    assert all(path == str(tricky.resolve() / r) for path, r in walk_files(tricky, below, rules))


def test_a_symlink_loop_in_the_tree_is_skipped_not_fatal(tricky: Path) -> None:
    """It used to raise RuntimeError ("Symlink loop") out of grep and glob."""
    (tricky / "a.txt").write_text("needle\n")
    assert grep(tricky, "needle").content == "a.txt:1:needle\nlink_in.txt:1:needle"
    assert glob_files(tricky, "l*.txt").content == "link_in.txt"


def test_a_folder_whose_own_gitignore_ignores_everything_is_skipped(tmp_path: Path) -> None:
    """Tools keep their caches out of git this way (``.grimp_cache/.gitignore`` holds ``*``);
    their contents filled every search for one of the project's module names."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mod.py").write_text("needle = 1\n")
    cache = tmp_path / ".grimp_cache"
    (cache / "deep").mkdir(parents=True)
    (cache / ".gitignore").write_text("# Automatically created by grimp.\n*\n")
    (cache / "a.data.json").write_text('{"needle": []}\n')
    (cache / "deep" / "b.json").write_text("needle\n")
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / ".gitignore").write_text("*\n!x.txt\n")  # re-includes a file: not a whole skip
    (kept / "x.txt").write_text("needle\n")
    assert grep(tmp_path, "needle").content == "kept/x.txt:1:needle\nsrc/mod.py:1:needle = 1"
    assert glob_files(tmp_path, "**/*.json").content == "No files match **/*.json"
    # Searching inside it on purpose still searches it.
    assert grep(tmp_path, "needle", path=".grimp_cache").content.count("needle") == 2


def test_a_folder_that_cannot_be_listed_is_left_out(tricky: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root lists any folder")
    (tricky / "a" / "b").chmod(0)
    try:
        walked = [r for _, r in walk_files(tricky, tricky, load_ignore_rules(tricky))]
    finally:
        (tricky / "a" / "b").chmod(0o755)
    assert "a/z.txt" in walked and "a/b/c.txt" not in walked


_GLOB_PART = st.sampled_from(["a", "b", "*", "?", "**", "[ab]", "[!a]", ".log", "x", "out"])
_LINE = st.builds(
    lambda neg, lead, parts, trail: neg + lead + "/".join(parts) + trail,
    st.sampled_from(["", "!"]),
    st.sampled_from(["", "/"]),
    st.lists(_GLOB_PART, min_size=1, max_size=3),
    st.sampled_from(["", "/"]),
)
_PATH = st.lists(
    st.sampled_from(["a", "b", "x", "out", "a.log", "ab", "ba"]), min_size=1, max_size=4
)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_LINE, max_size=8), parts=_PATH, is_dir=st.booleans())
def test_compiled_ignore_rules_agree_with_the_loop_over_lines(
    lines: list[str], parts: list[str], is_dir: bool
) -> None:
    rules = IgnoreRules.parse("\n".join(lines))
    relative = "/".join(parts)
    assert rules.ignored(relative, is_dir) == _ignored_by_loop(rules, relative, is_dir)


def test_no_ignore_lines_ignore_nothing() -> None:
    assert not IgnoreRules().ignored("a/b", True) and not IgnoreRules.parse("# x\n").ignored(
        "b", False
    )


_TEXTS = {
    "lf.txt": b"foo\nbar foo\n\nxfoo\nfoo",
    "crlf.txt": b"foo\r\nbar foo\r\n\r\nxfoo\r\nfoo\r\n",
    "trailing.txt": b"foo\n\n",
    "empty.txt": b"",
    "newline.txt": b"\n",
    "spaces.txt": b"a  \n  \nb\n",
    "utf8.txt": "caf\u00e9 foo\nna\u00efve\n".encode(),
    "invalid.txt": b"caf\xe9 foo\n\xff\xfe bytes\n",
    "kelvin.txt": "\u212a and \u017f\n".encode(),
    "late_nul.txt": b"foo\n" + b"a" * 9000 + b"\0",  # binary: a NUL anywhere (ripgrep)
}
_PATTERNS = [
    "foo", "^foo", "foo$", "^$", "^", "$", "", "\\Afoo", "\\bfoo\\b", "\\Bo",
    "\\s$", "[^a]$", "^\\s*$", "(?s).", "(?m)^foo$", "(?-m:^foo)", "caf\u00e9", "k", "\\w+$",
]  # fmt: skip


def _grep_by_lines(root: Path, regex: re.Pattern[str]) -> list[str]:
    """The reference search: every line of every text file, in name order."""
    found = []
    for name in sorted(_TEXTS):
        data = (root / name).read_bytes()
        if b"\0" in data:
            continue
        for number, line in enumerate(split_lines(data.decode("utf-8", errors="replace")), 1):
            if regex.search(line):
                found.append(f"{name}:{number}:{line[:MATCH_TEXT_CAP]}")
    return found


@pytest.mark.parametrize("case_insensitive", [False, True])
@pytest.mark.parametrize("pattern", _PATTERNS)
def test_grep_finds_what_a_search_of_every_line_finds(
    project: Path, pattern: str, case_insensitive: bool
) -> None:
    _write(project, _TEXTS)
    regex = re.compile(pattern, re.IGNORECASE if case_insensitive else 0)
    result = grep(project, pattern, case_insensitive=case_insensitive)
    expected = _grep_by_lines(project, regex)
    if expected:
        assert result.content.split("\n") == expected
    else:
        assert result.data["matches"] == 0


@settings(max_examples=200, deadline=None)
@given(
    text=st.lists(st.sampled_from(["a", "b", " ", "\t", "\r\n", "\n", "\u00e9"]), max_size=40).map(
        "".join
    ),
    pattern=st.sampled_from(
        ["a", "^a", "a$", "^$", "b\\s*$", "\\ba", "a b", "^\\s", "\u00e9$", ""]
    ),
)
def test_any_text_gives_the_lines_a_search_of_every_line_gives(text: str, pattern: str) -> None:
    regex = re.compile(pattern)
    expected = [
        f"t.txt:{number}:{line}"
        for number, line in enumerate(split_lines(text), 1)
        if regex.search(line)
    ]
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "t.txt").write_bytes(text.encode())
        result = grep(Path(folder), pattern)
    assert (result.content.split("\n") if result.data["matches"] else []) == expected


def test_read_regular_reads_whole_files_up_to_the_limit(project: Path) -> None:
    (project / "empty").write_bytes(b"")
    (project / "ten").write_bytes(b"0123456789")
    assert read_regular(project / "empty") == b""
    assert read_regular(str(project / "ten"), limit=10) == b"0123456789"
    with pytest.raises(FileTooLarge):
        read_regular(project / "ten", limit=9)


def test_is_binary_looks_at_the_first_8_kib_only() -> None:
    assert is_binary(b"a" * 8191 + b"\0")
    assert not is_binary(b"a" * 8192 + b"\0")
    assert not is_binary(b"")


_GLOB_SEGMENT = st.sampled_from(
    ["a", "b", "*", "?", "**", "[ab]", "[!a]", "*.txt", "c.txt", "b[/]c"]
)


@settings(max_examples=200, deadline=None)
@given(segments=st.lists(_GLOB_SEGMENT, min_size=1, max_size=4), path=st.sampled_from([".", "a"]))
def test_glob_goes_only_where_a_match_can_be_and_finds_them_all(
    segments: list[str], path: str
) -> None:
    """``glob`` skips folders its pattern cannot reach; the paths found are the same as
    those of every walked file matched against the pattern."""
    pattern = "/".join(segments)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _write(root, {name: b"" for name in ["c.txt", "a/c.txt", "a/b/c.txt", "a/b/c/d.txt",
                                              "b/c.txt", "b/a/c.txt", "ab/c.txt"]})  # fmt: skip
        base = (root / path).resolve()
        matches = re.compile(glob_to_regex(pattern) + r"\Z").match
        skip = 0 if path == "." else len(path) + 1
        walked = walk_files(root, base, load_ignore_rules(root))
        expected = sorted(r for _, r in walked if matches(r[skip:]))
        result = glob_files(root, pattern, path)
    assert (result.content.split("\n") if result.data["count"] else []) == expected
