"""Fault injection: each fault over the three wire protocols, through the real SDKs and runner.

Every case runs one turn of a logged interactive session (the real runner, tools and session
log) against a loopback server that misbehaves, then asserts what the user sees (the error's
kind, its message with the provider label once, its remedies, the text kept from the stream)
and that the log resumes to the same conversation and the next turn goes through. Stalls wait
on an event the test releases; the client's timeout is set small so it fires first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

import pytest

from steiner_tui.engine.events import ErrorEvent, ToolCallFinished, UsageReported, WarningEvent
from steiner_tui.engine.messages import Image, Message
from steiner_tui.engine.provider import Remedy
from tests.providers.loopback import LoopbackServer, Reply, mentions
from tests.providers.protocols import WIRES, Wire
from tests.providers.sessions import LoggedSession, Sessions, shape

pytestmark = pytest.mark.parametrize("wire", WIRES, ids=lambda wire: wire.name)

SMALL_TIMEOUT = 1.0
"""Seconds: the client's timeout in the stall cases (the server waits for the test). Long
enough for a loaded machine to deliver headers the server sends at once."""
NEXT_TURN = "Carry on from where we were, now that the session is resumed."
"""What the resumed session sends (the ``recovered`` reply is meant for it alone)."""
FAST_RETRY = {"retry-after-ms": "1"}
"""The SDKs honour a server's retry delay: retries without waiting long."""


@pytest.fixture
async def sessions(tmp_path: Path) -> AsyncIterator[Sessions]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("# Demo\n\nA demo project.\n", encoding="utf-8")
    opened = Sessions(project, tmp_path / "sessions")
    yield opened
    await opened.close()


def recovered(wire: Wire) -> Reply:
    """The reply the resumed session's next turn gets (the request that says ``NEXT_TURN``)."""
    return Reply(parts=wire.text_reply("recovered"), when=lambda r: mentions(r.body, NEXT_TURN))


async def turn(
    sessions: Sessions,
    wire: Wire,
    server: LoopbackServer,
    *,
    client_timeout: float = 5.0,
    max_retries: int = 0,
) -> tuple[LoggedSession, Any]:
    provider = wire.provider(server, timeout=client_timeout, max_retries=max_retries)
    session = sessions.open(provider, wire.model)
    return session, await session.driver.submit("hello")


def the_error(session: LoggedSession, wire: Wire, kind: str) -> ErrorEvent:
    """The one error the turn showed: its kind, and a message labelled once."""
    [error] = session.errors
    assert error.code == kind
    assert error.message.startswith(f"{wire.label}: ")
    assert error.message.count(wire.label) == 1
    assert error.remedies, "every provider error says what the user can do"
    return error


async def resumes(
    sessions: Sessions, wire: Wire, session: LoggedSession, server: LoopbackServer
) -> dict[str, Any]:
    """The log reopens to the same conversation and its next turn goes through.

    Returns the body of the resumed session's request.
    """
    kept = shape(session.runner.conversation)
    session.close_log()
    server.release()
    provider = wire.provider(server, timeout=5.0, max_retries=0)
    resumed = sessions.open(provider, wire.model, resume=session.session_id)
    assert shape(resumed.runner.conversation) == kept
    result = await resumed.driver.submit(NEXT_TURN)
    assert resumed.errors == []
    assert (result.status, result.reply) == ("done", "recovered")
    body: dict[str, Any] = server.requests[-1].body
    return body


def roles(session: LoggedSession) -> list[str]:
    return [m.role for m in session.runner.conversation]


def kept_partial(session: LoggedSession, text: str) -> None:
    last = session.runner.conversation[-1]
    assert (last.role, last.content, last.incomplete) == ("assistant", text, True)


# -- HTTP errors ----------------------------------------------------------------------------


async def test_rate_limit_with_retry_after_says_the_retries_are_exhausted(
    wire: Wire, sessions: Sessions
) -> None:
    limited = wire.error(429, "Rate limit reached", {"retry-after-ms": "20"})
    with LoopbackServer(limited, limited, recovered(wire)) as server:
        session, result = await turn(sessions, wire, server, max_retries=1)
        assert result.status == "error"
        error = the_error(session, wire, "rate_limit")
        assert "(HTTP 429, after 1 retry, retries exhausted): Rate limit reached" in error.message
        assert "retry after" not in error.message
        assert "the server asks to wait 0.02s" in error.message
        assert error.remedies[0] == Remedy("wait", "wait 0.02s, then retry")
        attempts = [r.headers["x-stainless-retry-count"] for r in server.requests]
        assert attempts == ["0", "1"]  # the SDK's own retry, after the server's delay
        assert roles(session) == ["user"]
        await resumes(sessions, wire, session, server)


