"""The command line: ``steiner-tui PATH`` is ``steiner-tui --project PATH``."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from steiner_tui.cli import build_parser, import_command, parse_arguments, split_project_path


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["~/src/app"], ["--project", "~/src/app"]),
        (["app"], ["--project", "app"]),  # a folder called "app" (the default command's name)
        (["--resume", "abc", "/repo"], ["--resume", "abc", "--project", "/repo"]),
        (["/repo", "--resume"], ["--project", "/repo", "--resume"]),
        (["--project", "/repo"], ["--project", "/repo"]),
        (["context", "/repo"], ["context", "/repo"]),
        (["--project", "/a", "exec", "hi"], ["--project", "/a", "exec", "hi"]),
        (["--resume", "context"], ["--resume", "context"]),
        (["--model", "offline", "/repo"], ["--model", "offline", "--project", "/repo"]),
        (["/repo", "--model", "local/qwen"], ["--project", "/repo", "--model", "local/qwen"]),
        ([], []),
    ],
)
def test_a_leading_positional_is_the_project(argv: list[str], expected: list[str]) -> None:
    assert split_project_path(argv) == expected


def test_the_parsed_project_and_command() -> None:
    parser = build_parser()
    args = parser.parse_args(split_project_path(["/some/repo"]))
    assert (args.project, args.command, args.resume) == ("/some/repo", None, None)
    args = parser.parse_args(split_project_path(["--resume", "/some/repo"]))
    assert (args.project, args.resume) == (".", "/some/repo")  # the value of --resume: an id
    args = parser.parse_args(split_project_path(["/some/repo", "--resume"]))
    assert (args.project, args.resume) == ("/some/repo", "latest")
    args = parser.parse_args(split_project_path(["--model", "offline", "/r", "--resume"]))
    assert (args.project, args.resume, args.app_model) == ("/r", "latest", "offline")
    for flag in ("-c", "--continue"):  # Claude Code's name for --resume with no id
        args = parser.parse_args(split_project_path([flag, "/some/repo"]))
        assert (args.project, args.resume) == ("/some/repo", "latest")
        args = parser.parse_args(split_project_path(["exec", flag, "go on"]))
        assert (args.resume_session, args.prompt) == ("latest", "go on")
    args = parser.parse_args(split_project_path(["context", "--json", "/r"]))
    assert (args.command, args.path, args.json) == ("context", "/r", True)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["/repo", "extra"], "invalid choice: 'extra'"),
        (["--project"], "expected one argument"),
        # A port out of range reached the socket's bind and ended in an OverflowError's
        # traceback; an upstream that is not a URL was taken, and every request forwarded failed.
        *(
            (["capture", "--port", port], f"argument --port: {port!r} is not a port (0 to 65535)")
            for port in ("99999", "-1", "http")
        ),
        *(
            (
                ["capture", "--upstream", upstream],
                f"argument --upstream: {upstream!r} is not an http(s) URL "
                "(e.g. http://127.0.0.1:8080)",
            )
            for upstream in ("notaurl", "api.anthropic.com", "ftp://x", "http://")
        ),
    ],
)
def test_a_wrong_command_line_is_told_as_before(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_arguments(argv)
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


def test_workbench_options_before_a_command_count_or_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``steiner-tui --resume ID exec "hi"`` started a new session: the --resume before the
    command was the workbench's, and exec never read it. Before a command that has them,
    --resume, -c and --model count as if written after it (one written after wins); before
    one that has not, they are refused."""
    args = parse_arguments(["--resume", "abc", "exec", "hi"])
    assert (args.resume_session, args.prompt) == ("abc", "hi")
    args = parse_arguments(["-c", "--model", "offline", "exec", "--resume", "xyz", "hi"])
    assert (args.resume_session, args.model) == ("xyz", "offline")
    args = parse_arguments(["--model", "offline", "exec", "--model", "local/m", "hi"])
    assert args.model == "local/m"
    assert parse_arguments(["--model", "offline", "context"]).model == "offline"
    assert parse_arguments(["--model", "offline", "oneshot", "t"]).model == "offline"
    for argv, said in (
        (["--resume", "abc", "context"], "--resume and -c are not options of context"),
        (["-c", "sessions", "list"], "--resume and -c are not options of sessions"),
        (["--model", "offline", "watch"], "--model is not an option of watch"),
    ):
        with pytest.raises(SystemExit) as exited:
            parse_arguments(argv)
        assert exited.value.code == 2 and said in capsys.readouterr().err


def test_a_capture_upstream_url_is_taken() -> None:
    args = parse_arguments(["capture", "--upstream", "http://127.0.0.1:9/v1"])
    assert args.upstream == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("argv", "usage", "said"),
    [
        (["exec", "--mode", "x"], "usage: steiner-tui exec [-h]", "steiner-tui exec: error: "),
        (["capture", "show"], "usage: steiner-tui capture show [-h]", "capture show: error: "),
    ],
)
def test_a_commands_usage_and_error_name_the_command_alone(
    argv: list[str], usage: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # They began with the whole usage line of steiner-tui itself, "[COMMAND] ..." included.
    with pytest.raises(SystemExit):
        parse_arguments(argv)
    err = capsys.readouterr().err
    assert err.startswith(usage) and said in err and "[COMMAND]" not in err


@pytest.mark.parametrize("argv", [["--help"], ["exec", "--help"], ["sessions", "fork", "-h"]])
def test_help_fits_an_80_column_terminal(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        parse_arguments(argv)
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= 80


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_arguments(["--help"])
    out = capsys.readouterr().out
    assert "sessions" in out
    assert "-h, --help" in out


def test_a_command_is_imported_with_the_collector_back_on_after() -> None:
    module = import_command("steiner_tui.commands.sessions")
    assert module.run is not None
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    gc.unfreeze()  # the test process's objects go back to the collector


def test_a_reader_that_stops_reading_ends_no_command_in_a_traceback(tmp_path: Path) -> None:
    """``steiner-tui import | head``: the pipe's reader is gone before the command
    prints (its read end closed first, so every write fails at once, as after ``head``)."""
    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    fixtures = Path(__file__).parent / "importers" / "data"
    try:
        for argv in (["import", str(fixtures), "--json"], ["import", str(fixtures)]):
            done = subprocess.run(
                [sys.executable, "-m", "steiner_tui", *argv],
                stdout=write,
                stderr=subprocess.PIPE,
                env=env,
                check=False,
                timeout=120,
            )
            assert b"Traceback" not in done.stderr, done.stderr.decode()
            assert done.returncode == 1
    finally:
        os.close(write)
