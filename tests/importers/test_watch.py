"""Following a transcript the agent is still writing (``steiner-tui watch``), on a copy of a
real Claude Code 1.0.108 session extended line by line: which file is followed, a partial last
line waits for its end, and ``watch --json`` prints exactly one line per new request."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.importers.claude import import_claude_session
from steiner_tui.importers.follow import (
    WATCH_IDLE_S,
    ProjectSessions,
    TranscriptFollower,
    claude_project_folder,
    newest_transcript,
    request_lines,
    watched_project,
)

REAL = (
    Path(__file__).parent
    / "data"
    / "claude-code-1.0.108"
    / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
)
CODEX = Path(__file__).parent / "data" / "codex-0.135.0"
LINES = REAL.read_bytes().splitlines(keepends=True)
DEADLINE = 60.0


def _settled_contexts(lines: int, tmp: Path) -> list[int]:
    """The contexts of the requests settled once ``lines`` lines are written (computed on a
    copy of that many lines, as a reader with no follower would see them)."""
    copy = tmp / "prefix.jsonl"
    copy.write_bytes(b"".join(LINES[:lines]))
    follower = TranscriptFollower(copy)
    follower.poll()
    return [r.context_tokens for r in follower.settled()]


def test_the_newest_transcript_of_the_project(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "my.project"
    folder = claude_project_folder(home, project)
    assert folder.name == re.sub(r"[^A-Za-z0-9]", "-", str(project))  # as Claude Code names it
    folder.mkdir(parents=True)
    older, newer = folder / "older.jsonl", folder / "newer.jsonl"
    older.write_bytes(REAL.read_bytes())
    newer.write_bytes(REAL.read_bytes())
    os.utime(older, (1, 1))
    (folder / "agent-x.jsonl").write_bytes(REAL.read_bytes())  # a 2.0.x sub-agent's file
    assert newest_transcript(home, project) == newer
    assert newest_transcript(home, project, "codex") is None
    rollout_home = tmp_path / "codex-home"
    day = rollout_home / ".codex" / "sessions" / "2026" / "06" / "05"
    day.mkdir(parents=True)
    [rollout] = CODEX.glob("*.jsonl")
    (day / rollout.name).write_bytes(rollout.read_bytes())
    codex_project = Path("/tmp/agent-history-real-agent/codex/workspace")  # its session_meta's
    assert newest_transcript(rollout_home, codex_project, "codex") == day / rollout.name
    assert newest_transcript(rollout_home, project, "codex") is None


def test_a_watch_in_a_folder_of_the_repository_follows_the_agent_at_its_root(
    tmp_path: Path,
) -> None:
    """Claude Code runs at the repository's root, the watch in ``src/``: it waited for a
    session of ``src/`` that never came. The repository's folder with sessions is followed
    (never one above the repository), and a session started in ``src/`` later is found too."""
    home, repo = tmp_path / "home", tmp_path / "repo"
    src = repo / "src" / "app"
    src.mkdir(parents=True)
    assert watched_project(home, src) == src  # no session anywhere: it waits in its folder
    above = claude_project_folder(home, tmp_path)  # a session above the repository
    above.mkdir(parents=True)
    (above / "old.jsonl").write_bytes(REAL.read_bytes())
    assert watched_project(home, src) == src  # not in a repository: its own folder only
    (repo / ".git").mkdir()
    assert watched_project(home, src) == src  # the folder above the repository is not it
    root = claude_project_folder(home, repo)
    root.mkdir(parents=True)
    (root / "live.jsonl").write_bytes(REAL.read_bytes())
    assert watched_project(home, src) == repo
    assert watched_project(home, src, "codex") == src
    sessions = ProjectSessions(home, repo, "claude", also=(src,))
    here = claude_project_folder(home, src)
    here.mkdir(parents=True)
    (here / "new.jsonl").write_bytes(REAL.read_bytes())
    assert sessions.new() == [here / "new.jsonl"]
    [rollout] = CODEX.glob("*.jsonl")
    day = home / ".codex" / "sessions" / "2026" / "06" / "05"
    day.mkdir(parents=True)
    workspace = b"/tmp/agent-history-real-agent/codex/workspace"
    (day / rollout.name).write_bytes(rollout.read_bytes().replace(workspace, str(repo).encode()))
    assert watched_project(home, src, "codex") == repo


def test_a_partial_last_line_waits_for_its_end(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(LINES[:4]))
    follower = TranscriptFollower(path)
    assert follower.poll() is not None
    before = len(follower.session.requests) if follower.session else 0
    line = LINES[4]
    with path.open("ab") as handle:
        handle.write(line[: len(line) // 2])
    assert follower.poll() is None  # nothing complete was added
    with path.open("ab") as handle:
        handle.write(line[len(line) // 2 :])
    session = follower.poll()
    assert session is not None and not session.problems
    expected = import_claude_session(_prefix(tmp_path, 5))
    assert [r.context_tokens for r in session.requests] == [
        r.context_tokens for r in expected.requests
    ]
    assert len(session.requests) >= before


def _prefix(tmp: Path, lines: int) -> Path:
    copy = tmp / f"prefix-{lines}.jsonl"
    copy.write_bytes(b"".join(LINES[:lines]))
    return copy


def test_watch_json_prints_one_line_per_new_request(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    start = 8
    path.write_bytes(b"".join(LINES[:start]))
    printed: list[dict[str, object]] = []
    with _watch_json(path, tmp_path) as process:
        stdout = process.stdout
        assert stdout is not None
        reader = threading.Thread(
            target=lambda: printed.extend(json.loads(line) for line in stdout), daemon=True
        )
        reader.start()
        try:
            assert process.stderr is not None  # the command says once it has read what is there
            assert "following" in process.stderr.readline().decode()
            with path.open("ab") as handle:  # the background writer: a line at a time
                for line in LINES[start:]:
                    handle.write(line)
                    handle.flush()
                    time.sleep(0.02)
            expected = _settled_contexts(len(LINES), tmp_path)
            already = len(_settled_contexts(start, tmp_path))
            _until(lambda: len(printed) >= len(expected) - already)
        finally:
            _interrupt(process, [reader])
        errors = process.stderr.read().decode() if process.stderr else ""
    assert process.returncode == 0, errors
    # Ctrl-C ends the watch: the last request, which no later line settles, comes last.
    last = import_claude_session(REAL).requests[-1].context_tokens
    assert [line["request"] for line in printed] == list(range(already + 1, len(expected) + 2))
    assert [line["context"] for line in printed] == [*expected[already:], last]
    # claude-sonnet-4 has a price in the built-in table: every request has its dollars.
    assert all(isinstance(line["cost"], float) and line["cost"] > 0 for line in printed)
    assert {json.dumps(line["window"]) for line in printed} == {
        json.dumps({"tokens": 200_000, "source": "claude-sonnet-4-20250514: model table"})
    }


def _watch(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``steiner-tui watch --json`` in ``tmp_path``, its home ``tmp_path/home``."""
    return subprocess.run(
        [sys.executable, "-m", "steiner_tui", "watch", "--json", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "HOME": str(tmp_path / "home")},
        timeout=120,
        check=False,
    )


