"""The context sources and the fixed seven-step order in which a request is assembled.

Static sources come first so the request prefix stays byte-stable for provider cache reuse; the
session date and the conversation come last. Which sources are system role is decided here
(``is_system_zone``), so block rendering and the context report agree.
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType
from typing import Final

import msgspec

__all__ = [
    "ContextSource",
    "DEFAULT_BUDGETS",
    "PROJECT_CONTEXT_BUDGET_BYTES",
    "SKILL_BUDGET_BYTES",
    "SOURCE_PLAN",
    "SourceStep",
    "UNBUDGETED_SOURCES",
    "is_system_zone",
    "role_for",
]


class ContextSource(StrEnum):
    """Where a block of request context comes from."""

    PREAMBLE = "preamble"
    GLOBAL_AGENTS_MD = "global_agents_md"
    PROJECT_AGENTS_MD = "project_agents_md"
    PROJECT_CONTEXT = "project_context"
    SKILL = "skill"
    PHASE_PROMPT = "phase_prompt"
    SESSION_DATE = "session_date"
    CONVERSATION = "conversation"
    CONVERSATION_SUMMARY = "conversation_summary"


class SourceStep(msgspec.Struct, frozen=True):
    """One step of the plan: its number, its sources, its default budget (None: unbudgeted)."""

    step: int
    sources: tuple[ContextSource, ...]
    budget_bytes: int | None
    note: str


PROJECT_CONTEXT_BUDGET_BYTES: Final = 8000
SKILL_BUDGET_BYTES: Final = 106496

SOURCE_PLAN: Final[tuple[SourceStep, ...]] = (
    SourceStep(1, (ContextSource.PREAMBLE,), None, "memoized per session"),
    SourceStep(
        2,
        (ContextSource.GLOBAL_AGENTS_MD, ContextSource.PROJECT_AGENTS_MD),
        None,
        "never truncated",
    ),
    SourceStep(
        3, (ContextSource.PROJECT_CONTEXT,), PROJECT_CONTEXT_BUDGET_BYTES, "truncated when over"
    ),
    SourceStep(4, (ContextSource.SKILL,), SKILL_BUDGET_BYTES, "exec and oneshot only"),
    SourceStep(5, (ContextSource.PHASE_PROMPT,), None, "oneshot phases"),
    SourceStep(6, (ContextSource.SESSION_DATE,), None, "captured once per session"),
    SourceStep(7, (ContextSource.CONVERSATION,), None, "pass-through"),
)
"""The fixed assembly order (docs/design.md, "1. Sources and the assembly plan")."""

DEFAULT_BUDGETS: Final = MappingProxyType(
    {
        str(ContextSource.PROJECT_CONTEXT): PROJECT_CONTEXT_BUDGET_BYTES,
        str(ContextSource.SKILL): SKILL_BUDGET_BYTES,
    }
)
"""Byte budgets of the budgeted sources; ``AssemblyPolicy.budgets`` overrides them."""

UNBUDGETED_SOURCES: Final = frozenset(
    {
        str(ContextSource.GLOBAL_AGENTS_MD),
        str(ContextSource.PROJECT_AGENTS_MD),
        str(ContextSource.SESSION_DATE),
    }
)
"""Sources that bypass ``apply_budget`` entirely."""

_SYSTEM_ZONE: Final = frozenset(
    {
        ContextSource.PREAMBLE,
        ContextSource.PHASE_PROMPT,
        ContextSource.GLOBAL_AGENTS_MD,
        ContextSource.PROJECT_AGENTS_MD,
        ContextSource.CONVERSATION_SUMMARY,
    }
)


def is_system_zone(source: str) -> bool:
    """Whether blocks of ``source`` are system role (preamble, phase prompt, AGENTS.md, summary)."""
    return source in _SYSTEM_ZONE


def role_for(source: str) -> str:
    """The message role of a block of ``source``: ``system`` in the system zone, else ``user``."""
    return "system" if is_system_zone(source) else "user"
