"""The steering slash commands: ``/pin``, ``/unpin``, ``/pins``, ``/compaction``, ``/whatif``.

Each returns the text the conversation shows as a notice (Textual-free, like the controller):

* ``/pin`` lists the recent messages with their numbers; ``/pin N`` pins message #N;
* ``/unpin N`` unpins it; ``/pins`` lists the pinned messages;
* ``/compaction [auto|ask|off] [save]`` sets the mode live (no mode: the next one in turn),
  ``save`` also writes it to the project config;
* ``/whatif [tokens] [save]`` simulates the conversation with that soft threshold (default:
  the current one) against how it went; ``save`` uses it from now on and writes it to the
  project config.
"""

from __future__ import annotations

from steiner_tui.app.steering import SteeringController
from steiner_tui.config import ConfigError
from steiner_tui.engine.whatif import WhatIfResult
from steiner_tui.units import token_count

__all__ = ["STEER_COMMANDS", "run_steer_command", "whatif_line"]

STEER_COMMANDS = frozenset({"pin", "unpin", "pins", "compaction", "whatif"})


def _number(text: str) -> int:
    try:
        return int(text.strip().lstrip("#"))
    except ValueError:
        raise ValueError(f"expected a message number such as 12 or #12, not {text!r}") from None


def whatif_line(name: str, result: WhatIfResult) -> str:
    """``at 90,000: 3 compactions (before #12, #30, #41), 1.2M tokens sent, 84% read from the
    cache``; ``off`` says where a request would not have fit."""
    where = ", ".join(f"#{position + 1}" for position in result.compactions)
    times = f"{result.count} compaction{'s' if result.count != 1 else ''}"
    if where:
        times += f" (before requests {where})"
    tail = ""
    if result.stopped_at is not None:
        tail = f"; request #{result.stopped_at + 1} would not have fit"
    return (
        f"{name}: {times}, {token_count(result.tokens_sent)} sent, "
        f"{result.cache_read_share * 100:.0f}% read from the cache{tail}"
    )


def run_steer_command(steering: SteeringController, name: str, argument: str) -> str:
    """Carry out ``/name argument``; the notice to show.

    Raises:
        ValueError: a bad argument (the message says what was expected).
        ConfigError, OSError: ``save`` could not write the project config.
    """
    words = argument.split()
    if name == "pin":
        if not words:
            listed = steering.numbered()
            return "messages (/pin N pins one):\n" + "\n".join(listed) if listed else "no messages"
        return f"pinned {steering.pin_number(_number(words[0]))}"
    if name == "unpin":
        if not words:
            raise ValueError("/unpin needs a message number (see /pins)")
        return f"unpinned {steering.unpin_number(_number(words[0]))}"
    if name == "pins":
        pins = steering.pins()
        return "pinned:\n" + "\n".join(pins) if pins else "nothing is pinned (/pin N pins one)"
    save = "save" in words
    rest = [w for w in words if w != "save"]
    if name == "compaction":
        mode = steering.set_mode(rest[0] if rest else "")
        text = f"compaction mode: {mode}"
        if save:
            text += f" (saved to {steering.save_mode()})"
        return text
    budget = steering.runner.model.budget
    threshold = _number(rest[0]) if rest else budget.soft_threshold
    if not 0 < threshold < budget.context_size:
        raise ValueError(f"the threshold must be between 1 and {budget.context_size - 1:,}")
    figures = steering.what_if(threshold)
    lines = [
        whatif_line(f"as it went (at {budget.soft_threshold:,})", figures.observed),
        whatif_line(f"at {threshold:,} ({figures.trial.setting.mode})", figures.trial),
    ]
    if save:
        try:
            path = steering.save_threshold(threshold)
        except (ConfigError, OSError) as error:
            raise ValueError(f"not saved: {error}") from error
        lines.append(f"saved: compaction_threshold_tokens = {threshold} in {path}")
    return "\n".join(lines)
