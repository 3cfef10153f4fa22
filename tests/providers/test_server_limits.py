"""Windows learned from servers: each flavour's endpoint, answered as the real servers answer.

The fakes (``fake_servers``) are small loopback HTTP servers that answer like the real ones; the
real llama.cpp server is covered by ``tests/llamacpp``.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import msgspec
import pytest

from steiner_tui.agent.from_config import main_model_from_config
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.config import parse_config
from steiner_tui.engine.events import ErrorEvent, ListSink, WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.providers.factory import resolve_model
from steiner_tui.providers.sdk_base import SdkProvider
from steiner_tui.providers.server_limits import (
    ServerLimits,
    ServerUnreachable,
    api_roots,
    probe_server_limits,
    self_hosted,
    served_models,
)
from tests.providers.fake_servers import LLAMA_CPP, LM_STUDIO, OLLAMA, VLLM, Routes, serving, url


@pytest.mark.parametrize(
    ("routes", "model", "expected"),
    [
        (LLAMA_CPP, "anything", ServerLimits("llama.cpp", 4096, False)),
        (VLLM, "Qwen/Qwen2.5-Coder-7B-Instruct", ServerLimits("vLLM", 16384)),
        (LM_STUDIO, "qwen2.5-7b-instruct", ServerLimits("LM Studio", 8192)),
        (OLLAMA, "qwen2.5-coder:7b", ServerLimits("Ollama", 12288, True)),
    ],
    ids=["llama.cpp", "vLLM", "LM Studio", "Ollama"],
)
def test_each_server_flavour_reports_its_window(
    routes: Routes, model: str, expected: ServerLimits
) -> None:
    with serving(routes) as server:
        assert probe_server_limits(url(server), model) == expected
    if routes is OLLAMA:
        assert server.bodies == [{"model": "qwen2.5-coder:7b"}]


def test_llama_cpp_models_meta_when_props_is_off() -> None:
    routes = {key: value for key, value in LLAMA_CPP.items() if key[1] != "/props"}
    with serving(routes) as server:
        assert probe_server_limits(url(server), "x") == ServerLimits("llama.cpp", 4096)


def _ollama(running: list[dict[str, Any]], num_ctx: bool = False) -> dict[Any, Any]:
    """The Ollama fake with ``running`` in ``/api/ps``; its Modelfile sets no ``num_ctx``
    unless ``num_ctx``."""
    show = dict(OLLAMA[("POST", "/api/show")][1])
    if not num_ctx:
        show["parameters"] = 'stop "<|im_end|>"'
    return {
        **OLLAMA,
        ("POST", "/api/show"): (200, show),
        ("GET", "/api/ps"): (200, {"models": running}),
    }


def test_ollama_runs_a_model_it_has_not_loaded_with_its_default_window_not_the_trained_one() -> (
    None
):
    """Ollama loads a model with ``num_ctx`` from its Modelfile, else its default (4,096 under
    24 GiB of VRAM, docs/context-length), never the model's trained ``context_length``, and
    it drops what does not fit without an error. Until the model runs, that default is the
    figure, marked provisional: ``/api/ps`` tells the real one once it is loaded."""
    with serving(_ollama([])) as server:
        assert probe_server_limits(url(server), "qwen2.5-coder:7b") == ServerLimits(
            "Ollama", 4096, True, provisional=True
        )
    assert ("GET", "/api/ps") in server.seen


def test_ollama_tells_the_window_of_a_running_model_in_api_ps() -> None:
    running = {
        "name": "qwen2.5-coder:latest",
        "model": "qwen2.5-coder:latest",
        "context_length": 16384,
    }
    with serving(_ollama([running])) as server:
        assert probe_server_limits(url(server), "qwen2.5-coder") == ServerLimits(
            "Ollama", 16384, True
        )


def test_lm_studio_loads_a_model_with_its_default_window_not_the_maximum() -> None:
    models = dict(LM_STUDIO[("GET", "/api/v0/models")][1])
    models["data"] = [
        {"id": "qwen2.5-7b-instruct", "state": "not-loaded", "max_context_length": 32768}
    ]
    with serving({**LM_STUDIO, ("GET", "/api/v0/models"): (200, models)}) as server:
        assert probe_server_limits(url(server), "qwen2.5-7b-instruct") == ServerLimits(
            "LM Studio", 4096, provisional=True
        )


def test_a_server_that_says_nothing_gives_none() -> None:
    with serving({}) as server:
        assert probe_server_limits(url(server), "m") is None
    assert ("GET", "/props") in server.seen and ("POST", "/api/show") in server.seen


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_a_closed_port_is_unreachable() -> None:
    """Nobody listening is not a server that says nothing: the probe says it could not ask."""
    with pytest.raises(ServerUnreachable):
        probe_server_limits(f"http://127.0.0.1:{_closed_port()}/v1", "m")


def test_a_silent_server_ends_the_probe_at_its_deadline() -> None:
    with socket.socket() as listener:  # accepts connections (the backlog), never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        assert probe_server_limits(f"http://127.0.0.1:{port}/v1", "m", timeout=0.3) is None


def test_api_roots() -> None:
    assert api_roots("http://h:1/v1/") == ("http://h:1/v1", "http://h:1")
    assert api_roots("http://h:1") == ("http://h:1", "http://h:1")


def _runner(tmp_path: Path, table: dict[str, Any]) -> tuple[Any, ListSink]:
    config = parse_config([("config.toml", table)])
    sink = ListSink()
    request = SessionRequest(
        tmp_path,
        config,
        env={},
        model="local/tiny",
        session_id="s1",
        record=False,
        delegation=None,
        sink=sink,
    )
    return build_session(request).runner, sink


async def test_the_runner_learns_the_window_and_drops_ignored_tools(tmp_path: Path) -> None:
    with serving(LLAMA_CPP) as server:
        runner, sink = _runner(tmp_path, {"providers": {"local": {"base_url": url(server)}}})
        assert runner.model.window_source == "default"
        assert runner.model.info.max_output == 1024  # an unknown model on a local server
        assert runner.prepare().request.tools  # before it asks
        assert await runner.learn_limits()
        assert not await runner.learn_limits()  # once
    model = runner.model
    assert (model.info.context_window, model.window_source, model.window_origin) == (
        4096,
        "server",
        "llama.cpp server",
    )
    assert model.budget.context_size == 4096
    prepared = runner.prepare()
    assert prepared.request.tools == () and runner.preview().tools == ()
    warnings = [e for e in sink.events if isinstance(e, WarningEvent)]
    assert [w.code for w in warnings] == ["tools_ignored"]


async def test_a_server_started_after_the_session_is_asked_before_the_next_run(
    tmp_path: Path,
) -> None:
    """A local server that was down when the session opened is asked again at the next run:
    once it is up, its window and tool support apply (tool definitions it ignores are no
    longer counted against a small window)."""
    port = _closed_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    runner, sink = _runner(tmp_path, {"providers": {"local": {"base_url": base_url}}})
    assert not await runner.learn_limits()  # refused: nothing learned, asked again later
    assert runner.model.window_source == "default" and runner.prepare().request.tools
    with serving(LLAMA_CPP, port):
        assert await runner.learn_limits()
        assert not await runner.learn_limits()  # once it has answered, once
    assert runner.model.window_source == "server" and runner.prepare().request.tools == ()
    assert [e.code for e in sink.events if isinstance(e, WarningEvent)] == ["tools_ignored"]


async def test_a_provisional_window_is_asked_again_until_the_model_runs(tmp_path: Path) -> None:
    with serving(_ollama([])) as server:
        table = {"providers": {"local": {"base_url": url(server)}}}
        runner, sink = _runner(tmp_path, table)
        assert await runner.learn_limits()
        assert runner.model.info.context_window == 4096
        running = {"name": "tiny", "model": "tiny", "context_length": 16384}
        server.routes = _ollama([running])  # the first request loaded it
        assert await runner.learn_limits()
        assert not await runner.learn_limits()  # a figure the server runs with: once
    assert (runner.model.info.context_window, runner.model.window_source) == (16384, "server")
    assert not [e for e in sink.events if isinstance(e, WarningEvent | ErrorEvent)]


async def test_a_server_window_too_small_is_asked_again_after_the_error(tmp_path: Path) -> None:
    """A window the request cannot fit stops the run; the person restarts the server with a
    larger context and sends again (F5): the server is asked again, not the old figure kept."""
    props = dict(LLAMA_CPP[("GET", "/props")][1])
    small = {
        **LLAMA_CPP,
        ("GET", "/props"): (200, {**props, "default_generation_settings": {"n_ctx": 512}}),
    }
    with serving(small) as server:
        runner, sink = _runner(tmp_path, {"providers": {"local": {"base_url": url(server)}}})
        result = await runner.run(Message("user", "hello"))
        assert (result.status, result.error_kind) == ("error", "context_window")
        [error] = [e for e in sink.events if isinstance(e, ErrorEvent)]
        assert "--ctx-size" in error.remedies[0].hint
        server.routes = LLAMA_CPP  # restarted with 4,096
        await runner.learn_limits()
    assert runner.model.info.context_window == 4096


LOADING = (503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}})
"""What llama.cpp answers while it loads the model."""


async def test_a_server_still_loading_its_model_is_asked_again(tmp_path: Path) -> None:
    """llama.cpp answers 503 until the model is loaded: that is no answer about the window, so
    the next run asks again, as for a server not started yet."""
    loading = {("GET", "/props"): LOADING, ("GET", "/v1/models"): LOADING}
    with serving(loading) as server:
        with pytest.raises(ServerUnreachable, match="503"):
            probe_server_limits(url(server), "tiny")
        runner, _ = _runner(tmp_path, {"providers": {"local": {"base_url": url(server)}}})
        assert not await runner.learn_limits()
        server.routes = LLAMA_CPP  # loaded
        assert await runner.learn_limits()
    assert (runner.model.info.context_window, runner.model.window_source) == (4096, "server")


async def test_a_configured_window_wins_over_the_server(tmp_path: Path) -> None:
    with serving(LLAMA_CPP) as server:
        table = {
            "providers": {"local": {"base_url": url(server)}},
            "models": {"local/tiny": {"context_window": 65536, "max_output": 512}},
        }
        runner, _ = _runner(tmp_path, table)
        assert await runner.learn_limits()
    model = runner.model
    assert (model.info.context_window, model.window_source) == (65536, "config")
    assert (model.info.max_output, model.max_output_source) == (512, "config")
    assert model.tools_ignored  # what the server does with tools is still what it does


async def test_a_threshold_not_below_the_servers_window_is_a_configuration_error(
    tmp_path: Path,
) -> None:
    """The llama.cpp fake allocates 4,096 tokens; a threshold of 5,000 can never be below it.
    That is reported as configuration rejects a threshold not below a configured window, and
    the run stops: not a silent 70% trigger."""
    with serving(LLAMA_CPP) as server:
        table = {
            "providers": {"local": {"base_url": url(server)}},
            "models": {"local/tiny": {"compaction_threshold_tokens": 5000}},
        }
        runner, sink = _runner(tmp_path, table)
        assert await runner.learn_limits()
        result = await runner.run(Message("user", "hello"))
    expected = (
        'models."local/tiny": compaction_threshold_tokens (5000) must be below the context '
        "window (4096) the llama.cpp server reports"
    )
    assert (result.status, result.error_kind, result.error) == ("error", "config", expected)
    errors = [e for e in sink.events if isinstance(e, ErrorEvent)]
    assert [(e.code, e.message) for e in errors] == [("config", expected)] * 2


def test_hosted_apis_are_not_probed_and_known_models_say_registry() -> None:
    config = parse_config([])
    env = {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}
    openai = resolve_model(config, "openai/gpt-4o", env)
    assert openai.limits_probe is None and openai.window_source == "registry"
    assert resolve_model(config, "anthropic/claude-sonnet-4", env).limits_probe is None
    local = resolve_model(config, "local/qwen2.5-coder:7b", env)
    assert local.limits_probe is not None
    assert (local.window_source, local.info.max_output) == ("registry", 8192)


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://192.168.1.20:1234/v1", True),
        ("http://10.0.0.5:8000/v1", True),
        ("http://100.101.102.103:11434/v1", True),  # a Tailscale address
        ("http://ollama:11434/v1", True),  # a Docker Compose service
        ("http://host.docker.internal:8080/v1", True),
        ("http://gpu-box.local:8000/v1", True),
        ("https://openrouter.ai/api/v1", False),
        ("https://api.groq.com/openai/v1", False),
        ("https://api.deepseek.com/v1", False),
        ("https://api.openai.com/v1", False),
        ("http://8.8.8.8/v1", False),
        ("not a url", False),
    ],
)
def test_a_server_on_this_machine_or_its_network_is_self_hosted(
    base_url: str, expected: bool
) -> None:
    assert self_hosted(base_url) is expected


def test_a_hosted_gateway_is_billed_and_not_probed_unless_config_says_local() -> None:
    """OpenRouter counted as a local server: every model on it was free ($0 in the panel and
    the inspector), its model list was fetched at launch and probed for a window, and a
    window error told to restart the server with --ctx-size."""
    providers = {
        "router": {"type": "openai", "base_url": "https://openrouter.ai/api/v1"},
        "box": {"type": "openai", "base_url": "https://gpu.example.com/v1", "local": True},
    }
    config = parse_config([("c", {"providers": providers})])
    router = resolve_model(config, "router/qwen/qwen3-coder", {})
    assert router.limits_probe is None and router.price is None  # unknown, never $0
    box = resolve_model(config, "box/qwen3-coder", {})
    assert box.limits_probe is not None and box.price is not None and box.price.input == 0
    for resolved, hosted in ((router, False), (box, True)):
        assert isinstance(resolved.provider, SdkProvider)
        assert resolved.provider.self_hosted is hosted  # a window error's remedy (errors)


def test_a_small_learned_window_keeps_an_unconfigured_max_output_to_a_quarter() -> None:
    config = parse_config([])
    resolved = resolve_model(config, "local/qwen2.5-coder:7b", {})  # registry: 32k, 8,192 out
    main = main_model_from_config(config, Path(), session_id="s", ref="local/qwen2.5-coder:7b")
    assert main.info.max_output == resolved.info.max_output == 8192
    learned = main.with_server_limits(ServerLimits("Ollama", 2048, True))
    assert (learned.info.context_window, learned.info.max_output) == (2048, 512)
    assert learned.budget.fit_request(1000).fits  # 1000 + 512 + 256 margin <= 2048
    configured = msgspec.structs.replace(main, max_output_source="config")
    assert configured.with_server_limits(ServerLimits("Ollama", 2048)).info.max_output == 8192


def test_a_window_learned_again_keeps_the_quarter_of_the_new_one() -> None:
    """A provisional window (Ollama before it loads the model), then the one it runs with:
    the reserve is a quarter of the new window, not of the first one it was capped to."""
    config = parse_config([])
    main = main_model_from_config(config, Path(), session_id="s", ref="local/qwen2.5-coder:7b")
    first = main.with_server_limits(ServerLimits("Ollama", 4096, True, provisional=True))
    assert first.info.max_output == 1024
    assert first.with_server_limits(ServerLimits("Ollama", 16384, True)).info.max_output == 4096


async def test_a_provisional_window_below_the_threshold_does_not_stop_the_first_run(
    tmp_path: Path,
) -> None:
    """A threshold set for the window Ollama is started with (OLLAMA_CONTEXT_LENGTH) is above
    the provisional default: stopping there would never let a request load the model."""
    with serving(_ollama([])) as server:
        table = {
            "providers": {"local": {"base_url": url(server)}},
            "models": {"local/tiny": {"compaction_threshold_tokens": 20000}},
        }
        runner, _ = _runner(tmp_path, table)
        assert await runner.learn_limits()
    assert runner.model.threshold_error == ""
    assert runner.model.info.context_window > 20000  # the figure from before, until it runs


def test_the_models_a_server_lists_are_offered_to_model() -> None:
    """Ollama's ``/v1/models`` (every model pulled), in its order; a server that lists none,
    answers 404 or is not there offers nothing, at once."""
    listed = {
        "object": "list",
        "data": [
            {"id": "qwen2.5-coder:7b", "object": "model", "owned_by": "library"},
            {"id": "llama3.1:8b", "object": "model", "owned_by": "library"},
            {"object": "model"},
            {"id": "qwen2.5-coder:7b", "object": "model"},
        ],
    }
    with serving({("GET", "/v1/models"): (200, listed)}) as server:
        assert served_models(url(server)) == ("qwen2.5-coder:7b", "llama3.1:8b")
    with serving({("GET", "/v1/models"): (200, {"data": "none"})}) as server:
        assert served_models(url(server)) == ()
    with serving({}) as server:
        assert served_models(url(server)) == ()
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert served_models(f"http://127.0.0.1:{port}/v1") == ()
