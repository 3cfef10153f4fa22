"""A capture's requests priced and their cache causes named from the bodies, through the proxy
and a loopback upstream that reports cache reads and writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steiner_tui.capture.figures import request_costs
from steiner_tui.capture.report import decode_all
from steiner_tui.capture.store import read_capture
from steiner_tui.engine.prices import PRICE_TABLE
from tests.capture.helpers import ProxyThread
from tests.capture.test_proxy_loopback import (
    ANTHROPIC_BODY,
    post,
    proxy,
    second_anthropic_body,
    upstream,
)

__all__ = ["proxy", "upstream"]  # the fixtures


def body(model: str = "claude-sonnet-4-6") -> dict[str, object]:
    return {**json.loads(json.dumps(ANTHROPIC_BODY)), "model": model}


def test_each_request_is_priced_and_a_changed_system_prompt_named(
    proxy: ProxyThread, tmp_path: Path
) -> None:
    changed = body()
    changed["system"][1]["text"] = "You are another agent."  # type: ignore[index]
    later = {**second_anthropic_body(), "model": "claude-sonnet-4-6"}
    for sent in (body(), later, changed):
        post(f"{proxy.url}/v1/messages", sent, {"x-api-key": "k"})
    _, recorded = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    requests = decode_all(recorded)
    costs = request_costs(requests)
    assert all(c is not None for c in costs)
    sonnet = PRICE_TABLE["claude-sonnet-4"]
    for request, figures in zip(requests, costs, strict=True):
        assert figures is not None and request.usage is not None
        cost, _ = figures
        usage = request.usage
        assert cost is not None
        assert cost.total_usd == pytest.approx(
            (
                usage.input_tokens * sonnet.input
                + usage.cache_read_tokens * sonnet.read
                + usage.cache_creation_tokens * sonnet.write
                + usage.output_tokens * sonnet.output
            )
            / 1e6
        )
    causes = [figures[1].cause for figures in costs if figures is not None]
    assert causes[0] == "first"
    third = costs[2]
    assert third is not None and third[1].detail == "the system prompt changed"


def test_an_unknown_price_is_none_never_zero(proxy: ProxyThread, tmp_path: Path) -> None:
    for _ in range(2):
        post(f"{proxy.url}/v1/messages", body("claude-mystery-9"), {"x-api-key": "k"})
    _, recorded = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    costs = request_costs(decode_all(recorded))
    assert [c[0] if c is not None else "no usage" for c in costs] == [None, None]
    assert [c[1].cause for c in costs if c is not None] == ["first", "kept"]


def test_a_config_price_reaches_a_capture(proxy: ProxyThread, tmp_path: Path) -> None:
    from steiner_tui.app.screens.readonly_figures import capture_budget_view
    from steiner_tui.capture.snapshots import to_snapshots
    from steiner_tui.config import parse_config

    price = {"input": 2.0, "output": 10.0, "cache_read": 0.2, "cache_write": 2.5}
    config = parse_config([("test", {"models": {"anthropic/claude-mystery-9": {"price": price}}})])
    post(f"{proxy.url}/v1/messages", body("claude-mystery-9"), {"x-api-key": "k"})
    _, recorded = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    requests = decode_all(recorded)
    figures = request_costs(requests, config.price_overrides)[0]
    assert figures is not None and figures[0] is not None and requests[0].usage is not None
    usage = requests[0].usage
    assert figures[0].total_usd == pytest.approx(
        (
            usage.input_tokens * 2.0
            + usage.cache_read_tokens * 0.2
            + usage.cache_creation_tokens * 2.5
            + usage.output_tokens * 10.0
        )
        / 1e6
    )
    view = capture_budget_view(requests, to_snapshots(requests), 0, config.price_overrides)
    assert view.money is not None and view.money.priced
    assert view.money.usage is not None and view.money.usage.cost_usd == figures[0].total_usd
    unpriced = capture_budget_view(requests, to_snapshots(requests), 0)
    assert unpriced.money is not None and not unpriced.money.priced


def test_a_one_hour_cache_write_in_a_reply_is_priced_at_its_rate(tmp_path: Path) -> None:
    """Claude Code logged in with a subscription writes its breakpoints for an hour; the
    reply's ``cache_creation`` splits the write by TTL, and the hour is 2x input, not 1.25x."""
    from steiner_tui.capture.decode import API_ANTHROPIC
    from steiner_tui.capture.store import CaptureWriter
    from steiner_tui.capture.usage import reply_usage

    start = {
        "type": "message_start",
        "message": {
            "usage": {
                "input_tokens": 3,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 8_000,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 0,
                    "ephemeral_1h_input_tokens": 8_000,
                },
                "output_tokens": 1,
            }
        },
    }
    delta = {"type": "message_delta", "usage": {"output_tokens": 40}}
    stream = b"".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in (start, delta)
    )
    usage = reply_usage(API_ANTHROPIC, "text/event-stream", stream)
    assert usage is not None and usage.cache_creation_1h_tokens == 8_000
    writer = CaptureWriter(tmp_path, "http://upstream", "hour")
    seq = writer.request("POST", "/v1/messages", json.dumps(body("claude-opus-4-6")).encode())
    writer.reply(seq, 200, "text/event-stream", len(stream), usage)
    writer.close()
    _, recorded = read_capture(tmp_path, "hour")
    [(cost, _)] = [c for c in request_costs(decode_all(recorded)) if c is not None]
    assert cost is not None
    assert cost.cache_write_usd == pytest.approx(8_000 * 10 / 1e6)  # Opus 4.6: $5 in, $10 1 h
    assert cost.total_usd == pytest.approx((3 * 5 + 8_000 * 10 + 40 * 25) / 1e6)


