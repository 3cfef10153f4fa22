"""``steiner-tui exec`` and ``oneshot`` in a fresh project, with no API key and no network."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.lock import SessionLock
from steiner_tui.sessions.store import SessionStore
from tests.providers.loopback import LoopbackServer, Reply, sse_data, sse_reply


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env.pop("OPENAI_BASE_URL", None)
    return env


@pytest.fixture
def sample_project(tmp_path: Path) -> Path:
    root = tmp_path / "sample"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Sample Tool\n\nConverts CSV files to JSON.\n")
    (root / "src" / "convert.py").write_text("def convert(path):\n    return path\n")
    return root


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "steiner_tui", *args],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        timeout=120,
    )


def test_exec_answers_with_the_offline_model_using_a_tool(
    tmp_path: Path, sample_project: Path
) -> None:
    out = _run(tmp_path, "--project", str(sample_project), "exec", "what is in this project?")
    assert out.returncode == 0, out.stderr
    assert "Sample Tool" in out.stdout  # the README title, read through a tool
    assert "src/" in out.stdout
    assert "offline model" in out.stdout
    assert "→ " in out.stderr  # at least one tool call was reported
    # The preamble's templates, compiled once, are kept for the next launch.
    assert list((tmp_path / "cache" / "steiner" / "templates").glob("*.cache"))


def test_exec_writes_a_jsonl_event_log(tmp_path: Path, sample_project: Path) -> None:
    log = tmp_path / "events.jsonl"
    out = _run(
        tmp_path,
        "--project",
        str(sample_project),
        "exec",
        "what is in this project?",
        "--events",
        str(log),
    )
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()]
    types = [r["type"] for r in records]
    assert types[0] == "message" and records[0]["message"]["role"] == "user"
    assert "request" in types and "tool_call_started" in types and "usage" in types
    request = next(r for r in records if r["type"] == "request")
    assert len(request["message_hashes"]) == len(request["messages"])
    assert "text_delta" not in types  # deltas are coalesced into the finished message


def test_exec_reports_a_bad_model_reference(tmp_path: Path, sample_project: Path) -> None:
    out = _run(tmp_path, "--project", str(sample_project), "exec", "hi", "--model", "nosuch/model")
    assert out.returncode == 2
    assert "nosuch" in out.stderr and not out.stdout


def test_oneshot_runs_each_phase_as_its_own_session(tmp_path: Path, sample_project: Path) -> None:
    out = _run(tmp_path, "--project", str(sample_project), "oneshot", "describe README.md")
    assert out.returncode == 0, out.stdout + out.stderr
    for phase in ("plan", "build", "verify"):
        assert f"== phase: {phase}" in out.stderr
        assert f"## {phase}" in out.stdout


def test_exec_ctrl_c_stops_streaming_cleanly(tmp_path: Path, sample_project: Path) -> None:
    config = sample_project / ".steiner" / "config.toml"
    config.parent.mkdir()
    # Slow enough that the reply after the tool call is still streaming when the signal lands,
    # also on a loaded machine where this process waits to run after reading the line.
    config.write_text("[providers.offline]\nstream_delay_ms = 200\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "steiner_tui", "--project", str(sample_project), "exec",
         "what is in this project?", "--trust-project"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
    )  # fmt: skip
    assert process.stderr is not None
    first_progress = process.stderr.readline()  # the request went out
    assert first_progress.startswith("… offline/offline: request 1"), first_progress
    second = process.stderr.readline()  # a tool call started: the run is streaming
    assert second.startswith("→ "), second
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "interrupted" in stderr and "interrupted" not in stdout
    assert "Traceback" not in stdout + stderr


def test_exec_streams_to_stdout_and_reports_an_error_once_on_stderr(
    tmp_path: Path, sample_project: Path
) -> None:
    def chunk(delta: dict[str, str], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "tiny"}
        return sse_data({**body, "choices": [choice]})

    parts = [chunk({"role": "assistant", "content": "Half an "}), chunk({"content": "answer"})]
    with LoopbackServer(sse_reply(parts, end="drop")) as server:
        xdg = tmp_path / "xdg" / "steiner"
        xdg.mkdir(parents=True)
        (xdg / "config.toml").write_text(f'[providers.local]\nbase_url = "{server.url}/v1"\n')
        out = _run(
            tmp_path, "--project", str(sample_project), "exec", "hi", "--model", "local/tiny"
        )
    assert out.returncode == 1
    assert out.stdout == "Half an answer\n"  # what streamed, once, and no error on stdout
    errors = [line for line in out.stderr.splitlines() if "connection" in line]
    assert len(errors) == 1, out.stderr
    assert errors[0].startswith("error: local/tiny: "), errors
    assert errors[0].count("local/tiny") == 1, errors  # the provider label, once


def test_exec_saves_its_session_and_resume_continues_it(
    tmp_path: Path, sample_project: Path
) -> None:
    first = _run(tmp_path, "--project", str(sample_project), "exec", "what is in this project?")
    assert first.returncode == 0, first.stdout + first.stderr
    session_id = first.stderr.rsplit("session: ", 1)[1].split()[0]
    store = SessionStore(tmp_path / "xdg" / "steiner" / "sessions")
    assert [row.session_id for row in store.list()] == [session_id]
    assert store.list()[0].meta.title == "what is in this project?"

    second = _run(tmp_path, "--project", str(sample_project), "exec", "--resume", "and src?")
    assert second.returncode == 0, second.stdout + second.stderr
    assert f"session: {session_id}" in second.stderr
    third = _run(
        tmp_path, "--project", str(sample_project), "exec", "--resume", session_id, "and now?"
    )
    assert third.returncode == 0, third.stdout + third.stderr
    loaded = load_session(store.session_dir(session_id))
    assert loaded.problems == ()
    users = [m.content for m in loaded.lineage.active.messages if m.role == "user"]
    assert users == ["what is in this project?", "and src?", "and now?"]
    assert loaded.prompt_cache_key == f"steiner-{session_id}"


def test_exec_resume_without_a_session_is_a_clear_error(
    tmp_path: Path, sample_project: Path
) -> None:
    out = _run(tmp_path, "--project", str(sample_project), "exec", "--resume", "nosuch1", "hi")
    assert out.returncode == 2 and "no session 'nosuch1'" in out.stderr


def test_exec_reports_a_bad_config_value_without_a_traceback(
    tmp_path: Path, sample_project: Path
) -> None:
    config = sample_project / ".steiner" / "config.toml"
    config.parent.mkdir()
    config.write_text("[context]\nbudget_bytes = -100\n")
    out = _run(tmp_path, "--project", str(sample_project), "exec", "hi")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert f"{config}: 'context.budget_bytes' = -100" in out.stderr


def test_oneshot_phases_are_saved_sessions(tmp_path: Path, sample_project: Path) -> None:
    out = _run(tmp_path, "--project", str(sample_project), "oneshot", "describe README.md")
    assert out.returncode == 0, out.stdout + out.stderr
    rows = SessionStore(tmp_path / "xdg" / "steiner" / "sessions").list()
    assert sorted(row.session_id.rsplit("-", 1)[1] for row in rows) == ["build", "plan", "verify"]


def _low_threshold(project: Path) -> None:
    config = project / ".steiner" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('[models."offline"]\ncompaction_threshold_tokens = 200\n')


def test_exec_compaction_ask_fails_with_a_clear_message(
    tmp_path: Path, sample_project: Path
) -> None:
    _low_threshold(sample_project)
    out = _run(tmp_path, "--project", str(sample_project), "exec", "hi", "--compaction", "ask")
    assert out.returncode == 1
    assert "compaction mode is ask, and nobody can answer here" in out.stderr
    assert "--compaction auto" in out.stderr
    assert out.stderr.count("compaction mode is ask") == 1  # reported once


def test_exec_resume_of_a_session_set_to_ask_in_the_app_compacts_by_itself(
    tmp_path: Path, sample_project: Path
) -> None:
    """F4 or ``/compaction ask`` in the app is kept in the log's model record, and ``exec
    --resume`` took it: the run stopped at the soft trigger with "nobody can answer here ...
    --compaction auto". Asking was the person's choice for the app; an exec has nobody to ask,
    so it goes on with the configured mode and says so."""
    _low_threshold(sample_project)
    project = ("--project", str(sample_project))
    first = _run(tmp_path, *project, "exec", "--compaction", "off", "what is in this project?")
    assert first.returncode == 0, first.stderr
    session_id = first.stderr.rsplit("session: ", 1)[1].split()[0]
    directory = SessionStore(tmp_path / "xdg" / "steiner" / "sessions").session_dir(session_id)
    record = {"type": "model", "at": "2026-12-05T06:53:38Z", "compaction": "ask"}  # F4 in the app
    with (directory / "session.jsonl").open("a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")

    out = _run(tmp_path, *project, "exec", "--resume", session_id, "and src?")

    assert out.returncode == 0, out.stderr
    assert "nobody can answer" not in out.stderr
    assert "compaction summary" in out.stderr  # it compacted by itself
    assert (
        "steiner-tui: compaction mode ask (set in the app) has nobody to answer here: this run "
        "uses the configured mode, auto; --compaction chooses another\n"
    ) in out.stderr
    # The app still asks when it resumes the session.
    assert load_session(directory).compaction_mode == "ask"
    told = _run(tmp_path, *project, "exec", "--resume", session_id, "hi", "--compaction", "ask")
    assert told.returncode == 1 and "nobody can answer here" in told.stderr


def test_exec_compaction_off_sends_over_the_trigger_without_compacting(
    tmp_path: Path, sample_project: Path
) -> None:
    _low_threshold(sample_project)
    out = _run(tmp_path, "--project", str(sample_project), "exec", "hi", "--compaction", "off")
    assert out.returncode == 0, out.stderr
    assert "compaction summary" not in out.stderr


def test_a_resumed_session_goes_on_with_the_model_it_last_used(
    tmp_path: Path, sample_project: Path
) -> None:
    config = tmp_path / "xdg" / "steiner" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[providers.other]\ntype = "offline"\n', encoding="utf-8")
    project = ("--project", str(sample_project))
    first = _run(tmp_path, *project, "exec", "--model", "other", "what is in this project?")
    assert first.returncode == 0, first.stderr
    session_id = first.stderr.rsplit("session: ", 1)[1].split()[0]
    second = _run(tmp_path, *project, "exec", "--resume", "and src?")  # no --model
    assert second.returncode == 0, second.stderr
    directory = SessionStore(tmp_path / "xdg" / "steiner" / "sessions").session_dir(session_id)
    assert {r.provider for r in load_session(directory).requests} == {"other"}

    # The provider left the configuration: the default answers, and stderr says why.
    config.write_text("", encoding="utf-8")
    third = _run(tmp_path, *project, "exec", "--resume", "and now?")
    assert third.returncode == 0, third.stderr
    assert "the session last answered with other/" in third.stderr
    assert "unknown provider 'other'" in third.stderr
    assert load_session(directory).requests[-1].provider == "offline"


def test_a_session_whose_first_reply_never_came_resumes_with_its_own_model(
    tmp_path: Path, sample_project: Path
) -> None:
    """Its server was down (or the app was killed mid-reply): no request ever finished, and
    ``--resume`` went on with the configured default, saying nothing."""
    config = tmp_path / "xdg" / "steiner" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[providers.down]\ntype = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
        "max_retries = 0\n"
        '[models."down/m"]\ncontext_window = 32768\n',
        encoding="utf-8",
    )
    project = ("--project", str(sample_project))
    first = _run(tmp_path, *project, "exec", "--model", "down/m", "hi")
    assert first.returncode == 1 and "could not connect" in first.stderr
    session_id = first.stderr.rsplit("session: ", 1)[1].split()[0]
    _run(tmp_path, *project, "exec", "--resume", "again")  # no --model
    directory = SessionStore(tmp_path / "xdg" / "steiner" / "sessions").session_dir(session_id)
    assert [r.provider for r in load_session(directory).requests] == ["down", "down"]


def test_a_resumed_session_goes_on_with_the_model_its_unanswered_last_request_went_to(
    tmp_path: Path, sample_project: Path
) -> None:
    """Answered on one model, then asked of another whose reply never came (Esc, its server
    down, the app stopped mid-reply): ``--resume`` went back to the model of the last answer,
    not the one the user had chosen since."""
    config = tmp_path / "xdg" / "steiner" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[providers.other]\ntype = "offline"\n'
        '[providers.down]\ntype = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
        "max_retries = 0\n"
        '[models."down/m"]\ncontext_window = 32768\n',
        encoding="utf-8",
    )
    project = ("--project", str(sample_project))
    first = _run(tmp_path, *project, "exec", "--model", "other", "hi")
    assert first.returncode == 0, first.stderr
    session_id = first.stderr.rsplit("session: ", 1)[1].split()[0]
    second = _run(tmp_path, *project, "exec", "--resume", session_id, "--model", "down/m", "x")
    assert second.returncode == 1 and "could not connect" in second.stderr
    _run(tmp_path, *project, "exec", "--resume", session_id, "again")  # no --model
    directory = SessionStore(tmp_path / "xdg" / "steiner" / "sessions").session_dir(session_id)
    assert [r.provider for r in load_session(directory).requests] == ["other", "down", "down"]


def test_exec_reads_the_prompt_from_standard_input(tmp_path: Path, sample_project: Path) -> None:
    """``printf ... | steiner-tui exec`` said "a prompt is required"; a piped prompt (or ``-``)
    is the task, and an empty one is still a clear error."""
    for extra in ((), ("-",)):
        out = subprocess.run(
            [sys.executable, "-m", "steiner_tui", "--project", str(sample_project), "exec", *extra],
            input="what is in this project?\n",
            capture_output=True,
            text=True,
            env=_env(tmp_path),
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert "Sample Tool" in out.stdout
    empty = subprocess.run(
        [sys.executable, "-m", "steiner_tui", "--project", str(sample_project), "exec"],
        input="  \n",
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        timeout=120,
    )
    assert empty.returncode == 2 and "a prompt is required" in empty.stderr


def test_exec_prints_each_requests_cost_and_events_carry_it(
    tmp_path: Path, sample_project: Path
) -> None:
    from tests.providers.protocols import AnthropicWire

    wire = AnthropicWire()  # message_start reports 1,000 read and 100 written, 12 out
    with LoopbackServer(sse_reply(wire.text_reply("Done."))) as server:
        xdg = tmp_path / "xdg" / "steiner"
        xdg.mkdir(parents=True)
        (xdg / "config.toml").write_text(
            f'[providers.anthropic]\nbase_url = "{server.url}"\napi_key_env = "T_KEY"\n'
        )
        log = tmp_path / "events.jsonl"
        env = {**_env(tmp_path), "T_KEY": "k"}
        out = subprocess.run(
            [sys.executable, "-W", "ignore::DeprecationWarning", "-m", "steiner_tui",
             "--project", str(sample_project), "exec", "hi",
             "--model", "anthropic/claude-sonnet-4-6", "--events", str(log)],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
    assert out.returncode == 0, out.stderr
    # 25 input at $3, 1,000 read at $0.30, 100 written at $3.75, 12 out at $15 (per million)
    parts = "input $0.0001 · cache read $0.0003 · cache write $0.0004 · output $0.0002"
    assert f"  $0.0009 ({parts}), session $0.0009; cache: first request" in out.stderr
    usage = next(json.loads(x) for x in log.read_text().splitlines() if '"type":"usage"' in x)
    assert usage["cost_usd"] == pytest.approx(0.00093)
    assert set(usage["cost"]) == {"input_usd", "cache_read_usd", "cache_write_usd", "output_usd"}
    assert usage["cache"]["cause"] == "first"
    assert {"reused_tokens", "rewritten_tokens", "cause", "detail", "cost_usd"} <= set(
        usage["cache"]
    )


def test_the_offline_model_names_the_project_context_it_was_sent(
    tmp_path: Path, sample_project: Path
) -> None:
    # The project context and the session date travel merged in one user message.
    (sample_project / "NOTES.md").write_text("The release branch is `main`.\n")
    (sample_project / ".steiner").mkdir()
    (sample_project / ".steiner" / "config.toml").write_text('[context]\nfiles = ["NOTES.md"]\n')
    out = _run(tmp_path, "--project", str(sample_project), "exec", "hello")
    assert out.returncode == 0, out.stderr
    assert "Visible sources: system instructions, project context, the session date." in out.stdout


def test_exec_resume_by_id_from_another_folder_reads_the_sessions_project_config(
    tmp_path: Path, sample_project: Path
) -> None:
    (sample_project / ".steiner").mkdir()
    (sample_project / ".steiner" / "config.toml").write_text("[ui]\nbogus = 1\n")
    first = _run(tmp_path, "--project", str(sample_project), "exec", "hello")
    assert first.returncode == 0, first.stderr
    session_id = first.stderr.rsplit("session: ", 1)[1].strip()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = subprocess.run(
        [sys.executable, "-m", "steiner_tui", "exec", "--resume", session_id, "again"],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        cwd=elsewhere,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    # The session goes on in its project: its config (here, its unknown key) as well.
    assert "unknown key 'ui.bogus' ignored" in again.stderr


def test_a_resumed_session_of_one_message_says_one_message(
    tmp_path: Path, sample_project: Path
) -> None:
    folder = tmp_path / "xdg" / "steiner" / "sessions" / "a1b2c3d4e5f6"
    folder.mkdir(parents=True)
    header = {
        "type": "header",
        "version": 8,
        "session_id": "a1b2c3d4e5f6",
        "project_root": str(sample_project.resolve()),
        "created": "2026-12-05T06:53:38Z",
        "alias": "offline",
        "model": "offline",
    }
    user = {"type": "user", "content": "hello", "turn": 1}  # the app stopped before any reply
    (folder / "session.jsonl").write_text(f"{json.dumps(header)}\n{json.dumps(user)}\n")
    out = _run(tmp_path, "--project", str(sample_project), "exec", "--resume", "a1b2c3d4e5f6", "hi")
    assert out.returncode == 0, out.stderr
    assert "steiner-tui: resumed session a1b2c3d4e5f6 (1 message)\n" in out.stderr  # "1 messages"


def test_resuming_a_session_open_elsewhere_says_how_to_go_on(
    tmp_path: Path, sample_project: Path
) -> None:
    project = ("--project", str(sample_project))
    first = _run(tmp_path, *project, "exec", "hi")
    session_id = first.stderr.rsplit("session: ", 1)[1].split()[0]
    directory = SessionStore(tmp_path / "xdg" / "steiner" / "sessions").session_dir(session_id)
    lock = SessionLock.acquire(directory)  # another app has it open
    try:
        second = _run(tmp_path, *project, "exec", "--resume", session_id, "more")
    finally:
        lock.release()
    assert second.returncode == 2
    assert f"session '{session_id}' is open in another steiner-tui" in second.stderr
    assert f"fork it to go on here: steiner-tui sessions fork {session_id}" in second.stderr
    assert len(load_session(directory).as_logged) == 2  # nothing written to it


def _exec_on(server: LoopbackServer, tmp_path: Path, project: Path, *args: str, **run: Any) -> Any:
    """``exec`` with the Anthropic provider on ``server`` and the key ``bad`` in ``T_KEY``."""
    config = tmp_path / "xdg" / "steiner" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[providers.anthropic]\nbase_url = "{server.url}"\napi_key_env = "T_KEY"\n')
    return subprocess.run(
        [sys.executable, "-m", "steiner_tui", "--project", str(project), "exec",
         "--model", "anthropic/claude-sonnet-4-6", *args],
        text=True, env={**_env(tmp_path), "T_KEY": "bad"}, timeout=120,
        **({"capture_output": True} | run),
    )  # fmt: skip


def test_exec_says_what_to_do_about_a_provider_error_on_its_one_line(
    tmp_path: Path, sample_project: Path
) -> None:
    from tests.providers.protocols import AnthropicWire

    with LoopbackServer(AnthropicWire().error(401, "invalid x-api-key")) as server:
        out = _exec_on(server, tmp_path, sample_project, "hi")
    assert out.returncode == 1
    [error] = [line for line in out.stderr.splitlines() if line.startswith("error: ")]
    assert error == (
        "error: anthropic/claude-sonnet-4-6: authentication failed (HTTP 401): invalid x-api-key"
        "; what you can do: set T_KEY to a valid key, then retry"
    )


def test_exec_says_every_remedy_of_a_local_server_that_is_not_there(
    tmp_path: Path, sample_project: Path
) -> None:
    """Checking the server was said, not that its address is a setting read at start."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "xdg" / "steiner" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[providers.local]\ntype = "openai"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
    )
    out = subprocess.run(
        [sys.executable, "-m", "steiner_tui", "--project", str(sample_project), "exec",
         "--model", "local/qwen", "hi"],
        text=True, env=_env(tmp_path), timeout=120, capture_output=True,
    )  # fmt: skip
    assert out.returncode == 1
    [error] = [line for line in out.stderr.splitlines() if line.startswith("error: ")]
    assert error.endswith(
        f"; what you can do: check that http://127.0.0.1:{port}/v1 is up and reachable; or, if"
        " the server is elsewhere, correct [providers.local] base_url: the configuration is read"
        " at start (start again with -c to go on with this session)"
    )


