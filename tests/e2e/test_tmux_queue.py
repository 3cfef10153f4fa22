"""End to end: a message sent while a reply streams is queued, in a real terminal.

The app runs in tmux against a loopback OpenAI-compatible server. The first reply streams its
opening words and stalls. The test types a message and presses Enter (separate ``send-keys``
calls): the prompt's border says it is queued and the server still has one request. Released,
the first stream ends without its end, so the run fails: the queued text is back in the prompt,
not sent. Enter then sends it, and its reply comes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_tmux import (
    Tmux,
    _keys,
    _start_app,
    _type,
    _wait_for,
    tmux,  # noqa: F401  (the fixture)
)
from tests.providers.loopback import LoopbackServer, sse_reply
from tests.providers.protocols import ChatWire

QUEUED = "then list the tests"


@pytest.mark.slow
def test_a_message_queued_behind_a_failed_reply_comes_back(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    wire = ChatWire()
    with LoopbackServer(
        sse_reply(wire.opening("Looking at"), end="stall"),
        sse_reply(wire.text_reply("Here are the tests.")),
    ) as server:
        _start_app(tmux, tmp_path, server_url=server.url)
        _type(tmux, "look at the project")
        _wait_for(tmux, "look at the project")
        _keys(tmux, "Enter")
        _wait_for(tmux, "Looking at", "generating")
        _type(tmux, QUEUED)
        _wait_for(tmux, QUEUED)
        _keys(tmux, "Enter")
        _wait_for(tmux, f"queued {QUEUED}", "goes when the reply ends")
        assert len(server.requests) == 1

        server.release()
        back = ("queued is back in the prompt", "idle", QUEUED)
        _wait_for(tmux, *back, absent=(f"queued {QUEUED}",))
        assert len(server.requests) == 1
        _keys(tmux, "Enter")
        _wait_for(tmux, "Here are the tests.")
        assert len(server.requests) == 2
        sent = server.requests[1].body["messages"]
        assert sent[-1]["content"].endswith(QUEUED)
        _keys(tmux, "C-q")
