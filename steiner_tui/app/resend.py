"""What F5 sends again: the person's last message, when nothing answered it.

A message is resent when it got no reply at all (the provider failed before answering), or when
an error cut its reply off (what came is kept, marked incomplete, and the error is the
conversation's last entry but for notices, such as a resume's), or the app stopping did (killed,
the terminal closed, quit while the reply streamed: the resumed session says so in a notice of
kind ``STOPPED`` after the conversation). A reply the person stopped with Esc is also kept
incomplete, but it was the person's choice: it is not resent. The runner does not store a
resent message twice. Textual-free, like the controller.
"""

from __future__ import annotations

from collections.abc import Sequence

from steiner_tui.app.transcript import Entry, ErrorEntry, NoticeEntry, UserEntry
from steiner_tui.engine.messages import Message

__all__ = ["STOPPED", "resend_text"]

STOPPED = "stopped"
"""The kind of the resume's notice that the app stopped while the reply streamed."""


def _ended_in_error(entries: Sequence[Entry]) -> bool:
    """Whether the last entry, notices aside, is an error, or a resume's notice says the app
    stopped while the reply streamed."""
    for entry in reversed(entries):
        if not isinstance(entry, NoticeEntry):
            return isinstance(entry, ErrorEntry)
        if entry.kind == STOPPED:
            return True
    return False


def resend_text(
    conversation: Sequence[Message],
    entries: Sequence[Entry],
    last_sent: str | None,
    *,
    erred: bool = False,
) -> str | None:
    """The text to send again, or None when nothing is left unanswered.

    Args:
        conversation: the runner's active conversation.
        entries: what the conversation pane shows.
        last_sent: the text the person last sent in this app (None: none yet, as after a
            resume: the last user entry's text is taken).
        erred: an error is being added, so it counts as the last entry already.
    """
    if not conversation:
        return None
    last = conversation[-1]
    if last.role == "assistant" and last.incomplete:
        if not (erred or _ended_in_error(entries)):
            return None
    elif last.role != "user":
        return None
    if last_sent is not None:
        return last_sent
    return next((e.text for e in reversed(entries) if isinstance(e, UserEntry)), None)
