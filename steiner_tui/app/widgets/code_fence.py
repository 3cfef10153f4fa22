"""A reply's code block, highlighted and drawn in pieces, so that a long one stays cheap to grow
and to show.

Textual's ``MarkdownFence`` highlights its code and draws it as one ``Label``. A streaming reply
is parsed again from its last block at each append, so each append highlighted the whole block
again and drew all its lines again, on screen or not (a ``Label`` is drawn whole). A model
writing a 3,000-line file in a fence (235 KB) froze the app for up to 3.5 s at a time, about
0.8 s of it highlighting and most of the rest drawing lines nobody saw.

``CodeFence`` cuts the code into pieces of ``PIECE_LINES`` lines, each shown by a ``CodePiece``
of its own, which Textual draws only while it is on screen. A piece is measured from its plain
text and highlighted when it is first drawn, through a cache: an append highlights only the
piece whose text changed (the last), and a finished fence shown at once (a resumed reply, a
page of earlier messages) highlights only the pieces in view, the others as they scroll in
(a 3,000-line fence lexed whole held the screen for 0.5-0.8 s). A construct that runs across a
piece's end (a string of many lines) may be coloured as plain text in the next piece: the text
is the same, only its colour differs. A fence with no language is highlighted as the language
guessed from its first piece, for every piece.

``reply_markdown.ReplyMarkdown`` gives it to a reply's ``Markdown`` through ``Markdown.BLOCKS``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from textual.app import ComposeResult
from textual.content import Content
from textual.geometry import Offset, Size
from textual.highlight import guess_language
from textual.selection import Selection
from textual.widget import Widget
from textual.widgets.markdown import MarkdownFence

__all__ = ["PIECE_LINES", "CodeFence", "CodePiece", "Look", "code_pieces"]

PIECE_LINES = 100
"""Lines of code a piece holds (the last piece may hold fewer)."""
_PIECE_CLASS = "code-piece"


def code_pieces(code: str) -> list[str]:
    """``code`` cut into pieces of ``PIECE_LINES`` lines (joined with newlines, they are the
    code again)."""
    lines = code.split("\n")
    return ["\n".join(lines[i : i + PIECE_LINES]) for i in range(0, len(lines), PIECE_LINES)]


class Look(NamedTuple):
    """A piece's code and how it is highlighted."""

    code: str
    language: str
    ansi: bool
    dark: bool


TAB_SIZE = 8
"""Columns a tab stands for, as in Textual's fence."""


# A highlighted piece of 100 lines of 80 characters takes about 140 KB (measured): 64 bound the
# cache to about 9 MB and hold a 3,000-line fence with the versions of its last piece a stream
# makes. A piece that fell out is lexed again when it is drawn again.
# Tabs are expanded first: Textual's highlighting places its styles by the code as given while
# Pygments expands the tabs it lexes, so each tab shifted the colours after it (Go, Makefiles).
@lru_cache(maxsize=64)
def _highlighted(look: Look) -> Content:
    code = look.code.expandtabs(TAB_SIZE)
    return MarkdownFence.highlight(code, look.language, ansi=look.ansi, dark=look.dark)


@lru_cache(maxsize=64)
def _guessed(piece: str) -> str:
    return guess_language(piece, None)


def _written_column(line: str, column: int) -> int:
    """Where in ``line`` the character shown at ``column`` is (tabs expanded to ``TAB_SIZE``)."""
    shown = 0
    for index, char in enumerate(line):
        if shown >= column:
            return index
        shown = (shown // TAB_SIZE + 1) * TAB_SIZE if char == "\t" else shown + 1
    return len(line)


class CodePiece(Widget):
    """One piece of a fence: measured from its plain text, highlighted when Textual first draws
    it (module docstring)."""

    DEFAULT_CSS = """
    CodePiece {
        width: auto;
        height: auto;
        min-height: 1;
    }
    """

    def __init__(self, look: Look) -> None:
        super().__init__(classes=_PIECE_CLASS, markup=False)
        self.look = look
        self._plain = Content(look.code.expandtabs(TAB_SIZE))
        self._widest: int | None = None

    def show(self, look: Look) -> None:
        """Show ``look`` instead (drawn, and so highlighted, when next on screen)."""
        if look != self.look:
            self.look = look
            self._plain = Content(look.code.expandtabs(TAB_SIZE))
            self._widest = None
            self.refresh(layout=True)

    def _widest_line(self) -> int:
        if self._widest is None:
            self._widest = self._plain.get_optimal_width(self.styles.get_rules(), 0)
        return self._widest

    def get_content_width(self, container: Size, viewport: Size) -> int:
        # The longest line (the fence scrolls sideways), and at least the fence's width, as a
        # ``Label(expand=True)``.
        return max(container.width, self._widest_line())

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # As wide as its longest line, no line wraps: a line a row, a last empty one too (the
        # highlighter drops a final newline: a blank line at a piece's end was lost). Wrapping
        # every line to measure it took most of the time a long fence took to show.
        if not width:
            return 0
        if width >= self._widest_line():
            return self.look.code.count("\n") + 1
        return self._plain.get_height(self.styles.get_rules(), width)

    def render(self) -> Content:
        return _highlighted(self.look)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        # The code as written: a copied Makefile keeps its tabs (the piece shows them expanded).
        code = self.look.code
        if "\t" not in code:
            return super().get_selection(selection)
        lines = code.splitlines()

        def written(offset: Offset | None) -> Offset | None:
            if offset is None or offset.y >= len(lines):
                return offset
            return Offset(_written_column(lines[offset.y], offset.x), offset.y)

        return Selection(written(selection.start), written(selection.end)).extract(code), "\n"


class CodeFence(MarkdownFence):
    """A fence shown as pieces of ``PIECE_LINES`` lines, each highlighted and drawn on its own
    (module docstring)."""

    DEFAULT_CSS = """
    CodeFence {
        padding: 1 0;
        & > .code-piece { padding: 0 2; }
    }
    CodeFence:ansi {
        padding: 1 0;
        & > .code-piece { padding: 0 0; }
    }
    """

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        """The code as plain ``Content``: Textual's fence keeps what this returns only to hand
        it to ``set_content``, and the pieces hold the highlighted text. (Joining the pieces
        into one ``Content`` here took a third of a growing fence's time: Textual builds a new
        fence, and calls this, at every append.)"""
        return Content(code)

    def _looks(self) -> list[Look]:
        """The code's pieces as this fence shows them (the app's colours)."""
        pieces = code_pieces(self.code)
        language = self.lexer or _guessed(pieces[0])
        ansi, dark = self.app.native_ansi_color, self.app.current_theme.dark
        return [Look(piece, language, ansi, dark) for piece in pieces]

    def compose(self) -> ComposeResult:
        for look in self._looks():
            yield CodePiece(look)

    def set_content(self, content: Content) -> None:
        """Show the code as it now is (``content``, from ``highlight``, is its plain text):
        only the pieces that changed are drawn again."""
        if not self.is_mounted:
            return
        shown = list(self.query_children(CodePiece).results(CodePiece))
        looks = self._looks()
        for piece, look in zip(shown, looks, strict=False):
            piece.show(look)
        if len(looks) > len(shown):
            self.mount_all(CodePiece(look) for look in looks[len(shown) :])
        for piece in shown[len(looks) :]:
            piece.remove()
