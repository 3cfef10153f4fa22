"""``ask`` when the next request does not fit the window (docs/design.md, "Compaction modes"):
the question says so and offers no "send anyway", nothing over the hard fit is ever sent, and
compacting makes a request that fits."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from steiner_tui.agent.model import MainModel
from steiner_tui.engine.provider import ChatRequest, ModelInfo, ProviderEvent
from steiner_tui.providers.offline import OfflineProvider
from tests.app.conftest import AppFactory
from tests.app.helpers import finish, send, static_text
from tests.app.test_steering import BEFORE, _question, _turns

INFO = ModelInfo(context_window=8000, max_output=1024, tokenizer="heuristic")
WORDS = "the quick brown fox reads the log line and files it away for later "


@dataclass
class Recording:
    """The offline model, keeping every request it is sent."""

    inner: OfflineProvider
    requests: list[ChatRequest] = field(default_factory=list)
    alias: str = "offline"
    stateful: bool = False

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        async for event in self.inner.stream(request):
            yield event


async def test_ask_past_the_hard_fit_offers_no_send_and_sends_nothing_that_does_not_fit(
    app_for: AppFactory, project: Path
) -> None:
    provider = Recording(OfflineProvider(project))
    main = MainModel("offline", "offline", provider, INFO)
    app = app_for(main, config={"compaction": {"mode": "ask"}})
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await _turns(pilot, BEFORE)
        sent = len(provider.requests)
        await send(pilot, "look at this: " + WORDS * 300)  # ~20 KB: past the hard fit
        prompt = await _question(pilot)
        question = prompt.entry.question
        assert question.reason == "over_window" and not question.can_send
        assert question.prompt_tokens > question.hard_limit
        text = static_text(prompt.query_one(".compaction-question"))
        # Under 8,000 tokens, yet over: the reply's reserve is what the prompt cannot take.
        reserve = f"does not fit the window (8,000) with {INFO.max_output:,} kept for the reply"
        assert reserve in text
        assert "c compact now" in text and "send anyway" not in text
        assert len(provider.requests) == sent  # nothing was sent
        await pilot.press("s")  # not offered: typed into the prompt, as any key no one takes
        await pilot.pause()
        assert app.workbench.prompt.text == "s"
        assert prompt.is_open and len(provider.requests) == sent
        await _question(pilot)  # F8 turns to it again
        await pilot.press("c")
        await finish(pilot)
        assert "→ compact now" in static_text(prompt.query_one(".compaction-question"))
        lineage = app.workbench.hold.driver.lineage
        assert len(lineage.generations) == 2 and lineage.active.outcome is not None
        # Sent after the answer: the summary request, then the main request, which fits.
        assert len(provider.requests) >= sent + 2
        snapshots = app.workbench.hold.session.snapshots.all()
        assert all(s.estimated_prompt_tokens <= question.hard_limit for s in snapshots)
        main_sent = [s for s in snapshots if not s.compaction][-1]
        assert main_sent.estimated_prompt_tokens < question.prompt_tokens
        users = [m for m in provider.requests[-1].messages if m.role == "user"]
        assert users[-1].content.startswith("look at this: ")  # the message itself, kept
        assert not app.workbench.busy
