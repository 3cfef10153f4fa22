"""``[models."<ref>"] max_tokens``, ``params`` and ``extra_params``: from config to the wire.

The explicit completion limit is the first positive of ``max_tokens``, then the max-tokens keys
of ``extra_params``, then those of ``params``; it lowers the completion reserve and so the
request's max tokens, never raises them. The other request fields go out in the request body.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from steiner_tui.agent.runner import Runner
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.config import Config, ConfigError, parse_config
from steiner_tui.engine.messages import Message
from tests.providers.loopback import LoopbackServer, sse_data, sse_reply

REF = "local/qwen2.5-coder"  # registry: 32,768 window, 8,192 max output


def _runner(tmp_path: Path, config: Config) -> Runner:
    """The runner of a session for ``REF`` under ``config`` (the factory resolves the model)."""
    request = SessionRequest(
        tmp_path,
        config,
        env={},
        model=REF,
        session_id="s1",
        record=False,
        delegation=None,
        tools=(),
    )
    return build_session(request).runner


def _prepared_request(tmp_path: Path, model_table: dict[str, Any]) -> Any:
    config = parse_config([("config.toml", {"models": {REF: model_table}})])
    return _runner(tmp_path, config).prepare().request


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ({}, 8192),
        ({"max_tokens": 500}, 500),
        ({"max_tokens": 500, "extra_params": {"max_tokens": 400}}, 500),
        ({"extra_params": {"max_output_tokens": 400}, "params": {"max_tokens": 300}}, 400),
        ({"params": {"max_completion_tokens": 300}}, 300),
        # Larger than the model's max output: the reserve is not raised.
        ({"max_tokens": 50_000}, 8192),
        ({"params": {"max_tokens": 50_000}}, 8192),
    ],
)
def test_the_explicit_limit_from_config_lowers_the_request_max_tokens(
    tmp_path: Path, table: dict[str, Any], expected: int
) -> None:
    assert _prepared_request(tmp_path, table).max_tokens == expected


def test_params_and_extra_params_travel_without_their_max_tokens_keys(tmp_path: Path) -> None:
    request = _prepared_request(
        tmp_path,
        {
            "params": {"temperature": 0.2, "seed": 7, "max_tokens": 300},
            "extra_params": {"seed": 8, "cache_prompt": True, "max_output_tokens": 9},
        },
    )
    assert dict(request.extra_body) == {"temperature": 0.2, "seed": 8, "cache_prompt": True}
    assert request.max_tokens == 9


def test_config_rejects_a_non_table_params_and_a_non_positive_max_tokens() -> None:
    with pytest.raises(ConfigError, match=r"params.*expected a table"):
        parse_config([("c", {"models": {REF: {"params": 3}}})])
    with pytest.raises(ConfigError, match=r"max_tokens.*positive"):
        parse_config([("c", {"models": {REF: {"max_tokens": 0}}})])


async def test_the_request_fields_reach_the_server(tmp_path: Path) -> None:
    done = [
        sse_data(
            {
                "id": "c1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "m",
                "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}],
            }
        ),
        sse_data("[DONE]"),
    ]
    with LoopbackServer(sse_reply(done)) as server:
        table = {
            "providers": {"local": {"base_url": f"{server.url}/v1"}},
            "models": {REF: {"max_tokens": 64, "params": {"temperature": 0.1}}},
        }
        runner = _runner(tmp_path, parse_config([("c", table)]))
        result = await runner.run(Message("user", "hi"))
    assert result.status == "done"
    body = server.requests[0].body
    assert body["max_tokens"] == 64
    assert body["temperature"] == 0.1
