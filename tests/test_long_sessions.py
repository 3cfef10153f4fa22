"""Issue 14's acceptance, headless: big files on small windows never end a session.

* The offline model (32k window): ``exec "read docs_big.md"`` on a 340 KB file answers, then
  ``exec --resume "what did that file say about rounding?"`` and five more messages answer;
  resumed on a smaller window, the session is over it, compacts on its next message and goes
  on.
* A 4 MB file of 2,000 long lines on a 128k-window model served by a loopback server: the read
  reaches the model within its budget, the answer comes, and the session resumes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.store import SessionStore
from tests.providers.loopback import LoopbackServer, sse_data, sse_reply


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env.pop("OPENAI_BASE_URL", None)
    return env


def _exec(tmp_path: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "steiner_tui", "--project", str(project), "exec", *args],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        timeout=300,
    )


def _big_markdown(path: Path, size: int = 340_000) -> None:
    parts = ["# Big document\n"]
    section = 0
    while sum(map(len, parts)) < size:
        section += 1
        parts.append(f"\n## Section {section}: values and their display\n\n")
        parts.append("This section explains how values are stored and shown. " * 6 + "\n")
        if section % 25 == 0:
            parts.append("Rounding: amounts round half away from zero to two decimals.\n")
    path.write_text("".join(parts), encoding="utf-8")


def test_a_340_kb_read_on_the_offline_model_then_resumes_and_goes_on(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    _big_markdown(project / "docs_big.md")
    assert (project / "docs_big.md").stat().st_size >= 340_000

    first = _exec(tmp_path, project, "read docs_big.md")
    assert first.returncode == 0, first.stderr
    assert "Section 1" in first.stdout
    session_id = first.stderr.rsplit("session: ", 1)[1].split()[0]

    questions = [
        "what did that file say about rounding?",
        "read docs_big.md",
        "and the sections?",
        "read docs_big.md",
        "anything else?",
        "thanks",
    ]
    for question in questions:
        out = _exec(tmp_path, project, "--resume", question)
        assert out.returncode == 0, (question, out.stderr)
        assert out.stdout.strip(), question
        assert f"session: {session_id}" in out.stderr

    store = SessionStore(tmp_path / "xdg" / "steiner" / "sessions")
    before = len(load_session(store.session_dir(session_id)).lineage.generations)

    # Resumed on a smaller window, the session is already over it: it compacts and goes on.
    xdg = tmp_path / "xdg" / "steiner"
    (xdg / "config.toml").write_text('[models."offline"]\ncontext_window = 8192\n')
    out = _exec(tmp_path, project, "--resume", "still there?")
    assert out.returncode == 0, out.stderr
    loaded = load_session(store.session_dir(session_id))
    assert loaded.problems == ()
    assert len(loaded.lineage.generations) > before
    # The reads reached the model as windows of lines within their budget.
    reads = [m for g in loaded.lineage.generations for m in g.messages if m.name == "read"]
    assert reads
    for message in reads:
        fields = json.loads(message.content)
        assert fields["capped"] is True and "(next: offset=" in fields["output"]
        assert len(message.content) <= 32_768


def _chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "big"}
    return sse_data({**body, "choices": [choice]})


def _tool_call_reply(path: str) -> list[bytes]:
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "read", "arguments": json.dumps({"path": path})},
    }
    return [
        _chunk({"role": "assistant", "content": "", "tool_calls": [call]}),
        _chunk({}, "tool_calls"),
        sse_data("[DONE]"),
    ]


def _text_reply(text: str) -> list[bytes]:
    return [_chunk({"role": "assistant", "content": text}), _chunk({}, "stop"), sse_data("[DONE]")]


def test_a_4_mb_file_of_long_lines_on_a_128k_model(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    line = "rounding " + "x" * 1990
    (project / "wide.txt").write_text("".join(f"{line} {n}\n" for n in range(2000)))
    assert (project / "wide.txt").stat().st_size >= 4_000_000
    replies = [
        sse_reply(_tool_call_reply("wide.txt")),
        sse_reply(_text_reply("It is a wide file about rounding.")),
        sse_reply(_text_reply("It said: rounding.")),
    ]
    with LoopbackServer(*replies) as server:
        xdg = tmp_path / "xdg" / "steiner"
        xdg.mkdir(parents=True)
        (xdg / "config.toml").write_text(
            f'[providers.local]\nbase_url = "{server.url}/v1"\n\n'
            '[models."local/big"]\ncontext_window = 131072\nmax_output = 4096\n'
        )
        first = _exec(tmp_path, project, "read wide.txt", "--model", "local/big")
        assert first.returncode == 0, first.stderr
        assert "wide file about rounding" in first.stdout
        second = _exec(
            tmp_path, project, "--resume", "what about rounding?", "--model", "local/big"
        )
        assert second.returncode == 0, second.stderr
        assert "It said: rounding." in second.stdout
        chats = [r for r in server.requests if r.path.endswith("/chat/completions")]
    # The tool result reached the model within a quarter of the window (about 4 characters a
    # token at most for this text), and said where to go on.
    result = next(m for m in chats[1].body["messages"] if m["role"] == "tool")
    fields = json.loads(result["content"])
    assert fields["capped"] is True and fields["endLine"] < 2000
    assert f"(next: offset={fields['endLine'] + 1}, limit=" in fields["output"]
    assert len(result["content"]) <= 131_072