async def test_rate_limit_then_success_is_retried_by_the_sdk(
    wire: Wire, sessions: Sessions
) -> None:
    limited = wire.error(429, "Rate limit reached", FAST_RETRY)
    with LoopbackServer(limited, Reply(parts=wire.text_reply("fine"))) as server:
        session, result = await turn(sessions, wire, server, max_retries=1)
    assert (result.status, result.reply) == ("done", "fine")
    assert session.errors == []
    assert len(server.requests) == 2


@pytest.mark.parametrize("status", [500, 503, 529])
async def test_server_errors_say_the_retries_are_exhausted(
    wire: Wire, sessions: Sessions, status: int
) -> None:
    failing = wire.error(status, "Overloaded, try later", FAST_RETRY)
    with LoopbackServer(failing, failing, recovered(wire)) as server:
        session, result = await turn(sessions, wire, server, max_retries=1)
        assert result.status == "error"
        error = the_error(session, wire, "server")
        expected = f"server error (HTTP {status}, after 1 retry, retries exhausted)"
        assert expected in error.message
        assert "Overloaded, try later" in error.message
        assert error.remedies[0].action == "retry"
        assert len(server.requests) == 2
        await resumes(sessions, wire, session, server)


async def test_a_gateways_html_page_is_said_by_its_title(wire: Wire, sessions: Sessions) -> None:
    """A proxy's or gateway's error page (nginx, Cloudflare) went whole into the message: a
    screenful of HTML in the conversation."""
    page = (
        "<!DOCTYPE html>\n<html><head><title>502 Bad  Gateway</title>"
        f"<style>{'body{margin:0}' * 100}</style></head>\n<body><h1>502 Bad Gateway</h1>\n"
        "<hr><center>nginx/1.25.3</center>\n</body></html>\n"
    )
    gateway = Reply(status=502, parts=[page.encode()], content_type="text/html")
    with LoopbackServer(gateway, recovered(wire)) as server:
        session, result = await turn(sessions, wire, server)
        assert result.status == "error"
        error = the_error(session, wire, "server")
        assert error.message.endswith(
            "(HTTP 502, not retried: max_retries is 0): 502 Bad Gateway (an HTML page: a proxy "
            "or gateway answered, not the API)"
        )
        await resumes(sessions, wire, session, server)


async def test_a_long_body_that_is_not_json_is_cut(wire: Wire, sessions: Sessions) -> None:
    text = "upstream connect error or disconnect/reset before headers. " * 40
    failing = Reply(status=503, parts=[text.encode()], content_type="text/plain")
    with LoopbackServer(failing, recovered(wire)) as server:
        session, result = await turn(sessions, wire, server)
        assert result.status == "error"
        error = the_error(session, wire, "server")
        assert error.message.endswith("…")
        assert len(error.message) < 400
        await resumes(sessions, wire, session, server)


async def test_a_server_still_loading_its_model_says_to_wait(
    wire: Wire, sessions: Sessions
) -> None:
    loading = wire.error(503, "Loading model", FAST_RETRY)  # llama.cpp until it has loaded
    with LoopbackServer(loading, loading, recovered(wire)) as server:
        session, result = await turn(sessions, wire, server, max_retries=1)
        assert result.status == "error"
        error = the_error(session, wire, "server")
        assert "the server is still loading the model (HTTP 503, after 1 retry" in error.message
        assert error.remedies[0] == Remedy(
            "wait", "wait until the server has loaded the model, then retry"
        )
        await resumes(sessions, wire, session, server)


async def test_auth_error_is_not_retried_and_names_the_key(wire: Wire, sessions: Sessions) -> None:
    with LoopbackServer(wire.error(401, "Incorrect API key provided"), recovered(wire)) as server:
        session, result = await turn(sessions, wire, server, max_retries=2)
        assert result.status == "error"
        error = the_error(session, wire, "auth")
        assert "authentication failed (HTTP 401): Incorrect API key provided" in error.message
        assert "retr" not in error.message
        hint = f"set {wire.key_env} to a valid key, then retry"
        assert error.remedies[0] == Remedy("set_key", hint)
        assert len(server.requests) == 1
        await resumes(sessions, wire, session, server)


