"""End to end: SIGKILL the app mid-stream in tmux, restart with ``--resume``, nothing is lost.

The project's config (trusted: ``--trust-project``) enables a skill (so the first message
carries its envelope) and slows the offline model's streaming (``[providers.offline]
stream_delay_ms``), so there is time to kill the process while a reply streams. The session
log is the witness: the test waits on its records (a ``partial`` record in ``session.partial``
and no message after the latest ``request`` record mean a reply is streaming), kills the
process, restarts the app with
``--resume`` and checks that

* the conversation is intact (every message logged before the kill comes back, in order, and
  the cut-off reply is restored as ``incomplete``, and the screen says the app stopped while
  it streamed), and the skill is still active;
* the first request after resuming begins with exactly the message hashes of the last request
  sent before the kill (the test runs within one calendar day, so the session date line of the
  resumed session is the same text).

Every wait polls the pane or the log until a deadline; failures show what was there.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.commands.screenshots import write_sample_project
from steiner_tui.engine.skills.effective import effective_skills_of_messages
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.log_parse import APP_STOPPED
from steiner_tui.sessions.partial_reply import PARTIAL_FILE_NAME
from steiner_tui.sessions.records import LINE_OF_ROLE
from tests.e2e.test_tmux import (
    SESSION,
    START_DEADLINE,
    STEP_DEADLINE,
    Tmux,
    _screen,
    _submit,
    _wait_for,
    tmux,  # noqa: F401  (the fixture)
)

PROJECT_CONFIG = """\
[skills]
enabled = ["code-review"]

[providers.offline]
stream_delay_ms = 40
"""
FIRST = "What does this project do?"
SECOND = "Which files does it have?"
THIRD = "How are its tests run?"


def _command(project: Path, *extra: str) -> str:
    args = " ".join(shlex.quote(a) for a in extra)
    return (
        f"exec {shlex.quote(sys.executable)} -m steiner_tui "
        f"--project {shlex.quote(str(project))} --trust-project {args}"
    )


def _reporting(project: Path, *extra: str) -> str:
    """The app run by a shell that keeps its exit status in ``ended`` beside the project (tmux
    may not learn it). Not its output: Textual sizes the screen from standard output."""
    ended = shlex.quote(str(project.parent / "ended"))
    return f"rm -f {ended}; {_command(project, *extra).removeprefix('exec ')}; echo $? >{ended}"


def _quit_as_ctrl_q(term: Tmux, project: Path, signum: int) -> None:
    """The app run by ``_reporting`` ended with 128 + ``signum`` by quitting as Ctrl+Q does,
    the terminal given back (out of the alternate screen), not ended by the signal (which
    the shell says as 128 + ``signum`` too, and leaves the terminal as it was)."""
    ended = project.parent / "ended"
    status = _poll("the app to end", lambda: ended.is_file() and ended.read_text().strip())
    assert int(status) == 128 + signum
    assert term("display-message", "-p", "-t", SESSION, "#{alternate_on}").strip() == "0"


def _app_pid(term: Tmux) -> int:
    """The app's process under ``_reporting``'s shell."""
    shell = _pane_pid(term)
    children = Path(f"/proc/{shell}/task/{shell}/children")
    return int(_poll("the app's process", lambda: children.read_text(encoding="utf-8").split())[0])


def _start(term: Tmux, project: Path, *extra: str, report: bool = False) -> None:
    command = (_reporting if report else _command)(project, *extra)
    term(
        "new-session", "-d", "-x", "160", "-y", "48", "-s", SESSION, command,
        ";", "set-option", "-w", "-t", SESSION, "remain-on-exit", "on",
    )  # fmt: skip


def _poll(what: str, check: Callable[[], Any], deadline: float = STEP_DEADLINE) -> Any:
    end = time.monotonic() + deadline
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)  # polling interval only: the loop waits on the log's content


def _session_dir(sessions: Path) -> Path:
    def found() -> Path | None:
        dirs = [p for p in sessions.glob("*") if (p / "session.jsonl").is_file()]
        return dirs[0] if len(dirs) == 1 else None

    what = (
        f"the session log under {sessions} (the app must write one per session: SessionLog "
        "in the driver's sink fan-out, see steiner_tui.sessions.resume)"
    )
    result: Path = _poll(what, found, STEP_DEADLINE)
    return result


def _records(directory: Path) -> list[str]:
    """The log's record types, in order (torn lines as ``?``)."""
    kinds = []
    for line in (directory / "session.jsonl").read_bytes().splitlines():
        try:
            kinds.append(str(json.loads(line)["type"]))
        except (ValueError, KeyError, TypeError):
            kinds.append("?")
    return kinds


