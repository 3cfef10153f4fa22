"""Named cache-miss causes: each change of a request's bytes, time and the provider's word."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from steiner_tui.engine.cache_causes import CacheEffect, CacheTurn, cache_effect, explain_cache
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prices import PRICE_TABLE
from steiner_tui.engine.prompt.blocks import ContextBlock, render_blocks
from steiner_tui.engine.snapshots import build_request_snapshot
from steiner_tui.engine.tooldefs import ToolDefinition

T0 = datetime(2026, 9, 13, 12, 0, tzinfo=UTC)
SONNET = PRICE_TABLE["claude-sonnet-4"]
BLOCKS = (
    ContextBlock.of("preamble", "You are Steiner."),
    ContextBlock.of("project_agents_md", "Use tabs.", path="/p/AGENTS.md"),
    ContextBlock.of("session_date", "Current date: today."),
)
HELLO = (Message("user", "hello"), Message("assistant", "hi"))


class Estimate(msgspec.Struct, frozen=True):
    tokens: int = 10_000
    raw_tokens: int = 9_000
    strategy: str = "o200k"
    confidence: str = "high"


def snap(
    conversation: Sequence[Message] = HELLO,
    *,
    blocks: Sequence[ContextBlock] = BLOCKS,
    model: str = "claude-sonnet-4-5",
    tools: Sequence[ToolDefinition] = (),
    generation: str = "",
) -> RequestSnapshot:
    block_messages = render_blocks(blocks)
    return build_request_snapshot(
        request_id="r",
        index=1,
        model=model,
        provider="anthropic",
        time=T0,
        messages=[*block_messages, *conversation],
        blocks=blocks,
        block_message_count=len(block_messages),
        tools=tools,
        max_tokens=100,
        estimate=Estimate(),
        generation_id=generation,
    )


def turn(
    snapshot: RequestSnapshot, *, read: int, write: int, after: float = 10.0, params: str = ""
) -> CacheTurn:
    return CacheTurn(
        snapshot, T0 + timedelta(seconds=after), read + write + 50, read, write, params
    )


PREVIOUS = turn(snap(), read=30_000, write=11_800, after=0)


def explain(current: CacheTurn, reason: str = "") -> tuple[str, str, int, int, float | None]:
    e = explain_cache(PREVIOUS, current, price=SONNET, ttl_seconds=300, provider_reason=reason)
    return e.cause, e.detail, e.reused_tokens, e.rewritten_tokens, e.cost_usd


def test_the_first_request_has_nothing_to_reuse() -> None:
    e = explain_cache(None, PREVIOUS, price=SONNET, ttl_seconds=300)
    assert (e.cause, e.rewritten_tokens) == ("first", 0)


def test_an_appended_turn_keeps_the_cache() -> None:
    longer = snap((*HELLO, Message("user", "more")))
    cause, detail, reused, rewritten, cost = explain(turn(longer, read=41_800, write=900))
    assert (cause, reused, rewritten, cost) == ("kept", 41_800, 0, 0.0)
    assert "cache kept" in detail


def test_an_edited_agents_md_is_named_with_tokens_and_dollars() -> None:
    edited = (BLOCKS[0], ContextBlock.of("project_agents_md", "Use spaces.", path="/p/AGENTS.md"))
    current = turn(snap(blocks=(*edited, BLOCKS[2]), generation="g2"), read=0, write=42_000)
    cause, detail, reused, rewritten, cost = explain(current)
    assert (cause, reused, rewritten) == ("source", 0, 41_800)
    assert detail == "AGENTS.md changed (applied at the compaction to generation g2)"
    assert cost == pytest.approx(41_800 * 3.75 / 1e6)


def test_a_model_switch_tools_and_params_are_named() -> None:
    cause, detail, *_ = explain(turn(snap(model="claude-opus-4-5"), read=0, write=42_000))
    assert cause == "model"
    assert "claude-sonnet-4-5 → claude-opus-4-5" in detail
    cause, *_ = explain(turn(snap(), read=0, write=42_000, params="t=1"))
    assert cause == "params"
    tool = ToolDefinition("grep", "search", {"type": "object"})
    cause, detail, *_ = explain(turn(snap(tools=(tool,)), read=0, write=42_000))
    assert (cause, detail) == ("tools", "tool definitions changed (+grep)")


def test_compaction_and_a_changed_message_are_named() -> None:
    compacted = snap((Message("user", "summary"),), generation="g2")
    cause, *_ = explain(turn(compacted, read=5_000, write=3_000))
    assert cause == "compaction"
    masked = snap((Message("user", "hello"), Message("assistant", "[masked]")))
    cause, detail, *_ = explain(turn(masked, read=5_000, write=3_000))
    assert (cause, detail) == ("conversation", "conversation message 2 (assistant) changed")


def test_identical_bytes_after_the_ttl_are_idle_and_before_it_the_provider() -> None:
    cause, detail, reused, rewritten, _ = explain(turn(snap(), read=0, write=41_800, after=420))
    assert (cause, detail) == ("idle", "idle 7 min > 5 min TTL: the cache expired")
    assert (reused, rewritten) == (0, 41_800)
    # Just past the TTL: "idle 5 min > 5 min TTL" said it was no longer than the TTL.
    cause, detail, *_ = explain(turn(snap(), read=0, write=41_800, after=316))
    assert (cause, detail) == ("idle", "idle 5 min 16 s > 5 min TTL: the cache expired")
    cause, detail, *_ = explain(turn(snap(), read=0, write=41_800, after=30))
    assert (cause, detail) == ("provider", "prefix identical: the provider did not reuse it")


def test_the_providers_own_reason_is_kept_and_disagreement_said() -> None:
    current = turn(snap(), read=0, write=41_800, after=420)
    e = explain_cache(PREVIOUS, current, price=SONNET, ttl_seconds=300, provider_reason="ttl")
    assert (e.provider_reason, e.disagrees) == ("ttl", False)
    e = explain_cache(
        PREVIOUS, current, price=SONNET, ttl_seconds=300, provider_reason="tools_changed"
    )
    assert e.disagrees


def test_unknown_price_and_a_provider_without_a_cache() -> None:
    e = explain_cache(PREVIOUS, turn(snap(), read=0, write=41_800), price=None, ttl_seconds=300)
    assert e.cost_usd is None
    plain = CacheTurn(snap(), T0, 1000)
    e = explain_cache(plain, CacheTurn(snap(), T0, 1100), price=None, ttl_seconds=None)
    assert e.cause == "uncached"


def test_a_dry_run_estimates_from_bytes() -> None:
    longer = snap((*HELLO, Message("user", "more")))
    e = explain_cache(PREVIOUS, CacheTurn(longer, T0), price=SONNET, ttl_seconds=300)
    assert (e.cause, e.estimated, e.rewritten_tokens) == ("kept", True, 0)
    edited = (BLOCKS[0], ContextBlock.of("project_agents_md", "Use spaces.", path="/p/AGENTS.md"))
    e = explain_cache(
        PREVIOUS, CacheTurn(snap(blocks=(*edited, BLOCKS[2])), T0), price=SONNET, ttl_seconds=300
    )
    assert e.cause == "source"
    assert 0 < e.rewritten_tokens <= 41_800


def test_the_effect_of_an_action_before_it_is_taken() -> None:
    def effect(from_message: int | None, after: float = 10.0) -> CacheEffect:
        return cache_effect(
            PREVIOUS,
            at=T0 + timedelta(seconds=after),
            ttl_seconds=300,
            price=SONNET,
            from_message=from_message,
        )

    everything = effect(0)
    assert (everything.rewritten_tokens, everything.text) == (
        41_800,
        "rewrites ~41,800 cached tokens ≈ $0.16",
    )
    compaction = effect(PREVIOUS.snapshot.block_message_count)
    assert 0 < compaction.rewritten_tokens < 41_800
    assert effect(None).text == "appends after the conversation: cache kept"
    assert effect(0, after=400).text == "the cache has expired: nothing to rewrite"
    none = cache_effect(None, at=T0, ttl_seconds=300, price=SONNET, from_message=0)
    assert none.kept


def test_a_one_hour_cache_outlives_five_idle_minutes_and_its_rewrite_costs_2x_input() -> None:
    from steiner_tui.engine.cache_causes import UsageTurn, explain_usage

    start = datetime(2026, 2, 11, tzinfo=UTC)
    model = "claude-opus-4-6"
    one_hour = [  # Claude Code writes its breakpoints with a 1-hour TTL
        UsageTurn(start, model, 20_000, 10, 0, 20_000, cache_write_1h_tokens=20_000),
        UsageTurn(start + timedelta(minutes=7), model, 21_000, 10, 15_000, 6_000, "", None, 6_000),
    ]
    (_, _), (cost, second) = explain_usage(one_hour, bytes_known=False)
    assert (second.cause, second.rewritten_tokens) == ("unknown", 5_000)  # not "idle 7 min"
    assert second.cost_usd == pytest.approx(5_000 * 10 / 1e6)  # $10/M, 2x Opus 4.6's input
    assert cost is not None and cost.cache_write_usd == pytest.approx(6_000 * 10 / 1e6)
    five_minutes = [msgspec.structs.replace(t, cache_write_1h_tokens=0) for t in one_hour]
    (_, _), (cost, second) = explain_usage(five_minutes, bytes_known=False)
    assert second.cause == "idle" and second.cost_usd == pytest.approx(5_000 * 6.25 / 1e6)
    late = [one_hour[0], msgspec.structs.replace(one_hour[1], at=start + timedelta(minutes=61))]
    assert explain_usage(late, bytes_known=False)[1][1].cause == "idle"


def test_a_shorter_request_rewrites_only_its_own_prompt_of_what_was_cached() -> None:
    """After a 100k-token conversation, a new one of 12k tokens (Claude Code's next session,
    its compaction's summary) writes 12k again; the 88k beyond it are dropped, not paid for
    (the rewrite was priced at 100k, more than the request cost)."""
    from steiner_tui.engine.cache_causes import UsageTurn, explain_usage

    model = "claude-sonnet-4-5"
    turns = [
        UsageTurn(T0, model, 100_000, 10, 99_000, 1_000),
        UsageTurn(T0 + timedelta(minutes=1), model, 12_000, 10, 2_000, 10_000),
    ]
    (_, _), (cost, second) = explain_usage(turns, bytes_known=False)
    assert (second.cause, second.rewritten_tokens) == ("unknown", 10_000)
    assert second.cost_usd == pytest.approx(10_000 * SONNET.write / 1e6)
    assert cost is not None and second.cost_usd is not None
    assert second.cost_usd <= cost.total_usd