async def test_a_model_that_does_not_exist_says_so(wire: Wire, sessions: Sessions) -> None:
    said = "model: nope" if wire.name == "anthropic" else "The model `nope` does not exist"
    with LoopbackServer(wire.error(404, said), recovered(wire)) as server:
        session, result = await turn(sessions, wire, server, max_retries=2)
        assert result.status == "error"
        error = the_error(session, wire, "bad_request")
        expected = "the model does not exist here, or this key cannot use it (HTTP 404): "
        assert expected + said in error.message
        assert (
            error.remedies[0].hint
            == "check the model id and its [models] settings, or switch model"
        )
        assert len(server.requests) == 1
        await resumes(sessions, wire, session, server)


async def test_a_path_the_server_does_not_serve_says_to_check_base_url(
    wire: Wire, sessions: Sessions
) -> None:
    # llama.cpp's answer to a path it does not serve (a base_url without /v1 on Ollama, with
    # /v2 or /chat/completions on any server): nothing about a model in it.
    with LoopbackServer(wire.error(404, "File Not Found"), recovered(wire)) as server:
        session, result = await turn(sessions, wire, server, max_retries=2)
        assert result.status == "error"
        error = the_error(session, wire, "bad_request")
        assert "nothing answers at " in error.message and "(HTTP 404)" in error.message
        assert error.message.endswith(": File Not Found")
        [remedy, *_] = error.remedies
        assert remedy.action == "fix_config"  # resending does not read the corrected setting
        assert remedy.hint.startswith(f"check base_url under [providers.{wire.name}] (now ")
        assert "/v1" in remedy.hint and remedy.hint.endswith("to go on with this session)")
        assert len(server.requests) == 1
        await resumes(sessions, wire, session, server)


async def test_a_context_length_rejection_with_nothing_to_compact_is_not_sent_again(
    wire: Wire, sessions: Sessions
) -> None:
    too_long = wire.error(400, "prompt is too long: 250000 tokens > 200000 maximum")
    with LoopbackServer(too_long, too_long, recovered(wire)) as server:
        session, result = await turn(sessions, wire, server, max_retries=2)
        assert result.status == "error"
        error = the_error(session, wire, "context_length")
        assert "context window (HTTP 400): prompt is too long" in error.message
        assert error.remedies[0].action == "compact"
        assert len(server.requests) == 1  # compacting freed nothing: the same request would fail
        [warned] = [e for e in session.events(WarningEvent) if e.code == "context_length"]
        assert warned.message.startswith(f"{wire.label}: the provider found the request too large")
        await resumes(sessions, wire, session, server)


# -- the connection -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("end", "why"),
    [
        # h11's "peer closed connection without sending complete message body (incomplete
        # chunked read)" was shown as it is.
        ("drop", ": the server closed it before the reply was complete"),
        # httpx's ReadError says nothing: the message said "ReadError", not the reset under it.
        ("reset", "Connection reset by peer"),
    ],
)
async def test_drop_mid_stream_keeps_what_streamed(
    wire: Wire, sessions: Sessions, end: Literal["drop", "reset"], why: str
) -> None:
    with LoopbackServer(Reply(parts=wire.opening("so far"), end=end), recovered(wire)) as server:
        session, result = await turn(sessions, wire, server, max_retries=2)
        assert result.status == "error"
        error = the_error(session, wire, "connection")
        assert "the connection was cut mid-reply after" in error.message
        assert why in error.message
        assert "chunked" not in error.message and "peer closed" not in error.message
        assert "could not connect" not in error.message
        assert error.remedies[0].action == "retry"
        assert len(server.requests) == 1  # a stream that started is not retried
        kept_partial(session, "so far")
        body = await resumes(sessions, wire, session, server)
        assert mentions(body, "so far")  # the kept text is part of the conversation


