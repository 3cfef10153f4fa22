"""The context-budget panel's figures, derived from one request snapshot.

Everything comes from the snapshot (blocks, messages, hashes, tools, estimate, reserve) and from
what the engine reported (usage, calibration, health, lineage); nothing about the request is
recomputed. Only the per-row token counts are new: each distinct block text and each distinct
message (by hash) is counted once with the estimator's ``count_text`` and cached, so a growing
conversation costs one count per new message. Row tokens are raw tokenizer counts; the total
the engine estimated (calibrated) is shown beside them.

Skill envelopes travel inside user messages in interactive sessions, so they are split out of
the conversation row and counted as their skill's row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.events import HealthEvent, RequestSnapshot, UsageReported
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.skills.envelopes import TRUNCATION_MARKER, split_skill_blocks, utf8_len
from steiner_tui.engine.snapshots import PrefixStability, prefix_stability
from steiner_tui.engine.tooldefs import tools_json

__all__ = [
    "BudgetView",
    "DriftFigures",
    "SourceRow",
    "TokenLedger",
    "WindowFigures",
    "build_budget_view",
]

_LABELS = {
    ContextSource.PREAMBLE: "preamble",
    ContextSource.GLOBAL_AGENTS_MD: "global AGENTS.md",
    ContextSource.PROJECT_AGENTS_MD: "project AGENTS.md",
    ContextSource.PHASE_PROMPT: "phase prompt",
    ContextSource.SESSION_DATE: "session date",
    ContextSource.CONVERSATION_SUMMARY: "conversation summary",
}


@dataclass(frozen=True, slots=True)
class SourceRow:
    """One source of the request: bytes, raw tokens, share of all rows' tokens."""

    label: str
    source: str
    bytes: int
    tokens: int
    share: float = 0.0
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class WindowFigures:
    """The model window against this request."""

    context_size: int
    used: int
    reserve: int
    soft_threshold: int
    hard_limit: int


@dataclass(frozen=True, slots=True)
class DriftFigures:
    """The estimate against what the provider reported for request ``request_index``."""

    request_index: int
    estimated: int
    reported: int

    @property
    def percent(self) -> float:
        """How far the estimate was from the reported count (positive: over)."""
        return (self.estimated - self.reported) * 100 / self.reported if self.reported else 0.0


@dataclass(frozen=True, slots=True)
class BudgetView:
    """Everything the panel shows for one request."""

    heading: str
    preview: bool
    rows: tuple[SourceRow, ...]
    window: WindowFigures
    estimate_tokens: int
    strategy: str
    confidence: str
    calibration_samples: int = 0
    calibration_factor: float = 1.0
    drift: DriftFigures | None = None
    prefix: PrefixStability | None = None
    prefix_total: int = 0
    compactions: int = 0
    health: HealthEvent | None = None
    window_origin: str = ""
    """Where the window figure came from (``config``, ``llama.cpp server``, ``registry``...)."""
    tools_ignored: bool = False
    """The model's server drops tool definitions, so none are sent or counted."""

    def row(self, label: str) -> SourceRow | None:
        """The row called ``label``, if present."""
        return next((r for r in self.rows if r.label == label), None)


@dataclass(frozen=True, slots=True)
class _MessageCost:
    skills: tuple[tuple[str, int, int, bool], ...]
    rest_bytes: int
    rest_tokens: int


class TokenLedger:
    """Caches token counts per model: texts by value, messages by hash."""

    def __init__(self, count: Callable[[str, str], int], limit: int = 50_000) -> None:
        self._count = count
        self._limit = limit
        self._texts: dict[tuple[str, str], int] = {}
        self._messages: dict[tuple[str, str], _MessageCost] = {}

    def text(self, model: str, text: str) -> int:
        """Tokens of ``text`` for ``model`` (counted once)."""
        key = (model, text)
        found = self._texts.get(key)
        if found is None:
            if len(self._texts) >= self._limit:
                self._texts.clear()
            found = self._texts[key] = self._count(model, text)
        return found

    def message(self, model: str, digest: str, message: Message) -> _MessageCost:
        """Envelope and remaining costs of ``message`` (counted once per hash)."""
        key = (model, digest)
        found = self._messages.get(key)
        if found is None:
            if len(self._messages) >= self._limit:
                self._messages.clear()
            found = self._messages[key] = self._measure(model, message)
        return found

    def _measure(self, model: str, message: Message) -> _MessageCost:
        content = message.content
        skills: list[tuple[str, int, int, bool]] = []
        if message.role == "user":
            prefix, blocks, rest = split_skill_blocks(content)
            for block in blocks:
                truncated = TRUNCATION_MARKER in block.body
                tokens = self._count(model, block.text)
                skills.append((block.name, utf8_len(block.text), tokens, truncated))
            content = prefix + rest
        extra = "".join(call.raw_arguments for call in message.tool_calls)
        size = len(message.role.encode()) + utf8_len(content)
        return _MessageCost(tuple(skills), size, self._count(model, content + extra))


