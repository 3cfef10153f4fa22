"""The session's permission policy: config rules per tool, plus the user's ``always`` answers.

Config gives each tool a rule: ``ask`` (the default), ``allow`` or ``deny``. ``ask`` forwards the
request to the UI's callback; an ``allow_always`` or ``reject_always`` answer is remembered per
tool until the session ends (a resumed session starts with the ones its log kept: the same session
goes on). The policy itself is a ``PermissionCallback``, so tools see one
interface whether a person, the config or the memory answers. Read-only tools never ask. Each
answer the callback gives is told to ``on_answer`` (the session log keeps it, so a resumed
conversation shows what was asked and answered, as it did live).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from steiner_tui.tools.base import (
    PermissionCallback,
    PermissionDecision,
    PermissionRequest,
    reject_all,
)

__all__ = ["PermissionPolicy", "PermissionRule"]

PermissionRule = Literal["ask", "allow", "deny"]
PERMISSION_RULES: tuple[str, ...] = ("ask", "allow", "deny")


class PermissionPolicy:
    """Wraps the UI callback with per-tool config rules and per-session memory.

    Args:
        callback: Asks the user; called only for tools whose rule is ``ask`` and that have no
            remembered answer.
        rules: Tool name to ``ask``/``allow``/``deny`` (from config).
        default: The rule for tools ``rules`` does not name.
        on_answer: Told each answer ``callback`` gave (never a rule's or a remembered one).
        remembered: The ``always`` answers given earlier in this session, by tool (a resumed
            session's, from its log).
    """

    def __init__(
        self,
        callback: PermissionCallback = reject_all,
        rules: Mapping[str, str] | None = None,
        default: str = "ask",
        on_answer: Callable[[PermissionRequest, PermissionDecision], None] | None = None,
        remembered: Mapping[str, PermissionDecision] | None = None,
    ) -> None:
        for name, rule in {**(rules or {}), "(default)": default}.items():
            if rule not in PERMISSION_RULES:
                raise ValueError(
                    f"permission rule for {name} must be one of {PERMISSION_RULES}, got {rule!r}"
                )
        self._callback = callback
        self._rules: dict[str, str] = dict(rules or {})
        self._default = default
        self._remembered = {
            tool: decision for tool, decision in (remembered or {}).items() if decision.remembered
        }
        self._on_answer = on_answer

    def rule_for(self, tool: str) -> str:
        """The configured rule for ``tool``."""
        return self._rules.get(tool, self._default)

    def remembered(self, tool: str) -> PermissionDecision | None:
        """The ``always`` answer given for ``tool`` this session, if any."""
        return self._remembered.get(tool)

    def forget(self) -> None:
        """Drop every remembered answer (a new session)."""
        self._remembered.clear()

    async def __call__(self, request: PermissionRequest) -> PermissionDecision:
        """Decide a request: config rule first, then memory, then the user."""
        rule = self.rule_for(request.tool)
        if rule == "allow":
            return PermissionDecision.ALLOW_ALWAYS
        if rule == "deny":
            return PermissionDecision.REJECT_ALWAYS
        known = self._remembered.get(request.tool)
        if known is not None:
            return known
        decision = await self._callback(request)
        if self._on_answer is not None:
            self._on_answer(request, decision)
        if decision.remembered:
            self._remembered[request.tool] = decision
        return decision