def _reply_done(directory: Path, user_text: str) -> bool:
    loaded = load_session(directory)
    messages = loaded.lineage.active.messages
    users = [
        i for i, m in enumerate(messages) if m.role == "user" and m.content.endswith(user_text)
    ]
    if not users:
        return False
    after = messages[users[-1] + 1 :]
    return any(m.role == "assistant" and not m.tool_calls and not m.incomplete for m in after)


def _streaming(directory: Path) -> bool:
    kinds = _records(directory)
    if "request" not in kinds:
        return False
    last_request = len(kinds) - 1 - kinds[::-1].index("request")
    tail = kinds[last_request + 1 :]
    partial = directory / PARTIAL_FILE_NAME  # the streamed text, beside the log
    return (
        partial.is_file() and partial.stat().st_size > 0 and not MESSAGE_RECORDS.intersection(tail)
    )


MESSAGE_RECORDS = set(LINE_OF_ROLE)
"""The record types of a message (its role)."""


def _pane_pid(term: Tmux) -> int:
    return int(term("display-message", "-p", "-t", SESSION, "#{pane_pid}").strip())


def _dead(term: Tmux) -> bool:
    return term("display-message", "-p", "-t", SESSION, "#{pane_dead}").strip() == "1"


def _ended(pid: int) -> bool:
    """The process has ended (a zombie nobody reaps once its tmux server is gone counts)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def _first_reply(term: Tmux, tmp_path: Path, *, report: bool = False) -> tuple[Path, Path]:
    """The sample project (``PROJECT_CONFIG``) open in the app (``_reporting``'s with
    ``report``), its first question answered: the project and the session's folder."""
    project = write_sample_project(tmp_path / "budgetkit")
    (project / ".steiner").mkdir(exist_ok=True)
    (project / ".steiner" / "config.toml").write_text(PROJECT_CONFIG, encoding="utf-8")
    _start(term, project, report=report)
    _wait_for(term, "Skills", deadline=START_DEADLINE)
    _submit(term, FIRST)
    directory = _session_dir(tmp_path / "config" / "steiner" / "sessions")
    _poll("the first reply to finish", lambda: _reply_done(directory, FIRST))
    return project, directory


