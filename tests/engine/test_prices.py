"""The price table, config overrides, local models and the cost of a request's usage."""

from __future__ import annotations

from pathlib import Path

import pytest

from steiner_tui.config import ConfigError, load_config, parse_config
from steiner_tui.engine.models import MODEL_REGISTRY
from steiner_tui.engine.prices import (
    FREE,
    PRICE_TABLE,
    PRICES_AS_OF,
    ModelPrice,
    cache_ttl_seconds,
    price_for,
    request_cost,
)
from steiner_tui.providers.factory import resolve_model


def test_every_hosted_model_of_the_registry_has_a_price() -> None:
    hosted = [m for m in MODEL_REGISTRY if m.startswith(("claude", "gpt", "o1", "o3", "o4"))]
    assert hosted
    ids = [f"{m}-0" if m == "claude-opus-4" else m for m in hosted]
    assert [m for m in ids if price_for(m) is None] == []


def test_longest_prefix_wins_and_routing_prefixes_are_dropped() -> None:
    assert price_for("anthropic/claude-opus-4-5-20251101") == PRICE_TABLE["claude-opus-4-5"]
    assert price_for("claude-opus-4-1-20250805") == PRICE_TABLE["claude-opus-4-1"]
    assert price_for("claude-opus-4-8") is None
    assert price_for("gpt-5-mini-2025-08-07") == PRICE_TABLE["gpt-5-mini"]


def test_an_unknown_model_has_no_price_and_a_local_one_is_free() -> None:
    assert price_for("mystery-1") is None
    assert price_for("qwen2.5-coder:7b", local=True) == FREE
    override = ModelPrice(input=1.0, output=2.0)
    assert price_for("claude-sonnet-4-5", override=override, local=True) is override


def test_anthropic_cache_prices_follow_the_multipliers() -> None:
    sonnet = PRICE_TABLE["claude-sonnet-4"]
    assert (sonnet.input, sonnet.output) == (3.0, 15.0)
    assert (sonnet.read, sonnet.write, sonnet.cache_write_1h) == (0.3, 3.75, 6.0)


def test_request_cost_splits_prompt_tokens_into_its_parts() -> None:
    cost = request_cost(
        PRICE_TABLE["claude-sonnet-4"],
        prompt_tokens=100_000,
        output_tokens=2_000,
        cache_read_tokens=60_000,
        cache_write_tokens=30_000,
    )
    assert cost is not None
    assert cost.input_usd == pytest.approx(0.03)
    assert cost.cache_read_usd == pytest.approx(0.018)
    assert cost.cache_write_usd == pytest.approx(0.1125)
    assert cost.output_usd == pytest.approx(0.03)
    assert cost.total_usd == pytest.approx(0.1905)
    assert request_cost(None, prompt_tokens=10, output_tokens=1) is None


def test_openai_writes_cost_input_and_defaults_fill_the_cache_prices() -> None:
    gpt = PRICE_TABLE["gpt-4o"]
    assert gpt.write == gpt.input
    bare = ModelPrice(input=2.0, output=4.0)
    assert (bare.read, bare.write) == (2.0, 2.0)


def test_ttl_is_known_for_vendor_models_only() -> None:
    assert cache_ttl_seconds("claude-sonnet-4-5") == 300
    assert cache_ttl_seconds("gpt-5") == 300
    assert cache_ttl_seconds("qwen3") is None


def test_config_price_overrides_the_table() -> None:
    table = {
        "models": {
            "anthropic/claude-sonnet-4-5": {
                "price": {"input": 1.0, "output": 5.0, "cache_read": 0.1, "cache_write": 1.25}
            }
        }
    }
    resolved = resolve_model(
        parse_config([("c", table)]), "anthropic/claude-sonnet-4-5", {"ANTHROPIC_API_KEY": "k"}
    )
    assert resolved.price == ModelPrice(input=1.0, output=5.0, cache_read=0.1, cache_write=1.25)
    plain = resolve_model(
        parse_config([]), "anthropic/claude-sonnet-4-5", {"ANTHROPIC_API_KEY": "k"}
    )
    assert plain.price == PRICE_TABLE["claude-sonnet-4"]


def test_a_bad_price_names_the_key(tmp_path: Path) -> None:
    user = tmp_path / "config.toml"
    user.write_text('[models."openai/gpt-4o"]\nprice = { input = 1.0, outptu = 2.0 }\n')
    with pytest.raises(ConfigError, match="price"):
        load_config(tmp_path / "project", {}, user_file=user)
    user.write_text('[models."openai/gpt-4o"]\nprice = { input = -1.0, output = 2.0 }\n')
    with pytest.raises(ConfigError, match="negative"):
        load_config(tmp_path / "project", {}, user_file=user)


def test_the_docs_show_the_table_and_its_date() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "costs.md").read_text(encoding="utf-8")
    assert f"as of\n{PRICES_AS_OF}" in docs or f"as of {PRICES_AS_OF}" in docs.replace("\n", " ")

    def number(value: float | None) -> str:
        return "—" if value is None else f"{value:g}"

    for prefix, price in PRICE_TABLE.items():
        figures = (price.input, price.read, price.write, price.cache_write_1h, price.output)
        row = f"| `{prefix}` | " + " | ".join(number(v) for v in figures) + " |"
        assert row in docs, row


def test_claude_codes_default_model_is_priced_as_claude_code_prices_it() -> None:
    # Claude Code 2.1.328's baked model catalog: claude-opus-5-5 is "tier_4_20_cache_read_0_20"
    # (input 4, output 20, cache_write_5m 5, cache_write_1h 8, cache_read 0.2).
    opus = price_for("claude-opus-5-5")
    assert opus == ModelPrice(
        input=4.0, output=20.0, cache_read=0.2, cache_write=5.0, cache_write_1h=8.0
    )
    assert price_for("claude-opus-5-5-20260601") == opus
    assert price_for("claude-opus-5") is None  # another model: not priced here


def test_opus_4_6_is_priced_as_its_vendor_page_says() -> None:
    # platform.claude.com, models/opus-4-6: $5 / MTok in, $25 out; cache at Anthropic's multiples.
    assert price_for("anthropic/claude-opus-4-6") == ModelPrice(
        input=5.0, output=25.0, cache_read=0.5, cache_write=6.25, cache_write_1h=10.0
    )
    assert price_for("claude-opus-4-7") is None  # later Opus ids stay unpriced
