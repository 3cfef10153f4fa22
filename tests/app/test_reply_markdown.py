"""A reply's long list: one paragraph, a line an item, not ten widgets an item."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets.markdown import MarkdownBlock

from steiner_tui.app.transcript import ReplyEntry
from steiner_tui.app.widgets.code_fence import CodeFence
from steiner_tui.app.widgets.reply import reply_widget
from steiner_tui.app.widgets.reply_markdown import LIST_ITEMS, TABLE_ROWS, reply_parser


def _types(markdown: str) -> list[str]:
    return [token.type for token in reply_parser().parse(markdown) if token.level == 0]


def _items(count: int, marker: str = "-") -> str:
    return "".join(f"{marker} item *{i}*\n" for i in range(count))


def test_a_list_longer_than_the_limit_is_one_paragraph() -> None:
    assert _types(_items(LIST_ITEMS)) == ["bullet_list_open", "bullet_list_close"]
    assert _types(_items(LIST_ITEMS + 1)) == ["paragraph_open", "paragraph_close"]
    # Loose items (a blank line between them) are paragraphs too.
    loose = "\n".join(f"- item {i}\n" for i in range(LIST_ITEMS + 1))
    assert _types(loose) == ["paragraph_open", "paragraph_close"]


def test_a_long_list_with_more_than_paragraphs_stays_a_list() -> None:
    nested = _items(LIST_ITEMS + 1) + "  - a nested item\n"
    assert _types(nested) == ["bullet_list_open", "bullet_list_close"]
    fenced = _items(LIST_ITEMS + 1) + "- code:\n\n  ```\n  x\n  ```\n"
    assert _types(fenced) == ["bullet_list_open", "bullet_list_close"]


def test_the_lines_keep_their_markers_and_the_text_around_keeps_its_place() -> None:
    """Ordered lists keep their numbers (from their start) and their ``)``; the paragraph maps
    to the list's source lines (its blank line after it too), so an append parses again from
    there."""
    ordered = "Before.\n\n" + "".join(f"{7 + i}) step {i}\n" for i in range(LIST_ITEMS + 1))
    tokens = reply_parser().parse(ordered + "\nAfter.\n")
    paragraph = [t for t in tokens if t.type == "paragraph_open"]
    assert [t.map for t in paragraph] == [
        [0, 1],
        [2, LIST_ITEMS + 4],
        [LIST_ITEMS + 4, LIST_ITEMS + 5],
    ]
    inline = tokens[4]
    texts = [child.content for child in inline.children or () if child.type == "text"]
    assert texts[:4] == ["7) ", "step 0", "8) ", "step 1"]
    assert texts[-2:] == [f"{7 + LIST_ITEMS}) ", f"step {LIST_ITEMS}"]
    breaks = [child for child in inline.children or () if child.type == "hardbreak"]
    assert len(breaks) == LIST_ITEMS


class _Reply(App[None]):
    def compose(self) -> ComposeResult:
        yield reply_widget(ReplyEntry(""))


async def test_a_streamed_list_of_300_items_is_a_handful_of_widgets() -> None:
    """Streamed 20 items an append: a short list while it is short, then one paragraph whose
    lines are the items, styles kept (Textual's list mounts about ten widgets an item, 10 ms
    each, again at every append)."""
    async with _Reply().run_test(size=(100, 30)) as pilot:
        reply = pilot.app.query_one(".reply")
        await reply.append(_items(20))  # type: ignore[attr-defined]
        await pilot.pause()
        assert len(reply.query("MarkdownBulletList")) == 1
        for start in range(20, 300, 20):
            await reply.append(_items(start + 20)[len(_items(start)) :])  # type: ignore[attr-defined]
            await pilot.pause()
        assert not reply.query("MarkdownBulletList")
        assert len(reply.query("*")) < 5
        paragraph = reply.query_one("MarkdownParagraph", MarkdownBlock)
        lines = str(paragraph.content).split("\n")
        assert lines == [f"• item {i}" for i in range(300)]
        assert any(".em" in str(span.style) for span in paragraph.content.spans)


def _table(rows: int) -> str:
    body = "".join(
        f"| `f{i:03}.py` | {i * 7} | **日本** [x](https://x.org) |\n" for i in range(rows)
    )
    return "| file | size | note |\n|---|--:|:-:|\n" + body


def test_a_table_longer_than_the_limit_is_a_block_of_aligned_text() -> None:
    assert _types(_table(TABLE_ROWS))[0] == "table_open"
    tokens = reply_parser().parse("Sizes:\n\n" + _table(TABLE_ROWS + 1) + "\nDone.\n")
    fence = next(token for token in tokens if token.type == "fence")
    assert fence.info == "text" and fence.map == [2, TABLE_ROWS + 5]
    lines = fence.content.splitlines()
    assert lines[:4] == [
        "file    | size |  note",
        "--------+------+-------",
        "f000.py |    0 | 日本 x",  # right-aligned sizes; wide characters take two cells
        "f001.py |    7 | 日本 x",
    ]
    assert len(lines) == TABLE_ROWS + 3


async def test_a_streamed_table_of_300_rows_is_one_code_block() -> None:
    async with _Reply().run_test(size=(100, 30)) as pilot:
        reply = pilot.app.query_one(".reply")
        text = _table(300)
        for start in range(0, len(text), 2_000):
            await reply.append(text[start : start + 2_000])  # type: ignore[attr-defined]
            await pilot.pause()
        assert not reply.query("MarkdownTable")
        assert len(reply.query("*")) < 10
        fence = reply.query_one(CodeFence)
        assert fence.code.splitlines()[-1] == "f299.py | 2093 | 日本 x"
