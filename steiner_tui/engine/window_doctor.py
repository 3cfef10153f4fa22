"""The window doctor: every window figure a model has, the one in force, and whether it works.

A window comes from the config, a local server, the model registry or a default guess; the
budget built on it reserves room for the reply and a safety margin. When reserve plus margin
leave less room for the prompt than the soft trigger, the trigger can never be reached: every
request that grows past the room is forced into compaction by the hard fit, with a prompt the
panel said was well under the trigger (issue 31: a 4,096 reply reserve in an 8,192 window).
The doctor names that case once, with the fix (or, when a request with no conversation is
already past the room, that only a larger window helps), and the panel and ``context --json``
show its figures (docs/design.md, "7. The window: soft trigger, hard fit, reserves").
"""

from __future__ import annotations

from typing import Any

import msgspec

from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.tool_budget import tool_result_budget

__all__ = ["WindowDoctor", "reply_reserve_cap", "window_doctor"]


def reply_reserve_cap(context_window: int) -> int:
    """The largest reply reserve a window gets when nobody set ``max_output``: a quarter."""
    return max(context_window // 4, 1)


class WindowDoctor(msgspec.Struct, frozen=True):
    """A model's window figures and the budget's limits on the window in force.

    Attributes:
        effective: the window in force.
        source: where it came from (``config``, ``llama.cpp server``, ``registry``, ``default``).
        configured: ``[models."<ref>"] context_window`` (0: not set).
        server: what the model's server reported (0: not asked, or it did not say).
        registry: the registry's figure (0: the model is not listed).
        reserve: the reply reserve a request at the soft trigger gets.
        margin: the safety margin.
        soft: the soft trigger (the prompt that starts compaction).
        hard: the largest prompt that fits with the reserve and the margin.
        fixed: what a request with no conversation costs (0: not counted).
        result: the largest tool result of a conversation's first round
            (``engine.tool_budget``: on a small window the room ``fixed`` leaves under the
            soft trigger decides it; 0: ``fixed`` not counted).
        problem: why the budget cannot work as drawn, with the fix ("" when it can).
    """

    effective: int
    source: str
    configured: int = 0
    server: int = 0
    registry: int = 0
    reserve: int = 0
    margin: int = 0
    soft: int = 0
    hard: int = 0
    fixed: int = 0
    result: int = 0
    problem: str = ""

    @property
    def known(self) -> bool:
        """The window is stated somewhere (config, server, registry), not the default guess."""
        return self.source != "default"

    def line(self) -> str:
        """One line for the panel: the figures and, when the trigger is unreachable, why."""
        # The other figures only where they differ from the one in force.
        seen = [
            f"{name} {value:,}"
            for name, value in (
                ("config", self.configured),
                ("server", self.server),
                ("registry", self.registry),
            )
            if value and value != self.effective
        ]
        told = f" ({', '.join(seen)})" if seen else ""
        guess = "" if self.known else ", a guess"
        result = f" · tool result ≤ {self.result:,}" if self.result else ""
        return (
            f"window {self.effective:,} from {self.source}{guess}{told} · reserve "
            f"{self.reserve:,} · soft {self.soft:,} · prompt room {self.hard:,}{result}"
        )

    def as_json(self) -> dict[str, Any]:
        """The figures as ``context --json`` writes them."""
        return {
            "effective": self.effective,
            "source": self.source,
            "known": self.known,
            "configured": self.configured or None,
            "server": self.server or None,
            "registry": self.registry or None,
            "reserve": self.reserve,
            "safety_margin": self.margin,
            "soft_limit": self.soft,
            "hard_limit": self.hard,
            "fixed_prompt": self.fixed or None,
            "tool_result_max": self.result or None,
            "problem": self.problem or None,
        }


def window_doctor(
    budget: ModelTokenBudget,
    *,
    ref: str,
    source: str,
    configured: int = 0,
    server: int = 0,
    registry: int = 0,
    explicit_max: int = 0,
    fixed_tokens: int = 0,
) -> WindowDoctor:
    """The doctor's figures for ``budget`` (``ref`` names the model in the fix).

    Args:
        budget: the main model's budget.
        ref: ``alias/model``, as the config names it.
        source: where the window in force came from, for people.
        configured: the configured window (0: none).
        server: the window the server reported (0: none).
        registry: the registry's window (0: not listed).
        explicit_max: the model's explicit completion limit (0: none).
        fixed_tokens: the calibrated tokens of a request with no conversation.
    """
    window = budget.context_size
    soft = budget.soft_threshold
    fit = budget.fit_request(soft, explicit_max)
    hard = max(0, window - fit.reserve - fit.safety_margin)
    problem = ""
    if window > 0 and fixed_tokens > hard:  # nothing the budget's settings do can help
        problem = (
            f"a request with no conversation takes ~{fixed_tokens:,} tokens (preamble, "
            f"instructions, tool definitions), more than the {hard:,} the {window:,}-token "
            "window leaves for the prompt: no compaction can make room; give the model a "
            "larger window"
        )
    elif window > 0 and not fit.fits:
        # The fix: a reply reserve that leaves the trigger room, or a trigger under the room.
        reserve = min(reply_reserve_cap(window), window - soft - fit.safety_margin)
        output = f"max_output = {reserve:,} (or less) or " if reserve > 0 else ""
        problem = (
            f"the soft trigger ({soft:,}) cannot be reached: a {fit.reserve:,}-token reply "
            f"reserve and a {fit.safety_margin:,}-token margin leave {hard:,} of the "
            f"{window:,}-token window for the prompt. Fix: set {output}"
            f'compaction_threshold_tokens = {max(1, hard):,} (or less) under [models."{ref}"]'
        )
    return WindowDoctor(
        window,
        source,
        configured,
        server,
        registry,
        fit.reserve,
        fit.safety_margin,
        soft,
        hard,
        fixed_tokens,
        tool_result_budget(budget, fixed_tokens, 1, explicit_max, fixed_tokens)
        if fixed_tokens
        else 0,
        problem,
    )