async def test_a_reply_cut_off_after_an_answered_turn_is_sent_after_resume(
    wire: Wire, sessions: Sessions
) -> None:
    """The Responses API continues the last stored response: a resumed session sent only what
    followed the last assistant message, the cut-off one, so the model never saw the turn it
    cut off, nor what streamed of it (in the running session it did)."""
    cut = "Now the second question."
    replies = [
        Reply(parts=wire.text_reply("first answer")),
        Reply(parts=wire.opening("so far"), end="drop"),
        recovered(wire),
    ]
    with LoopbackServer(*replies) as server:
        session, first = await turn(sessions, wire, server)
        assert (first.status, first.reply) == ("done", "first answer")
        second = await session.driver.submit(cut)
        assert second.status == "error"
        kept_partial(session, "so far")
        body = await resumes(sessions, wire, session, server)
        assert mentions(body, cut) and mentions(body, "so far")


async def test_stream_ending_before_its_last_event_is_a_drop(
    wire: Wire, sessions: Sessions
) -> None:
    with LoopbackServer(Reply(parts=wire.opening("so far")), recovered(wire)) as server:
        session, result = await turn(sessions, wire, server)
        assert result.status == "error"
        error = the_error(session, wire, "connection")
        assert "the connection was cut mid-reply: the stream ended after" in error.message
        kept_partial(session, "so far")
        await resumes(sessions, wire, session, server)


async def test_a_server_that_hangs_up_is_not_unreachable(wire: Wire, sessions: Sessions) -> None:
    """A server that took the request and closed without answering was said as "could not
    connect to the API", which sends the user looking for a server that is up."""
    server = LoopbackServer(*[Reply(hang_up=True)] * 2)
    with server:
        session, result = await turn(sessions, wire, server, max_retries=1)
    assert result.status == "error"
    error = the_error(session, wire, "connection")
    assert "the connection closed without a response from the API at" in error.message
    assert "could not connect" not in error.message


async def test_unreachable_server_could_not_connect(wire: Wire, sessions: Sessions) -> None:
    gone = LoopbackServer()
    gone.stop()
    session, result = await turn(sessions, wire, gone, max_retries=1)
    assert result.status == "error"
    error = the_error(session, wire, "connection")
    assert f"could not connect to the API at {gone.url}" in error.message
    assert error.message.endswith(": Connection refused")  # not httpx's "All connection attempts"
    assert "after 1 retry, retries exhausted" in error.message
    assert error.remedies[0].action == "check_server"
    assert gone.url in error.remedies[0].hint
    with LoopbackServer(recovered(wire)) as server:
        await resumes(sessions, wire, session, server)


async def test_stall_before_headers_times_out(wire: Wire, sessions: Sessions) -> None:
    stalled = Reply(stall_before_headers=True)
    with LoopbackServer(stalled, stalled, recovered(wire)) as server:
        session, result = await turn(
            sessions, wire, server, client_timeout=SMALL_TIMEOUT, max_retries=1
        )
        assert result.status == "error"
        error = the_error(session, wire, "timeout")
        assert "no response from the API within 1s, the configured timeout" in error.message
        assert "after 1 retry, retries exhausted" in error.message
        assert [r.action for r in error.remedies] == ["retry", "raise_timeout"]
        assert f"[providers.{wire.name}] timeout (now 1s)" in error.remedies[1].hint
        assert roles(session) == ["user"]
        await resumes(sessions, wire, session, server)


async def test_stall_after_headers_keeps_what_streamed(wire: Wire, sessions: Sessions) -> None:
    stalled = Reply(parts=wire.opening("so far"), end="stall")
    with LoopbackServer(stalled, recovered(wire)) as server:
        session, result = await turn(sessions, wire, server, client_timeout=SMALL_TIMEOUT)
        assert result.status == "error"
        error = the_error(session, wire, "timeout")
        assert "the stream stalled: no data for 1s after" in error.message
        kept_partial(session, "so far")
        await resumes(sessions, wire, session, server)


# -- what the stream says -------------------------------------------------------------------


async def test_malformed_sse_is_a_protocol_error(wire: Wire, sessions: Sessions) -> None:
    parts = [*wire.opening("so far"), wire.malformed()]
    with LoopbackServer(Reply(parts=parts), recovered(wire)) as server:
        session, result = await turn(sessions, wire, server)
        assert result.status == "error"
        error = the_error(session, wire, "protocol")
        # json's "Expecting value: line 1 column 14 (char 13)": an event's data is one line.
        assert "the server sent stream data that is not JSON after" in error.message
        assert "(char " not in error.message and " at at " not in error.message
        kept_partial(session, "so far")
        await resumes(sessions, wire, session, server)