def _block_label(block: ContextBlock, root: Path) -> str:
    if block.source == ContextSource.PROJECT_CONTEXT:
        path = Path(block.path)
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        return f"context · {name}"
    if block.source == ContextSource.SKILL:
        return f"skill · {Path(block.path).parent.name}" if block.path else "skill framing"
    return _LABELS.get(ContextSource(block.source), block.source)


@dataclass(slots=True)
class _Acc:
    source: str
    bytes: int = 0
    tokens: int = 0
    truncated: bool = False


class _Rows:
    """Rows merged by label, in first-seen order."""

    def __init__(self) -> None:
        self.rows: dict[str, _Acc] = {}

    def add(self, label: str, source: str, size: int, tokens: int, truncated: bool) -> None:
        acc = self.rows.setdefault(label, _Acc(str(source)))
        acc.bytes += size
        acc.tokens += tokens
        acc.truncated = acc.truncated or truncated

    def build(self) -> tuple[SourceRow, ...]:
        total = sum(acc.tokens for acc in self.rows.values()) or 1
        return tuple(
            SourceRow(label, a.source, a.bytes, a.tokens, a.tokens / total, a.truncated)
            for label, a in self.rows.items()
        )


def build_budget_view(
    snapshot: RequestSnapshot,
    *,
    ledger: TokenLedger,
    budget: ModelTokenBudget,
    project_root: Path,
    preview: bool = False,
    previous: RequestSnapshot | None = None,
    usage: tuple[int, UsageReported] | None = None,
    calibration: tuple[int, float] = (0, 1.0),
    compactions: int = 0,
    health: HealthEvent | None = None,
    window_origin: str = "",
    tools_ignored: bool = False,
) -> BudgetView:
    """The panel's figures for ``snapshot``.

    Args:
        snapshot: the request shown (the dry-run preview before the first request).
        ledger: the token-count cache.
        budget: the main model's budget (window, soft threshold, hard limit).
        project_root: for project-context labels.
        preview: whether ``snapshot`` is the dry run of the next request.
        previous: the request before it, for cache-prefix stability.
        usage: ``(request index, usage)`` of the latest reported usage.
        calibration: ``(samples, factor)`` of the estimator's calibration for the model.
        compactions: compactions applied in this session.
        health: the latest session health.
        window_origin: where the window figure came from.
        tools_ignored: the model's server drops tool definitions (none are sent).
    """
    model = snapshot.model
    rows = _Rows()
    for block in snapshot.blocks:
        tokens = ledger.text(model, block.content)
        label = _block_label(block, project_root)
        rows.add(label, block.source, block.byte_size, tokens, block.truncated)
    start = snapshot.block_message_count
    pairs = zip(snapshot.messages[start:], snapshot.message_hashes[start:], strict=True)
    for message, digest in pairs:
        cost = ledger.message(model, digest, message)
        for name, size, tokens, truncated in cost.skills:
            rows.add(f"skill · {name}", ContextSource.SKILL, size, tokens, truncated)
        label = "conversation summary" if message.role == "system" else "conversation"
        rows.add(label, ContextSource.CONVERSATION, cost.rest_bytes, cost.rest_tokens, False)
    if snapshot.tools:
        tools_tokens = ledger.text(model, tools_json(snapshot.tools))
        rows.add("tool definitions", "tools", snapshot.tools_bytes, tools_tokens, False)
    drift = None
    if usage is not None:
        index, reported = usage
        drift = DriftFigures(index, reported.estimated_prompt_tokens, reported.prompt_tokens)
    stability = prefix_stability(previous, snapshot) if previous is not None else None
    return BudgetView(
        heading="next request · dry run" if preview else f"request #{snapshot.index}",
        preview=preview,
        rows=rows.build(),
        window=WindowFigures(
            budget.context_size,
            snapshot.estimated_prompt_tokens,
            snapshot.max_tokens,
            budget.soft_threshold,
            budget.hard_limit,
        ),
        estimate_tokens=snapshot.estimated_prompt_tokens,
        strategy=snapshot.estimate_strategy,
        confidence=snapshot.estimate_confidence,
        calibration_samples=calibration[0],
        calibration_factor=calibration[1],
        drift=drift,
        prefix=stability,
        prefix_total=len(previous.message_hashes) if previous is not None else 0,
        compactions=compactions,
        health=health,
        window_origin=window_origin,
        tools_ignored=tools_ignored,
    )
