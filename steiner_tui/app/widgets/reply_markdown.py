"""Markdown laid out as lines of ``Content``: one visual per reply instead of a widget per block.

Textual's ``Markdown`` widget mounts a widget for every block (a bullet item alone is four), and
a long conversation pays for each of them on every scroll frame and on every mount. A finished or
streaming reply only needs to be drawn, so ``MarkdownVisual`` parses the source once and lays the
blocks out at a given width itself, caching the lines for the last width. It follows the look of
Textual's widget (the same margins, bullets, heading and inline styles), with styles named by
theme variables, so the theme decides the colours. Parts are named (``.reply--h2``) while laying
out and get their style strings at the end: component classes would do the same, but Textual
resolves them for every widget it mounts, a visible cost when a batch of replies mounts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache, partial

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode
from rich.cells import cell_len
from textual.content import Content, Span
from textual.css.styles import RulesMap
from textual.highlight import highlight
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

__all__ = [
    "BULLETS",
    "DARK_STYLES",
    "LIGHT_STYLES",
    "LinesVisual",
    "MarkdownVisual",
    "inline_content",
    "layout",
    "parse",
    "shared_visual",
    "wrap_indented",
]

BULLETS = ("• ", "▪ ", "‣ ", "⭑ ", "◦ ")
"""Bullets for unordered lists, by nesting depth (as Textual's ``Markdown``)."""
_HEADING = "$markdown-h{n}-color $markdown-h{n}-text-style on $markdown-h{n}-background"
_SHARED = {
    **{f"reply--h{n}": _HEADING.format(n=n) for n in range(1, 7)},
    "reply--em": "italic",
    "reply--strong": "bold",
    "reply--s": "strike",
    "reply--link": "underline",
    "reply--quote": "on $boost",
    "reply--rule": "$secondary",
    "reply--th": "bold $primary",
}
DARK_STYLES = {
    **_SHARED,
    "reply--code": "$text-warning 95% on $warning 10%",
    "reply--bullet": "$text-primary",
    "reply--quote-bar": "$text-primary 50%",
    "reply--fence": "rgb(210,210,210) on black 10%",
}
"""Style of each named part on a dark theme (Textual's ``Markdown`` look, theme variables)."""
LIGHT_STYLES = {
    **_SHARED,
    "reply--code": "$text-error 95% on $error 5%",
    "reply--bullet": "$text-secondary",
    "reply--quote-bar": "$text-secondary",
    "reply--fence": "rgb(210,210,210) on white 30%",
}
"""Style of each named part on a light theme."""
SHARED_VISUALS = 256
"""How many finished replies keep their laid-out lines after their widgets are unmounted."""
_HEADING_MARGINS = {1: (2, 1), 2: (2, 1)}
_FENCE_PAD = 2


@dataclass(slots=True)
class _Block:
    lines: list[Content]
    top: int = 0
    bottom: int = 0


def inline_content(token: Token) -> Content:
    """Content for an inline token: emphasis, code, links and images as styled spans."""
    parts: list[str] = []
    spans: list[Span] = []
    stack: list[tuple[str | Style, int]] = []
    position = 0

    def add(text: str) -> None:
        nonlocal position
        parts.append(text)
        position += len(text)

    def close() -> None:
        if stack:
            style, start = stack.pop()
            spans.append(Span(start, position, style))

    opening = {"em_open": ".reply--em", "strong_open": ".reply--strong", "s_open": ".reply--s"}
    for child in token.children or ():
        kind = child.type
        if kind == "text":
            add(re.sub(r"\s+", " ", child.content))
        elif kind == "softbreak":
            add(" ")
        elif kind == "hardbreak":
            add("\n")
        elif kind == "code_inline":
            stack.append((".reply--code", position))
            add(child.content)
            close()
        elif kind in opening:
            stack.append((opening[kind], position))
        elif kind == "link_open":
            href = str(child.attrs.get("href", ""))
            stack.append((".reply--link", position))
            stack.append((Style.from_meta({"@click": f"link({href!r})"}), position))
        elif kind == "link_close":
            close()
            close()
        elif kind == "image":
            alt = str(child.attrs.get("alt", ""))
            add("🖼  " + (f"({alt})" if alt else ""))
        elif kind in ("html_inline", "html_block"):
            add(child.content)
        elif kind.endswith("_close"):
            close()
    return Content("".join(parts), spans=spans)


def _wrap(content: Content, width: int) -> list[Content]:
    lines = content.wrap(max(1, width))
    return [line.rstrip() for line in lines] or [Content("")]


def wrap_indented(content: Content, width: int, indent: int) -> list[Content]:
    """``content`` wrapped to ``width`` with every line indented by ``indent`` cells."""
    pad = Content(" " * indent)
    return [pad + line for line in _wrap(content, width - indent)]


def _fill(line: Content, width: int, style: str) -> Content:
    """``line`` padded to ``width`` with ``style`` under it (for block backgrounds)."""
    return line.extend_right(max(0, width - line.cell_length)).stylize_before(style)


def _inline_of(node: SyntaxTreeNode) -> Content:
    for child in node.children:
        if child.type == "inline" and child.token is not None:
            return inline_content(child.token)
    return Content("")


def _stack(blocks: list[_Block], *, drop_last_margin: bool) -> list[Content]:
    """Blocks one above the other; adjacent margins collapse (the larger wins)."""
    lines: list[Content] = []
    previous: int | None = None
    for block in blocks:
        gap = block.top if previous is None else max(previous, block.top)
        lines.extend(Content("") for _ in range(gap))
        lines.extend(block.lines)
        previous = block.bottom
    if previous and not drop_last_margin:
        lines.extend(Content("") for _ in range(previous))
    return lines


def _heading(node: SyntaxTreeNode, width: int) -> _Block:
    level = int(node.tag[1:]) if node.tag[1:].isdigit() else 1
    style = f".reply--h{level}"
    text = _inline_of(node)
    if level == 1:
        lines = [_fill(line.center(width), width, style) for line in _wrap(text, width)]
    else:
        lines = [line.stylize_before(style) for line in _wrap(text, width)]
    top, bottom = _HEADING_MARGINS.get(level, (1, 1))
    return _Block(lines, top, bottom)


def _list(node: SyntaxTreeNode, width: int, depth: int, in_list: bool) -> _Block:
    items = [child for child in node.children if child.type == "list_item"]
    if node.type == "ordered_list":
        start = int(node.attrs.get("start", 1) or 1)
        marks = [f"{n}. " for n in range(start, start + len(items))]
        size = max((len(mark) for mark in marks), default=0)
        marks = [mark.rjust(size + 1) for mark in marks]
    else:
        marks = [BULLETS[depth % len(BULLETS)]] * len(items)
    lines: list[Content] = []
    for mark, item in zip(marks, items, strict=True):
        indent = cell_len(mark)
        inner = _stack(
            _blocks(item.children, width - indent, depth + 1, in_list=True),
            drop_last_margin=False,
        ) or [Content("")]
        lines.append(Content.styled(mark, ".reply--bullet") + inner[0])
        lines.extend(Content(" " * indent) + line for line in inner[1:])
    return _Block(lines, 0, 0 if in_list else 1)


def _quote(node: SyntaxTreeNode, width: int, depth: int) -> _Block:
    inner_width = max(1, width - 3)
    inner = _stack(_blocks(node.children, inner_width, depth, in_list=True), drop_last_margin=True)
    lines = [
        _fill(Content.assemble(("▌", ".reply--quote-bar"), " ", line), width, ".reply--quote")
        for line in inner or [Content("")]
    ]
    return _Block(lines, 1, 1)


def _fence(node: SyntaxTreeNode, width: int) -> _Block:
    code = node.content.rstrip()
    language = node.info.split()[0] if node.info.strip() else None
    inner = max(1, width - 2 * _FENCE_PAD)
    body = highlight(code, language=language) if language else Content(code)
    pad = Content(" " * _FENCE_PAD)
    lines = [Content("")]
    for line in body.split("\n", allow_blank=True):
        lines.extend(pad + part for part in (line.fold(inner) if line else [line]))
    lines.append(Content(""))
    return _Block([_fill(line, width, ".reply--fence") for line in lines], 1, 1)


def _table(node: SyntaxTreeNode, width: int) -> _Block:
    rows: list[tuple[bool, list[Content]]] = []
    for section in node.children:
        for row in section.children:
            cells = [_inline_of(cell) for cell in row.children]
            rows.append((section.type == "thead", cells))
    columns = max((len(cells) for _, cells in rows), default=0)
    if not columns:
        return _Block([], 0, 1)
    widths = [
        max((cells[i].cell_length for _, cells in rows if i < len(cells)), default=0)
        for i in range(columns)
    ]
    room = max(columns, width - 3 * (columns - 1))
    while sum(widths) > room:
        widest = widths.index(max(widths))
        widths[widest] -= 1
    separator = Content.styled(" │ ", ".reply--rule")
    lines: list[Content] = []
    for header, cells in rows:
        padded = [
            (cells[i] if i < len(cells) else Content("")).truncate(
                widths[i], ellipsis=True, pad=True
            )
            for i in range(columns)
        ]
        line = separator.join(padded).rstrip()
        lines.append(line.stylize_before(".reply--th") if header else line)
        if header:
            rule = "─┼─".join("─" * w for w in widths)
            lines.append(Content.styled(rule, ".reply--rule"))
    return _Block(lines, 0, 1)


def _blocks(nodes: list[SyntaxTreeNode], width: int, depth: int, *, in_list: bool) -> list[_Block]:
    width = max(1, width)
    blocks: list[_Block] = []
    for node in nodes:
        kind = node.type
        if kind == "heading":
            blocks.append(_heading(node, width))
        elif kind == "paragraph":
            blocks.append(_Block(_wrap(_inline_of(node), width), 0, 0 if in_list else 1))
        elif kind in ("bullet_list", "ordered_list"):
            blocks.append(_list(node, width, depth, in_list and depth > 0))
        elif kind == "blockquote":
            blocks.append(_quote(node, width, depth))
        elif kind in ("fence", "code_block"):
            blocks.append(_fence(node, width))
        elif kind == "hr":
            rule = Content.styled("─" * width, ".reply--rule")
            blocks.append(_Block([Content(""), rule], 0, 1))
        elif kind == "table":
            blocks.append(_table(node, width))
        elif kind == "html_block":
            blocks.append(_Block(_wrap(Content(node.content.rstrip()), width), 0, 1))
    return blocks


@cache
def _parser() -> MarkdownIt:
    # Building a parser loads its rule chains: about as long as parsing a short reply. One
    # parser serves every reply (``parse`` keeps no state between calls).

    return MarkdownIt("gfm-like")


def parse(source: str) -> SyntaxTreeNode:
    """The Markdown syntax tree of ``source`` (the parser Textual's ``Markdown`` uses).

    Without links from a node to its parent (laying out only goes down the tree): a tree with
    them is a cycle, which only a collection frees once no visual keeps the tree.
    """
    tree = SyntaxTreeNode(_parser().parse(source))
    for node in tree.walk(include_self=False):
        node.parent = None
    return tree


def _resolve(line: Content, styles: Mapping[str, str]) -> Content:
    """``line`` with its part names (``.reply--*``) replaced by the styles they stand for."""
    if not line.spans:
        return line
    spans = [
        Span(span.start, span.end, styles.get(span.style[1:], span.style))
        if isinstance(span.style, str) and span.style.startswith(".")
        else span
        for span in line.spans
    ]
    return Content(line.plain, spans=spans)


def layout(tree: SyntaxTreeNode, width: int, styles: Mapping[str, str]) -> list[Content]:
    """The lines of ``tree`` at ``width`` cells (none wider), styled with ``styles``."""
    lines = _stack(_blocks(tree.children, width, 0, in_list=False), drop_last_margin=True)
    return [_resolve(line, styles) for line in lines]


class LinesVisual(Visual):
    """Lines laid out by ``build(width)``, kept for the last width; drawn without re-wrapping."""

    def __init__(self, build: Callable[[int], list[Content]]) -> None:
        self._build = build
        self._width = -1
        self._lines: list[Content] = []
        self._joined: Content | None = None

    def lines(self, width: int) -> list[Content]:
        """The laid-out lines at ``width`` (cached until the width changes)."""
        if width != self._width:
            self._lines = self._build(width) if width > 0 else []
            self._width = width
            self._joined = None
        return self._lines

    def content(self, width: int) -> Content:
        """The lines at ``width`` as one ``Content``."""
        lines = self.lines(width)
        if self._joined is None:
            self._joined = Content("\n").join(lines)
        return self._joined

    def selected_text(self, selection: Selection, width: int) -> str | None:
        """The text under ``selection`` as drawn at ``width``."""
        return selection.extract(self.content(width).plain)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        """Strips of the laid-out lines (the widget sets ``text-wrap: nowrap``: each fits)."""
        return self.content(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        """The container's width: these visuals fill their column."""
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        """Lines at ``width``."""
        return len(self.lines(width))


class _ParsedOnce:
    """A Markdown source, parsed on its first layout."""

    __slots__ = ("_source", "_tree")

    def __init__(self, source: str) -> None:
        self._source = source
        self._tree: SyntaxTreeNode | None = None

    def layout(self, styles: Mapping[str, str], width: int) -> list[Content]:
        if self._tree is None:
            self._tree = parse(self._source)
        return layout(self._tree, width, styles)


class MarkdownVisual(LinesVisual):
    """A Markdown document drawn as lines (parsed once, on the first layout)."""

    def __init__(self, source: str, *, dark: bool = True) -> None:
        # Lines are built by the parsed source, not by a method of the visual: a visual that
        # referred to itself would wait for a full collection once no reply shows it.
        styles = DARK_STYLES if dark else LIGHT_STYLES
        super().__init__(partial(_ParsedOnce(source).layout, styles))
        self.source = source
        """The Markdown text."""
        self.dark = dark
        """Styled for a dark theme (else a light one)."""


@lru_cache(maxsize=SHARED_VISUALS)
def shared_visual(source: str, dark: bool) -> MarkdownVisual:
    """The visual of a finished reply, shared by every widget that shows it.

    Reading back through a long conversation mounts widgets for the same replies again (End
    after Home, PgDn back over what PgUp passed): they reuse the parsed and laid-out lines
    instead of parsing them again, for the last ``SHARED_VISUALS`` replies shown.
    """
    return MarkdownVisual(source, dark=dark)
