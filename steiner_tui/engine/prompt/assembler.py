"""Assemble one request: the seven-step plan, budgets, block rendering, then the conversation.

Static sources come first (memoized preamble, cached AGENTS.md, project context and static
skills), then the phase prompt and the session date, then the conversation projected for the
provider. The block messages are the cacheable prefix; ``block_message_count`` says how long it
is. Assembling with an empty conversation is a dry run: the preview of the next request.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import msgspec

from steiner_tui.engine.events import EventSink
from steiner_tui.engine.messages import Message, messages_bytes, to_provider_message
from steiner_tui.engine.prompt.blocks import ContextBlock, blocks_bytes, render_blocks
from steiner_tui.engine.prompt.budget import AssemblyPolicy, apply_budget
from steiner_tui.engine.prompt.preamble import CachedSystemPreamble, PreambleInputs
from steiner_tui.engine.prompt.project_context import ProjectContextSpec
from steiner_tui.engine.prompt.session_date import session_date_text
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.prompt.static_cache import StaticContextCache
from steiner_tui.engine.skills.discovery import SkillRoot

__all__ = ["AssembledPrompt", "AssemblyOptions", "assemble"]


class AssemblyOptions(msgspec.Struct, frozen=True):
    """What a request is assembled from, apart from the conversation.

    Attributes:
        project_root: the project folder (None: no project AGENTS.md or context).
        global_agents_path: the user's AGENTS.md (the app passes ``CONFIG/AGENTS.md``).
        policy: byte budgets per source.
        project_context: the project's ``[context]`` files, ignores and budget.
        skill_roots: skill roots in search order (later wins; see ``skills.discovery``).
        skill_names: enabled static skills; exec and oneshot only (interactive passes none).
        phase_prompt: the oneshot phase's prompt ("" for none).
        preamble: the preamble inputs (memoized by ``CachedSystemPreamble``).
        scope: the session identity; a new scope drops the static cache.
    """

    project_root: Path | None = None
    global_agents_path: Path | None = None
    policy: AssemblyPolicy = msgspec.field(default_factory=AssemblyPolicy)
    project_context: ProjectContextSpec = msgspec.field(default_factory=ProjectContextSpec)
    skill_roots: tuple[SkillRoot, ...] = ()
    skill_names: tuple[str, ...] = ()
    phase_prompt: str = ""
    preamble: PreambleInputs = msgspec.field(default_factory=PreambleInputs)
    scope: str = ""

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "skill_roots", tuple(self.skill_roots))
        msgspec.structs.force_setattr(self, "skill_names", tuple(self.skill_names))


class AssembledPrompt(msgspec.Struct, frozen=True):
    """One assembled request: its blocks and the messages sent.

    ``messages`` holds the block messages then the projected conversation;
    ``block_message_count`` is how many leading messages came from blocks (the cacheable
    prefix).
    """

    blocks: tuple[ContextBlock, ...]
    messages: Sequence[Message]
    block_message_count: int

    @property
    def block_messages(self) -> tuple[Message, ...]:
        return tuple(self.messages[: self.block_message_count])

    @property
    def blocks_bytes(self) -> int:
        """BlocksBytes: the sum of the blocks' byte sizes."""
        return blocks_bytes(self.blocks)

    @property
    def prompt_bytes(self) -> int:
        """PromptBytes: role plus content bytes over every message."""
        return messages_bytes(self.messages)


def budget_blocks(
    blocks: Sequence[ContextBlock], remaining: dict[str, int]
) -> tuple[ContextBlock, ...]:
    """Apply ``apply_budget`` to each block in order (the preamble and phase prompt bypass it).

    Dropped blocks disappear, cut ones are flagged ``truncated``; unchanged blocks are returned
    as the same objects, so a stable prefix shares its blocks across requests.
    """
    out: list[ContextBlock] = []
    for block in blocks:
        content, truncated, kept = apply_budget(remaining, block.source, block.content)
        if not kept:
            continue
        if content == block.content and not truncated:
            out.append(block)
        else:
            out.append(
                ContextBlock(block.source, block.role, content, block.path, truncated=truncated)
            )
    return tuple(out)


def assemble(
    options: AssemblyOptions,
    conversation: Sequence[Message],
    *,
    cache: StaticContextCache,
    preamble: CachedSystemPreamble,
    session_date: datetime | None,
    sink: EventSink,
) -> AssembledPrompt:
    """Assemble a request following the fixed source plan.

    Args:
        options: the static inputs.
        conversation: the active conversation as stored (empty for a dry run).
        cache: the per-session static context cache.
        preamble: the per-session preamble memo.
        session_date: the date captured when the session started (None: no date block).
        sink: receives warnings (unreadable files, unknown skills).

    Returns:
        The blocks and messages of the request.

    Raises:
        ValueError: a negative project-context budget, or a project-context path that escapes
            the project root.
    """
    cache.begin_scope(options.scope)
    spec = options.project_context
    remaining = options.policy.remaining(project_context_budget=spec.budget_bytes)
    project_budget = remaining[str(ContextSource.PROJECT_CONTEXT)]

    static: list[ContextBlock] = [preamble.block(options.preamble)]
    static.extend(cache.agents(options.global_agents_path, options.project_root, sink))
    static.extend(cache.project_context(options.project_root, spec, project_budget, sink))
    static.extend(cache.skills(options.skill_roots, options.skill_names, sink))
    phase = options.phase_prompt.strip()
    if phase:
        static.append(ContextBlock.of(ContextSource.PHASE_PROMPT, phase))
    date = session_date_text(session_date)
    if date:
        static.append(ContextBlock.of(ContextSource.SESSION_DATE, date))

    blocks = budget_blocks(static, remaining)
    block_messages = render_blocks(blocks)
    # Only a summary or an incomplete message can change: the rest are taken without a call.
    projected = tuple(
        [
            m if m.role != "summary" and not m.incomplete else to_provider_message(m)
            for m in conversation
        ]
    )
    return AssembledPrompt(blocks, block_messages + projected, len(block_messages))
