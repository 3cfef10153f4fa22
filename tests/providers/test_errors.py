"""What each error kind tells the user to do, and how a 400 about an image is classified."""

from __future__ import annotations

import pytest

from steiner_tui.engine.provider import ERROR_KINDS, ProviderError, Remedy
from steiner_tui.providers.errors import (
    CallContext,
    classify_api_message,
    remedies_for,
    with_remedies,
)

CALL = CallContext(
    "local/qwen",
    alias="local",
    base_url="http://127.0.0.1:8080/v1",
    timeout=30.0,
    max_retries=2,
    self_hosted=True,
)


@pytest.mark.parametrize(
    ("kind", "actions"),
    [
        ("auth", ["set_key", "switch_model"]),
        ("rate_limit", ["wait", "switch_model"]),
        ("server", ["retry", "switch_model"]),
        # Not "send the message again" too: checking the server and resending is the first;
        # a local server's address is a setting, read at start (resending does not read it).
        ("connection", ["check_server", "fix_config", "switch_model"]),
        ("timeout", ["retry", "raise_timeout"]),
        ("protocol", ["retry", "switch_model"]),
        ("bad_request", ["switch_model"]),
        ("context_length", ["compact", "switch_model"]),
        ("image_rejected", ["retry", "switch_model"]),
        ("cancelled", []),
    ],
)
def test_each_kind_says_what_the_user_can_do(kind: str, actions: list[str]) -> None:
    assert [remedy.action for remedy in remedies_for(kind, CALL)] == actions


def test_every_kind_is_covered() -> None:
    assert all(remedies_for(kind, CALL) for kind in ERROR_KINDS if kind != "cancelled")


def test_remedies_name_the_setting_the_key_and_the_wait() -> None:
    assert remedies_for("timeout", CALL)[1].hint == "raise [providers.local] timeout (now 30s)"
    assert "http://127.0.0.1:8080/v1" in remedies_for("connection", CALL)[0].hint
    assert remedies_for("connection", CALL)[1] == Remedy(
        "fix_config",
        "or, if the server is elsewhere, correct [providers.local] base_url: the configuration"
        " is read at start (start again with -c to go on with this session)",
    )
    hosted = CallContext("anthropic/m", alias="anthropic", base_url="https://api.anthropic.com")
    assert [r.action for r in remedies_for("connection", hosted)] == [
        "check_server",
        "switch_model",
    ]
    keyed = CallContext("anthropic/m", alias="anthropic", key_env="ANTHROPIC_API_KEY")
    assert remedies_for("auth", keyed)[0] == Remedy(
        "set_key", "set ANTHROPIC_API_KEY to a valid key, then retry"
    )
    assert remedies_for("rate_limit", CALL, 2.5)[0] == Remedy("wait", "wait 2.5s, then retry")


def test_a_local_servers_window_is_its_own_setting() -> None:
    """llama.cpp's "exceeds the available context size" was told to switch model only: the
    window of a local server is how it was started."""
    hint = remedies_for("context_length", CALL)[1].hint
    assert hint.startswith("restart the server with a larger context (llama.cpp --ctx-size")
    vendor = CallContext("openai/gpt-4o", base_url="https://api.openai.com/v1")
    gateway = CallContext("router/qwen3-coder", base_url="https://openrouter.ai/api/v1")
    for hosted in (vendor, gateway):  # a hosted gateway has no server of yours to restart
        assert remedies_for("context_length", hosted)[1].hint == (
            "switch to a model with a larger context window (/model)"
        )


def test_a_dropped_stream_is_retried_not_checked() -> None:
    streaming = CallContext("local/qwen", phase="stream", events=3)
    assert remedies_for("connection", streaming)[0] == Remedy(
        "retry", "retry: the reply was cut off, what streamed is kept"
    )


def test_a_stream_dropped_before_any_event_keeps_nothing() -> None:
    """llama.cpp stopped while reading the prompt: "dropped mid-stream after 0 events", and
    the remedy said "what streamed is kept" when nothing had."""
    empty = CallContext("local/qwen", phase="stream", events=0)
    assert remedies_for("connection", empty)[0] == Remedy(
        "retry", "retry: the connection dropped before the reply began"
    )


def test_with_remedies_keeps_the_error_and_adds_its_remedies() -> None:
    error = ProviderError("rate_limit", "local/qwen: rate limited", status=429, retry_after=1.0)
    done = with_remedies(error, CALL)
    assert (done.kind, done.message, done.status, done.retry_after) == (
        "rate_limit",
        "local/qwen: rate limited",
        429,
        1.0,
    )
    assert done.remedies[0] == Remedy("wait", "wait 1s, then retry")
    assert with_remedies(done, CALL) is done


def test_a_message_about_an_image_is_an_image_rejection_only_with_images() -> None:
    message = "image input is not supported"
    assert classify_api_message(400, message, has_images=True)[0] == "image_rejected"
    assert classify_api_message(400, message, has_images=False)[0] == "bad_request"
    assert classify_api_message(400, "maximum context length is 8192", has_images=True)[0] == (
        "context_length"
    )
