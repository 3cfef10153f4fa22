"""The provider's SDK is imported after the first frame, before the first request needs it."""

from __future__ import annotations

from dataclasses import dataclass

from tests.app.conftest import SIZE, AppFactory
from tests.app.fakes import GateProvider, fake_model


@dataclass
class WarmProvider(GateProvider):
    warmed: int = 0

    async def warm(self) -> None:
        self.warmed += 1


async def test_the_provider_is_warmed_after_the_first_frame(app_for: AppFactory) -> None:
    provider = WarmProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert provider.warmed == 1
