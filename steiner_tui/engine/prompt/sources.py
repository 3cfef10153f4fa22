"""The context sources: one registry (``SOURCES``) that says what each source is.

Every layer reads it: assembly (order, role, budget), the ranking (its kind and label), the
context panel (its row label), cache explanations (how they name it) and the offline model
(whether a block is context rather than the person's words). Adding a source means a member of
``ContextSource``, its ``SourceSpec`` here, and the code that produces its block.

Static sources come first so the request prefix stays byte-stable for provider cache reuse; the
session date and the conversation come last.
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType
from typing import Final, Literal

import msgspec

__all__ = [
    "BlockKind",
    "ContextSource",
    "DEFAULT_BUDGETS",
    "SOURCES",
    "SOURCE_PLAN",
    "SourceSpec",
    "SourceStep",
    "TOOLS_SOURCE",
    "TOOL_RESULTS_SOURCE",
    "UNBUDGETED_SOURCES",
    "is_system_zone",
    "label_of",
    "role_for",
    "spec_of",
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


TOOLS_SOURCE: Final = "tools"
"""The source of the tool definitions' row (they are sent beside the messages, not as a block)."""
TOOL_RESULTS_SOURCE: Final = "tool_results"
"""The source of the tool results' row: the conversation's tool messages, counted apart from
the rest of it (what a read or a command brought in is what a person looks for first)."""

BlockKind = Literal[
    "preamble", "agents_md", "context_file", "skill", "phase_prompt", "session_date"
]
"""The ranking's kind of a source's blocks."""

PROJECT_CONTEXT_BUDGET_BYTES: Final = 8000
SKILL_BUDGET_BYTES: Final = 106496


class SourceSpec(msgspec.Struct, frozen=True):
    """What one context source is.

    Attributes:
        source: its id (a ``ContextSource``, ``TOOL_RESULTS_SOURCE`` or ``TOOLS_SOURCE``).
        label: how the context panel and the ranking name its row.
        step: its step of the assembly plan (0: not assembled as a block).
        note: what the plan says of the step.
        system: its blocks are system role (else user).
        budget_bytes: its default byte budget (None: never cut).
        kind: the ranking's kind of its blocks (None: the ranking counts it otherwise).
        short: the ranking's short kind, shown before the label.
        cause_name: how a cache explanation names it when it changed.
        context: the offline model reads its blocks as context, not as the person's words.
    """

    source: str
    label: str
    step: int = 0
    note: str = ""
    system: bool = False
    budget_bytes: int | None = None
    kind: BlockKind | None = None
    short: str = ""
    cause_name: str = ""
    context: bool = False


_S = ContextSource
SOURCES: Final[tuple[SourceSpec, ...]] = (
    SourceSpec(_S.PREAMBLE, "preamble", 1, "memoized per session", system=True,
               kind="preamble", short="prompt", cause_name="the preamble"),
    SourceSpec(_S.GLOBAL_AGENTS_MD, "global AGENTS.md", 2, "never truncated", system=True,
               kind="agents_md", short="AGENTS", cause_name="global AGENTS.md", context=True),
    SourceSpec(_S.PROJECT_AGENTS_MD, "project AGENTS.md", 2, "never truncated", system=True,
               kind="agents_md", short="AGENTS", cause_name="AGENTS.md", context=True),
    SourceSpec(_S.PROJECT_CONTEXT, "project context", 3, "truncated when over",
               budget_bytes=PROJECT_CONTEXT_BUDGET_BYTES, kind="context_file", short="context",
               cause_name="a context file", context=True),
    SourceSpec(_S.SKILL, "skill framing", 4, "exec and oneshot only",
               budget_bytes=SKILL_BUDGET_BYTES, kind="skill", short="skill",
               cause_name="a skill block", context=True),
    SourceSpec(_S.PHASE_PROMPT, "phase prompt", 5, "oneshot phases", system=True,
               kind="phase_prompt", short="prompt", cause_name="the phase prompt"),
    SourceSpec(_S.SESSION_DATE, "session date", 6, "captured once per session",
               kind="session_date", short="prompt", cause_name="the session date", context=True),
    SourceSpec(_S.CONVERSATION, "conversation", 7, "pass-through"),
    SourceSpec(_S.CONVERSATION_SUMMARY, "conversation summary", system=True),
    SourceSpec(TOOL_RESULTS_SOURCE, "tool results"),
    SourceSpec(TOOLS_SOURCE, "tool definitions"),
)  # fmt: skip
"""Every source, in assembly order (the conversation's summary and the tools outside the plan)."""

_BY_ID: Final = MappingProxyType({spec.source: spec for spec in SOURCES})


def spec_of(source: str) -> SourceSpec | None:
    """The spec of ``source`` (None: not a source of the registry)."""
    return _BY_ID.get(source)


def label_of(source: str) -> str:
    """How ``source``'s row is named (its id when it is not in the registry)."""
    spec = _BY_ID.get(source)
    return spec.label if spec is not None else source


class SourceStep(msgspec.Struct, frozen=True):
    """One step of the plan: its number, its sources, its default budget (None: unbudgeted)."""

    step: int
    sources: tuple[ContextSource, ...]
    budget_bytes: int | None
    note: str


SOURCE_PLAN: Final[tuple[SourceStep, ...]] = tuple(
    SourceStep(
        step,
        tuple(ContextSource(s.source) for s in SOURCES if s.step == step),
        next(s.budget_bytes for s in SOURCES if s.step == step),
        next(s.note for s in SOURCES if s.step == step),
    )
    for step in sorted({s.step for s in SOURCES if s.step})
)
"""The fixed assembly order (docs/design.md, "1. Sources and the assembly plan")."""

DEFAULT_BUDGETS: Final = MappingProxyType(
    {str(s.source): s.budget_bytes for s in SOURCES if s.budget_bytes is not None}
)
"""Byte budgets of the budgeted sources; ``AssemblyPolicy.budgets`` overrides them."""

UNBUDGETED_SOURCES: Final = frozenset(
    str(s.source) for s in SOURCES if s.kind is not None and s.budget_bytes is None
)
"""Block sources that bypass ``apply_budget`` entirely (delivered whole)."""


def is_system_zone(source: str) -> bool:
    """Whether blocks of ``source`` are system role (preamble, phase prompt, AGENTS.md, summary)."""
    spec = _BY_ID.get(source)
    return spec is not None and spec.system


def role_for(source: str) -> str:
    """The message role of a block of ``source``: ``system`` in the system zone, else ``user``."""
    return "system" if is_system_zone(source) else "user"