def test_watch_before_any_session_waits_for_the_first_one(tmp_path: Path) -> None:
    """``watch`` run before ``claude`` in a project ended at once ("no transcript", 2), so a
    session started after it was never followed. It says where it looks and waits for one."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    out: list[str] = []
    errors: list[str] = []
    with _watch_json(None, tmp_path, cwd=project, home=home) as process:
        assert process.stderr is not None and process.stdout is not None
        waiting = process.stderr.readline().decode()
        threads = [_read_lines(process.stdout, out), _read_lines(process.stderr, errors)]
        try:
            folder = claude_project_folder(home, project)
            folder.mkdir(parents=True)
            (folder / REAL.name).write_bytes(b"".join(LINES))
            expected = _settled_contexts(len(LINES), tmp_path)
            _until(lambda: len(out) >= len(expected))
        finally:
            _interrupt(process, threads)
    assert process.returncode == 0, "".join(errors)
    assert waiting == (
        f"steiner-tui watch: no transcript of {project} yet in {home / '.claude' / 'projects'} "
        f"or {home / '.codex' / 'sessions'}; waiting for a session to start (Ctrl-C stops)\n"
    )
    assert errors[0].startswith(f"steiner-tui watch: following {folder / REAL.name}")
    printed = [json.loads(line) for line in out]
    assert [line["context"] for line in printed][: len(expected)] == expected


def test_ctrl_c_while_watch_waits_for_a_session_ends_it(tmp_path: Path) -> None:
    with _watch_json(None, tmp_path, cwd=tmp_path, home=tmp_path / "home") as process:
        assert process.stderr is not None
        assert "waiting for a session" in process.stderr.readline().decode()
        process.send_signal(signal.SIGINT)
        out, errors = process.communicate(timeout=30)
    assert (process.returncode, out, errors) == (0, b"", b""), errors.decode()


def test_watch_on_a_missing_path_says_it_does_not_exist(tmp_path: Path) -> None:
    missing = tmp_path / "gone.jsonl"
    done = _watch(tmp_path, str(missing))
    # It said "[Errno 2] No such file or directory: '…'", where import says this.
    assert (done.returncode, done.stderr) == (2, f"steiner-tui watch: {missing} does not exist\n")
    done = _watch(tmp_path, str(tmp_path))  # it said "[Errno 21] Is a directory: '…'"
    assert done.returncode == 2
    assert done.stderr.startswith(f"steiner-tui watch: {tmp_path} is a folder: give a transcript")


FIXTURE = (
    Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))
    / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
)


@pytest.mark.skipif(not FIXTURE.exists(), reason="the Claude Code fixtures are not there")
def test_a_request_is_settled_only_once_its_reply_has_ended(tmp_path: Path) -> None:
    """Claude Code 2.1 runs tool calls while the reply streams: progress lines and tool
    results come between the blocks of one request (its third request: lines 49-79, output 8
    until its last block says 780). A settled request's figures are its final ones."""
    lines = FIXTURE.read_bytes().splitlines(keepends=True)[:160]
    final = import_claude_session(_write(tmp_path, lines)).requests
    assert final[2].output_tokens == 780
    for count in range(1, len(lines) + 1):
        follower = TranscriptFollower(_write(tmp_path, lines[:count]))
        follower.poll()
        settled = follower.settled()
        assert [r.output_tokens for r in settled] == [
            r.output_tokens for r in final[: len(settled)]
        ], f"after {count} lines"
    assert len(settled) >= 5


