"""The summary request: its instruction, output cap, isolation fields and usable text.

The instruction is the final user message of the summary request: the engine's system sentence
(``templates/compaction_system.md.j2``) and the eight-section body
(``templates/compaction_default_body.md.j2``) joined by a blank line; the run's durable context
state (turns so far, recent tool calls) follows after a blank line when it holds anything;
manual steering appends
``\\n\\nAdditional user steering for this compaction:\\n\\n`` + text; the emergency stage appends
``templates/compaction_emergency.md.j2`` (which opens with ``EMERGENCY COMPACTION``, the phrase
the offline summarizer keys on) after a blank line.

A target's ``compaction_prompt`` replaces the sentence and body. The output cap is the target's
summary reserve for the mode (``budget.summary_max_tokens``), so summaries stay bounded.

Unusable summaries: a summary that is empty, trivially short, mostly one repeated line shape
or larger than its input (``summary_problem``) never applies, nor, in a manual ``/compact``, one
whose stage's result is no smaller than what it replaces (``stage``). On main it is a not-applied
stage that says why (the emergency stage may still run, and when no stage applies the largest
tool results are masked instead); on a fallback target it raises ``EmptyCompactionSummary``,
a failed attempt that reruns the operation on main.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

import msgspec

from steiner_tui.engine.budget import CompactionMode
from steiner_tui.engine.compaction.host import SummaryTarget
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.state.context_state import ContextState, render_context_state
from steiner_tui.engine.templates import render_template
from steiner_tui.errors import CompactionError

__all__ = [
    "STEERING_HEADER",
    "CompactionFallbackNotFit",
    "EmptyCompactionSummary",
    "compaction_instruction",
    "finalize_summary_request",
    "summary_cap",
    "summary_problem",
    "usable_summary",
]

STEERING_HEADER = "\n\nAdditional user steering for this compaction:\n\n"


class CompactionFallbackNotFit(CompactionError):
    """The summary plan does not fit the fallback target (the operation reruns on main)."""

    def __init__(self, target_ref: str) -> None:
        super().__init__(f"compaction request does not fit {target_ref}")


class EmptyCompactionSummary(CompactionError):
    """A fallback target returned an empty summary, or one ``summary_problem`` rejects."""

    def __init__(self, target_ref: str, problem: str = "") -> None:
        what = f"unusable compaction summary from {target_ref}: {problem}" if problem else ""
        super().__init__(what or f"empty compaction summary from {target_ref}")
        self.problem = problem


@cache
def _template(name: str) -> str:
    return render_template(name).strip()


def compaction_instruction(
    mode: CompactionMode,
    steering: str = "",
    override: str = "",
    context_state: ContextState | None = None,
) -> str:
    """The final user message of a summary request.

    Args:
        mode: ``normal`` or ``emergency``.
        steering: manual ``/compact`` text; ignored when blank.
        override: a target's compaction prompt; replaces the sentence and body when not blank.
        context_state: the run's durable context state; when it holds anything it follows the
            body after a blank line (before steering).

    Returns:
        The instruction text.
    """
    base = override.strip() or (
        _template("compaction_system.md.j2") + "\n\n" + _template("compaction_default_body.md.j2")
    )
    text = base
    carried = render_context_state(context_state) if context_state is not None else ""
    if carried:
        text += "\n\n" + carried
    if steering.strip():
        text += STEERING_HEADER + steering.strip()
    if mode == "emergency":
        text += "\n\n" + _template("compaction_emergency.md.j2")
    return text


def summary_cap(target: SummaryTarget, mode: CompactionMode) -> int:
    """The summary's ``max_tokens``: the target's summary reserve for ``mode``."""
    return target.budget.summary_reserve(mode)


def finalize_summary_request(
    request: ChatRequest,
    target: SummaryTarget,
    backend_state: str | None,
    max_tokens: int,
) -> ChatRequest:
    """Fix the fields that isolate a summary call, whatever the host built.

    A main summary continues the latest generation's backend state and, on a stateful
    provider, retires it. A fallback summary never carries main backend state, uses its own
    transport identity and retires nothing.
    """
    if target.fallback:
        return msgspec.structs.replace(
            request,
            max_tokens=max_tokens,
            backend_state=None,
            transport_session=target.transport_session,
            retire_backend_state=False,
            compaction=True,
        )
    return msgspec.structs.replace(
        request,
        max_tokens=max_tokens,
        backend_state=backend_state,
        retire_backend_state=target.stateful,
        compaction=True,
    )


def usable_summary(text: str) -> str | None:
    """The summary without surrounding whitespace, or None when nothing is left."""
    stripped = text.strip()
    return stripped or None


_CHECKED_INPUT_CHARS = 1000
"""Below this much input a summary is not judged by its size: there is little to say."""
_TRIVIAL_CHARS = 64
_SHAPE_LINES = 12
_WORD = re.compile(r"[^\W_]+|_+", re.UNICODE)


def _shape(line: str) -> str:
    """A line with every run of letters and digits replaced by ``w`` (``File "a.py", line
    3, in f`` and its neighbours in a stack trace share one shape)."""
    return _WORD.sub("w", line.strip())


def summary_problem(summary: str, input_chars: int) -> str:
    """Why a model's summary must not replace what it summarized ("" when it may).

    Rejected: an empty summary; a trivially short one (under 64 characters for 1,000 or
    more of input: "Your summary."); one that is mostly one repeated line shape (more than
    two thirds of 12 or more lines: pasted stack frames, a separator line); one larger than its
    input (for 1,000 characters of input or more).
    """
    text = summary.strip()
    if not text:
        return "the summary is empty"
    if input_chars >= _CHECKED_INPUT_CHARS and len(text) < _TRIVIAL_CHARS:
        return f"the summary is trivially short ({len(text)} characters: {text[:40]!r})"
    if input_chars >= _CHECKED_INPUT_CHARS and len(text) > input_chars:
        return f"the summary ({len(text):,} characters) is larger than its input ({input_chars:,})"
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) >= _SHAPE_LINES:
        shape, count = Counter(_shape(line) for line in lines).most_common(1)[0]
        if count * 3 > len(lines) * 2:
            return (
                f"the summary is mostly one repeated line ({count} of {len(lines)} lines "
                f"shaped {shape[:40]!r})"
            )
    return ""
