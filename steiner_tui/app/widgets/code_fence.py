"""A reply's code block, highlighted and drawn in pieces, so that a long one stays cheap to grow
and to show.

Textual's ``MarkdownFence`` highlights its code and draws it as one ``Label``. A streaming reply
is parsed again from its last block at each append, so each append highlighted the whole block
again and drew all its lines again, on screen or not (a ``Label`` is drawn whole). A model
writing a 3,000-line file in a fence (235 KB) froze the app for up to 3.5 s at a time, about
0.8 s of it highlighting and most of the rest drawing lines nobody saw.

``CodeFence`` cuts the code into pieces of ``PIECE_LINES`` lines. Each piece is highlighted on
its own, through a cache, so an append highlights only the pieces whose text changed (the last),
and each is shown by a ``Label`` of its own, which Textual draws only while it is on screen;
an append updates only the labels whose piece changed. A construct that runs across a piece's
end (a string of many lines) may be coloured as plain text in the next piece: the text is the
same, only its colour differs. A fence with no language is highlighted as the language guessed
from its first piece, for every piece.

``reply_markdown.ReplyMarkdown`` gives it to a reply's ``Markdown`` through ``Markdown.BLOCKS``.
"""

from __future__ import annotations

from functools import lru_cache

from textual.app import ComposeResult
from textual.content import Content
from textual.highlight import guess_language
from textual.widgets import Label
from textual.widgets.markdown import MarkdownFence

__all__ = ["PIECE_LINES", "CodeFence", "code_pieces"]

PIECE_LINES = 100
"""Lines of code a piece holds (the last piece may hold fewer)."""
_PIECE_CLASS = "code-piece"


def code_pieces(code: str) -> list[str]:
    """``code`` cut into pieces of ``PIECE_LINES`` lines (joined with newlines, they are the
    code again)."""
    lines = code.split("\n")
    return ["\n".join(lines[i : i + PIECE_LINES]) for i in range(0, len(lines), PIECE_LINES)]


# A highlighted piece of 100 lines of 80 characters takes about 140 KB (measured): 64 bound the
# cache to about 9 MB and hold a 3,000-line fence with the versions of its last piece a stream
# makes. A piece that fell out is lexed again when its fence is shown again.
@lru_cache(maxsize=64)
def _highlighted(piece: str, language: str, ansi: bool, dark: bool) -> Content:
    return MarkdownFence.highlight(piece, language, ansi=ansi, dark=dark)


@lru_cache(maxsize=64)
def _guessed(piece: str) -> str:
    return guess_language(piece, None)


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

    @classmethod
    def pieces(cls, code: str, language: str, *, ansi: bool, dark: bool) -> list[Content]:
        """``code`` highlighted in pieces (cached: a piece seen before is not lexed again)."""
        pieces = code_pieces(code)
        language = language or _guessed(pieces[0])
        return [_highlighted(piece, language, ansi, dark) for piece in pieces]

    def _shown_pieces(self) -> list[Content]:
        return self.pieces(
            self.code, self.lexer, ansi=self.app.native_ansi_color, dark=self.app.current_theme.dark
        )

    def compose(self) -> ComposeResult:
        for piece in self._shown_pieces():
            yield Label(piece, classes=_PIECE_CLASS, expand=True)

    def set_content(self, content: Content) -> None:
        """Show the code as it now is (``content``, from ``highlight``, is its plain text):
        only the labels whose piece changed are updated."""
        if not self.is_mounted:
            return
        labels = list(self.query_children(f".{_PIECE_CLASS}").results(Label))
        pieces = self._shown_pieces()
        for label, piece in zip(labels, pieces, strict=False):
            if label.content is not piece:
                label.update(piece)
        if len(pieces) > len(labels):
            self.mount_all(
                Label(piece, classes=_PIECE_CLASS, expand=True) for piece in pieces[len(labels) :]
            )
        for label in labels[len(pieces) :]:
            label.remove()
