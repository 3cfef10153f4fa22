"""No control sequence in data reaches a terminal, on any surface (issue 29, item 3).

An OSC 52 (clipboard), a title change or a screen clear in a reply, a file name, a session title,
a captured request or a provider's error body got through to the terminal from nine surfaces.
``steiner_tui.plain`` shows every control character as a visible symbol. Hypothesis feeds random
bytes (each C0 and C1 control among them, decoded as Latin-1 so each byte is one code point)
to each surface and checks what it would write: no ESC, no other C0 control but a newline or a
tab where the layout keeps them, no DEL, no C1 control (U+009B is a CSI to some terminals).
The TUI's reply is checked end to end in ``tests/e2e/test_tmux_control_sequences.py``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from steiner_tui.app.widgets.inspector_format import cell
from steiner_tui.capture.proxy import ProxyEvent
from steiner_tui.capture.store import CaptureWriter
from steiner_tui.commands import capture as capture_command
from steiner_tui.commands import import_transcripts
from steiner_tui.commands.headless_io import ProgressSink, ReplyPrinter
from steiner_tui.commands.sessions import _print_list
from steiner_tui.engine.events import ErrorEvent, TextDelta
from steiner_tui.plain import json_text, one_line, printable
from steiner_tui.sessions.meta import SessionMeta
from steiner_tui.sessions.store import SessionInfo, SessionStore
from tests.providers.loopback import LoopbackServer, json_reply

CONTROLS = "".join(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)])
SEQUENCES = (
    "\x1b]52;c;SGVsbG8=\x07",  # OSC 52: write the clipboard
    "\x1b]2;PWNED\x1b\\",  # OSC 2: the window title
    "\x1b[2J\x1b[H",  # clear the screen
    "\x9b31m",  # a C1 CSI
    "\x9d0;title\x9c",  # a C1 OSC
)
hostile = st.one_of(
    st.binary(max_size=64).map(lambda data: data.decode("latin-1")),
    st.text(alphabet=CONTROLS + "ab[]/;", max_size=40),
    st.sampled_from(SEQUENCES),
    st.builds(lambda a, b: a + b, st.sampled_from(SEQUENCES), st.text(max_size=10)),
)
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def inert(text: str, *, lines: bool = True) -> bool:
    """No character that a terminal would act on (``lines``: newlines and tabs allowed)."""
    allowed = "\n\t" if lines else ""
    return not any(ch in CONTROLS and ch not in allowed for ch in text)


def test_every_control_has_a_visible_symbol() -> None:
    shown = one_line(CONTROLS)
    assert inert(shown, lines=False)
    assert shown.startswith("␀␁") and "␛" in shown and "␡" in shown and "\\x9b" in shown
    assert printable("a\n\tb\x1b") == "a\n\tb␛"
    assert json.loads(json_text(json.dumps({"x": "\x9b\x1b"}, ensure_ascii=False))) == {
        "x": "\x9b\x1b"
    }


@FUZZ
@given(text=hostile)
def test_the_capture_proxys_log_line(text: str) -> None:
    event = ProxyEvent(1, "POST", "/v1/messages" + text, 200, 10, 20, None, cut=text)
    assert inert(capture_command.log_line(event), lines=False)


@FUZZ
@given(text=hostile)
def test_exec_error_and_reply_output(text: str) -> None:
    err, out = io.StringIO(), io.StringIO()
    ProgressSink(stream=err).emit(ErrorEvent(code="provider", message=f"HTTP 400: {text}"))
    printer = ReplyPrinter(out=out, err=err)
    printer.emit(TextDelta(text=text))
    printer.finish()
    assert inert(err.getvalue()) and inert(out.getvalue())


@FUZZ
@given(text=hostile)
def test_sessions_list_and_the_sessions_screen(text: str) -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    meta = SessionMeta(session_id="s1", title=text, project_root=text, model=text, created=at)
    rows = [SessionInfo(meta, Path("/x")), SessionInfo(meta, Path("/y"), problem=text)]
    out = io.StringIO()
    _print_list(rows, SessionStore(Path("/nonexistent-sessions")), out)
    assert inert(out.getvalue())
    for row in rows:
        assert all(inert(value, lines=False) for value in row.cells())


@FUZZ
@given(text=hostile)
def test_the_inspectors_cells(text: str) -> None:
    assert inert(cell(text).plain, lines=False)


@FUZZ
@given(text=hostile)
def test_capture_show(
    text: str,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = tmp_path_factory.mktemp("sessions")
    monkeypatch.setattr(capture_command.paths, "sessions_dir", lambda: base)
    writer = CaptureWriter(base, "http://upstream", "c1")
    body = {"model": text, "system": [{"type": "text", "text": text}], "messages": [
        {"role": "user", "content": text}]}  # fmt: skip
    writer.request("POST", "/v1/messages" + text, json.dumps(body).encode())
    writer.close()
    for as_json in (False, True):
        capsys.readouterr()
        capture_command.run(argparse.Namespace(capture_command="show", id="c1", json=as_json))
        shown = capsys.readouterr()
        assert inert(shown.out) and inert(shown.err)
    capture_command.run(argparse.Namespace(capture_command="list"))
    assert inert(capsys.readouterr().out)


@FUZZ
@given(text=hostile)
def test_import(
    text: str,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path_factory.mktemp("claude")
    monkeypatch.setattr(import_transcripts.paths, "sessions_dir", lambda: folder / "sessions")
    transcript = folder / "t.jsonl"
    record = {"type": "assistant", "sessionId": text, "version": text, "message": {
        "role": "assistant", "model": text, "content": [
            {"type": "tool_use", "id": "t1", "name": text, "input": {"file_path": text}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}}}  # fmt: skip
    transcript.write_text(json.dumps(record) + "\n" + text.replace("\n", " ") + "\n{\n")
    for as_json in (False, True):
        capsys.readouterr()
        import_transcripts.run(
            argparse.Namespace(path=str(transcript), json=as_json, project=str(folder))
        )
        shown = capsys.readouterr()
        assert inert(shown.out) and inert(shown.err), shown


def test_exec_prints_a_provider_error_body_as_text(tmp_path: Path) -> None:
    """The real command against a loopback server whose 400 body sets the clipboard, the
    title and clears the screen: what ``exec`` writes to its streams holds none of it."""
    project = tmp_path / "project"
    project.mkdir()
    body = {"error": {"message": "bad " + "".join(SEQUENCES), "type": "invalid_request_error"}}
    with LoopbackServer(json_reply(400, body)) as server:
        config = tmp_path / "xdg" / "steiner"
        config.mkdir(parents=True)
        (config / "config.toml").write_text(f'[providers.local]\nbase_url = "{server.url}/v1"\n')
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env |= {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "XDG_CACHE_HOME": str(tmp_path / "c")}
        env.pop("OPENAI_BASE_URL", None)
        done = subprocess.run(
            [sys.executable, "-m", "steiner_tui", "--project", str(project), "exec", "hi",
             "--model", "local/tiny"],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "bad ␛]52;c;SGVsbG8=␇␛]2;PWNED␛\\" in done.stderr, done.stderr
    assert inert(done.stdout) and inert(done.stderr), done.stderr
