"""Small text helpers shared by the offline model's answering policy and its summarizer.

The offline model reads the same projected messages a real model would, so user text may start
with a mode notice and skill envelopes; ``user_text`` removes them with the engine's own parser
so intent detection and summaries see only what the person typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.sources import SOURCES
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.mentions import QUOTED_MENTION

__all__ = [
    "SESSION_DATE_SUFFIX",
    "code_blocks",
    "code_spans",
    "condense",
    "find_paths",
    "heuristic_tokens",
    "is_context_block",
    "md_code",
    "md_text",
    "norm_key",
    "prompt_chars",
    "sentences",
    "trim",
    "unmention",
    "user_text",
    "word_chunks",
]

SESSION_DATE_SUFFIX = "recorded when this session started."
"""The session-date block's fixed ending (docs/design.md, "4. The session date")."""

_CONTEXT_SOURCES = frozenset(str(spec.source) for spec in SOURCES if spec.context)


_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])")


_LIST_MARKER = re.compile(r"^\s*(?:[-*+>]\s+|\d{1,3}[.)]\s+)+")


_FENCE = re.compile(r"```[^\n]*\n?(.*?)```", re.DOTALL)


_CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


_EXTENSIONS = (
    "py|pyi|md|rst|txt|toml|json|jsonl|yaml|yml|ini|cfg|conf|lock|js|mjs|cjs|ts|tsx|jsx|go|rs|"
    "c|h|cc|cpp|hpp|java|kt|rb|sh|bash|zsh|html|css|tcss|scss|j2|sql|csv|xml|env|gradle|swift|"
    "php|lua|vue|svelte|ipynb|log|mod|sum|proto"
)


_PATH = re.compile(
    r"(?<![\w@/.:~-])"
    r"((?:\.{1,2}/|/)?(?:[\w.-]+/)*(?:[\w-][\w.-]*\.(?:" + _EXTENSIONS + r")"
    r"|Makefile|Dockerfile|README|LICENSE)"
    r"|(?:\.{1,2}/)?(?:[\w-][\w.-]*/)+)"
    r"(?![\w/])",
    re.IGNORECASE,
)


def heuristic_tokens(chars: int) -> int:
    """The heuristic token count for ``chars`` characters: ``8 + (chars + 3) // 4``."""
    return 8 + (chars + 3) // 4


def prompt_chars(messages: Iterable[Message]) -> int:
    """Total characters of the message contents (what the usage heuristic counts)."""
    return sum(len(m.content) for m in messages)


def word_chunks(text: str) -> list[str]:
    """Split ``text`` into word-ish pieces that join back to exactly ``text``."""
    chunks = re.findall(r"\s*\S+\s*", text)
    if not chunks and text:
        return [text]
    return chunks


def user_text(content: str) -> str:
    """The person's own words: ``content`` without a leading mode notice and skill envelopes."""
    return split_skill_blocks(content)[2].strip()


def is_context_block(message: Message) -> bool:
    """Whether a user-role message is assembled context (project context, date), not input."""
    if message.source in _CONTEXT_SOURCES:
        return True
    return message.role == "user" and SESSION_DATE_SUFFIX in message.content


def sentences(text: str) -> list[str]:
    """Split prose into lines, then sentences; code fences are dropped, list markers removed.

    A numbered line ("12. Lorem ipsum ...") stays one sentence without its number, so a list's
    numbering is never mistaken for a stated number.
    """
    out: list[str] = []
    for line in _FENCE.sub("\n", text).splitlines():
        for part in _SENTENCE_SPLIT.split(_LIST_MARKER.sub("", line)):
            part = part.strip(" \t-*>")
            if part:
                out.append(part)
    return out


def code_blocks(text: str) -> list[str]:
    """The contents of the fenced code blocks in ``text`` (pasted output, logs, code)."""
    return [match.group(1) for match in _FENCE.finditer(text)]


def code_spans(text: str) -> list[str]:
    """The inline code spans of ``text`` (commands, identifiers), in order, without repeats."""
    out: list[str] = []
    for span in _CODE_SPAN.findall(text):
        if span.strip() and span not in out:
            out.append(span)
    return out


_MD_ACTIVE = re.compile(r"([\\`*_\[\]<>|~&])")
_BACKTICKS = re.compile(r"`+")


def md_text(text: str) -> str:
    """``text`` for a Markdown answer, shown as written: the characters Markdown acts on inline
    (emphasis, code, links, HTML, entities, tables) are escaped. Answers quote files and what
    the person typed; ``__all__`` in a grep match must not turn into a bold "all"."""
    return _MD_ACTIVE.sub(r"\\\1", text)


def md_code(text: str) -> str:
    """``text`` as one inline code span, whatever backticks it holds (a longer fence)."""
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def trim(text: str, limit: int) -> str:
    """Collapse whitespace and cut ``text`` to at most ``limit`` characters at a word boundary."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def condense(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, keeping the code spans and paths it names.

    What the cut removed of its backticked commands and identifiers and its paths is listed
    after it, so a condensed line still names everything later work might look up.
    """
    short = trim(text, limit)
    if short == " ".join(text.split()):
        return short
    kept = short.removesuffix("…")
    lost = [f"`{span}`" for span in code_spans(text) if span not in kept]
    lost += [path for path in find_paths(text) if path not in kept and path not in str(lost)]
    return f"{short} ({', '.join(lost)})" if lost else short


def norm_key(text: str) -> str:
    """A dedupe key: lower case, collapsed whitespace, no trailing punctuation."""
    return " ".join(text.lower().split()).rstrip(".!?;:…")


_MENTION = re.compile(r"(?:^|(?<=\s))@(?=[\w./~-])")
"""An ``@`` that starts a word (the prompt's file mention, ``@src/app.py``); an address's
``@`` follows a letter."""


def unmention(text: str) -> str:
    """``text`` with each word's leading ``@`` dropped: a mentioned path reads as a path (a
    quoted one stays whole, for ``find_paths``)."""
    return _MENTION.sub("", text) if "@" in text else text


def find_paths(text: str) -> list[str]:
    """File and directory paths mentioned in ``text`` (``@path`` too), in first-seen order,
    without URLs."""
    out = list(dict.fromkeys(QUOTED_MENTION.findall(text)))
    text = unmention(QUOTED_MENTION.sub(" ", text))
    for match in _PATH.finditer(text):
        path = match.group(1).rstrip(".")
        start = match.start(1)
        if text[max(0, start - 3) : start] == "://" or path in out:
            continue
        out.append(path)
    return out
