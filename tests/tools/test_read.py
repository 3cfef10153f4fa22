"""The read tool: ranges, the line cap, hashes, and every refusal."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from steiner_tui.engine.state import parse_read_result
from steiner_tui.tools.read import ReadTool, read_file
from tests.tools.conftest import make_ctx


def _lines(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


def test_read_whole_file_fields_and_numbering(project: Path) -> None:
    (project / "a.py").write_text("x = 1\ny = 2\n")
    result = read_file(project, "a.py")
    assert result.status == "done"
    fields = json.loads(result.content)
    assert list(fields) == ["path", "startLine", "endLine", "totalLines", "file_hash", "output"]
    assert fields == {
        "path": "a.py",
        "startLine": 1,
        "endLine": 2,
        "totalLines": 2,
        "file_hash": hashlib.sha256(b"x = 1\ny = 2\n").hexdigest()[:16],
        "output": "   1\tx = 1\n   2\ty = 2",
    }
    assert dict(result.data) == fields


def test_read_content_is_compact_json(project: Path) -> None:
    (project / "a.txt").write_text("é\n")
    content = read_file(project, "a.txt").content
    assert ", " not in content and '": ' not in content
    assert "é" in content


def test_offset_and_limit_select_lines(project: Path) -> None:
    (project / "f.txt").write_text(_lines(10))
    fields = json.loads(read_file(project, "f.txt", offset=3, limit=2).content)
    assert (fields["startLine"], fields["endLine"], fields["totalLines"]) == (3, 4, 10)
    assert fields["output"] == "   3\tline 3\n   4\tline 4"
    assert "capped" not in fields


def test_line_cap_adds_marker_and_flag(project: Path) -> None:
    (project / "big.txt").write_text(_lines(2500))
    fields = json.loads(read_file(project, "big.txt").content)
    assert fields["capped"] is True
    assert (fields["startLine"], fields["endLine"], fields["totalLines"]) == (1, 2000, 2500)
    last = fields["output"].split("\n")[-1]
    assert last == (
        "[... truncated: showing lines 1-2000 of 2500; use offset/limit to read more "
        "(next: offset=2001, limit=2000)]"
    )
    assert parse_read_result(fields) is not None


def test_limit_above_cap_is_capped_but_small_limit_is_not(project: Path) -> None:
    (project / "big.txt").write_text(_lines(2500))
    over = json.loads(read_file(project, "big.txt", offset=2, limit=5000).content)
    assert over["capped"] is True and over["endLine"] == 2001
    assert over["output"].endswith(
        "showing lines 2-2001 of 2500; use offset/limit to read more "
        "(next: offset=2002, limit=2000)]"
    )
    small = json.loads(read_file(project, "big.txt", limit=10).content)
    assert "capped" not in small and small["endLine"] == 10


def test_tail_within_cap_is_not_capped(project: Path) -> None:
    (project / "big.txt").write_text(_lines(2500))
    fields = json.loads(read_file(project, "big.txt", offset=1000).content)
    assert "capped" not in fields
    assert (fields["startLine"], fields["endLine"]) == (1000, 2500)


def test_offset_past_end_fails(project: Path) -> None:
    (project / "f.txt").write_text(_lines(3))
    result = read_file(project, "f.txt", offset=9)
    assert result.status == "failed"
    assert result.content == "cannot read f.txt: offset 9 is past the end of the file (3 lines)"


def test_empty_file(project: Path) -> None:
    (project / "empty.txt").write_text("")
    fields = json.loads(read_file(project, "empty.txt").content)
    assert (fields["startLine"], fields["endLine"], fields["totalLines"]) == (0, 0, 0)
    assert fields["output"] == ""


def test_crlf_and_long_lines(project: Path) -> None:
    (project / "w.txt").write_bytes(b"a\r\nb\r\n" + b"z" * 2100 + b"\n")
    fields = json.loads(read_file(project, "w.txt").content)
    lines = fields["output"].split("\n")
    assert lines[:2] == ["   1\ta", "   2\tb"]
    assert lines[2] == "   3\t" + "z" * 2000 + " [... line cut at 2000 characters]"
    # What the model got is less than the file, though no line of it is missing: the tool block
    # says "cut" (a minified file's one line said only "done").
    cut = read_file(project, "w.txt").cut
    assert cut is not None and (cut.total_bytes, cut.total_lines, cut.shown_lines) == (2107, 3, 3)
    assert cut.shown_bytes == len(fields["output"].encode()) and cut.saved_at == "w.txt"
    assert "capped" not in fields  # the range is whole: nothing to go on reading from
    (project / "short.txt").write_text("a\n" + "z" * 2000 + "\n")
    assert read_file(project, "short.txt").cut is None


def test_binary_file_is_refused(project: Path) -> None:
    (project / "blob.bin").write_bytes(b"abc\x00def")
    result = read_file(project, "blob.bin")
    assert result.status == "failed"
    assert result.content == "cannot read blob.bin: binary file (7 bytes)"


def test_huge_file_is_refused(project: Path) -> None:
    with (project / "huge.txt").open("wb") as handle:
        handle.truncate(10 * 1024 * 1024 + 1)
    result = read_file(project, "huge.txt")
    assert result.status == "failed"
    assert result.content == "cannot read huge.txt: file is 10.1 MiB, over the 10 MiB limit"


def test_image_is_returned_as_image(project: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 20
    (project / "pic.dat").write_bytes(png)
    result = read_file(project, "pic.dat")
    assert result.status == "done"
    assert len(result.images) == 1
    assert result.images[0].media_type == "image/png"
    assert base64.b64decode(result.images[0].data) == png
    assert "pic.dat" in result.content and "image/png" in result.content


def test_other_image_kinds(project: Path) -> None:
    kinds = {
        "a": (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
        "b": (b"GIF89a\x01\x00", "image/gif"),
        "c": (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
    }
    for name, (data, media_type) in kinds.items():
        (project / name).write_bytes(data)
        assert read_file(project, name).images[0].media_type == media_type


def test_paths_outside_the_root_are_refused(project: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("no")
    assert read_file(project, "../secret.txt").content == (
        "cannot read ../secret.txt: outside the project root"
    )
    absolute = str(tmp_path / "secret.txt")
    assert read_file(project, absolute).status == "failed"
    (project / "link.txt").symlink_to(tmp_path / "secret.txt")
    linked = read_file(project, "link.txt")
    assert linked.status == "failed"
    assert linked.content == "cannot read link.txt: outside the project root"


def test_absolute_path_inside_root_reports_relative_path(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "m.py").write_text("pass\n")
    fields = json.loads(read_file(project, str(project / "src" / "m.py")).content)
    assert fields["path"] == "src/m.py"
    fields = json.loads(read_file(project, "./src/../src/m.py").content)
    assert fields["path"] == "src/m.py"


def test_missing_file_and_directory(project: Path) -> None:
    assert read_file(project, "nope.txt").content == "cannot read nope.txt: no such file"
    (project / "d").mkdir()
    assert read_file(project, "d").content == "cannot read d: is a directory"
    assert read_file(project, " ").content == "path must not be empty"


async def test_tool_run_never_asks_permission(project: Path) -> None:
    (project / "a.txt").write_text("hi\n")
    ctx, permission = make_ctx(project)
    result = await ReadTool().run({"path": "a.txt", "offset": 1}, ctx)
    assert result.status == "done"
    assert permission.requests == []


def test_a_budget_gives_a_window_of_whole_lines_and_where_to_go_on(project: Path) -> None:
    (project / "long.md").write_text("".join(f"{'x' * 1990} {n}\n" for n in range(2000)))
    result = read_file(project, "long.md", max_chars=20_000)
    fields = json.loads(result.content)
    shown = fields["endLine"] - fields["startLine"] + 1
    assert fields["capped"] is True and 1 <= shown < 10
    assert len(result.content) <= 20_000
    assert fields["output"].endswith(f"(next: offset={fields['endLine'] + 1}, limit={shown})]")
    assert result.cut is not None and result.cut.saved_at == "long.md"
    assert (result.cut.total_lines, result.cut.shown_lines) == (2000, shown)
    # The next window starts where this one ended.
    after = json.loads(read_file(project, "long.md", offset=shown + 1, max_chars=20_000).content)
    assert after["startLine"] == shown + 1
    # Reshaping gives a smaller window of the same read.
    assert result.reshape is not None
    smaller = json.loads(result.reshape(5_000).content)
    assert smaller["endLine"] < fields["endLine"] and smaller["startLine"] == 1


def test_symlink_loop_is_reported_by_name(project: Path) -> None:
    (project / "loop1").symlink_to("loop2")
    (project / "loop2").symlink_to("loop1")
    result = read_file(project, "loop1")
    assert result.status == "failed"
    # Python 3.11/3.12 raise RuntimeError while resolving; 3.13 leaves it to the open (ELOOP).
    assert result.content.startswith("cannot read loop1: "), result.content
    assert "unexpectedly" not in result.content


def test_a_file_that_is_not_utf8_says_so(project: Path) -> None:
    """The model was given U+FFFD for each byte that is not UTF-8 without a word, and wrote
    the file back with them (edit refuses it; the note says both)."""
    (project / "latin1.txt").write_bytes(b"caf\xe9\nline two \xff\xfe ok\n")
    fields = json.loads(read_file(project, "latin1.txt").content)
    assert fields["output"] == "   1\tcaf\ufffd\n   2\tline two \ufffd\ufffd ok"
    assert fields["note"] == (
        "not valid UTF-8: 3 bytes shown as U+FFFD; edit refuses this file, "
        "and writing back what was read would lose those bytes"
    )
    (project / "utf8.txt").write_text("caf\u00e9 \ufffd\n", encoding="utf-8")
    assert "note" not in json.loads(read_file(project, "utf8.txt").content)
