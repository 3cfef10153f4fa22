"""From configuration to a working provider: model refs, limits with overrides, API keys.

A model ref is ``<provider alias>/<backend model id>``, split at the first ``/`` (the model id
may contain more, e.g. ``local/library/qwen2.5``). A ref naming only an alias of type ``offline``
means the offline model (``offline``). Limits come from ``steiner_tui.engine.models.lookup_model``
and are overridden field by field by ``[models."<ref>"]`` (or ``[models."<model id>"]``); each
says where it came from (``LimitSource``).

Local servers: an OpenAI-type provider whose base URL names this machine or its network (a
loopback or private address, ``localhost``, a one-word host; ``server_limits.self_hosted``), or
whose ``local`` setting says so, is a local (or self-hosted) server; a hosted gateway
(OpenRouter, Groq) is not: it is billed, and has no window to probe. An unknown model on a
local server gets a modest max output (``engine.models.LOCAL_MAX_OUTPUT_TOKENS``), and the
resolved model carries a probe that asks the server for its window and tool support
(``providers.server_limits``); the runner runs it once, in a thread, before its first
request. Nothing here does network I/O.

Keys come only from the environment variable the provider's ``api_key_env`` names; a provider
with no ``api_key_env`` (a local server) gets the dummy key ``sk-local``. A missing key is a
``ConfigError`` that says which variable to set. SDKs are imported only when a provider streams.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgspec

from steiner_tui.config import Config, ConfigError, ModelConfig, ProviderConfig
from steiner_tui.engine.frozen import FrozenDict
from steiner_tui.engine.models import LimitSource, is_known_model, lookup_model
from steiner_tui.engine.prices import ModelPrice, price_for
from steiner_tui.engine.provider import ModelInfo, Provider
from steiner_tui.engine.window_doctor import reply_reserve_cap
from steiner_tui.providers.anthropic_provider import AnthropicProvider
from steiner_tui.providers.offline import OFFLINE_MODEL, OfflineProvider
from steiner_tui.providers.openai_chat import OpenAIChatProvider
from steiner_tui.providers.openai_responses import OpenAIResponsesProvider
from steiner_tui.providers.sdk_base import SdkProvider
from steiner_tui.providers.server_limits import ServerLimits, probe_server_limits, self_hosted

__all__ = [
    "LOCAL_DUMMY_KEY",
    "ResolvedModel",
    "api_key_for",
    "build_provider",
    "is_local_server",
    "model_choices",
    "model_info_with_overrides",
    "resolve_model",
    "split_model_ref",
]

LOCAL_DUMMY_KEY = "sk-local"

Lookup = Callable[[str], ModelInfo]


LimitsProbe = Callable[[], ServerLimits | None]
"""Asks a local server for its window and tool support (blocking)."""


class ResolvedModel(msgspec.Struct, frozen=True, dict=True):
    """A model ref resolved against the config: who serves it, its limits, its provider.

    Equal by value. The built provider and the probe of a local server are live objects, not
    values: they take no part in equality or repr. They are not fields but live in the
    instance's ``__dict__`` (``dict=True``), given once by ``resolve_model``.
    """

    ref: str
    """The ref as given (``anthropic/claude-sonnet-4-5``)."""
    alias: str
    """Provider alias."""
    model: str
    """Backend model id sent to the API."""
    info: ModelInfo
    """Registry limits with config overrides applied."""
    compaction_threshold_tokens: int | None = None
    max_tokens: int = 0
    """``[models."<ref>"] max_tokens``: an explicit completion limit (0: none)."""
    params: Mapping[str, Any] = msgspec.field(default_factory=FrozenDict)
    """``[models."<ref>"] params``: request fields sent with every call."""
    extra_params: Mapping[str, Any] = msgspec.field(default_factory=FrozenDict)
    """``[models."<ref>"] extra_params``: server-specific request fields."""
    window_source: LimitSource = "registry"
    max_output_source: LimitSource = "registry"
    registry_window: int = 0
    """The registry's window for the model (0: not listed)."""
    price: ModelPrice | None = None
    """Dollars per million tokens: config, else free on a local server, else the table
    (``engine.prices.price_for``); ``None``: unknown."""

    @property
    def provider(self) -> Provider:
        """The built provider."""
        provider: Provider = self.__dict__["provider"]
        return provider

    @property
    def limits_probe(self) -> LimitsProbe | None:
        """Asks a local server for its window and tool support (None: not a local one)."""
        probe: LimitsProbe | None = self.__dict__.get("limits_probe")
        return probe