async def test_an_event_missing_a_required_field_is_a_protocol_error(
    wire: Wire, sessions: Sessions
) -> None:
    parts = [*wire.opening("so far"), wire.misshapen()]
    with LoopbackServer(Reply(parts=parts), recovered(wire)) as server:
        session, result = await turn(sessions, wire, server)
        assert result.status == "error"
        error = the_error(session, wire, "protocol")
        # Python's words for the field it met as None ("'NoneType' object has no attribute")
        # were the message: the field the server left out is named.
        assert "the server sent a malformed " in error.message
        assert error.message.endswith(f": {wire.left_out} is missing")
        assert "NoneType" not in error.message
        kept_partial(session, "so far")
        await resumes(sessions, wire, session, server)


async def test_bytes_that_are_not_utf8_are_shown_as_replacement_and_said(
    wire: Wire, sessions: Sessions
) -> None:
    """The SDKs decode each event line as strict UTF-8: one byte of Latin-1 in a delta ended
    the reply with "malformed data in the event stream after 2 events: 'utf-8' codec can't
    decode byte 0xe9 in position 195: invalid continuation byte". The reply goes on, the byte
    shown as U+FFFD, and a warning says which bytes they were."""
    parts = [part.replace(b"caf\\u00e9", b"caf\xe9") for part in wire.text_reply("café", " ok")]
    with LoopbackServer(Reply(parts=parts), recovered(wire)) as server:
        session, result = await turn(sessions, wire, server)
        assert (result.status, result.reply) == ("done", "caf\ufffd ok")
        assert session.errors == []
        [said] = [e for e in session.events(WarningEvent) if e.code == "reply_bytes_replaced"]
        assert said.message == (
            f"{wire.label}: the server sent bytes that are not UTF-8 in the reply (0xE9): each "
            "is shown as \ufffd"
        )
        await resumes(sessions, wire, session, server)


async def test_invalid_tool_call_json_goes_back_to_the_model(
    wire: Wire, sessions: Sessions
) -> None:
    raw = '{"path": "READ'
    replies = [
        Reply(parts=wire.tool_reply("call_1", "read", raw)),
        Reply(parts=wire.text_reply("fixed")),
        recovered(wire),
    ]
    with LoopbackServer(*replies) as server:
        session, result = await turn(sessions, wire, server)
        assert (result.status, result.reply) == ("done", "fixed")
        assert session.errors == []
        [finished] = session.events(ToolCallFinished)
        assert finished.status == "failed"
        assert finished.output.startswith("invalid arguments for read")
        assert f"(received: {raw})" in finished.output
        assert roles(session) == ["user", "assistant", "tool", "assistant"]
        call = session.runner.conversation[1].tool_calls[0]
        assert (call.id, call.arguments, call.raw_arguments) == ("call_1", None, raw)
        assert mentions(server.requests[1].body, f"(received: {raw})")
        await resumes(sessions, wire, session, server)


async def test_missing_usage_still_completes_the_turn(wire: Wire, sessions: Sessions) -> None:
    with LoopbackServer(
        Reply(parts=wire.text_reply("fine", usage=False)), recovered(wire)
    ) as server:
        session, result = await turn(sessions, wire, server)
        assert (result.status, result.reply) == ("done", "fine")
        assert session.errors == []
        assert session.events(UsageReported) == []
        assert roles(session) == ["user", "assistant"]
        await resumes(sessions, wire, session, server)


async def test_image_rejection_is_remembered_for_the_session(
    wire: Wire, sessions: Sessions
) -> None:
    image = Image("image/png", "aGVsbG8=")
    rejected = wire.error(400, "image input is not supported by this model")
    replies = [rejected, *(Reply(parts=wire.text_reply(text)) for text in ("described", "again"))]
    with LoopbackServer(*replies) as server:
        provider = wire.provider(server, timeout=5.0, max_retries=0)
        session = sessions.open(provider, wire.model)
        first = await session.runner.run(Message("user", "look", images=(image,)))
        assert (first.status, first.reply) == ("done", "described")
        second = await session.runner.run(Message("user", "and this", images=(image,)))
        assert (second.status, second.reply) == ("done", "again")
        sent = [mentions(r.body, image.data) for r in server.requests]
        assert sent == [True, False, False]  # the second turn sends one request, without it
        assert not provider.model_info(wire.model).vision
        assert session.errors == []
        assert [len(m.images) for m in session.runner.conversation if m.role == "user"] == [1, 1]
