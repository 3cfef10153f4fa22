"""What an OpenAI-compatible server says about the model it serves: its window, tool support.

The registry only guesses a local model's window (an unknown one gets 32,768 tokens), while the
server knows the one it allocated: llama.cpp had 8,192 and rejected every request in between.
So when config does not set ``context_window``, the server is asked, each flavour at its own
endpoint, first answer wins:

* llama.cpp: ``GET /props``: ``default_generation_settings.n_ctx`` (or a top-level ``n_ctx``),
  and ``chat_template_caps.supports_tools`` (false: its chat template drops tool definitions);
* vLLM, and llama.cpp again: ``GET /v1/models``: the model's ``max_model_len`` (vLLM) or its
  ``meta.n_ctx`` / ``meta.n_ctx_train`` (llama.cpp);
* LM Studio: ``GET /api/v0/models``: ``loaded_context_length`` of a loaded model;
* Ollama: ``GET /api/ps``: the ``context_length`` of a running model; ``POST /api/show``: the
  ``num_ctx`` of its Modelfile (``parameters``); ``capabilities`` lists ``tools`` when it
  takes them.

A model that Ollama or LM Studio has not loaded yet has no window to tell: each loads it with
its own default (4,096 tokens for Ollama under 24 GiB of VRAM and for LM Studio's loader)
unless something sets one, never with the model's trained maximum (``context_length``,
``max_context_length``), and both cut a prompt that does not fit without an error. So the
figure is then that default, capped by the maximum, and ``provisional``: the runner asks
again before its next request, by when the first one has loaded the model.

``probe_server_limits`` blocks (a short timeout per request and a deadline for the whole probe):
the runner calls it in a thread, once, before its first request, and never at import. It asks
over ``httpx2``, the HTTP library the provider SDKs bring, imported by the probe's first request
as the SDKs are by a provider's first call: a session that never probes (the offline model, a
hosted API) imports no HTTP client. A server that answers none of these (a hosted API) gives
None: the registry's figures stay. A server that is not there (every request refused, or no
connection in time) raises ``ServerUnreachable``: the runner asks again before its next
request, so a server started after the workbench still tells its window and tool support; so
does one that said nothing but 503 (``ServerLoading``: llama.cpp while it loads the model).
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import msgspec

from steiner_tui.errors import SteinerError

__all__ = [
    "LOAD_DEFAULT_WINDOW",
    "PROBE_TIMEOUT",
    "ServerLimits",
    "ServerLoading",
    "ServerUnreachable",
    "api_roots",
    "probe_server_limits",
    "self_hosted",
    "served_models",
]

PROBE_TIMEOUT = 3.0
"""Seconds for the whole probe (each request gets what is left of it)."""
LOAD_DEFAULT_WINDOW = 4096
"""The window Ollama and LM Studio load a model with when nothing sets one."""
_MAX_BODY = 8 << 20
"""Largest body read (a hosted API's model list can be long; a local one is small)."""

_PRIVATE_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa", ".ts.net")
"""Names that resolve only on this machine or its network (mDNS, Docker's
``host.docker.internal``, home routers, a Tailscale tailnet)."""


def self_hosted(base_url: str) -> bool:
    """Whether ``base_url`` names a server on this machine or its network (a loopback, private
    or shared address, ``localhost``, a one-word host such as a Docker service, a private
    suffix) rather than a hosted API (OpenRouter, Groq, DeepSeek: billed, their window known).
    """
    host = (urlsplit(base_url).hostname or "").rstrip(".")
    try:
        return not ipaddress.ip_address(host).is_global
    except ValueError:
        return bool(host) and ("." not in host or host.endswith(_PRIVATE_SUFFIXES))


Fetch = Callable[[str, bytes | None, float], Any]
"""``(url, JSON body or None for GET, timeout) -> parsed JSON``; raises ``OSError`` or
``ValueError`` when there is no usable answer (``ServerUnreachable`` when no connection was
made)."""


class ServerUnreachable(SteinerError, OSError):
    """No connection to the server: refused, or not made in time (it may be started later)."""


class ServerLoading(ServerUnreachable):
    """The server answered 503, as llama.cpp does until its model is loaded: ask it later."""


class ServerLimits(msgspec.Struct, frozen=True):
    """What one server said about a model.

    Attributes:
        server: which kind of server answered (``llama.cpp``, ``vLLM``, ``LM Studio``,
            ``Ollama``).
        context_window: the window it serves the model with (None: it did not say).
        tools_supported: whether it passes tool definitions to the model (None: it did not say).
        provisional: the model is not loaded yet: ``context_window`` is the window the server
            will load it with by default, to be asked again once the model runs.
    """

    server: str
    context_window: int | None = None
    tools_supported: bool | None = None
    provisional: bool = False


def api_roots(base_url: str) -> tuple[str, str]:
    """``(api, root)``: the OpenAI-compatible base (``.../v1``) and the server's root."""
    api = base_url.rstrip("/")
    root = api.removesuffix("/v1") if api.endswith("/v1") else api
    return api, root


def _positive(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if value > 0 else None


def _llama_props(body: Any) -> ServerLimits | None:
    if not isinstance(body, Mapping):
        return None
    settings = body.get("default_generation_settings")
    window = _positive(settings.get("n_ctx")) if isinstance(settings, Mapping) else None
    window = window or _positive(body.get("n_ctx"))
    caps = body.get("chat_template_caps")
    tools = caps.get("supports_tools") if isinstance(caps, Mapping) else None
    if window is None and not isinstance(tools, bool):
        return None
    return ServerLimits("llama.cpp", window, tools if isinstance(tools, bool) else None)


def _entry(entries: Any, model: str) -> Mapping[str, Any] | None:
    """The list entry whose ``id`` is ``model``; the only entry when there is one."""
    if not isinstance(entries, list):
        return None
    rows = [e for e in entries if isinstance(e, Mapping)]
    for row in rows:
        if row.get("id") == model or row.get("model") == model:
            return row
    return rows[0] if len(rows) == 1 else None


def _openai_models(body: Any, model: str) -> ServerLimits | None:
    row = _entry(body.get("data") if isinstance(body, Mapping) else None, model)
    if row is None:
        return None
    vllm = _positive(row.get("max_model_len"))
    if vllm is not None:
        return ServerLimits("vLLM", vllm)
    meta = row.get("meta")
    if isinstance(meta, Mapping):
        window = _positive(meta.get("n_ctx")) or _positive(meta.get("n_ctx_train"))
        if window is not None:
            return ServerLimits("llama.cpp", window)
    return None


def _lm_studio(body: Any, model: str) -> ServerLimits | None:
    row = _entry(body.get("data") if isinstance(body, Mapping) else None, model)
    if row is None:
        return None
    loaded = _positive(row.get("loaded_context_length"))
    if loaded is not None:
        return ServerLimits("LM Studio", loaded)
    most = _positive(row.get("max_context_length"))
    if most is None:
        return None
    return ServerLimits("LM Studio", min(most, LOAD_DEFAULT_WINDOW), provisional=True)


def _ollama_num_ctx(parameters: Any) -> int | None:
    if not isinstance(parameters, str):
        return None
    for line in parameters.splitlines():
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx" and value.strip().isdigit():
            return _positive(int(value.strip()))
    return None


def _ollama_show(body: Any) -> ServerLimits | None:
    if not isinstance(body, Mapping):
        return None
    info = body.get("model_info")
    trained = None
    if isinstance(info, Mapping):
        trained = next(
            (
                _positive(value)
                for key, value in info.items()
                if isinstance(key, str) and key.endswith(".context_length")
            ),
            None,
        )
    window = _ollama_num_ctx(body.get("parameters"))
    capabilities = body.get("capabilities")
    tools = "tools" in capabilities if isinstance(capabilities, list) else None
    if window is None and trained is not None:
        return ServerLimits("Ollama", min(trained, LOAD_DEFAULT_WINDOW), tools, provisional=True)
    if window is None and tools is None:
        return None
    return ServerLimits("Ollama", window, tools)


def _ollama_ps(body: Any, model: str) -> ServerLimits | None:
    """The window of ``model`` among the running ones (a name without a tag is ``:latest``)."""
    rows = body.get("models") if isinstance(body, Mapping) else None
    names = {model, f"{model}:latest"}
    for row in rows if isinstance(rows, list) else ():
        if isinstance(row, Mapping) and names & {row.get("name"), row.get("model")}:
            window = _positive(row.get("context_length"))
            return ServerLimits("Ollama", window) if window is not None else None
    return None


def _http_fetch(api_key: str) -> Fetch:
    headers = {"accept": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"

    def fetch(url: str, body: bytes | None, timeout: float) -> Any:
        # The SDKs' HTTP library, imported as they are: by the first call that needs it.
        import httpx2

        sent = {**headers, "content-type": "application/json"} if body is not None else headers
        method = "GET" if body is None else "POST"
        try:
            with httpx2.stream(
                method, url, content=body, headers=sent, timeout=timeout, follow_redirects=True
            ) as response:
                response.raise_for_status()
                data = bytearray()
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) >= _MAX_BODY:
                        break
        except (httpx2.ConnectError, httpx2.ConnectTimeout) as error:  # nobody there
            raise ServerUnreachable(str(error)) from error
        except httpx2.HTTPStatusError as error:
            if error.response.status_code == 503:
                raise ServerLoading(str(error)) from error
            raise OSError(str(error)) from error
        except httpx2.HTTPError as error:  # timed out answering
            raise OSError(str(error)) from error
        return json.loads(bytes(data[:_MAX_BODY]))

    return fetch


def probe_server_limits(
    base_url: str,
    model: str,
    *,
    api_key: str = "",
    timeout: float = PROBE_TIMEOUT,
) -> ServerLimits | None:
    """Ask the server at ``base_url`` for ``model``'s window and tool support (blocking).

    Args:
        base_url: the provider's OpenAI-compatible base URL (``http://host:8080/v1``).
        model: the backend model id, as sent in requests.
        api_key: sent as a bearer token (servers started with a key want it on every path).
        timeout: seconds for the whole probe.

    Returns:
        The first flavour's answer that names a window the model runs with, with the tool
        support said before it; else a provisional window or tool support; else None.

    Raises:
        ServerUnreachable: no request reached the server, or (``ServerLoading``) it said
            nothing but 503.
    """
    call = _http_fetch(api_key)
    api, root = api_roots(base_url)
    deadline = time.monotonic() + timeout
    show = json.dumps({"model": model}).encode()
    steps: tuple[tuple[str, bytes | None, Callable[[Any], ServerLimits | None]], ...] = (
        (f"{root}/props", None, _llama_props),
        (f"{api}/models", None, lambda body: _openai_models(body, model)),
        (f"{root}/api/v0/models", None, lambda body: _lm_studio(body, model)),
        (f"{root}/api/show", show, _ollama_show),
        (f"{root}/api/ps", None, lambda body: _ollama_ps(body, model)),
    )
    found: ServerLimits | None = None
    unreachable: ServerUnreachable | None = None
    loading: ServerLoading | None = None
    reached = False
    for url, body, read in steps:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            answer = read(call(url, body, left))
        except ServerLoading as error:
            reached, loading = True, error
            continue
        except ServerUnreachable as error:
            unreachable = error
            continue
        except (OSError, ValueError):
            # Timed out, not found, not JSON: this server is not of that flavour.
            reached = True
            continue
        reached = True
        if answer is None:
            continue
        if found is None:
            found = answer
        elif answer.context_window is not None and (
            found.context_window is None or (found.provisional and not answer.provisional)
        ):  # llama.cpp's /props without n_ctx, Ollama's /api/show: keep their caps
            found = ServerLimits(
                found.server, answer.context_window, found.tools_supported, answer.provisional
            )
        if found.context_window is not None and not found.provisional:
            return found
    if found is None and loading is not None:
        raise loading
    if not reached and unreachable is not None:
        raise unreachable
    return found


def served_models(
    base_url: str, *, api_key: str = "", timeout: float = PROBE_TIMEOUT
) -> tuple[str, ...]:
    """The ids of the models the server at ``base_url`` lists at ``<base_url>/models`` (the
    OpenAI API's list, which llama.cpp, Ollama, vLLM and LM Studio all serve), in its order
    (blocking); () when it lists none, answers something else or does not answer in
    ``timeout`` seconds: they are only offered to ``/model``."""
    api, _ = api_roots(base_url)
    try:
        body = _http_fetch(api_key)(f"{api}/models", None, timeout)
    except (OSError, ValueError):
        return ()
    rows = body.get("data") if isinstance(body, Mapping) else None
    ids = (
        (row.get("id") for row in rows if isinstance(row, Mapping))
        if isinstance(rows, list)
        else ()
    )
    return tuple(dict.fromkeys(i for i in ids if isinstance(i, str) and i.strip()))