def is_local_server(provider: ProviderConfig) -> bool:
    """An OpenAI-type provider that is a server someone runs (Ollama, llama.cpp...): its
    ``local`` setting, else a base URL on this machine or its network (``self_hosted``)."""
    if provider.type not in ("openai", "openai_responses") or not provider.base_url:
        return False
    return self_hosted(provider.base_url) if provider.local is None else provider.local


def _registry_lookup(local: bool) -> Lookup:
    def lookup(model: str) -> ModelInfo:
        return lookup_model(model, local=local)

    return lookup


def split_model_ref(config: Config, ref: str) -> tuple[str, str]:
    """``(alias, model id)`` of a ref; raises ``ConfigError`` for an unknown alias."""
    text = ref.strip()
    alias, _, model = text.partition("/")
    provider = config.providers.get(alias)
    if provider is None:
        known = ", ".join(sorted(config.providers))
        reason = f"unknown provider {alias!r}" if alias else "names no provider"
        if text == config.default_model.strip() and config.where("default_model") != "defaults":
            hint = "" if alias else " (a model is provider/model)"
            raise config.error(["default_model"], f"{reason}{hint} (known: {known})")
        raise ConfigError(f"model {ref!r}: {reason} (known: {known})")
    if not model:
        if provider.type != "offline":
            raise ConfigError(f"model {ref!r}: name a model, e.g. {alias}/<model id>")
        model = OFFLINE_MODEL
    return alias, model


def model_choices(config: Config) -> tuple[str, ...]:
    """The model references ``/model`` can switch to, as ``alias/model``: the default model,
    each ``[models."<alias>/<model>"]`` table of a configured provider, the compaction
    fallback, and the offline model, which is always there. A table named by a model id alone
    applies under every provider and names none to switch to; a reference that names no
    configured provider is left out (``/model`` says why when it is typed)."""
    named = (
        config.default_model,
        *(ref for ref in config.models if "/" in ref),
        config.compaction_fallback.model,
        "offline",
    )
    choices: dict[str, None] = {}
    for ref in filter(None, (text.strip() for text in named)):
        try:
            alias, model = split_model_ref(config, ref)
        except ConfigError:
            continue
        choices[f"{alias}/{model}"] = None
    return tuple(choices)


def _overrides(config: Config, alias: str, model: str) -> ModelConfig | None:
    return config.models.get(f"{alias}/{model}") or config.models.get(model)


def model_info_with_overrides(
    config: Config, alias: str, lookup: Lookup | None = None
) -> Callable[[str], ModelInfo]:
    """A ``model -> ModelInfo`` function for one provider alias, config overrides applied."""
    provider = config.providers.get(alias)
    base = lookup or _registry_lookup(provider is not None and is_local_server(provider))

    def info(model: str) -> ModelInfo:
        result = base(model)
        override = _overrides(config, alias, model)
        if override is None:
            return result
        if override.context_window is not None:
            # A configured window gets the server-learned one's rule: an unset max output
            # reserves at most a quarter of it (engine.window_doctor).
            window = override.context_window
            cap = min(result.max_output, reply_reserve_cap(window))
            result = msgspec.structs.replace(result, context_window=window, max_output=cap)
        if override.max_output is not None:
            result = msgspec.structs.replace(result, max_output=override.max_output)
        if override.vision is not None:
            result = msgspec.structs.replace(result, vision=override.vision)
        return result

    return info


def api_key_for(provider: ProviderConfig, env: Mapping[str, str]) -> str:
    """The provider's key from ``env``; the dummy key when it names no variable."""
    if not provider.api_key_env:
        return LOCAL_DUMMY_KEY
    key = env.get(provider.api_key_env, "").strip()
    if not key:
        raise ConfigError(
            f"provider {provider.alias!r} needs an API key: set {provider.api_key_env} in the "
            "environment (keys are never read from config files), or use the offline model "
            "(--model offline; /model offline in the workbench)"
        )
    return key


