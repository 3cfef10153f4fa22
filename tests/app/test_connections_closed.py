"""The workbench closes its provider's connections when it exits (none left to the garbage
collector, which found one in the llama.cpp test: ``tests/providers/test_connections.py``)."""

from __future__ import annotations

import asyncio

from steiner_tui.agent.model import MainModel
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import finish, send
from tests.providers.loopback import LoopbackServer, Reply
from tests.providers.protocols import CHAT


async def test_quitting_closes_the_connection_a_reply_left_in_the_pool(
    app_for: AppFactory,
) -> None:
    with LoopbackServer(Reply(parts=CHAT.text_reply("Hello."), keep_alive=True)) as server:
        provider = CHAT.provider(server, timeout=5.0, max_retries=0)
        main = MainModel(provider.alias, CHAT.model, provider, provider.model_info(CHAT.model))
        app = app_for(main)
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "Say hello.")
            await finish(pilot)
            assert len(server.requests) == 1
        assert await asyncio.to_thread(server.wait_closed)
