"""The what-if simulation's own rules (the replay check is ``tests/agent/test_whatif_replay``)."""

from __future__ import annotations

from collections.abc import Sequence

from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.messages import Message
from steiner_tui.engine.whatif import RecordedRequest, WhatIf, simulate


def _tokens(messages: Sequence[Message]) -> int:
    return 100 + sum(len(m.content) for m in messages) // 4


def _requests(turns: int, size: int) -> list[RecordedRequest]:
    conversation: list[Message] = []
    out = []
    for turn in range(1, turns + 1):
        conversation += [Message("user", "u" * size, turn=turn)]
        out.append(RecordedRequest(tuple(conversation), _tokens(conversation), "0"))
        conversation += [Message("assistant", f"answer {turn}", turn=turn)]
    return out


def test_off_never_compacts_and_says_where_a_request_would_not_fit() -> None:
    budget = ModelTokenBudget(4000, 400)
    result = simulate(
        _requests(20, 1200),
        WhatIf(2000, "off"),
        budget=budget,
        estimate=_tokens,
        summarize=lambda part, mode: "S",
    )
    assert result.count == 0 and result.stopped_at is not None
    assert all(budget.fit_request(p).fits for p in result.prompt_tokens)


def test_auto_compacts_at_the_threshold_and_keeps_every_request_under_it() -> None:
    budget = ModelTokenBudget(40_000, 400)
    result = simulate(
        _requests(20, 1200),
        WhatIf(3000),
        budget=budget,
        estimate=_tokens,
        summarize=lambda part, mode: "summary " * 10,
    )
    assert result.compactions == (9, 16) and result.stopped_at is None
    assert all(p < 3000 for p in result.prompt_tokens)
    assert len(result.prompt_tokens) == 20
    assert 0 < result.cache_read_share < 1
