"""The rule that keeps a user's own text from ever reading back as driver-made text.

The driver opens a user message with text that parsers later trust: the execution-mode notice
(``[execution mode: ...]``), skill envelopes (``<steiner-skill ...>``), and, in messages of its
own, the pending sub-agents line and sub-agent results (``<steiner-...>``). A user who types or
pastes text starting the same way must not be able to forge any of them: the skills sidebar,
resume and the model would otherwise take it for the real thing.

The rule (docs/design.md, "3. Skill envelopes and mode notices"): the user's text is
**escaped** when, after any leading backslashes, it starts with ``<steiner-`` or
``[execution mode:``: one backslash is put in front of it. Nothing else is ever changed, so a
text that does not look like driver text is stored byte for byte. ``unescape_user_text``
removes exactly that backslash, so ``unescape_user_text(escape_user_text(t)) == t`` for every
``t``; the backslashes already in front of a marker are why the rule counts them, so an escaped
text is itself never mistaken for one the user wrote.
"""

from __future__ import annotations

from typing import Final

__all__ = ["DRIVER_MARKERS", "escape_user_text", "looks_like_driver_text", "unescape_user_text"]

DRIVER_MARKERS: Final = ("<steiner-", "[execution mode:")
"""How every driver-made leading text starts (envelopes, pending line, results; mode notice)."""

_ESCAPE: Final = "\\"


def looks_like_driver_text(text: str) -> bool:
    """True when ``text``, after any leading backslashes, starts like driver-made text."""
    return text.lstrip(_ESCAPE).startswith(DRIVER_MARKERS)


def escape_user_text(text: str) -> str:
    """The user's ``text`` as it may follow the driver's part of a message.

    Returns:
        ``text`` with one backslash in front when it looks like driver text, else ``text``.
    """
    return _ESCAPE + text if looks_like_driver_text(text) else text


def unescape_user_text(text: str) -> str:
    """The user's original text from ``escape_user_text``'s result (for display)."""
    if text.startswith(_ESCAPE) and looks_like_driver_text(text):
        return text[1:]
    return text
