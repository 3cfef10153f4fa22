"""Each encoding loads once; a failed load is reported on every call and never replaced."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from steiner_tui.engine.messages import Message
from steiner_tui.engine.tokens import EncodingLoader, RequestEstimator, TokenizerLoadError


class _WordEncoder:
    def encode_ordinary(self, text: str) -> Sequence[int]:
        return [0] * len(text.split())


@dataclass
class _Source:
    name: str
    fail: bool = False
    present: bool = True
    builds: int = 0
    availability_checks: int = 0

    def available(self) -> bool:
        self.availability_checks += 1
        return self.present

    def build(self) -> _WordEncoder:
        self.builds += 1
        if self.fail:
            raise OSError("data file is corrupt")
        return _WordEncoder()


def test_builds_once_and_returns_the_same_encoder() -> None:
    source = _Source("cl100k_base")
    loader = EncodingLoader([source])
    first = loader.get("cl100k_base")
    assert loader.get("cl100k_base") is first
    assert source.builds == 1


def test_concurrent_first_use_builds_once() -> None:
    source = _Source("cl100k_base")
    loader = EncodingLoader([source])
    barrier = threading.Barrier(8)
    results: list[object] = []

    def worker() -> None:
        barrier.wait()
        results.append(loader.get("cl100k_base"))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert source.builds == 1
    assert len(results) == 8
    assert all(result is results[0] for result in results)


def test_failure_is_reported_on_every_call_with_the_same_error() -> None:
    bad = _Source("o200k_base", fail=True)
    good = _Source("cl100k_base")
    loader = EncodingLoader([bad, good])
    errors = []
    for _ in range(2):
        with pytest.raises(TokenizerLoadError) as info:
            loader.get("o200k_base")
        errors.append(info.value)
    assert (
        str(errors[0])
        == str(errors[1])
        == ("tokenizer 'o200k_base' failed to load: data file is corrupt")
    )
    assert isinstance(errors[0].__cause__, OSError)
    assert errors[0].__cause__ is errors[1].__cause__
    assert bad.builds == 1  # recorded, not retried
    assert good.builds == 0  # and nothing else was loaded in its place


def test_estimator_surfaces_the_failure_every_time_without_fallback() -> None:
    bad = _Source("o200k_base", fail=True)
    good = _Source("cl100k_base")
    estimator = RequestEstimator(EncodingLoader([bad, good]))
    messages = [Message("user", "hello there")]
    for _ in range(2):
        with pytest.raises(TokenizerLoadError, match="o200k_base"):
            estimator.estimate("gpt-4o", messages)
        with pytest.raises(TokenizerLoadError, match="o200k_base"):
            estimator.count_text("gpt-4o", "hello")
    assert good.builds == 0
    # A model on the other tokenizer is unaffected.
    assert estimator.estimate("mistral-large", messages).raw_tokens > 0


def test_missing_o200k_data_is_reported_never_counted_with_cl100k() -> None:
    missing = _Source("o200k_base", present=False)
    good = _Source("cl100k_base")
    estimator = RequestEstimator(EncodingLoader([missing, good]))
    for _ in range(2):
        with pytest.raises(TokenizerLoadError, match="'o200k_base' is not installed"):
            estimator.estimate("gpt-4o", [Message("user", "hello there")])
    assert missing.builds == 0
    assert good.builds == 0  # no quiet cl100k count in its place


def test_availability_is_checked_once() -> None:
    source = _Source("o200k_base")
    loader = EncodingLoader([source])
    assert loader.available("o200k_base")
    assert loader.available("o200k_base")
    assert source.availability_checks == 1
    assert not loader.available("p50k_base")


def test_unknown_encoding_is_an_error() -> None:
    with pytest.raises(TokenizerLoadError, match="unknown tokenizer 'p50k_base'"):
        EncodingLoader([]).get("p50k_base")
