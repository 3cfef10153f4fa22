"""How large one tool result may be: a share of what the window has left, and a ceiling.

A tool result goes into every later request until compaction, so one large result (a 340 KB
file, a noisy build log) would push the next request past the hard fit. Each result therefore
gets a budget in tokens before it reaches the model (docs/design.md, "7. The window: soft
trigger, hard fit, reserves"):

* the room the window has left after the current prompt, the completion reserve and the
  safety margin, shared by the results still to come in this round;
* at most a quarter of the window, whatever is left;
* at most a quarter of the room between the fixed part of every request (preamble,
  instruction files, tool definitions) and the window's own soft trigger (70%), so four
  results fit before compaction is due: on a small window the fixed part takes much of the
  room (about 2,100 of the 5,735 tokens under an 8k window's trigger), and results of a
  quarter of the window left room for one read, so every later read compacted (issue 31).
  A configured lower trigger does not shrink results: it asks for compaction sooner, not
  for reads in pieces of a few hundred tokens;
* at most an absolute ceiling, so even a huge window keeps results readable;
* and never less than a floor, so a result can always say what it is and where the rest is
  (the next request then compacts, and compaction masks older results first).

The tools shape their output to the budget (a window of lines, head and tail, the first
matches); the runner checks the shaped result with the model's own token count and cuts what
is still over, keeping the whole output in the run's result store.
"""

from __future__ import annotations

from typing import Final

from steiner_tui.engine.budget import ModelTokenBudget, soft_threshold_tokens

__all__ = [
    "TOOL_RESULT_CEILING_TOKENS",
    "TOOL_RESULT_FLOOR_TOKENS",
    "TOOL_RESULTS_UNDER_TRIGGER",
    "tool_result_budget",
]

TOOL_RESULT_CEILING_TOKENS: Final = 25_000
"""No tool result is larger than this, however large the window."""

TOOL_RESULT_WINDOW_PERCENT: Final = 25
"""No tool result takes more than this share of the window."""

TOOL_RESULTS_UNDER_TRIGGER: Final = 4
"""At least this many results fit between the fixed part of a request and the window's own
soft trigger."""

TOOL_RESULT_FLOOR_TOKENS: Final = 512
"""Every tool result may take this much, so it can say what it is and where the rest is."""


def tool_result_budget(
    budget: ModelTokenBudget,
    prompt_tokens: int,
    pending_results: int = 1,
    explicit_max: int = 0,
    fixed_tokens: int = 0,
) -> int:
    """The tokens the next tool result may take.

    Args:
        budget: the main model's budget.
        prompt_tokens: the calibrated tokens of the request so far (the results of this round
            already in it).
        pending_results: results still to come in this round, this one included.
        explicit_max: the model's explicit completion limit (0: none).
        fixed_tokens: the calibrated tokens of a request with no conversation (preamble,
            instruction files, session date, tool definitions).

    Returns:
        ``max(floor, min(room // pending, window * 25%, (window * 70% - fixed) // 4,
        ceiling))``; an unknown window (0 or less) gives the ceiling.
    """
    if budget.context_size <= 0:
        return TOOL_RESULT_CEILING_TOKENS
    fit = budget.fit_request(prompt_tokens, explicit_max)
    room = budget.context_size - fit.safety_margin - fit.reserve - prompt_tokens
    share = room // max(1, pending_results)
    cap = min(
        TOOL_RESULT_CEILING_TOKENS,
        budget.context_size * TOOL_RESULT_WINDOW_PERCENT // 100,
        (soft_threshold_tokens(budget.context_size) - fixed_tokens) // TOOL_RESULTS_UNDER_TRIGGER,
    )
    return max(TOOL_RESULT_FLOOR_TOKENS, min(cap, share))