@pytest.mark.slow
def test_sigkill_mid_stream_then_resume(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    project, directory = _first_reply(tmux, tmp_path)

    _submit(tmux, SECOND)
    _poll("the second reply to start streaming", lambda: _streaming(directory))
    os.kill(_pane_pid(tmux), signal.SIGKILL)
    _poll("the killed app to go away", lambda: _dead(tmux))

    before = load_session(directory)
    assert before.problems == (), [str(p) for p in before.problems]
    assert before.restored_incomplete, (
        "the reply had finished before the kill; the log ends with "
        f"{_records(directory)[-6:]} (slow the offline model down further)"
    )
    messages_before = before.lineage.active.messages
    assert messages_before[-1].role == "assistant" and messages_before[-1].incomplete
    assert [m.content for m in messages_before if m.role == "user"][-1].endswith(SECOND)
    sent_before = [r for r in before.requests if not r.compaction]
    last_hashes = sent_before[-1].message_hashes
    skills_before = [b.name for b in effective_skills_of_messages(messages_before)]
    assert skills_before == ["code-review"]

    # The dead pane (remain-on-exit) runs the resume: killing the session instead would leave
    # the server with none, and a server on its way out refuses the next new-session.
    tmux("respawn-pane", "-k", "-t", SESSION, _command(project, "--resume"))
    # The pane opens scrolled to the end: the cut-off reply and the last question show.
    screen = _wait_for(
        tmux, "interrupted", "● active", "the app stopped while a reply streamed",
        deadline=START_DEADLINE,
    )  # fmt: skip
    assert "code-review" in screen, screen
    _submit(tmux, THIRD)
    _poll("the first reply after resuming", lambda: _reply_done(directory, THIRD))

    after = load_session(directory)
    assert after.problems == (), [str(p) for p in after.problems]
    messages_after = after.lineage.active.messages
    assert messages_after[: len(messages_before)] == messages_before
    resumed_requests = [r for r in after.requests[len(before.requests) :] if not r.compaction]
    assert resumed_requests, f"no request after resuming; the pane shows:\n{_screen(tmux)}"
    first_after = resumed_requests[0].message_hashes
    assert first_after[: len(last_hashes)] == last_hashes
    new_users = [m for m in messages_after[len(messages_before) :] if m.role == "user"]
    assert new_users and new_users[0].content == THIRD  # the skill state carried over: no delta
    assert [b.name for b in effective_skills_of_messages(messages_after)] == ["code-review"]
    tmux("send-keys", "-t", SESSION, "C-q")


@pytest.mark.slow
def test_a_closed_terminal_quits_as_ctrl_q_and_keeps_the_draft(
    tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    """SIGHUP (the terminal window closed) and SIGTERM ended the process where it stood: the
    words typed and not sent were lost with it. They quit as Ctrl+Q does now."""
    project, directory = _first_reply(tmux, tmp_path, report=True)
    _submit(tmux, SECOND)
    _poll("the second reply to start streaming", lambda: _streaming(directory))
    tmux("send-keys", "-t", SESSION, "-l", "words not sent yet")
    _wait_for(tmux, "words not sent yet")
    os.kill(_app_pid(tmux), signal.SIGHUP)
    _quit_as_ctrl_q(tmux, project, signal.SIGHUP)

    draft = json.loads((directory / "draft.json").read_text(encoding="utf-8"))
    assert draft == {"text": "words not sent yet", "pastes": {}}
    loaded = load_session(directory)
    assert loaded.problems == (), [str(p) for p in loaded.problems]
    assert loaded.requests[-1].error == APP_STOPPED  # as Ctrl+Q: not a crash, not Esc

    tmux("respawn-pane", "-k", "-t", SESSION, _reporting(project, "--resume"))
    _wait_for(tmux, "is back in the prompt", "words not sent yet", deadline=START_DEADLINE)
    os.kill(_app_pid(tmux), signal.SIGTERM)
    _quit_as_ctrl_q(tmux, project, signal.SIGTERM)
    assert json.loads((directory / "draft.json").read_text(encoding="utf-8")) == draft


@pytest.mark.slow
@pytest.mark.parametrize("quitting", [False, True], ids=["typing", "after-ctrl-q"])
def test_a_terminal_that_goes_away_ends_the_app_and_frees_its_session(
    tmux: Tmux,  # noqa: F811
    tmp_path: Path,
    quitting: bool,
) -> None:
    """The terminal gone (its tmux server killed), even while the app quits: on a terminal
    that is gone Textual's shutdown can wait for ever on its writer thread, and an app left
    running holds its session's lock ("open in a running steiner-tui"). It ends, the draft
    kept, and the session resumes."""
    project, directory = _first_reply(tmux, tmp_path)
    tmux("send-keys", "-t", SESSION, "-l", "words not sent yet")
    _wait_for(tmux, "words not sent yet")
    pid = _pane_pid(tmux)
    if quitting:
        tmux("send-keys", "-t", SESSION, "C-q")
        time.sleep(0.2)  # into Textual's shutdown: where it waited for ever
    tmux("kill-server")
    _poll("the app to end with its terminal", lambda: _ended(pid))

    draft = json.loads((directory / "draft.json").read_text(encoding="utf-8"))
    assert draft == {"text": "words not sent yet", "pastes": {}}
    _start(tmux, project, "--resume")
    _wait_for(tmux, "is back in the prompt", "words not sent yet", deadline=START_DEADLINE)
    tmux("send-keys", "-t", SESSION, "C-q")