def _write(tmp: Path, lines: list[bytes]) -> Path:
    path = tmp / "s.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def test_a_transcript_that_stops_mid_turn_settles_its_last_request_once_idle(
    tmp_path: Path,
) -> None:
    """The real session ends on a reply with no system line or prompt after it (Claude Code
    stopped mid-turn): its last request never settled. Once nothing is added for
    ``WATCH_IDLE_S`` the transcript has ended, and so has that request."""
    now = [100.0]
    follower = TranscriptFollower(_write(tmp_path, LINES), clock=lambda: now[0])
    session = follower.poll()
    assert session is not None and len(follower.settled()) == len(session.requests) - 1
    now[0] += WATCH_IDLE_S - 1
    assert not follower.idle()
    now[0] += 1
    assert follower.idle() and follower.settled(ended=True) == session.requests
    with (tmp_path / "s.jsonl").open("ab") as handle:
        handle.write(LINES[-1])  # a line added: idle again only WATCH_IDLE_S later
    follower.poll()
    assert not follower.idle()


def test_watch_into_a_pipe_prints_the_json_lines(tmp_path: Path) -> None:
    """``steiner-tui watch | jq`` drew the workbench's screens into the pipe and waited for
    keys; a watch that is not on a terminal prints the ``--json`` lines, and says so."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(LINES[:8]))
    with _watch_json(path, tmp_path, flag=False) as process:
        assert process.stdout is not None and process.stderr is not None
        said = process.stderr.readline().decode()
        assert said == (
            "steiner-tui watch: stdin and stdout are not a terminal: one JSON line per request"
            " (--json)\n"
        )
        assert "following" in process.stderr.readline().decode()
        with path.open("ab") as handle:
            handle.write(b"".join(LINES[8:]))
        first = json.loads(process.stdout.readline())
        _interrupt(process, [])
    assert first["request"] >= 1 and first["context"] > 0


def test_watch_json_prints_the_last_request_when_the_watch_ends(tmp_path: Path) -> None:
    """Ctrl-C ends the watch: a last request that no later line settled is printed then."""
    path = _write(tmp_path, LINES)
    with _watch_json(path, tmp_path) as process:
        assert process.stderr is not None and process.stdout is not None
        assert "(9 requests so far)" in process.stderr.readline().decode()
        process.send_signal(signal.SIGINT)
        out, errors = process.communicate(timeout=30)
    assert process.returncode == 0, errors
    printed = [json.loads(line) for line in out.splitlines()]
    assert [line["request"] for line in printed] == [10]
    assert printed[0]["context"] == import_claude_session(REAL).requests[-1].context_tokens


def _read_lines(stream: object, into: list[str]) -> threading.Thread:
    """A thread reading ``stream``'s lines into ``into`` as they come."""
    thread = threading.Thread(
        target=lambda: into.extend(line.decode() for line in stream),  # type: ignore[attr-defined]
        daemon=True,
    )
    thread.start()
    return thread


