"""A reply's ``Markdown``: Textual's, with blocks that stay cheap however long a reply grows.

Textual builds a widget for every part of a Markdown block and builds a block again at each
append while it grows. Two blocks a model can make long cost too much that way:

- a code fence: ``code_fence.CodeFence`` (through ``Markdown.BLOCKS``);
- a list: each item is about ten widgets, 10 ms an item to mount (a stock ``Markdown`` took 10 s
  to show a 1,000-item list once, and a reply streaming it showed it again at every append). A
  list of more than ``LIST_ITEMS`` items whose items are each one paragraph is therefore set
  as one paragraph, a line an item, each behind its bullet or number (``flatten_long_lists``, a
  rule of the reply's markdown-it parser, given through ``Markdown``'s ``parser_factory``).
  Its items keep their inline styles; a wrapped item's next lines start at the margin, not
  under its text. A list whose items hold more (a nested list, a code block) stays a list;
- a table: a widget a cell, 1.7 ms a row to mount again at every append (an append to a 600-row
  table took 1.7 s). A table of more than ``TABLE_ROWS`` rows is therefore shown as a code
  block (``table_as_text``, a rule of the same parser): its cells' text in aligned columns,
  without their inline styles.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from rich.cells import cell_len
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from steiner_tui.app.widgets.code_fence import CodeFence

__all__ = [
    "LIST_ITEMS",
    "TABLE_ROWS",
    "ReplyMarkdown",
    "flatten_long_lists",
    "reply_parser",
    "table_as_text",
]

LIST_ITEMS = 25
"""A list of more items than this, each one paragraph, is shown as one paragraph."""
TABLE_ROWS = 40
"""A table of more body rows than this is shown as a code block of aligned columns."""
_BULLET = "• "
_LISTS = {"bullet_list_open": "bullet_list_close", "ordered_list_open": "ordered_list_close"}


def _flat_items(tokens: list[Token], start: int, close: str) -> tuple[list[Token], int] | None:
    """The inline tokens of the items of the list opening at ``tokens[start]``, and the index
    of its closing token; None when an item holds more than one paragraph."""
    level = tokens[start].level
    inlines: list[Token] = []
    i = start + 1
    while not (tokens[i].type == close and tokens[i].level == level):
        item = tokens[i : i + 5]
        kinds = [token.type for token in item]
        if kinds != [
            "list_item_open",
            "paragraph_open",
            "inline",
            "paragraph_close",
            "list_item_close",
        ]:
            return None
        inlines.append(item[2])
        i += 5
    return inlines, i


def _marker(opening: Token, item: Token, ordinal: int) -> str:
    if opening.type == "bullet_list_open":
        return _BULLET
    return f"{item.info or ordinal}{item.markup or '.'} "


def flatten_long_lists(state: StateCore) -> None:
    """The markdown-it core rule: each list of more than ``LIST_ITEMS`` one-paragraph items
    becomes a paragraph of one line an item (module docstring)."""
    tokens = state.tokens
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        close = _LISTS.get(token.type)
        found = _flat_items(tokens, i, close) if close else None
        if found is None or len(found[0]) <= LIST_ITEMS:
            out.append(token)
            i += 1
            continue
        inlines, end = found
        items = [t for t in tokens[i:end] if t.type == "list_item_open"]
        start = int(token.attrGet("start") or 1)
        children: list[Token] = []
        for n, (item, inline) in enumerate(zip(items, inlines, strict=True)):
            if n:
                children.append(Token("hardbreak", "br", 0))
            children.append(Token("text", "", 0, content=_marker(token, item, start + n)))
            children.extend(inline.children or ())
        opening = Token("paragraph_open", "p", 1, map=token.map, level=token.level)
        inline = Token("inline", "", 0, map=token.map, level=token.level + 1, children=children)
        out += [opening, inline, Token("paragraph_close", "p", -1, level=token.level)]
        i = end + 1
    state.tokens = out


def _plain(inline: Token) -> str:
    """An inline token's text without its styles (a link's text, an image's alt text)."""
    parts: list[str] = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(str(child.attrGet("alt") or child.content))
    return "".join(parts)


def _pad(cell: str, width: int, align: str) -> str:
    space = width - cell_len(cell)
    if align == "right":
        return " " * space + cell
    if align == "center":
        return " " * (space // 2) + cell + " " * (space - space // 2)
    return cell + " " * space


def _aligned(rows: list[list[str]], aligns: list[str]) -> str:
    """``rows`` (the first the header) as columns padded to their widest cell (in terminal
    cells), each aligned as its column asks (``aligns``: left, right or center)."""
    columns = max(len(row) for row in rows)
    rows = [row + [""] * (columns - len(row)) for row in rows]
    aligns = aligns + ["left"] * (columns - len(aligns))
    widths = [max(cell_len(row[c]) for row in rows) for c in range(columns)]
    lines = [
        " | ".join(_pad(cell, w, a) for cell, w, a in zip(row, widths, aligns, strict=True))
        for row in rows
    ]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def _align(cell: Token) -> str:
    style = str(cell.attrGet("style") or "")
    return next((a for a in ("right", "center") if a in style), "left")


def table_as_text(state: StateCore) -> None:
    """The markdown-it core rule: each table of more than ``TABLE_ROWS`` body rows becomes a
    code block of its cells' text in aligned columns (module docstring)."""
    tokens = state.tokens
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type != "table_open":
            out.append(token)
            i += 1
            continue
        end = next(
            j for j in range(i + 1, len(tokens))
            if tokens[j].type == "table_close" and tokens[j].level == token.level
        )  # fmt: skip
        rows: list[list[str]] = []
        aligns: list[str] = []
        for inner in tokens[i:end]:
            if inner.type == "tr_open":
                rows.append([])
            elif inner.type == "th_open":
                aligns.append(_align(inner))
            elif inner.type == "inline":
                rows[-1].append(_plain(inner))
        if len(rows) - 1 > TABLE_ROWS:
            text = _aligned(rows, aligns)
            out.append(
                Token("fence", "code", 0, map=token.map, level=token.level, content=text + "\n",
                      info="text", markup="```", block=True)
            )  # fmt: skip
        else:
            out.extend(tokens[i : end + 1])
        i = end + 1
    state.tokens = out


def reply_parser() -> MarkdownIt:
    """Textual's parser ("gfm-like") with ``flatten_long_lists`` and ``table_as_text`` after
    its own rules."""
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("flatten_long_lists", flatten_long_lists)
    parser.core.ruler.push("table_as_text", table_as_text)
    return parser


class ReplyMarkdown(Markdown):
    """Textual's ``Markdown`` with ``CodeFence`` for its code blocks and long lists set as
    paragraphs (module docstring)."""

    # Textual declares BLOCKS without ClassVar; a ClassVar here would not type-check.
    BLOCKS: dict[str, type[MarkdownBlock]] = {  # noqa: RUF012
        **Markdown.BLOCKS,
        "fence": CodeFence,
        "code_block": CodeFence,
    }

    def __init__(self, markdown: str | None = None, **options: Any) -> None:
        super().__init__(markdown, parser_factory=reply_parser, **options)
