"""Session folders damaged on disk: each is resumed, listed or refused with the file named."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from steiner_tui.agent.session_factory import LOG_RESTORED
from steiner_tui.cli import build_parser
from steiner_tui.commands.sessions import execute
from steiner_tui.engine.events import WarningEvent
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.meta import read_meta
from steiner_tui.sessions.records import LOG_FILE_NAME
from steiner_tui.sessions.resume import LATEST, find_session
from steiner_tui.sessions.store import SessionStore
from tests.sessions.conftest import OpenSession

EMPTY_ID = "aaaaaaaaaaaa"


def _empty_log(sessions_base: Path) -> Path:
    """A session folder whose log has no byte (killed, or a full disk, at its first write)."""
    folder = sessions_base / EMPTY_ID
    folder.mkdir(parents=True)
    (folder / LOG_FILE_NAME).write_bytes(b"")
    return folder


async def test_resuming_an_empty_log_writes_its_header_first(
    open_session: OpenSession, sessions_base: Path, project: Path
) -> None:
    folder = _empty_log(sessions_base)
    resumed = open_session(resume=EMPTY_ID)
    assert [p.message for p in resumed.problems] == ["the log is empty (no header record)"]
    await resumed.driver.submit("hello")
    resumed.log.close()
    loaded = load_session(folder)
    assert loaded.problems == ()
    assert loaded.header is not None
    assert loaded.header.session_id == EMPTY_ID
    assert loaded.header.project_root == str(resumed.runner.project_root)
    assert loaded.header.prompt_cache_key == f"steiner-{EMPTY_ID}"
    assert loaded.lineage == resumed.runner.lineage
    # It is the project's latest session now, and resumes without a problem.
    assert find_session(project, LATEST, sessions_base).session_id == EMPTY_ID
    again = open_session(resume=EMPTY_ID)
    assert again.problems == ()
    await again.driver.submit("again")
    again.log.close()
    assert load_session(folder).problems == ()


async def test_an_empty_log_resumed_without_a_message_stays_as_it_was(
    open_session: OpenSession, sessions_base: Path
) -> None:
    folder = _empty_log(sessions_base)
    resumed = open_session(resume=EMPTY_ID)
    resumed.log.record_mode("plan")
    resumed.log.close()
    assert (folder / LOG_FILE_NAME).read_bytes() == b""
    assert not resumed.log.on_disk
    row = SessionStore(sessions_base).info(EMPTY_ID)
    assert row.problem == ""
    assert row.meta.messages == 0


def test_the_list_says_an_empty_log_has_no_messages(sessions_base: Path) -> None:
    _empty_log(sessions_base)
    args = build_parser().parse_args(["sessions", "list"])
    out, err = io.StringIO(), io.StringIO()
    assert execute(args, sessions_base, out, err) == 0
    line = next(line for line in out.getvalue().splitlines() if EMPTY_ID in line)
    assert "[no messages]" in line
    row = SessionStore(sessions_base).info(EMPTY_ID)
    assert row.cells()[-1] == "[no messages]"


async def test_a_session_folder_removed_while_open_is_saved_again(
    open_session: OpenSession,
) -> None:
    harness = open_session()
    harness.driver.set_mode("plan")
    harness.log.record_mode("plan")
    await harness.driver.submit("one")
    shutil.rmtree(harness.session_dir)
    await harness.driver.submit("two")
    assert harness.log.error is None
    restored = [e for e in harness.sink.events if isinstance(e, WarningEvent)]
    assert [e.code for e in restored] == [LOG_RESTORED]
    assert str(harness.session_dir) in restored[0].message
    assert "removed while the session was open" in restored[0].message
    await harness.driver.submit("three")
    harness.log.close()
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert loaded.lineage == harness.runner.lineage
    assert loaded.meta.session_id == harness.session_id and loaded.meta.title == "one"
    # meta.json is written again in the new folder (not into the removed one's open file).
    meta = read_meta(harness.session_dir)
    assert meta is not None and meta.messages == len(harness.runner.conversation)
    assert loaded.mode == "plan"
    assert loaded.last_main_request == harness.runner.last_main_request
    again = open_session(resume=harness.session_id)
    await again.driver.submit("four")
    again.log.close()
    assert load_session(harness.session_dir).problems == ()


async def test_a_session_folder_removed_before_exit_is_saved_at_close(
    open_session: OpenSession,
) -> None:
    harness = open_session()
    await harness.driver.submit("one")
    shutil.rmtree(harness.session_dir)
    harness.log.close()
    assert harness.log.error is None
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert loaded.lineage == harness.runner.lineage


async def _copied(open_session: OpenSession, sessions_base: Path) -> tuple[str, Path]:
    """A session, and a copy of its folder under another id (a restored backup, say)."""
    harness = open_session()
    await harness.driver.submit("the original")
    harness.log.close()
    copy = sessions_base / "bbbbbbbbbbbb"
    shutil.copytree(harness.session_dir, copy)
    return harness.session_id, copy


async def test_a_copied_folder_is_listed_under_its_own_id(
    open_session: OpenSession, sessions_base: Path
) -> None:
    original, copy = await _copied(open_session, sessions_base)
    store = SessionStore(sessions_base)
    assert sorted(row.session_id for row in store.list()) == sorted([original, copy.name])
    assert store.info(copy.name).session_id == copy.name
    assert load_session(copy).meta.session_id == copy.name


async def test_a_header_of_another_session_is_read_as_the_folders_session(
    open_session: OpenSession, sessions_base: Path
) -> None:
    _, copy = await _copied(open_session, sessions_base)
    assert load_session(copy).problems == ()  # the folder is the session (fixtures copy too)
    resumed = open_session(resume=copy.name)
    await resumed.driver.submit("the copy goes on")
    resumed.log.close()
    assert load_session(copy).lineage == resumed.runner.lineage


async def test_a_log_that_cannot_be_resumed_is_listed_with_why(
    open_session: OpenSession, sessions_base: Path, tmp_path: Path
) -> None:
    _, copy = await _copied(open_session, sessions_base)
    log = copy / LOG_FILE_NAME
    elsewhere = tmp_path / "elsewhere.jsonl"
    log.rename(elsewhere)
    log.symlink_to(elsewhere)
    store = SessionStore(sessions_base)
    assert store.info(copy.name).problem == "session.jsonl is a symbolic link"
    log.unlink()
    log.mkdir()
    assert store.info(copy.name).problem == "cannot read session.jsonl: Is a directory"
    log.rmdir()
    assert store.info(copy.name).problem == "no session log"
    moved = tmp_path / "moved"
    copy.rename(moved)
    copy.symlink_to(moved)
    assert store.info(copy.name).problem == "the session folder is a symbolic link"


_PROBE = """
import sys
from pathlib import Path
from steiner_tui.sessions.errors import SessionLoadError
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.store import SessionStore