def _interrupt(process: subprocess.Popen[bytes], readers: list[threading.Thread]) -> None:
    """Ctrl-C to the watch, then wait for it to end and for its readers to read the rest."""
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    for reader in readers:
        reader.join(timeout=10)


def _until(condition: Callable[[], object]) -> None:
    """Poll ``condition`` until it holds or ``DEADLINE`` passes (the asserts after it say which)."""
    end = time.monotonic() + DEADLINE
    while not condition() and time.monotonic() < end:
        time.sleep(0.1)


@contextmanager
def _watch_json(
    path: Path | None,
    tmp_path: Path,
    *,
    cwd: Path | None = None,
    home: Path | None = None,
    flag: bool = True,
) -> Iterator[subprocess.Popen[bytes]]:
    """``steiner-tui watch [PATH] --json`` in a child process, its output piped; killed at the
    end if it is still running (a test that fails, or a watch that outlives its Ctrl-C, leaves
    no process behind, and its pipes close without waiting on a reader)."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    if home is not None:
        env["HOME"] = str(home)
    where = [] if path is None else [str(path)]
    process = subprocess.Popen(
        [sys.executable, "-m", "steiner_tui", "watch", *where, *(["--json"] if flag else [])],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_watch_json_goes_on_when_its_file_is_deleted_and_written_again(tmp_path: Path) -> None:
    """The transcript deleted (a rotation), then written again: ``--json`` stopped on a
    "[Errno 2] No such file" traceback; and a file written again in its place printed nothing,
    its request numbers being under those printed. Now it says so once on stderr, waits, and
    prints the new file's requests from #1."""
    path = _write(tmp_path, LINES[:8])
    out: list[str] = []
    errors: list[str] = []
    with _watch_json(path, tmp_path) as process:
        assert process.stderr is not None and process.stdout is not None
        assert "following" in process.stderr.readline().decode()
        threads = [_read_lines(process.stdout, out), _read_lines(process.stderr, errors)]
        try:
            path.unlink()
            _until(lambda: errors)
            assert process.poll() is None, "".join(errors)
            path.write_bytes(b"".join(LINES))
            expected = _settled_contexts(len(LINES), tmp_path)
            _until(lambda: len(out) >= len(expected))
        finally:
            _interrupt(process, threads)
    assert process.returncode == 0, "".join(errors)
    assert errors[0] == f"steiner-tui watch: {path} is gone; waiting for it to come back\n"
    replaced = f"steiner-tui watch: {path} was cut shorter or replaced: its requests from #1\n"
    assert errors[1] == replaced
    printed = [json.loads(line) for line in out]
    assert [line["request"] for line in printed] == list(range(1, len(expected) + 2))
    assert [line["context"] for line in printed[:-1]] == expected


def test_a_file_cut_shorter_or_replaced_by_a_longer_one_is_read_again(tmp_path: Path) -> None:
    path = _write(tmp_path, LINES)
    follower = TranscriptFollower(path)
    follower.poll()
    assert follower.restarts == 0
    path.write_bytes(b"".join(LINES[:5]))  # truncated and written again
    assert follower.poll() is not None and follower.restarts == 1
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b"".join(LINES))
    replacement.replace(path)  # a longer file in its place: the same bytes read from the start
    session = follower.poll()
    assert session is not None and follower.restarts == 2
    assert len(session.requests) == len(import_claude_session(REAL).requests)


