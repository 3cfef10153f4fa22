"""A capture folder damaged on disk loses only what is damaged, and says what and where.

A line that is not UTF-8, not JSON, not an object or not a record of the shape the writer
writes is skipped and named by its number; the requests around it are read. A ``capture.json``
that cannot be read leaves the requests readable. A requests file that cannot be opened is an
error naming it, and the capture is still listed.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from steiner_tui.app.screens.capture_workbench import load_workbench
from steiner_tui.app.transcript import NoticeEntry
from steiner_tui.capture.store import (
    CaptureUnreadableError,
    CaptureWriter,
    list_captures,
    read_capture,
)
from steiner_tui.capture.usage import Usage
from steiner_tui.cli import main
from steiner_tui.commands.capture_screenshots import sample_claude_requests


def two_requests(base: Path, capture_id: str = "damaged") -> Path:
    """A capture of two requests with their replies; returns its requests file."""
    writer = CaptureWriter(base, "http://upstream", capture_id)
    first, second = sample_claude_requests()
    for body, usage in ((first, Usage(3, 0, 14_000, 12)), (second, Usage(5, 14_000, 0, 9))):
        seq = writer.request("POST", "/v1/messages?beta=true", body)
        writer.reply(seq, 200, "text/event-stream", 100, usage)
    writer.close()
    return writer.directory / "requests.jsonl"


def damage(path: Path) -> None:
    """Put four bad lines between the first request's reply and the second request."""
    lines = path.read_bytes().splitlines(keepends=True)
    bad = [
        b"\xff\xfe not text \x00\n",
        b'{"type": "request", "seq": 9, "body": \n',
        b'{"type": "reply", "seq": "two", "status": "ok"}\n',
        b'{"type": "request", "seq": 7, "body": {"messages": []}}\n',
    ]
    path.write_bytes(b"".join(lines[:2] + bad + lines[2:]))


def test_bad_lines_are_skipped_by_number_and_the_rest_is_read(tmp_path: Path) -> None:
    damage(two_requests(tmp_path))
    info, recorded = read_capture(tmp_path, "damaged")
    assert [r.seq for r in recorded] == [1, 2]
    assert all(r.reply is not None and r.reply.usage is not None for r in recorded)
    assert info.requests == 2
    assert [p.split(":", 1)[0] for p in info.problems] == [
        "requests.jsonl line 3",
        "requests.jsonl line 4",
        "requests.jsonl line 5",
        "requests.jsonl line 6",
    ]
    assert "not UTF-8" in info.problems[0] and "not JSON" in info.problems[1]
    assert "'two'" in info.problems[2] and "body is dict" in info.problems[3]
    [listed] = list_captures(tmp_path)  # lines told by their start and end only
    assert listed.capture_id == "damaged" and listed.requests == 2
    assert [p.split(":", 1)[0] for p in listed.problems] == [
        p.split(":", 1)[0] for p in info.problems
    ]


def test_a_copied_folder_is_listed_by_the_id_it_opens_by(tmp_path: Path) -> None:
    path = two_requests(tmp_path)
    copy = path.parent.with_name("copied")
    copy.mkdir()
    for file in path.parent.iterdir():
        (copy / file.name).write_bytes(file.read_bytes())
    assert sorted(c.capture_id for c in list_captures(tmp_path)) == ["copied", "damaged"]
    assert read_capture(tmp_path, "copied")[0].capture_id == "copied"


def test_a_damaged_capture_json_leaves_the_requests_readable(tmp_path: Path) -> None:
    path = two_requests(tmp_path)
    (path.parent / "capture.json").write_text("{not json")
    info, recorded = read_capture(tmp_path, "damaged")
    assert len(recorded) == 2
    assert info.capture_id == "damaged" and info.created.year > 1970
    [problem] = info.problems
    assert problem.startswith("capture.json: cannot be read")
    assert [c.capture_id for c in list_captures(tmp_path)] == ["damaged"]


def test_a_requests_file_that_cannot_be_opened_is_named(tmp_path: Path) -> None:
    path = two_requests(tmp_path)
    path.unlink()
    path.mkdir()
    with pytest.raises(CaptureUnreadableError, match=r"cannot read .*requests\.jsonl"):
        read_capture(tmp_path, "damaged")
    [listed] = list_captures(tmp_path)
    assert listed.requests == 0 and "requests.jsonl" in listed.problems[0]


def test_the_workbench_shows_the_requests_and_warns_of_the_lines(tmp_path: Path) -> None:
    damage(two_requests(tmp_path))
    _, data = load_workbench(tmp_path, "damaged")
    assert data.requests == 2 and data.view is not None
    assert data.view.estimate_tokens == 14_005
    warnings = [e for e in data.entries if isinstance(e, NoticeEntry) and e.kind == "warning"]
    assert [w.text.split(":", 2)[1].strip() for w in warnings] == [
        f"requests.jsonl line {n}" for n in (3, 4, 5, 6)
    ]
    assert data.entries[: len(warnings)] == tuple(warnings)


def test_capture_show_and_list_say_what_was_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    base = tmp_path / "steiner" / "sessions"
    damage(two_requests(base))
    assert main(["capture", "show", "damaged", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [r["seq"] for r in json.loads(out)["requests"]] == [1, 2]
    assert err.count("requests.jsonl line") == 4
    assert main(["capture", "list"]) == 0
    assert "4 unreadable" in capsys.readouterr().out
    # Piped, each request is one line whatever its length (grep finds its figures).
    assert main(["capture", "show", "damaged"]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if line.startswith("#")]
    assert len(heads) == 2 and all("prefix" in line for line in heads)

    path = base / ".captures" / "damaged" / "requests.jsonl"
    path.unlink()
    path.mkdir()
    assert main(["capture", "show", "damaged"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_capture_list_says_when_there_is_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert main(["capture", "list"]) == 0
    assert "no captures yet (steiner-tui capture starts one)" in capsys.readouterr().out
    two_requests(tmp_path / "steiner" / "sessions", "one")
    assert main(["capture", "list"]) == 0
    assert " 2 requests " in capsys.readouterr().out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_capture_list_fits_the_terminal_and_a_pipe_keeps_every_character(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long upstream address ran each line past 80 columns on a terminal."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "80")
    upstream = "https://gateway.internal.example.com/anthropic/v1/proxy/" + "x" * 40
    writer = CaptureWriter(tmp_path / "steiner" / "sessions", upstream, "long-upstream")
    writer.close()
    damage(two_requests(tmp_path / "steiner" / "sessions"))
    for out, whole in ((_Terminal(), False), (io.StringIO(), True)):
        monkeypatch.setattr(sys, "stdout", out)
        assert main(["capture", "list"]) == 0
        lines = out.getvalue().splitlines()
        assert len(lines) == 2
        line = next(line for line in lines if line.startswith("long-upstream "))
        assert (upstream in line) == whole
        if not whole:
            assert max(len(line) for line in lines) <= 80
            assert line.endswith("…") and "0 requests  https://gateway.internal" in line
        assert "4 unreadable" in next(line for line in lines if line.startswith("damaged "))
