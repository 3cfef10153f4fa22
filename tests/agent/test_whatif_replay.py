"""What-if thresholds checked against a real replay: the same session on the offline model
(deterministic), once with the default trigger, then again with the threshold set for real."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.agent.whatif import what_if
from steiner_tui.engine.events import ListSink, RequestSnapshot
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.engine.whatif import WhatIf, observed, recorded_requests
from steiner_tui.providers.offline import OfflineProvider

WINDOW = 8000
MESSAGES = [
    "what is in this project?",
    "read README.md",
    "we decided to keep the parser in src/parse.py; " + "notes on the design " * 40,
    "search for TODO",
    "the tests run with pytest -q and must stay green; " + "details of the plan " * 50,
    "read app.py",
    "remember the CLI flag is --verbose; " + "more context for later " * 45,
    "what is in this project?",
    "summarize what we did so far; " + "padding words here " * 40,
    "read README.md",
    "one more requirement: log to stderr; " + "further notes " * 60,
    "search for def",
]


def _session(
    project: Path, clock: ManualClock, threshold: int | None
) -> tuple[InteractiveDriver, ListSink]:
    provider = OfflineProvider(project)
    info = ModelInfo(WINDOW, 1024, tokenizer="heuristic")
    main = MainModel(
        "offline", "offline", provider, info, threshold_tokens=threshold, prompt_cache_key="k"
    )
    sink = ListSink()
    request = SessionRequest(
        project,
        model=main,
        session_id="s1",
        record=False,
        delegation=None,
        sink=sink,
        clock=clock,
        estimator=RequestEstimator(default_encoding_loader(None)),
    )
    return build_session(request).driver, sink


async def _run(
    project: Path, clock: ManualClock, threshold: int | None
) -> tuple[InteractiveDriver, list[RequestSnapshot]]:
    driver, sink = _session(project, clock, threshold)
    for text in MESSAGES:
        result = await driver.submit(text)
        assert result.status == "done", result.error
    return driver, [e for e in sink.events if isinstance(e, RequestSnapshot)]  # type: ignore[misc]


async def test_the_simulation_matches_a_replay_with_that_threshold(
    project: Path, clock: ManualClock
) -> None:
    (project / "src").mkdir()
    (project / "src" / "parse.py").write_text("# TODO: parse\ndef parse(x):\n    return x\n")
    original, recorded = await _run(project, clock, None)
    runner = original.runner

    def estimate(messages):  # type: ignore[no-untyped-def]
        return runner.prepare(messages).estimate.tokens

    settings = [WhatIf(2500), WhatIf(3500), WhatIf(2500, "ask"), WhatIf(2500, "off")]
    as_it_went, results = what_if(runner, recorded, settings)
    assert as_it_went.setting.threshold == runner.model.budget.soft_threshold
    assert as_it_went.count == 0  # the default trigger never fired in this session
    for result in results[:2]:
        _, replayed = await _run(project, clock, result.setting.threshold)
        real = observed(recorded_requests(replayed), runner.model.budget, estimate)
        assert result.count > 0
        assert result.compactions == real.compactions
        assert len(result.prompt_tokens) == len(real.prompt_tokens)
        for simulated, sent in zip(result.prompt_tokens, real.prompt_tokens, strict=True):
            assert abs(simulated - sent) <= sent // 50  # within 2% per request
        assert abs(result.tokens_sent - real.tokens_sent) <= real.tokens_sent // 50
        assert abs(result.cache_read_share - real.cache_read_share) < 0.03
    assert results[2].compactions == results[0].compactions  # ask asks where auto compacts
    off = results[3]
    assert off.count == 0 and off.stopped_at is None
    assert off.prompt_tokens == as_it_went.prompt_tokens
    # Compacting at 2,500 re-sends more (summary requests) than at 3,500, which here also
    # sends less than never compacting.
    assert results[0].tokens_sent > off.tokens_sent > results[1].tokens_sent


async def test_the_sessions_own_setting_is_how_it_went(project: Path, clock: ManualClock) -> None:
    """What-if at the session's own threshold gave 11 compactions beside "as it went: 10": the
    session's own setting is not simulated again, it is the record."""
    (project / "src").mkdir()
    (project / "src" / "parse.py").write_text("# TODO: parse\ndef parse(x):\n    return x\n")
    driver, recorded = await _run(project, clock, 2500)
    runner = driver.runner
    own = WhatIf(runner.model.budget.soft_threshold, runner.compaction_mode)
    as_it_went, (result, other) = what_if(runner, recorded, [own, WhatIf(own.threshold, "off")])
    assert as_it_went.count > 0
    assert result.setting == own and other.setting.mode == "off"
    assert (result.compactions, result.prompt_tokens, result.tokens_sent) == (
        as_it_went.compactions,
        as_it_went.prompt_tokens,
        as_it_went.tokens_sent,
    )
    assert result.cache_read_tokens == as_it_went.cache_read_tokens