def test_a_reply_whose_line_says_why_it_stopped_is_settled_at_once(tmp_path: Path) -> None:
    """Claude Code writes ``stop_reason`` only once a reply has ended (1.0.108: on its last
    block's line, with the final output; 2.1.328: on every block's line). Such a request's
    figures are final: ``claude -p`` ends on an ``end_turn`` reply followed only by
    ``last-prompt`` and ``cost-state`` lines, so its last request waited five idle minutes (or
    Ctrl-C) for a later request or a prompt that never came."""
    follower = TranscriptFollower(_write(tmp_path, LINES[:8]))  # line 8: stop_reason tool_use
    follower.poll()
    assert follower.session is not None
    assert [r.output_tokens for r in follower.settled()] == [263, 302]
    follower = TranscriptFollower(_write(tmp_path, LINES[:7]))  # its first blocks: output 25
    follower.poll()
    assert [r.output_tokens for r in follower.settled()] == [263]


def test_watch_json_names_each_requests_own_models_window(tmp_path: Path) -> None:
    """Claude Code sends some requests to Haiku beside its main model: each line's window is
    its own request's model's, not the session's last model's for every line."""
    haiku = b'"model":"claude-haiku-4-5-20251001"'
    lines = [
        line.replace(b'"model":"claude-sonnet-4-20250514"', haiku) if i < 20 else line
        for i, line in enumerate(LINES)
    ]
    session = import_claude_session(_write(tmp_path, lines))
    printed = request_lines(session, range(1, len(session.requests) + 1))
    models = {line["model"] for line in printed}
    assert models == {"claude-haiku-4-5-20251001", "claude-sonnet-4-20250514"}
    for line in printed:
        assert line["window"] == {"tokens": 200_000, "source": f"{line['model']}: model table"}


