"""A reply's code block in pieces: an append highlights and redraws only what changed, and a
long block shown at once highlights only what is on screen."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Offset
from textual.selection import Selection
from textual.widgets import Label, Markdown
from textual.widgets.markdown import MarkdownFence

from steiner_tui.app.transcript import ReplyEntry
from steiner_tui.app.widgets.code_fence import PIECE_LINES, CodeFence, CodePiece, code_pieces
from steiner_tui.app.widgets.reply import reply_widget


def _code(lines: int) -> str:
    return "\n".join(f"value_{i} = compute({i})  # line {i}" for i in range(lines))


class _Replies(App[None]):
    def compose(self) -> ComposeResult:
        yield reply_widget(ReplyEntry(""))


def _lexed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every text Textual's fence highlighting is asked to lex, from now on."""
    sizes: list[int] = []
    highlight = MarkdownFence.highlight

    def counted(code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        sizes.append(len(code))
        return highlight(code, language, ansi=ansi, dark=dark)

    monkeypatch.setattr(MarkdownFence, "highlight", counted)
    return sizes


def _pieces(fence: CodeFence) -> list[CodePiece]:
    return list(fence.query_children(CodePiece).results(CodePiece))


async def test_a_growing_fence_lexes_only_its_changed_piece(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 1,000-line fence appended 20 lines at a time: the code is lexed at most about once, not
    once an append (the stock fence lexed 25 times the code); the pieces an append leaves alone
    are not drawn again, and together the pieces are the code."""
    code = _code(1_000)
    lines = code.split("\n")
    async with _Replies().run_test(size=(100, 30)) as pilot:
        reply = pilot.app.query_one(".reply")
        lexed = _lexed(monkeypatch)
        await reply.append("Here:\n\n```python\n")  # type: ignore[attr-defined]
        before: list[Any] = []
        for start in range(0, len(lines), 20):
            await reply.append("\n".join(lines[start : start + 20]) + "\n")  # type: ignore[attr-defined]
            await pilot.pause()
            fence = reply.query_one(CodeFence)
            now = [piece.look for piece in _pieces(fence)]
            kept = max(len(before) - 1, 0)  # all but the last piece of before
            assert now[:kept] == before[:kept]
            assert all(a is b for a, b in zip(now[:kept], before[:kept], strict=True))
            before = now
        await reply.append("```\n")  # type: ignore[attr-defined]
        await pilot.pause()
        fence = reply.query_one(CodeFence)
        pieces = _pieces(fence)
        assert len(pieces) == 10
        assert "\n".join(piece.look.code for piece in pieces) == code
        assert sum(lexed) < 4 * len(code), (sum(lexed), len(code))


class _Both(App[None]):
    def compose(self) -> ComposeResult:
        yield reply_widget(ReplyEntry(_FENCE))
        yield Markdown(_FENCE)


_FENCE = "```python\nx = 1\ny = 2\n```\n"


async def test_a_fence_sits_where_textual_puts_it() -> None:
    """The code is where Textual's own fence puts it: the same box, the text at the same
    place inside it (the padding moved from the label to the fence)."""
    async with _Both().run_test(size=(100, 30)) as pilot:
        ours, stock = pilot.app.query(Markdown)
        fence, stock_fence = ours.query_one(CodeFence), stock.query_one(MarkdownFence)
        assert type(stock_fence) is MarkdownFence
        assert len(_pieces(fence)) == 1
        assert fence.region.size == stock_fence.region.size == (96, 4)
        text, stock_text = _pieces(fence)[0], stock_fence.query_one(Label)
        assert text.content_region.x - fence.region.x == (
            stock_text.content_region.x - stock_fence.region.x
        )
        assert text.content_region.y - fence.region.y == 1
        assert stock_text.content_region.y - stock_fence.region.y == 1


class _Finished(App[None]):
    """A reply with a finished 3,000-line fence, shown at once (a resumed reply)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield reply_widget(ReplyEntry(f"Here:\n\n```python\n{_code(3_000)}\n```\n\nDone."))


async def test_a_long_fence_shown_at_once_lexes_what_is_on_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A finished 3,000-line fence mounted at once lexes the piece on screen, not the 30 (0.5-0.8 s
    for all of them); scrolled to its end, the last piece too, and what it shows is the code."""
    lexed = _lexed(monkeypatch)
    async with _Finished().run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        fence = pilot.app.query_one(CodeFence)
        pieces = _pieces(fence)
        assert len(pieces) == 30
        assert fence.virtual_region.height == 3_000 + 2  # measured whole, its padding around it
        assert len(lexed) <= 2, lexed
        pieces[-1].scroll_visible(animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        assert len(lexed) <= 4, lexed
        assert sum(lexed) < len(_code(3_000)) // 5
        assert pieces[-1].render().plain.endswith("value_2999 = compute(2999)  # line 2999")


class _BlankAtTheEnd(App[None]):
    def compose(self) -> ComposeResult:
        code = "\n".join("" if i == PIECE_LINES - 1 else f"x{i} = {i}" for i in range(150))
        yield reply_widget(ReplyEntry(f"```python\n{code}\n```\n"))
        yield Markdown(f"```python\n{code}\n```\n")


async def test_a_blank_line_at_a_pieces_end_is_kept() -> None:
    """The 100th line blank: the first piece still shows 100 lines (the highlighter drops a final
    newline), so the fence is as tall as Textual's own."""
    async with _BlankAtTheEnd().run_test(size=(100, 30)) as pilot:
        ours, stock = pilot.app.query(Markdown)
        fence, stock_fence = ours.query_one(CodeFence), stock.query_one(MarkdownFence)
        assert _pieces(fence)[0].region.height == PIECE_LINES
        assert fence.virtual_region.height == stock_fence.virtual_region.height == 150 + 2


class _Tabs(App[None]):
    def compose(self) -> ComposeResult:
        code = 'func main() {\n\tif x := 1; x > 0 {\n\t\tfmt.Println("hi")\n\t}\n}'
        yield reply_widget(ReplyEntry(f"```go\n{code}\n```\n"))
        yield reply_widget(ReplyEntry(f"```go\n{code.expandtabs(8)}\n```\n"))


async def test_tab_indented_code_is_coloured_as_with_spaces() -> None:
    """Each tab shifted the colours after it in Textual's fence (Go, Makefiles): the code is
    shown and coloured as the same code indented with spaces."""
    async with _Tabs().run_test(size=(100, 30)) as pilot:
        tabs, spaces = (fence.query_one(CodePiece) for fence in pilot.app.query(CodeFence))
        shown, expected = tabs.render(), spaces.render()
        assert shown.plain == expected.plain
        assert shown.spans == expected.spans
        assert tabs.region.size == spaces.region.size


_MAKEFILE = "all: app\n\napp: main.o\n\tcc -o app main.o\n\techo done"


class _Makefile(App[None]):
    def compose(self) -> ComposeResult:
        yield reply_widget(ReplyEntry(f"```make\n{_MAKEFILE}\n```\n"))


async def test_selected_code_is_copied_with_its_tabs() -> None:
    """The piece shows tabs expanded; what is selected is copied as written, so a Makefile's
    recipes keep the tabs make needs."""
    async with _Makefile().run_test(size=(100, 30)) as pilot:
        piece = pilot.app.query_one(CodePiece)
        assert "\t" not in piece.render().plain
        assert piece.get_selection(Selection(None, None)) == (_MAKEFILE, "\n")
        # From the recipe's first shown character (after the tab, column 8) into the next
        # line's tab: the text as written.
        selected = piece.get_selection(Selection(Offset(8, 3), Offset(5, 4)))
        assert selected == ("cc -o app main.o\n\t", "\n")


def test_pieces_are_the_code_again() -> None:
    for lines in (1, PIECE_LINES - 1, PIECE_LINES, PIECE_LINES + 1, 3 * PIECE_LINES + 7):
        code = _code(lines)
        pieces = code_pieces(code)
        assert "\n".join(pieces) == code
        assert all(len(piece.split("\n")) <= PIECE_LINES for piece in pieces)
        assert len(pieces) == -(-lines // PIECE_LINES)
