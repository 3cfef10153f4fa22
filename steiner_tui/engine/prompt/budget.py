"""Per-source byte budgets: the policy, its validation, and ``apply_budget``.

Budgets are cumulative per source over one assembly: the project-context files share 8000 bytes
and static skills share 106496 by default. A block that finds its source's budget spent is
dropped; one that finds part of it is cut on a UTF-8 boundary, its trailing whitespace stripped,
and flagged as truncated (no marker text, unlike a skill body's cap). AGENTS.md sources and the
session date bypass budgets entirely.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from steiner_tui.engine.frozen import FrozenDict
from steiner_tui.engine.prompt.sources import DEFAULT_BUDGETS, UNBUDGETED_SOURCES, ContextSource

__all__ = [
    "AssemblyPolicy",
    "apply_budget",
    "cut_utf8",
]

NEGATIVE_BUDGET_ERROR: Final = "assembly budgets must not be negative"

_TRAILING_WS: Final = " \t\r\n"


class AssemblyPolicy(msgspec.Struct, frozen=True):
    """Budget overrides by source name (bytes); sources not named keep their defaults.

    A budget of 0 means "unset" and falls back to the default; a negative budget is rejected.

    Raises:
        ValueError: ``assembly budgets must not be negative`` (a note names the source).
    """

    budgets: Mapping[str, int] = msgspec.field(default_factory=FrozenDict)

    def __post_init__(self) -> None:
        for source, value in self.budgets.items():
            if value < 0:
                error = ValueError(NEGATIVE_BUDGET_ERROR)
                error.add_note(f"budget for {source!s} is {value}")
                raise error
        frozen = FrozenDict({str(k): v for k, v in self.budgets.items()})
        msgspec.structs.force_setattr(self, "budgets", frozen)

    def effective(self) -> dict[str, int]:
        """The budgets in force: defaults overlaid with every positive override."""
        out = dict(DEFAULT_BUDGETS)
        out.update({k: v for k, v in self.budgets.items() if v > 0})
        return out

    def remaining(self, *, project_context_budget: int = 0) -> dict[str, int]:
        """A fresh, mutable ``remaining`` map for one assembly.

        Args:
            project_context_budget: the project's own budget option; a positive value replaces
                the project-context budget (0 keeps the policy's).
        """
        out = self.effective()
        if project_context_budget > 0:
            out[str(ContextSource.PROJECT_CONTEXT)] = project_context_budget
        return out


def cut_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes on a character start, trailing
    spaces, tabs, CRs and LFs stripped. Text within the limit comes back unchanged."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    end = max(limit, 0)
    while end > 0 and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end].decode("utf-8", "surrogatepass").rstrip(_TRAILING_WS)


def apply_budget(remaining: dict[str, int], source: str, content: str) -> tuple[str, bool, bool]:
    """Charge ``content`` against ``source``'s budget.

    Args:
        remaining: bytes left per source name; decremented in place. A source absent from it has
            0 left.
        source: the block's source name.
        content: the block's text.

    Returns:
        ``(content, truncated, kept)``: unbudgeted sources and empty content pass through as
        ``(content, False, True)``; a spent budget drops the block as ``("", False, False)``; a
        partly spent one cuts it, ``(clipped, True, True)`` (``("", True, False)`` if nothing
        survives the cut).
    """
    if source in UNBUDGETED_SOURCES:
        return content, False, True
    if content == "":
        return "", False, True
    left = remaining.get(source, 0)
    if left <= 0:
        if source in remaining:
            remaining[source] = 0
        return "", False, False
    size = len(content.encode("utf-8", "surrogatepass"))
    if size <= left:
        remaining[source] = left - size
        return content, False, True
    remaining[source] = 0
    clipped = cut_utf8(content, left)
    return clipped, True, clipped != ""
