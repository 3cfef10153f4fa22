"""Session folders damaged on disk: each is resumed, listed or refused with the file named."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from steiner_tui.agent.session_factory import LOG_RESTORED
from steiner_tui.app.screens.sessions import session_row
from steiner_tui.cli import build_parser
from steiner_tui.commands.sessions import execute
from steiner_tui.engine.events import WarningEvent
from steiner_tui.sessions.loader import load_session
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
    assert session_row(row)[-1] == "[no messages]"


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
