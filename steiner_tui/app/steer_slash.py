"""The steering slash commands: ``/pin``, ``/unpin``, ``/pins`` and ``/compaction``.

Each returns the text the conversation shows as a notice (Textual-free, like the controller):

* ``/pin`` lists the recent messages with their numbers; ``/pin N`` pins message #N;
* ``/unpin N`` unpins it; ``/pins`` lists the pinned messages;
* ``/compaction [auto|ask|off] [save]`` sets the mode live (no mode: the next one in turn),
  ``save`` also writes it to the project config;

``/whatif [tokens] [save]`` is the screen's (``screens.steer_keys``): it sets the what-if view,
whose figures are computed off the loop.
"""

from __future__ import annotations

from steiner_tui.app.steering import SteeringController

__all__ = ["STEER_COMMANDS", "run_steer_command"]

STEER_COMMANDS = frozenset({"pin", "unpin", "pins", "compaction"})


def _number(text: str) -> int:
    try:
        return int(text.strip().lstrip("#"))
    except ValueError:
        raise ValueError(f"expected a message number such as 12 or #12, not {text!r}") from None


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
    mode = steering.set_mode(rest[0] if rest else "")
    text = f"compaction mode: {mode}"
    if save:
        text += f" (saved to {steering.save_mode()})"
    return text