store = SessionStore(Path(sys.argv[1]))
print([(row.session_id, row.problem) for row in store.list()])
try:
    load_session(store.session_dir(sys.argv[2]))
except SessionLoadError as error:
    print(f"SessionLoadError: {error}")
"""


def _without_root_powers(base: Path, session_id: str) -> list[str]:
    """The list and the load of ``session_id``, by a process that file modes apply to (root
    drops the capabilities that ignore them)."""
    command = [sys.executable, "-c", _PROBE, str(base), session_id]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: file modes do not apply")
        command = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


async def test_a_folder_or_log_without_permissions_is_listed_with_why(
    open_session: OpenSession, sessions_base: Path
) -> None:
    _, copy = await _copied(open_session, sessions_base)
    log = copy / LOG_FILE_NAME
    log.chmod(0o444)
    try:
        (listed,) = _without_root_powers(sessions_base, copy.name)  # it loads
        assert f"({copy.name!r}, '{LOG_FILE_NAME} cannot be written (permission denied)')" in listed
        log.chmod(0)
        listed, loaded = _without_root_powers(sessions_base, copy.name)
        assert f"({copy.name!r}, '{LOG_FILE_NAME} cannot be read (permission denied)')" in listed
        assert loaded == (
            f"SessionLoadError: session {copy.name!r}: cannot read {log}: [Errno 13] "
            f"Permission denied: '{log}'"
        )
        copy.chmod(0)
        listed, loaded = _without_root_powers(sessions_base, copy.name)
        assert f"({copy.name!r}, 'the session folder cannot be read (permission denied)')" in listed
        assert loaded == (
            f"SessionLoadError: session {copy.name!r}: cannot read {copy}: [Errno 13] "
            f"Permission denied: '{log}'"
        )
    finally:
        copy.chmod(0o700)
        log.chmod(0o600)
