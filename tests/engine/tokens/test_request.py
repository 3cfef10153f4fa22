"""Request estimation: the per-message formula, the per-message cache, tools, heuristic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from steiner_tui.engine.jsonenc import go_json
from steiner_tui.engine.messages import Image, Message, ToolCall, to_provider_message
from steiner_tui.engine.tokens import (
    IMAGE_PLACEHOLDER_TOKENS,
    MESSAGE_FRAMING_TOKENS,
    CountCache,
    EncodingLoader,
    RequestEstimator,
    TokenEstimate,
    default_encoding_loader,
    heuristic_tokens,
)
from steiner_tui.engine.tooldefs import ToolDefinition, tools_json


@dataclass
class _CountingEncoder:
    """One token per character; records every text it encodes."""

    texts: list[str] = field(default_factory=list)

    def encode_ordinary(self, text: str) -> Sequence[int]:
        self.texts.append(text)
        return [0] * len(text)


@dataclass
class _Source:
    name: str
    encoder: _CountingEncoder = field(default_factory=_CountingEncoder)

    def available(self) -> bool:
        return True

    def build(self) -> _CountingEncoder:
        return self.encoder


def _estimator(**kwargs: int) -> tuple[RequestEstimator, _CountingEncoder]:
    source = _Source("cl100k_base")
    return RequestEstimator(EncodingLoader([source]), **kwargs), source.encoder  # type: ignore[arg-type]


def test_per_message_formula() -> None:
    estimator, _ = _estimator()
    call = ToolCall("c1", "read", {"path": "a.go"})
    broken = ToolCall("c2", "bash", None, raw_arguments='{"cmd": ')
    message = Message(
        "assistant",
        "hello",
        reasoning="why",
        tool_calls=(call, broken),
        images=(Image("image/png", "AAAA"), Image("image/png", "BBBB")),
    )
    expected = (
        MESSAGE_FRAMING_TOKENS
        + len("assistant")
        + len("hello")
        + len("why")
        + len("read")
        + len(go_json({"path": "a.go"}))
        + len("bash")
        + len('{"cmd": ')
        + 2 * IMAGE_PLACEHOLDER_TOKENS
    )
    assert estimator.raw_tokens("mistral-large", [message]) == expected
    assert MESSAGE_FRAMING_TOKENS == 4
    assert IMAGE_PLACEHOLDER_TOKENS == 1000


def test_a_new_turn_encodes_only_the_new_message() -> None:
    estimator, encoder = _estimator()
    history = [Message("user", f"question {i}") for i in range(50)]
    first = estimator.raw_tokens("mistral-large", history)
    encoder.texts.clear()
    new = Message("assistant", "the answer")
    second = estimator.raw_tokens("mistral-large", [*history, new])
    assert encoder.texts == ["assistant", "the answer"]
    assert second == first + MESSAGE_FRAMING_TOKENS + len("assistant") + len("the answer")


def test_equal_messages_share_an_entry_and_changed_ones_do_not() -> None:
    estimator, encoder = _estimator()
    summary = Message("summary", "what happened so far")
    estimator.raw_tokens("mistral-large", [to_provider_message(summary)])
    encoder.texts.clear()
    estimator.raw_tokens("mistral-large", [to_provider_message(summary)])  # a new, equal object
    assert encoder.texts == []
    estimator.raw_tokens("mistral-large", [Message("system", "what happened so far!")])
    assert encoder.texts == ["what happened so far!"]  # the role was counted once, before


def test_a_text_counted_on_its_own_is_not_encoded_again_as_a_message() -> None:
    # A tool result is measured against its budget before it becomes a message (issue 32).
    estimator, encoder = _estimator()
    output = "line one\nline two\n" * 50
    alone = estimator.count_text("mistral-large", output)
    encoder.texts.clear()
    message = Message("tool", output, tool_call_id="c1", name="read")
    counted = estimator.message_tokens("mistral-large", [message])
    assert output not in encoder.texts and alone < counted[0]
    fresh, _ = _estimator()
    assert fresh.message_tokens("mistral-large", [message]) == counted


def test_counts_are_cached_per_encoding() -> None:
    cl100k, o200k = _Source("cl100k_base"), _Source("o200k_base")
    estimator = RequestEstimator(EncodingLoader([cl100k, o200k]))
    messages = [Message("user", "hi")]
    estimator.raw_tokens("mistral-large", messages)
    estimator.raw_tokens("gpt-4o", messages)
    assert cl100k.encoder.texts == ["user", "hi"]
    assert o200k.encoder.texts == ["user", "hi"]


def test_tools_are_counted_once_per_tool_list() -> None:
    estimator, encoder = _estimator()
    tools = [ToolDefinition("read", "Read a file", {"type": "object"})]
    messages = [Message("user", "hi")]
    with_tools = estimator.raw_tokens("mistral-large", messages, tools)
    without = estimator.raw_tokens("mistral-large", messages)
    assert with_tools - without == len(tools_json(tools))
    encoder.texts.clear()
    estimator.raw_tokens("mistral-large", messages, list(tools))
    assert encoder.texts == []


def test_estimate_applies_calibration() -> None:
    estimator, _ = _estimator()
    messages = [Message("user", "x" * 96)]  # 4 + 4 + 96 = 104
    assert estimator.estimate("mistral-large", messages) == TokenEstimate(
        104, 104, "tiktoken", "low"
    )
    estimator.calibration.observe("mistral-large", 208, 104)
    assert estimator.estimate("mistral-large", messages) == TokenEstimate(
        130, 104, "provider_usage", "medium"
    )
    assert estimator.calibrated("mistral-large", 104).tokens == 130


def test_heuristic_counts_the_whole_request_as_one_text() -> None:
    estimator, encoder = _estimator()
    call = ToolCall("c", "read", {"path": "a"})
    messages = [
        Message("user", "x" * 10),
        Message("assistant", "", reasoning="yy", tool_calls=(call,), images=(Image("a", "b"),)),
    ]
    tools = [ToolDefinition("read", "Read", {})]
    chars = 4 + 10 + 9 + 2 + 4 + len(go_json({"path": "a"})) + len(tools_json(tools))
    assert estimator.raw_tokens("offline", messages, tools) == (
        heuristic_tokens(chars) + IMAGE_PLACEHOLDER_TOKENS
    )
    assert estimator.estimate("offline", messages).strategy == "heuristic"
    assert estimator.count_text("offline", "abcde") == heuristic_tokens(5)
    assert encoder.texts == []  # the tokenizer was never used


def test_count_text_uses_the_models_tokenizer() -> None:
    estimator, _ = _estimator()
    assert estimator.count_text("mistral-large", "hello") == 5
    assert estimator.count_text("mistral-large", "") == 0


def test_tokenizer_override_from_config() -> None:
    source = _Source("cl100k_base")
    estimator = RequestEstimator(EncodingLoader([source]), tokenizer_for=lambda _: "heuristic")
    assert estimator.choice("gpt-4o").encoding == "heuristic"


def test_a_tokenizer_is_loaded_without_counting_and_claimed_once_by_one_count() -> None:
    estimator, encoder = _estimator()
    assert not estimator.claimed("mistral-large") and estimator.claimed("offline")
    estimator.load("mistral-large")  # cl100k_base, built
    assert encoder.texts == []
    estimator.claim("mistral-large")
    estimator.claim("mistral-large")
    assert len(encoder.texts) == 1 and estimator.claimed("mistral-large")
    # The claim counts a text that takes every branch of the split patterns.
    claim = encoder.texts[0]
    for kind in ("'s", "WORDS", "words", "123", "+-", "\n\n", "\r\n", "  \n", "\u00e9"):
        assert kind in claim
    estimator.claim("offline")  # the heuristic: nothing to claim
    assert len(encoder.texts) == 1


def test_real_tokenizers_count_hello_world() -> None:
    estimator = RequestEstimator(default_encoding_loader(None))
    assert estimator.count_text("gpt-4o", "hello world") == 2
    assert estimator.count_text("mistral-large", "hello world") == 2
    assert estimator.count_text("claude-sonnet-4", "hello world") == 2


def test_claude_models_are_counted_by_ctok_without_its_one_message_frame() -> None:
    import ctok

    estimator = RequestEstimator(default_encoding_loader(None))
    text = "NASA likes tokenizers. HELLO World, “quotes”.\n"
    for model, version in (("claude-sonnet-4-5", "3.0"), ("claude-opus-4-7", "4.7")):
        frame = ctok.token_count("x", version) - 1  # "x" is one token
        assert estimator.count_text(model, text) == ctok.token_count(text, version) - frame
    # v4.7 and v4.8 share a vocabulary; their frames differ, the content's count does not.
    assert estimator.count_text("claude-sonnet-5", text) == estimator.count_text(
        "claude-opus-4-7", text
    )
    estimate = estimator.estimate("claude-opus-4-7", [Message("user", text)])
    assert estimate.strategy == "ctok" and estimate.confidence == "medium"
    assert estimate.raw_tokens == MESSAGE_FRAMING_TOKENS + 1 + estimator.count_text(
        "claude-opus-4-7", text
    )
    estimator.calibration.observe("claude-opus-4-7", 2 * estimate.raw_tokens, estimate.raw_tokens)
    calibrated = estimator.estimate("claude-opus-4-7", [Message("user", text)])
    assert calibrated.strategy == "provider_usage" and calibrated.raw_tokens == estimate.raw_tokens
    estimate = estimator.estimate("gpt-4o", [Message("user", "hello world")])
    assert estimate == TokenEstimate(7, 7, "tiktoken", "medium")  # 4 + "user" 1 + 2


def test_cache_bounds_are_enforced() -> None:
    cache = CountCache(max_entries=10, max_chars=1_000_000)
    messages = [Message("user", str(i)) for i in range(25)]
    cache.put_many((m, i) for i, m in enumerate(messages))
    assert len(cache) <= 10
    assert cache.get_many(messages[-2:]) == [23, 24]
    heavy = CountCache(max_entries=1000, max_chars=100)
    heavy.put_many((Message("user", "x" * 30 + str(i)), i) for i in range(20))
    assert heavy.chars <= 100
    one = CountCache(max_entries=10, max_chars=1_000_000)
    for i, message in enumerate(messages[:23]):
        one.put(message, i)
    one.put(messages[22], 99)  # a key of the young generation keeps its count
    assert len(one) <= 10 and one.get(messages[22]) == 22 and one.get(messages[0]) is None


def test_old_generation_hits_are_promoted() -> None:
    cache = CountCache(max_entries=8, max_chars=1_000_000)  # rotates every 4 entries
    first = Message("user", "first")
    cache.put_many([(first, 1)])
    cache.put_many((Message("user", str(i)), i) for i in range(3))  # rotation: first is old
    cache.put_many((Message("user", f"b{i}"), i) for i in range(2))
    assert cache.get_many([first]) == [1]  # promoted before the next rotation drops it
    cache.put_many((Message("user", f"c{i}"), i) for i in range(3))
    assert cache.get_many([first]) == [1]


def test_one_key_lookups_find_old_keys_and_miss_new_ones_after_a_rotation() -> None:
    cache = CountCache(max_entries=8, max_chars=1_000_000)  # rotates every 4 entries
    first = Message("user", "first")
    cache.put_many([(first, 1), *((Message("user", str(i)), i) for i in range(3))])
    assert cache.get(Message("user", "never counted")) is None  # in neither generation
    assert cache.get(first) == 1  # old: promoted
    cache.put_many((Message("user", f"c{i}"), i) for i in range(3))
    assert cache.get(first) == 1 and cache.get("first") is None


def test_cache_rejects_silly_bounds() -> None:
    with pytest.raises(ValueError):
        CountCache(max_entries=0)