def build_provider(
    provider_config: ProviderConfig,
    env: Mapping[str, str],
    *,
    project_root: Path | None = None,
    model_info: Callable[[str], ModelInfo] | None = None,
) -> Provider:
    """Construct the provider for one alias (no network, no SDK import).

    Args:
        provider_config: the alias's settings.
        env: the environment the key is read from.
        project_root: the project the offline model answers about (default: the cwd).
        model_info: limits lookup with overrides (default: the plain registry).

    Raises:
        ConfigError: the key is missing.
    """
    kind = provider_config.type
    if kind == "offline":
        return OfflineProvider(
            project_root or Path.cwd(), stream_delay=provider_config.stream_delay_ms / 1000
        )
    key = api_key_for(provider_config, env)
    alias, base_url = provider_config.alias, provider_config.base_url
    timeout, retries = provider_config.timeout, provider_config.max_retries
    classes: dict[str, type[SdkProvider[Any, Any]]] = {
        "anthropic": AnthropicProvider,
        "openai": OpenAIChatProvider,
        "openai_responses": OpenAIResponsesProvider,
    }
    if kind in classes:
        return classes[kind](
            alias,
            key,
            base_url,
            timeout=timeout,
            max_retries=retries,
            model_info=model_info,
            key_env=provider_config.api_key_env or "",
            self_hosted=is_local_server(provider_config),
        )
    raise ConfigError(f"provider {provider_config.alias!r}: unknown type {kind!r}")


def resolve_model(
    config: Config,
    ref: str,
    env: Mapping[str, str],
    *,
    project_root: Path | None = None,
    lookup: Lookup | None = None,
) -> ResolvedModel:
    """Resolve ``ref`` to its provider, limits and compaction threshold.

    Raises:
        ConfigError: unknown alias, missing key, or a compaction threshold at or above the
            effective context window.
    """
    alias, model = split_model_ref(config, ref)
    provider_config = config.providers[alias]
    info_for = model_info_with_overrides(config, alias, lookup)
    info = info_for(model)
    override = _overrides(config, alias, model)
    threshold = override.compaction_threshold_tokens if override else None
    registry: LimitSource = "registry" if lookup is not None or is_known_model(model) else "default"
    if threshold is not None and threshold >= info.context_window:
        table = f"{alias}/{model}" if f"{alias}/{model}" in config.models else model
        raise ConfigError(
            f'{config.where(["models", table])}: models."{table}": compaction_threshold_tokens '
            f"({threshold}) must be below the context window of {alias}/{model} "
            f"({info.context_window}, source: {registry}); lower it, or set context_window"
        )
    provider = build_provider(provider_config, env, project_root=project_root, model_info=info_for)
    resolved = ResolvedModel(
        ref=ref.strip(),
        alias=alias,
        model=model,
        info=info,
        compaction_threshold_tokens=threshold,
        max_tokens=(override.max_tokens or 0) if override else 0,
        params=override.params if override else FrozenDict(),
        extra_params=override.extra_params if override else FrozenDict(),
        window_source="config" if override and override.context_window else registry,
        max_output_source="config" if override and override.max_output else registry,
        registry_window=(
            (lookup or _registry_lookup(is_local_server(provider_config)))(model).context_window
            if registry == "registry"
            else 0
        ),
        price=price_for(
            model,
            override=override.price if override else None,
            local=is_local_server(provider_config),
        ),
    )
    resolved.__dict__.update(
        provider=provider, limits_probe=_limits_probe(provider_config, model, env)
    )
    return resolved


def _limits_probe(
    provider: ProviderConfig, model: str, env: Mapping[str, str]
) -> LimitsProbe | None:
    """The probe of a local server's limits for ``model`` (None: not a local server)."""
    if not is_local_server(provider) or provider.base_url is None:
        return None
    base_url, key = provider.base_url, api_key_for(provider, env)

    def probe() -> ServerLimits | None:
        return probe_server_limits(base_url, model, api_key=key)

    return probe
