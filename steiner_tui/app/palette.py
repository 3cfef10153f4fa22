"""Command-palette providers built from a list of commands: one way to discover and search them.

A provider lists ``(title, help, callback)`` tuples in menu order; discovery shows them all and a
search scores their titles. Titles and help may hold data (a skill's name, a sub-agent's task):
they are shown as text (``Content``; the palette reads a plain string as markup, so the help
text is escaped).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

__all__ = ["Command", "ListedCommands"]

Command = tuple[str, str, Callable[[], object]]
"""A palette entry: title, help text, what it runs."""


class ListedCommands(Provider):
    """A provider whose commands are listed by ``commands()``."""

    def commands(self) -> list[Command]:
        """The commands, in menu order (computed each time the palette asks)."""
        raise NotImplementedError

    async def discover(self) -> Hits:
        """Every command, in menu order."""
        for title, help_text, callback in self.commands():
            yield DiscoveryHit(Content(title), callback, text=title, help=escape(help_text))

    async def search(self, query: str) -> Hits:
        """Commands whose title matches ``query``."""
        matcher = self.matcher(query)
        for title, help_text, callback in self.commands():
            score = matcher.match(title)
            if score > 0:
                shown = matcher.highlight(title) if escape(title) == title else Content(title)
                yield Hit(score, shown, callback, text=title, help=escape(help_text))
