"""A reply's ``Markdown``: Textual's, with blocks that stay cheap however long a reply grows.

Textual builds a widget for every part of a Markdown block and builds a block again at each
append while it grows. Two blocks a model can make long cost too much that way:

- a code fence: ``code_fence.CodeFence`` (through ``Markdown.BLOCKS``);
- a list: each item is about ten widgets, 10 ms an item to mount (a stock ``Markdown`` took 10 s
  to show a 1,000-item list once, and a reply streaming it showed it again at every append). A
  list of more than ``LIST_ITEMS`` items whose items are each one paragraph is therefore set
  as one paragraph, a line an item, each behind its bullet or number (``plainer_blocks``, a
  rule of the reply's markdown-it parser, given through ``Markdown``'s ``parser_factory``).
  Its items keep their inline styles; a wrapped item's next lines start at the margin, not
  under its text. A list whose items hold more (a nested list, a code block) stays a list;
- a table: a widget a cell, 1.7 ms a row to mount again at every append (an append to a 600-row
  table took 1.7 s). A table of more than ``TABLE_ROWS`` rows is therefore shown as a code
  block (the same rule): its cells' text in aligned columns, without their inline styles.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    "plainer_blocks",
    "reply_parser",
]

LIST_ITEMS = 25
"""A list of more items than this, each one paragraph, is shown as one paragraph."""
TABLE_ROWS = 40
"""A table of more body rows than this is shown as a code block of aligned columns."""
_BULLET = "• "
_CLOSES = {
    "bullet_list_open": "bullet_list_close",
    "ordered_list_open": "ordered_list_close",
    "table_open": "table_close",
}
"""The blocks ``plainer_blocks`` looks at, and the token that closes each."""


def _rewritten(
    tokens: list[Token],
    closes: Mapping[str, str],
    replace: Callable[[list[Token]], list[Token] | None],
) -> list[Token]:
    """``tokens`` with each block that opens with a type of ``closes`` (its tokens up to the
    closing type at its level) replaced by what ``replace`` makes of it; a block ``replace``
    keeps (None) is walked into, so a block of its kind inside it is seen too."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        close = closes.get(token.type)
        made = None
        if close is not None:
            end = next(
                j for j in range(i + 1, len(tokens))
                if tokens[j].type == close and tokens[j].level == token.level
            )  # fmt: skip
            made = replace(tokens[i : end + 1])
        if made is None:
            out.append(token)
            i += 1
        else:
            out += made
            i = end + 1
    return out


_ITEM = ["list_item_open", "paragraph_open", "inline", "paragraph_close", "list_item_close"]
"""The tokens of a list item that is one paragraph."""


def _marker(opening: Token, item: Token, ordinal: int) -> str:
    if opening.type == "bullet_list_open":
        return _BULLET
    return f"{item.info or ordinal}{item.markup or '.'} "


def _list_as_paragraph(block: list[Token]) -> list[Token] | None:
    """A list of more than ``LIST_ITEMS`` one-paragraph items as a paragraph of one line an
    item (None: a shorter list, or one whose items hold more)."""
    opening, inner = block[0], block[1:-1]
    items = [inner[k : k + len(_ITEM)] for k in range(0, len(inner), len(_ITEM))]
    if len(items) <= LIST_ITEMS or any([t.type for t in item] != _ITEM for item in items):
        return None
    start = int(opening.attrGet("start") or 1)
    children: list[Token] = []
    for n, (item, _, inline, _, _) in enumerate(items):
        if n:
            children.append(Token("hardbreak", "br", 0))
        children.append(Token("text", "", 0, content=_marker(opening, item, start + n)))
        children.extend(inline.children or ())
    level, where = opening.level, opening.map
    return [
        Token("paragraph_open", "p", 1, map=where, level=level),
        Token("inline", "", 0, map=where, level=level + 1, children=children),
        Token("paragraph_close", "p", -1, level=level),
    ]


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


def _table_as_code(block: list[Token]) -> list[Token] | None:
    """A table of more than ``TABLE_ROWS`` body rows as a code block of aligned text (None:
    a shorter one)."""
    rows: list[list[str]] = []
    aligns: list[str] = []
    for token in block:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "th_open":
            aligns.append(_align(token))
        elif token.type == "inline":
            rows[-1].append(_plain(token))
    if len(rows) - 1 <= TABLE_ROWS:
        return None
    opening = block[0]
    return [
        Token("fence", "code", 0, map=opening.map, level=opening.level,
              content=_aligned(rows, aligns) + "\n", info="text", markup="```", block=True)
    ]  # fmt: skip


def _plainer(block: list[Token]) -> list[Token] | None:
    if block[0].type == "table_open":
        return _table_as_code(block)
    return _list_as_paragraph(block)


def plainer_blocks(state: StateCore) -> None:
    """The markdown-it core rule, one walk over the tokens: each list of more than
    ``LIST_ITEMS`` one-paragraph items becomes a paragraph of one line an item, each table of
    more than ``TABLE_ROWS`` body rows a code block of its cells' text in aligned columns
    (module docstring)."""
    state.tokens = _rewritten(state.tokens, _CLOSES, _plainer)


def reply_parser() -> MarkdownIt:
    """Textual's parser ("gfm-like") with ``plainer_blocks`` after its own rules."""
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("plainer_blocks", plainer_blocks)
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
