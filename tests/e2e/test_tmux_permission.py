"""End to end: typing ahead in a real terminal never answers a permission prompt (issue 15).

The app runs in tmux against a loopback OpenAI-compatible server that asks to run ``bash``.
While the request waits, the test types ordinary text that holds every answer key (``a``,
``A``, ``r``, ``R``) as literal keys (``send-keys -l``); special keys go in their own
``send-keys`` calls. The pane must show the text in the prompt, the command must not have run
and the server must have had one request only. Then F8 and ``a`` (deliberate) allow it once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_tmux import (
    Tmux,
    _keys,
    _screen,
    _start_app,
    _type,
    _wait_for,
    tmux,  # noqa: F401  (the fixture)
)
from tests.providers.loopback import LoopbackServer, sse_reply
from tests.providers.protocols import ChatWire

TYPED = "what about Also allow? aArR"


@pytest.mark.slow
def test_typing_ahead_never_answers_a_permission_prompt(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    wire = ChatWire()
    command = json.dumps({"command": "echo ran > ran.txt"})
    with LoopbackServer(
        sse_reply(wire.tool_reply("call_1", "bash", command)),
        sse_reply(wire.text_reply("Done.")),
    ) as server:
        project = _start_app(tmux, tmp_path, server_url=server.url)
        _wait_for(tmux, "Skills")

        _type(tmux, "run the tests")
        _wait_for(tmux, "run the tests")
        _keys(tmux, "Enter")
        _wait_for(tmux, "bash wants to run", "F8 to answer")

        _type(tmux, TYPED)  # every answer key, typed as text
        screen = _wait_for(tmux, TYPED)
        assert "F8 to answer" in screen  # still waiting: nothing answered it
        assert not (project / "ran.txt").exists()
        assert len(server.requests) == 1

        _keys(tmux, "F8")  # the deliberate action, then its key
        _wait_for(tmux, "Esc back")  # the prompt has the focus: its keys answer now
        _keys(tmux, "a")
        screen = _wait_for(tmux, "allowed once", "Done.")
        assert (project / "ran.txt").read_text(encoding="utf-8").strip() == "ran"
        assert TYPED in _screen(tmux)  # the typed text is still in the prompt, whole
        assert len(server.requests) == 2
        _keys(tmux, "C-q")