def test_watch_follows_a_new_session_of_the_project(tmp_path: Path) -> None:
    """A watch given no path follows the project: Claude Code's ``/clear`` or a new
    ``claude`` starts another transcript, which it followed never (it printed nothing more).
    Now the session it followed has ended (its last request is printed) and the new one is
    followed from its #1, said on stderr."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    folder = claude_project_folder(home, project.resolve())
    folder.mkdir(parents=True)
    (folder / "old.jsonl").write_bytes(b"".join(LINES[:7]))  # its second reply not ended
    out: list[str] = []
    errors: list[str] = []
    with _watch_json(None, tmp_path, cwd=project, home=home) as process:
        assert process.stderr is not None and process.stdout is not None
        assert "old.jsonl (1 request so far)" in process.stderr.readline().decode()
        threads = [_read_lines(process.stdout, out), _read_lines(process.stderr, errors)]
        try:
            new = folder / "new.jsonl"
            new.write_bytes(b"".join(LINES))
            expected = _settled_contexts(len(LINES), tmp_path)
            _until(lambda: len(out) >= 1 + len(expected))
        finally:
            _interrupt(process, threads)
    assert process.returncode == 0, "".join(errors)
    assert errors == [
        f"steiner-tui watch: a new session of this project: {new}; following it, its requests "
        "from #1\n"
    ]
    printed = [json.loads(line) for line in out]
    assert (printed[0]["request"], printed[0]["output"]) == (2, 25)  # as it stood, ended
    assert [line["request"] for line in printed[1:]] == list(range(1, len(expected) + 2))
    assert [line["context"] for line in printed[1:-1]] == expected


def test_a_new_codex_session_of_the_project_is_found_another_projects_is_not(
    tmp_path: Path,
) -> None:
    [rollout] = CODEX.glob("*.jsonl")
    codex_project = Path("/tmp/agent-history-real-agent/codex/workspace")  # its session_meta's
    day = tmp_path / ".codex" / "sessions" / "2026" / "06" / "05"
    day.mkdir(parents=True)
    (day / rollout.name).write_bytes(rollout.read_bytes())
    sessions = ProjectSessions(tmp_path, codex_project, "codex")
    assert sessions.new() == []  # what was there at the start is not new
    other = day / "rollout-other.jsonl"
    other.write_bytes(rollout.read_bytes().replace(str(codex_project).encode(), b"/elsewhere"))
    begun = day.parent / "06" / "rollout-begun.jsonl"
    begun.parent.mkdir(exist_ok=True)
    begun.write_bytes(b"")  # its first line not written yet: looked at again
    assert sessions.new() == []
    begun.write_bytes(rollout.read_bytes())
    assert sessions.new() == [begun]
    assert sessions.new() == []


def _interrupted_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, presses: int
) -> tuple[int, Path]:
    """``watch PATH --json`` run in this process on a transcript of 8 lines, which grows whole
    once the watch says it follows it; Ctrl-C pressed ``presses`` times right after the first
    request line it prints. Its exit status and the transcript."""
    from steiner_tui.commands import watch as command

    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(LINES[:8]))
    following, interrupted = threading.Event(), threading.Event()
    announce = command.counted  # what it has read so far, counted as it says it follows

    def announced(*args: Any) -> str:
        following.set()
        return announce(*args)

    def interrupting(*args: Any) -> Iterator[dict[str, object]]:
        for line in request_lines(*args):
            yield line
            if not interrupted.is_set():  # once, after the first line printed
                interrupted.set()
                for _ in range(presses):
                    os.kill(os.getpid(), signal.SIGINT)

    def writer() -> None:
        if following.wait(DEADLINE):
            path.write_bytes(b"".join(LINES))

    monkeypatch.setattr(command, "counted", announced)
    monkeypatch.setattr(command, "request_lines", interrupting)
    threading.Thread(target=writer, daemon=True).start()
    args = argparse.Namespace(path=str(path), json=True, project=str(tmp_path), agent=None)
    return command.run(args), path


def test_ctrl_c_while_watch_json_prints_prints_no_request_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ctrl-C lands between two printed requests (as it did under a loaded suite): the requests
    # printed before it are not printed again, those after it once.
    status, path = _interrupted_in_process(tmp_path, monkeypatch, presses=1)
    assert status == 0
    printed = [json.loads(line)["request"] for line in capsys.readouterr().out.splitlines()]
    whole = TranscriptFollower(path)
    whole.poll()
    assert printed == list(range(printed[0], len(whole.settled(ended=True)) + 1))


def test_a_second_ctrl_c_ends_watch_json_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The first Ctrl-C lets the watch print what is left; a second one does not wait for it.
    handler = signal.getsignal(signal.SIGINT)
    status, _ = _interrupted_in_process(tmp_path, monkeypatch, presses=2)
    assert status == 130
    assert len(capsys.readouterr().out.splitlines()) == 1  # the line printed before them
    assert signal.getsignal(signal.SIGINT) is handler  # put back


def test_watch_json_names_an_unreadable_line_and_goes_on(tmp_path: Path) -> None:
    """A line cut short and one that is not UTF-8, written while ``--json`` follows: the
    requests after them were printed, but nothing said two lines were skipped. Each is named
    on stderr, once, by its number."""
    path = _write(tmp_path, LINES[:8])
    out: list[str] = []
    errors: list[str] = []
    with _watch_json(path, tmp_path) as process:
        assert process.stderr is not None and process.stdout is not None
        assert "following" in process.stderr.readline().decode()
        threads = [_read_lines(process.stdout, out), _read_lines(process.stderr, errors)]
        try:
            with path.open("ab") as handle:
                handle.write(b'{"type": "assistant", "message": {"usage": \n')
                handle.write(b"\xff\xfe\x80 not UTF-8\n")
                handle.write(b"".join(LINES[8:]))
            expected = _settled_contexts(len(LINES), tmp_path)
            already = len(_settled_contexts(8, tmp_path))
            _until(lambda: len(out) >= len(expected) - already)
        finally:
            _interrupt(process, threads)
    assert process.returncode == 0, "".join(errors)
    skipped = "skipped, the lines after it are read\n"
    assert errors == [
        f"steiner-tui watch: line 9 of s.jsonl: not JSON: Expecting value at column 44; {skipped}",
        f"steiner-tui watch: line 10 of s.jsonl: not JSON: Expecting value at column 1; {skipped}",
    ]
    printed = [json.loads(line) for line in out]
    assert [line["context"] for line in printed[:-1]] == expected[already:]
