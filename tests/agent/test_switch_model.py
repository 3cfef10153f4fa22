"""``Runner.switch_model``: the next call goes to the new model, the conversation stays."""

from __future__ import annotations

from steiner_tui.agent.model import MainModel
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ModelInfo
from tests.agent.conftest import RunnerFactory
from tests.agent.fakes import Reply, ScriptedProvider


async def test_the_next_request_goes_to_the_new_model(make_runner: RunnerFactory) -> None:
    runner, first, _ = make_runner([Reply(chunks=("one",))])
    await runner.run(Message("user", "hello"))
    other = ScriptedProvider([Reply(chunks=("two",))], info=ModelInfo(8192, 1024))
    runner.switch_model(MainModel("other", "other-model", other, other.info, prompt_cache_key="k"))
    result = await runner.run(Message("user", "again"))
    assert result.status == "done" and result.reply == "two"
    assert len(first.requests) == 1 and len(other.requests) == 1
    request = other.requests[0]
    assert request.model == "other-model"
    assert [m.content for m in request.messages if m.role == "user"][-2:] == ["hello", "again"]
    assert runner.compactor.model.ref == "other/other-model"
    assert runner.model.budget.context_size == 8192
