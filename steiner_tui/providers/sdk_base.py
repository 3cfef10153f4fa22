"""What the three SDK-backed providers share: settings, limits lookup, one client per loop.

Each subclass names its default base URL and builds its SDK client in ``_make_client`` (the SDK
import happens there, on the first call, never at module import). Clients have ``close()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from steiner_tui.engine.models import lookup_model
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.providers.streaming import LoopClient

__all__ = ["SdkProvider"]


class _Closable(Protocol):
    async def close(self) -> None: ...


ClientT = TypeVar("ClientT", bound=_Closable)


def _default_model_info(model: str) -> ModelInfo:
    return lookup_model(model)


async def _close(client: _Closable) -> None:
    await client.close()


class SdkProvider(Generic[ClientT]):
    """Base of the Anthropic and OpenAI providers.

    Args:
        alias: provider alias from config.
        api_key: the key (read from the environment by the factory).
        base_url: the endpoint; ``DEFAULT_BASE_URL`` when None. Always passed explicitly, so the
            SDK never falls back to its own environment variables or profiles.
        timeout: seconds per request.
        max_retries: SDK retries (429 and 5xx).
        model_info: limits lookup with config overrides (default: the model registry).
    """

    DEFAULT_BASE_URL = ""
    stateful = False

    def __init__(
        self,
        alias: str,
        api_key: str,
        base_url: str | None = None,
        *,
        timeout: float = 600.0,
        max_retries: int = 2,
        model_info: Callable[[str], ModelInfo] | None = None,
    ) -> None:
        self.alias = alias
        self._api_key = api_key
        self._base_url = base_url or self.DEFAULT_BASE_URL
        self._timeout = timeout
        self._max_retries = max_retries
        self._model_info = model_info or _default_model_info
        self._clients: LoopClient[ClientT] = LoopClient(self._make_client, _close)

    def _make_client(self) -> ClientT:
        raise NotImplementedError

    def _client_settings(self) -> dict[str, Any]:
        """The SDK client's keyword arguments (every setting explicit; nothing from env)."""
        return {
            "api_key": self._api_key,
            "base_url": self._base_url,
            "timeout": self._timeout,
            "max_retries": self._max_retries,
        }

    def model_info(self, model: str) -> ModelInfo:
        """Limits of ``model`` (the registry, with config overrides applied by the factory)."""
        return self._model_info(model)

    async def aclose(self) -> None:
        """Close the HTTP client of the current loop."""
        await self._clients.aclose()
