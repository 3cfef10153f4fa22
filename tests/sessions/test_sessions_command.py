"""``steiner-tui sessions list|delete|evict|fork`` and the ``--resume`` option."""

from __future__ import annotations

import io
import tempfile
from datetime import timedelta
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steiner_tui.agent.clock import ManualClock
from steiner_tui.cli import build_parser
from steiner_tui.commands.sessions import execute
from steiner_tui.plain import one_line
from steiner_tui.sessions.meta import SessionMeta
from steiner_tui.sessions.store import SessionStore
from steiner_tui.units import byte_count
from tests.sessions.conftest import OpenSession


def _run(base: Path, *argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(["sessions", *argv])
    out, err = io.StringIO(), io.StringIO()
    code = execute(args, base, out, err)
    return code, out.getvalue(), err.getvalue()


async def _sessions(open_session: OpenSession, clock: ManualClock, count: int) -> list[str]:
    ids = []
    for index in range(count):
        harness = open_session()
        await harness.driver.submit(f"question {index}")
        harness.log.close()
        ids.append(harness.session_id)
        clock.advance(timedelta(minutes=1))
    return ids


def test_resume_option_parses() -> None:
    parser = build_parser()
    assert parser.parse_args([]).resume is None
    assert parser.parse_args(["--resume"]).resume == "latest"
    assert parser.parse_args(["--resume", "abc123"]).resume == "abc123"


def test_sizes_read_as_everywhere_else() -> None:
    assert [byte_count(n) for n in (0, 1023, 2467, 5 * 1024 * 1024)] == [
        "0 B",
        "1,023 B",
        "2,467 B",
        "5,242,880 B",
    ]


async def test_list_delete_evict_fork(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    ids = await _sessions(open_session, clock, 3)
    code, out, _ = _run(sessions_base, "list")
    assert code == 0
    for session_id in ids:
        assert session_id in out
    assert out.index(ids[2]) < out.index(ids[0])
    assert "fake/fake-model" in out and "question 2" in out
    header = next(line for line in out.splitlines() if "last activity" in line)
    assert [cell.strip() for cell in header.strip("┃ ").split("┃")][4:6] == ["gen", "msgs"]
    row = next(line for line in out.splitlines() if ids[0] in line)
    assert [cell.strip() for cell in row.strip("│ ").split("│")][4:6] == ["0", "2"]  # generation 0

    code, out, _ = _run(sessions_base, "fork", ids[0], "--message", "1")
    assert code == 0 and f"forked {ids[0]} into" in out and "(generation 0, 1 message)" in out
    fork_id = out.split(" into ")[1].split()[0]
    assert SessionStore(sessions_base).exists(fork_id)

    code, out, _ = _run(sessions_base, "delete", ids[1], "--yes")
    assert (code, out.strip()) == (0, f"deleted session {ids[1]}")

    code, out, _ = _run(sessions_base, "evict", "--keep", "1", "--yes")
    assert code == 0 and "removed 2" in out
    assert [r.session_id for r in SessionStore(sessions_base).list()] == [fork_id]


def test_errors_are_clear(sessions_base: Path) -> None:
    code, _, err = _run(sessions_base, "delete", "../etc")
    assert code == 2 and "invalid session id '../etc'" in err
    code, _, err = _run(sessions_base, "delete", "missing1")
    assert code == 1 and "no session 'missing1'" in err
    code, _, err = _run(sessions_base, "fork", "missing1", "--generation", "0")
    assert code == 1 and "missing1" in err
    code, out, _ = _run(sessions_base, "list")
    assert (code, out.strip()) == (0, "no saved sessions")
    code, _, err = _run(sessions_base, "evict", "--keep", "-1", "--yes")
    assert code == 2 and "negative" in err


class _Terminal(io.StringIO):
    """Answers typed at a terminal."""

    def isatty(self) -> bool:
        return True


async def test_delete_and_evict_ask_first(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    ids = await _sessions(open_session, clock, 2)
    code, _, err = _run(sessions_base, "delete", ids[0])
    assert code == 2 and "Pass --yes to confirm" in err
    code, _, err = _run(sessions_base, "evict", "--keep", "0")
    assert code == 2 and "Remove 2 session(s)?" in err
    assert len(SessionStore(sessions_base).list()) == 2
    args = build_parser().parse_args(["sessions", "delete", ids[0]])
    out, err_stream = io.StringIO(), io.StringIO()
    assert execute(args, sessions_base, out, err_stream, _Terminal("n\n")) == 2
    assert execute(args, sessions_base, out, err_stream, _Terminal("y\n")) == 0
    assert [r.session_id for r in SessionStore(sessions_base).list()] == [ids[1]]


async def test_an_open_session_is_kept(open_session: OpenSession, sessions_base: Path) -> None:
    harness = open_session()
    await harness.driver.submit("busy")
    session_id = harness.session_id
    code, out, _ = _run(sessions_base, "list")
    assert f"{session_id} (open)" in out
    code, _, err = _run(sessions_base, "delete", session_id, "--yes")
    assert code == 1 and "open in a running steiner-tui" in err
    code, out, _ = _run(sessions_base, "evict", "--keep", "0", "--yes")
    assert code == 0 and "removed 0" in out
    harness.log.close()
    assert SessionStore(sessions_base).exists(session_id)


async def test_titles_are_printed_as_text_not_markup(
    open_session: OpenSession, sessions_base: Path
) -> None:
    harness = open_session()
    await harness.driver.submit("fix [/] [b]x[/b]")
    harness.log.close()
    broken = sessions_base / "nolog1"
    broken.mkdir()
    code, out, err = _run(sessions_base, "list")
    assert code == 0, err
    assert "fix [/] [b]x[/b]" in out
    assert "[no session log]" in out


@settings(max_examples=15, deadline=None)
@given(
    title=st.one_of(
        st.sampled_from(
            ["[/]", "[bold", "[link=x]y[/link]", "[@click=app.quit]", "]][[", "\x1b[2J"]
        ),
        st.text(alphabet="ab[]/=@\\ ", min_size=1, max_size=12),
    )
)
def test_sessions_list_prints_any_title_as_text(title: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        session = base / "fuzzsession1"
        session.mkdir()
        (session / "session.jsonl").write_text("", encoding="utf-8")
        meta = SessionMeta(session_id="fuzzsession1", title=title, project_root=title)
        (session / "meta.json").write_bytes(msgspec.json.encode(meta))
        code, out, err = _run(base, "list")
        assert code == 0, err
        # control characters are shown as visible symbols (the terminal sanitizer)
        assert "fuzzsession1" in out and one_line(title).strip() in out


async def test_list_on_an_80_column_terminal_fits_it(
    open_session: OpenSession, sessions_base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It drew 160 columns whatever the terminal: at 80 every row wrapped onto the next."""
    harness = open_session()
    await harness.driver.submit("what files are in this project? read README.md and NOTES.md")
    harness.log.close()
    monkeypatch.setenv("COLUMNS", "80")
    out = _Terminal()
    assert execute(build_parser().parse_args(["sessions", "list"]), sessions_base, out, out) == 0
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    row = next(line for line in lines if harness.session_id in line)
    cut = row.rstrip(" │")
    assert "what files are in" in cut and cut.endswith("…")
    assert len(lines) == 6  # title, three rules, header, one row: nothing wrapped
