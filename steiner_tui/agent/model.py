"""The main model of a run: who answers, with what limits, under which cache identity.

Each limit says where it came from (``engine.models.LimitSource``): ``config``
(``[models."<ref>"]``), the ``server`` (learned by asking it, see
``steiner_tui.providers.server_limits``), the ``registry`` (a known model id), or the
``default`` for a model nobody knows. A server's answer replaces the registry's and the
default's window, never the config's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from steiner_tui.engine.budget import (
    MAX_TOKENS_KEYS,
    ModelTokenBudget,
    explicit_max_tokens_value,
    threshold_problem,
)
from steiner_tui.engine.frozen import FrozenDict, freeze
from steiner_tui.engine.models import LimitSource
from steiner_tui.engine.prices import ModelPrice, price_for
from steiner_tui.engine.provider import ModelInfo, Provider
from steiner_tui.engine.window_doctor import WindowDoctor, reply_reserve_cap, window_doctor
from steiner_tui.providers.server_limits import ServerLimits

__all__ = ["MainModel"]


class _Derived:
    """The slot where a model keeps what every request derives from its fields (made in
    ``__post_init__``, which a replaced copy runs again): outside its fields, so outside
    ``__init__``, equality and repr."""

    __slots__ = ("_derived",)
    _derived: tuple[ModelTokenBudget, int, FrozenDict]


class MainModel(msgspec.Struct, _Derived, frozen=True):
    """A resolved main model.

    Attributes:
        alias: provider alias (``offline``, ``anthropic``, ...).
        model: backend model id.
        provider: the built provider.
        info: limits and capabilities (config overrides applied).
        threshold_tokens: ``compaction_threshold_tokens`` (None: 70% of the window).
        prompt_cache_key: the cache identity of requests (per session; children have their own).
        max_tokens: an explicit completion limit (0: none).
        params: request fields sent with every call (``max_tokens``-style keys count as
            explicit limits, after ``extra_params``'s).
        extra_params: server-specific request fields (``max_tokens``-style keys count as
            explicit limits, before ``params``'s).
        window_source: where ``info.context_window`` came from.
        max_output_source: where ``info.max_output`` came from.
        server: the kind of server that told its limits (``llama.cpp``...), once it has.
        tools_ignored: the server said it drops tool definitions (its chat template has no
            tools): requests then carry none, so the estimate and the snapshot match what
            the model sees.
        limits_probe: asks the server for its limits (blocking; None: nobody to ask; raises
            ``ServerUnreachable`` while the server is not there). Compared
            as the provider is, by identity: one resolution gives a model both, so models with
            one provider have one probe.
    """

    alias: str
    model: str
    provider: Provider
    info: ModelInfo
    threshold_tokens: int | None = None
    prompt_cache_key: str = ""
    max_tokens: int = 0
    params: Mapping[str, Any] = msgspec.field(default_factory=FrozenDict)
    extra_params: Mapping[str, Any] = msgspec.field(default_factory=FrozenDict)
    window_source: LimitSource = "registry"
    max_output_source: LimitSource = "registry"
    server: str = ""
    tools_ignored: bool = False
    limits_probe: Callable[[], ServerLimits | None] | None = None
    registry_window: int = 0
    """The registry's window for the model (0: not listed)."""
    server_window: int = 0
    """The window the server reported (0: not asked, or it did not say)."""
    unlearned_max_output: int = 0
    """The max output before a server's window capped it (0: not capped), so that a window
    learned again (a provisional one, a restarted server) caps that, not the capped one."""
    price: ModelPrice | None = None
    """Dollars per million tokens (None: unknown), as resolved from the config when
    ``priced``; else the built-in table's (``engine.prices.price_for``)."""
    priced: bool = False

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "params", freeze(self.params))
        msgspec.structs.force_setattr(self, "extra_params", freeze(self.extra_params))
        if not self.priced:
            msgspec.structs.force_setattr(self, "price", price_for(self.model))
            msgspec.structs.force_setattr(self, "priced", True)
        merged = {**self.params, **self.extra_params}
        derived = (
            ModelTokenBudget.for_model(self.info, threshold_tokens=self.threshold_tokens),
            explicit_max_tokens_value(self.max_tokens, self.extra_params, self.params),
            FrozenDict({k: v for k, v in merged.items() if k not in MAX_TOKENS_KEYS}),
        )
        msgspec.structs.force_setattr(self, "_derived", derived)

    @property
    def ref(self) -> str:
        return f"{self.alias}/{self.model}"

    @property
    def sees_images(self) -> bool:
        """Requests carry images: the model has vision and its provider has not seen it reject
        an image in this session (the provider remembers a rejection per model)."""
        return self.info.vision and self.provider.model_info(self.model).vision

    @property
    def stateful(self) -> bool:
        return bool(getattr(self.provider, "stateful", False))

    def with_server_limits(self, limits: ServerLimits) -> MainModel:
        """This model with what its server said applied (a configured window stays).

        A max output that is not configured is kept to a quarter of a window learned from the
        server: a registry figure meant for a large window (8,192 for a family that usually
        runs with 32k) would otherwise not fit a server that runs the model with 2,048.
        """
        tools_ignored = limits.tools_supported is False
        model = msgspec.structs.replace(self, server=limits.server, tools_ignored=tools_ignored)
        window = limits.context_window
        threshold = self.threshold_tokens
        if limits.provisional and threshold is not None and window is not None:
            # A threshold set for the window the server is started with: the default the
            # model is loaded with otherwise is no reason to stop the request that loads it.
            window = window if threshold < window else None
        if window is None:
            return model
        model = msgspec.structs.replace(model, server_window=window)
        if self.window_source == "config":
            return model
        info = msgspec.structs.replace(self.info, context_window=window)
        if self.max_output_source != "config":
            before = self.unlearned_max_output or info.max_output
            info = msgspec.structs.replace(info, max_output=min(before, reply_reserve_cap(window)))
            model = msgspec.structs.replace(model, unlearned_max_output=before)
        return msgspec.structs.replace(model, info=info, window_source="server")

    @property
    def threshold_error(self) -> str:
        """A ``compaction_threshold_tokens`` not below the window, as configuration reports it
        ("" when it is below, or unset). A window learned from a server can be smaller than
        the threshold configured for it: that is the same configuration error, never a silent
        70% trigger."""
        problem = threshold_problem(self.threshold_tokens, self.info.context_window)
        if not problem:
            return ""
        said = f" the {self.window_origin} reports" if self.window_source == "server" else ""
        return f'models."{self.ref}": {problem}{said}'

    @property
    def window_origin(self) -> str:
        """Where the window figure came from, for people: ``config``, ``llama.cpp server`` (the
        kind of server that said), ``registry`` or ``default``."""
        return _origin(self.window_source, self.server)

    @property
    def max_output_origin(self) -> str:
        """Where the max output figure came from (as ``window_origin``)."""
        return _origin(self.max_output_source, self.server)

    @property
    def explicit_max_tokens(self) -> int:
        """The explicit completion limit: ``max_tokens``, then ``extra_params``, then ``params``."""
        return self._derived[1]

    @property
    def request_fields(self) -> FrozenDict:
        """``params`` then ``extra_params`` (which win), without the max-tokens keys: those set
        the reserve, which every request carries in its provider's own max-tokens field."""
        return self._derived[2]

    @property
    def budget(self) -> ModelTokenBudget:
        return self._derived[0]

    def window_doctor(self, fixed_tokens: int = 0) -> WindowDoctor:
        """Every window figure of the model and whether its budget can reach the trigger
        (``fixed_tokens``: what a request with no conversation costs, see ``window_doctor``)."""
        configured = self.info.context_window if self.window_source == "config" else 0
        return window_doctor(
            self.budget,
            ref=self.ref,
            source=self.window_origin,
            configured=configured,
            server=self.server_window,
            registry=self.registry_window,
            explicit_max=self.explicit_max_tokens,
            fixed_tokens=fixed_tokens,
        )


def _origin(source: LimitSource, server: str) -> str:
    return f"{server} server" if source == "server" and server else source
