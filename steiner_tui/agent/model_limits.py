"""What the runner learns about its model's limits: the server's window and tool support, asked
once, and the window problems it warns of, once each.

A local model's server is asked for its window and tool support before the first request
(``learn``, once, in a thread; the app starts it as soon as the session opens). A server whose
chat template drops tool definitions gets none: the estimate, the snapshot and the request
then all say what the model really sees. Kept apart from ``runner`` so it holds only turns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from steiner_tui.agent.model import MainModel
from steiner_tui.agent.run_types import RunResult
from steiner_tui.engine.events import EngineEvent, ErrorEvent, WarningEvent
from steiner_tui.engine.tokens import TokenizerLoadError
from steiner_tui.providers.server_limits import ServerLimits, ServerUnreachable

__all__ = ["ModelLimits", "learned_events"]


class ModelLimits:
    """Whether the model's server was asked yet, and which window problems were told."""

    def __init__(self, model: MainModel) -> None:
        self.learned = model.limits_probe is None
        """True once the server answered (or when there is nobody to ask)."""
        self._lock = asyncio.Lock()
        self._warned: set[str] = set()
        self._checked: tuple[MainModel | None, str] = (None, "")

    def forget(self, model: MainModel) -> None:
        """Ask ``model``'s server again (``/model``)."""
        self.learned = model.limits_probe is None

    async def learn(self, current: Callable[[], MainModel]) -> ServerLimits | None:
        """Ask the server of the ``current`` model for its limits, once it answers (the probe
        runs in a thread); later calls, and calls while it runs, wait for that answer. A server
        that could not be reached is asked again by the next call: it may have been started
        since, and so is one whose window is provisional (the model not loaded yet). The
        limits when the server answered (None: nothing learned)."""
        if self.learned:
            return None
        async with self._lock:
            probe = current().limits_probe
            if self.learned or probe is None:
                return None
            try:
                limits = await asyncio.to_thread(probe)
            except ServerUnreachable:
                return None
            self.learned = limits is None or not limits.provisional
        return limits

    def after_run(self, model: MainModel, result: RunResult) -> RunResult:
        """``result``; after a request too large for a window the server told, the server is
        asked again at the next run: it may have been restarted with another context size."""
        too_large = result.error_kind in ("context_window", "context_length")
        if too_large and model.window_source == "server":
            self.forget(model)
        return result

    def check_window(
        self, model: MainModel, emit: Callable[[EngineEvent], None], fixed: Callable[[], int]
    ) -> str:
        """Warn once per problem when ``model``'s budget cannot reach its soft trigger, or
        ``fixed`` (the tokens of a request with no conversation) is past its prompt room
        (``engine.window_doctor``); returns the problem ("" when there is none)."""
        checked, problem = self._checked
        if checked is not model:  # a model's figures do not change: checked once each
            try:
                tokens = fixed()
            except TokenizerLoadError:  # the run says so; the budget is checked without it
                tokens = 0
            problem = model.window_doctor(tokens).problem
            self._checked = (model, problem)
        if problem and problem not in self._warned:
            self._warned.add(problem)
            emit(WarningEvent("window_unreachable", f"{model.ref}: {problem}"))
        return problem


def learned_events(
    model: MainModel, server: str, has_tools: bool, again: bool = False
) -> list[EngineEvent]:
    """What to tell once ``model`` took its server's limits: a threshold the window cannot
    hold, tools the server's chat template ignores (``again``: the server was asked before,
    its answer provisional; only an error is told a second time)."""
    events: list[EngineEvent] = []
    if model.threshold_error:
        events.append(ErrorEvent("config", model.threshold_error))
    if model.tools_ignored and has_tools and not again:
        events.append(
            WarningEvent(
                "tools_ignored",
                f"{model.ref}: the {server} server's chat template ignores "
                "tool definitions; they are not sent (the model cannot call tools)",
            )
        )
    return events
