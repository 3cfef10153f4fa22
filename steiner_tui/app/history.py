"""Prompt history: Up and Down walk what was sent, keeping the unsent draft.

Browsing starts at the newest entry; walking past it returns the draft that was being typed.
A prompt sent again moves to the newest place (it is stored once): the project's earlier
prompts and a resumed session's own (``sessions.prompt_history``) hold the same ones.
"""

from __future__ import annotations

__all__ = ["PromptHistory"]


class PromptHistory:
    """The sent prompts (the project's, then this session's), with a browsing cursor."""

    def __init__(self, limit: int = 500) -> None:
        self._kept: dict[str, None] = {}
        """Sent prompts, oldest first (a dict: moving one sent again to the end is O(1), a
        resumed 10,000-message session pushes 2,500 on opening)."""
        self._limit = limit
        self._entries: list[str] = []
        """What is browsed: the prompts as they stood when browsing started."""
        self._cursor: int | None = None
        self._draft = ""

    @property
    def entries(self) -> tuple[str, ...]:
        """Sent prompts, oldest first."""
        return tuple(self._kept)

    def push(self, text: str) -> None:
        """Record a sent prompt (as the newest, once) and stop browsing."""
        if text:
            self._kept.pop(text, None)
            self._kept[text] = None
            if len(self._kept) > self._limit:
                del self._kept[next(iter(self._kept))]
        self._cursor = None
        self._draft = ""

    def previous(self, current: str) -> str | None:
        """The entry before the cursor (the newest when not browsing), or None at the start."""
        if not self._kept:
            return None
        if self._cursor is None:
            self._draft = current
            self._entries = list(self._kept)
            self._cursor = len(self._entries)
        if self._cursor == 0:
            return None
        self._cursor -= 1
        return self._entries[self._cursor]

    def next(self) -> str | None:
        """The entry after the cursor, the draft past the newest, or None when not browsing."""
        if self._cursor is None:
            return None
        self._cursor += 1
        if self._cursor >= len(self._entries):
            self._cursor = None
            return self._draft
        return self._entries[self._cursor]
