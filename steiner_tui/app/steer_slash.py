"""The steering slash commands: ``/pin``, ``/unpin`` and ``/pins``.

Each returns the text the conversation shows as a notice (Textual-free, like the controller):

* ``/pin`` lists the recent messages with their numbers; ``/pin N`` pins message #N;
* ``/unpin N`` unpins it; ``/pins`` lists the pinned messages.

``/compaction [auto|ask|off] [save]`` and ``/whatif [tokens] [save]`` are the screen's
(``slash_commands``): their ``save`` asks to confirm the change of the project config on a
screen of its own, and ``/whatif`` sets the what-if view, whose figures are computed off the
loop.
"""

from __future__ import annotations

from steiner_tui.app.steering import SteeringController

__all__ = ["STEER_COMMANDS", "run_steer_command"]

STEER_COMMANDS = frozenset({"pin", "unpin", "pins"})


def _number(text: str) -> int:
    try:
        return int(text.strip().lstrip("#"))
    except ValueError:
        raise ValueError(f"expected a message number such as 12 or #12, not {text!r}") from None


def run_steer_command(steering: SteeringController, name: str, argument: str) -> str:
    """Carry out ``/name argument``; the notice to show.

    Raises:
        ValueError: a bad argument (the message says what was expected).
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
    pins = steering.pins()
    return "pinned:\n" + "\n".join(pins) if pins else "nothing is pinned (/pin N pins one)"