def test_exec_joins_an_error_that_ends_in_a_full_stop_to_what_to_do(
    tmp_path: Path, sample_project: Path
) -> None:
    """OpenAI's messages end in a full stop: the line read "provided.; what you can do"."""
    from tests.providers.protocols import AnthropicWire

    with LoopbackServer(AnthropicWire().error(401, "Incorrect API key provided.")) as server:
        out = _exec_on(server, tmp_path, sample_project, "hi")
    assert "Incorrect API key provided; what you can do: set T_KEY" in out.stderr


def test_exec_resume_says_the_error_the_last_turn_ended_in(
    tmp_path: Path, sample_project: Path
) -> None:
    from tests.providers.protocols import AnthropicWire

    wire = AnthropicWire()
    answer = Reply(parts=wire.text_reply("Back."))
    with LoopbackServer(wire.error(401, "invalid x-api-key"), answer) as server:
        assert _exec_on(server, tmp_path, sample_project, "hi").returncode == 1
        again = _exec_on(server, tmp_path, sample_project, "--resume", "go on")
    assert again.returncode == 0, again.stderr
    said = "steiner-tui: the last turn ended in an error: anthropic/claude-sonnet-4-6: "
    assert said + "authentication failed (HTTP 401): invalid x-api-key" in again.stderr


def test_exec_ends_the_reply_line_before_its_cost_line_on_one_terminal(
    tmp_path: Path, sample_project: Path
) -> None:
    from tests.providers.protocols import AnthropicWire

    with LoopbackServer(Reply(parts=AnthropicWire().text_reply("Done."))) as server:
        out = _exec_on(
            server, tmp_path, sample_project, "hi",
            capture_output=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
    assert out.returncode == 0, out.stdout
    assert "\nDone.\n  $0.0009 (" in out.stdout  # stdout and stderr as a terminal shows them