def test_a_tiny_cost_in_the_panel_is_under_a_hundredth_of_a_cent_not_zero(
    tmp_path: Path,
) -> None:
    """A few Haiku tokens cost $0.000008: the panel says ``<$0.0001``, never ``$0.0000``
    (a price it has, which is not nothing)."""
    from steiner_tui.app.screens.readonly_figures import capture_budget_view
    from steiner_tui.app.widgets.budget_text import money_lines
    from steiner_tui.capture.decode import API_ANTHROPIC
    from steiner_tui.capture.snapshots import to_snapshots
    from steiner_tui.capture.store import CaptureWriter
    from steiner_tui.capture.usage import reply_usage

    reply = {"usage": {"input_tokens": 3, "output_tokens": 1}}
    usage = reply_usage(API_ANTHROPIC, "application/json", json.dumps(reply).encode())
    writer = CaptureWriter(tmp_path, "http://upstream", "tiny")
    seq = writer.request("POST", "/v1/messages", json.dumps(body("claude-haiku-4-5")).encode())
    writer.reply(seq, 200, "application/json", 60, usage)
    writer.close()
    _, recorded = read_capture(tmp_path, "tiny")
    requests = decode_all(recorded)
    view = capture_budget_view(requests, to_snapshots(requests), 0)
    assert view.money is not None and view.money.usage is not None
    assert view.money.usage.cost_usd == pytest.approx((3 * 1 + 1 * 5) / 1e6)
    notes = "\n".join(money_lines(view.money))
    assert "$0.0000" not in notes
    assert "cost #1 <$0.0001 · session <$0.0001" in notes
    assert "input <$0.0001 · cache read $0 · cache write $0 · output <$0.0001" in notes


def test_a_request_of_another_api_is_the_first_of_its_own_cache(
    proxy: ProxyThread, tmp_path: Path
) -> None:
    """Codex beside Claude Code through one proxy: a Responses request after a Messages one
    reuses no Anthropic cache, so no rewrite of it is charged (it was compared with the
    Claude request: "model $0.02" on a $0.01 Codex request)."""
    codex = {
        "model": "gpt-5",
        "stream": True,
        "tools": [{"type": "function", "name": "exec_command", "parameters": {}}],
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
        ],
    }
    post(f"{proxy.url}/v1/messages", body(), {"x-api-key": "k"})
    post(f"{proxy.url}/v1/responses", codex, {"authorization": "Bearer k"})
    _, recorded = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    requests = decode_all(recorded)
    assert requests[1].prefix.compared_with == 0
    _, second = request_costs(requests)
    assert second is not None
    assert (second[1].cause, second[1].rewritten_tokens, second[1].cost_usd) == ("first", 0, 0)


def test_a_resumed_session_is_explained_against_its_own_last_request(
    proxy: ProxyThread, tmp_path: Path
) -> None:
    """Session A, then another session B of the model, then A again (``claude --resume``):
    A's request is compared with A's last, and so is its cache cause. It was explained against
    B's, the last of the chain: "idle 8 min", "rewrote" B's tokens, for a prefix A kept."""
    other = body()
    other["system"][1]["text"] = "You are another agent. " * 200  # type: ignore[index]
    other["messages"][0]["content"][1]["text"] = "another task"  # type: ignore[index]
    later = {**second_anthropic_body(), "model": "claude-sonnet-4-6"}
    for sent in (body(), later, other, later):
        post(f"{proxy.url}/v1/messages", sent, {"x-api-key": "k"})
    _, recorded = read_capture(tmp_path / "sessions", proxy.writer.capture_id)
    requests = decode_all(recorded)
    assert [r.prefix.compared_with for r in requests] == [0, 1, 2, 2]
    costs = request_costs(requests)
    assert all(c is not None for c in costs)
    causes = [(c[1].cause, c[1].rewritten_tokens) for c in costs if c is not None]
    assert causes[0][0] == "first" and causes[1] == ("kept", 0) and causes[3] == ("kept", 0)
