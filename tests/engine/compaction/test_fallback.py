"""Fallback selection, LastMainRequest seeding, the cold-cache test and target memoization."""

from __future__ import annotations

from datetime import timedelta

import pytest

from steiner_tui.engine.compaction.fallback import (
    CompactionFallback,
    CompactionFallbackTargets,
    FallbackUnavailable,
    LastMainRequest,
    compaction_cache_cold,
    fallback_transport_identity,
    seed_last_main_request,
    select_compaction_fallback,
)
from steiner_tui.engine.compaction.host import SummaryTarget
from tests.engine.compaction.fakes import T0, Clock, FakeProvider, budget, main_target

TEN = timedelta(minutes=10)


def _target(
    alias: str = "offline", model: str = "summarizer", provider: bool = True
) -> SummaryTarget:
    return SummaryTarget(alias, model, budget(32_768), FakeProvider() if provider else None)


class Resolver:
    def __init__(self, target: SummaryTarget | Exception) -> None:
        self.target = target
        self.calls = 0

    def __call__(self, cache_scope: str = "") -> SummaryTarget:
        self.calls += 1
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


def test_seed_kept_only_when_alias_model_and_cache_key_match() -> None:
    seed = LastMainRequest("anthropic", "m", "key", T0)
    assert seed_last_main_request(seed, "anthropic", "m", "key") == seed
    for args in [("openai", "m", "key"), ("anthropic", "n", "key"), ("anthropic", "m", "other")]:
        assert seed_last_main_request(seed, *args) == LastMainRequest()
    assert LastMainRequest().is_zero


def test_cache_cold() -> None:
    assert compaction_cache_cold(LastMainRequest(), T0, TEN)
    assert not compaction_cache_cold(LastMainRequest(at=T0 - TEN), T0, TEN)
    assert compaction_cache_cold(LastMainRequest(at=T0 - TEN - timedelta(seconds=1)), T0, TEN)


@pytest.mark.parametrize(
    "fallback",
    [None, CompactionFallback(), CompactionFallback("o/s", timedelta(0), Resolver(_target()))],
)
def test_disabled_reads_nothing(fallback: CompactionFallback | None) -> None:
    clock = Clock()
    assert select_compaction_fallback(fallback, LastMainRequest(), clock, main_target()) is None
    assert clock.reads == 0


def test_no_resolve_reads_nothing() -> None:
    clock = Clock()
    fallback = CompactionFallback("o/s", TEN, None)
    assert select_compaction_fallback(fallback, LastMainRequest(), clock, main_target()) is None
    assert clock.reads == 0


def test_warm_cache_runs_on_main_without_resolving() -> None:
    resolver = Resolver(_target())
    fallback = CompactionFallback("o/s", TEN, resolver)
    last = LastMainRequest("anthropic", "main-model", "", T0 - timedelta(minutes=5))
    assert select_compaction_fallback(fallback, last, Clock(), main_target()) is None
    assert resolver.calls == 0


def test_cold_cache_selects_an_isolated_target() -> None:
    fallback = CompactionFallback("offline/summarizer", TEN, Resolver(_target()))
    last = LastMainRequest("anthropic", "main-model", "", T0 - timedelta(minutes=12))
    selection = select_compaction_fallback(
        fallback, last, Clock(), main_target(), main_session="sess-1"
    )
    assert selection is not None and selection.target is not None
    assert selection.reason == "idle 12m > 10m"
    assert selection.target.fallback
    assert selection.target.transport_session.startswith("sess-1-compaction-")
    assert selection.target.transport_session != "sess-1"


def test_random_identity_without_main_session() -> None:
    fallback = CompactionFallback("offline/summarizer", TEN, Resolver(_target()))
    selection = select_compaction_fallback(
        fallback, LastMainRequest(), Clock(), main_target(), new_key=lambda: "rnd"
    )
    assert selection is not None and selection.target is not None
    assert selection.reason == "no recent request"
    assert selection.target.transport_session == "rnd"
    assert len(fallback_transport_identity("", "o/s")) == 16


def test_same_model_as_main_is_not_selected() -> None:
    resolver = Resolver(_target("anthropic", "main-model"))
    fallback = CompactionFallback("anthropic/main-model", TEN, resolver)
    assert select_compaction_fallback(fallback, LastMainRequest(), Clock(), main_target()) is None
    assert resolver.calls == 1


def test_resolve_error_and_missing_provider_fail_the_attempt() -> None:
    failing = CompactionFallback("o/s", TEN, Resolver(ValueError("unknown model o/s")))
    selection = select_compaction_fallback(failing, LastMainRequest(), Clock(), main_target())
    assert selection is not None and selection.target is None
    assert str(selection.error) == "unknown model o/s"
    bare = CompactionFallback("o/s", TEN, Resolver(_target(provider=False)))
    selection = select_compaction_fallback(bare, LastMainRequest(), Clock(), main_target())
    assert selection is not None
    assert isinstance(selection.error, FallbackUnavailable)
    assert str(selection.error) == "compaction fallback offline/summarizer has no provider"


def test_targets_memoized_by_alias_model_scope_not_session() -> None:
    targets: CompactionFallbackTargets[str] = CompactionFallbackTargets()
    built: list[str] = []

    def build(session_id: str) -> str:
        built.append(session_id)
        return f"provider-{len(built)}"

    assert targets.get("o", "s", "scope", "sess-1", build) == "provider-1"
    assert targets.get("o", "s", "scope", "sess-2", build) == "provider-1"
    assert targets.get("o", "s", "other-scope", "sess-2", build) == "provider-2"
    assert targets.get("o", "t", "scope", "sess-1", build) == "provider-3"
    assert built == ["sess-1", "sess-2", "sess-1"]
    assert len(targets) == 3


def test_failed_build_is_not_memoized() -> None:
    targets: CompactionFallbackTargets[str] = CompactionFallbackTargets()
    attempts = 0

    def build(session_id: str) -> str:
        nonlocal attempts
        attempts += 1
        if attempts == 1:
            raise OSError("no network")
        return "built"

    with pytest.raises(OSError, match="no network"):
        targets.get("o", "s", "scope", "sess", build)
    assert len(targets) == 0
    assert targets.get("o", "s", "scope", "sess", build) == "built"
    assert attempts == 2
