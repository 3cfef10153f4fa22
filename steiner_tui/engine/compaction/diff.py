"""Explain a generation against the one before it: what it kept and what its summary dropped.

The lineage browser shows, for each generation, the parts compaction laid out (summary, replayed
skills, retained turns; see ``retention.compose_compacted_conversation``) and the concrete facts
of the previous generation that no longer appear anywhere: file paths, shell commands,
identifiers (code names quoted in backticks: ``split_budget``, ``SessionLog``, ``engine.tokens``)
and numbers. Those are the details a summary most often loses and a user most often needs back.

Facts are taken from what was *said*: user text (skill envelopes stripped), assistant text,
summaries and tool-call arguments (bash commands, path arguments). Tool results are left out of
extraction on purpose: a read result is line-numbered file content and would bury the list in
noise. They do count as presence, though: a fact still visible in a retained tool result was
not dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

import msgspec

from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.envelopes import split_skill_blocks, strip_skill_blocks

__all__ = [
    "DroppedFacts",
    "GenerationParts",
    "dropped_facts",
    "extract_facts",
    "generation_parts",
]

# fmt: off
_EXTENSIONS: Final = frozenset({
    "c", "cc", "cfg", "conf", "cpp", "css", "csv", "go", "h", "hpp", "html", "ini", "j2",
    "java", "js", "json", "jsx", "kt", "lock", "log", "md", "mjs", "py", "pyi", "rb", "rs",
    "sh", "sql", "svg", "tcss", "toml", "ts", "tsx", "txt", "xml", "yaml", "yml", "zsh",
})
_SHELL_WORDS: Final = frozenset({
    "bash", "cargo", "cat", "cd", "chmod", "cp", "curl", "diff", "docker", "echo", "export",
    "find", "git", "go", "grep", "head", "just", "ls", "make", "mkdir", "mv", "mypy", "node",
    "npm", "npx", "pip", "pnpm", "poetry", "pytest", "python", "python3", "rg", "rm", "ruff",
    "sed", "sh", "steiner-tui", "tail", "tmux", "touch", "tox", "uv", "uvx", "wc", "yarn",
})
# fmt: on
_PATH_ARGUMENTS: Final = frozenset({"path", "file", "file_path", "filename", "target"})
_SHELL_FENCES: Final = frozenset({"bash", "sh", "shell", "console", "zsh"})

_TOKEN = re.compile(r"[^\s`'\"()\[\]{}<>,;|:=]+")
_PATH_SHAPE = re.compile(r"(?:~|\.{1,2})?/?[\w@+\-.]+(?:/[\w@+\-.]+)*/?")
_INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_FENCE = re.compile(r"^```[ \t]*(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")
_NUMBER = re.compile(r"(?<![\w./])(?:v(?=\d))?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)*(?!\d)")
_SPACES = re.compile(r"\s+")


class DroppedFacts(msgspec.Struct, frozen=True):
    """Facts of one text body (or those a generation lost), each in order of first appearance."""

    paths: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    """Code names quoted in backticks (``snake_case``, ``CamelCase``, dotted names)."""

    @property
    def empty(self) -> bool:
        """True when nothing was found (or nothing was dropped)."""
        return not (self.paths or self.commands or self.numbers or self.identifiers)


class GenerationParts(msgspec.Struct, frozen=True):
    """A generation split the way compaction laid it out."""

    summary: str
    replayed_skills: tuple[str, ...]
    """Names of the skills whose envelopes the replay message carries, in order."""
    retained: tuple[Message, ...]
    """The messages after the summary and the skill replay."""


def generation_parts(generation: ConversationGeneration) -> GenerationParts:
    """Split ``generation`` into summary, replayed skill names and retained messages.

    Only a generation that opens with a ``summary`` message has a replay: the user messages
    right after it that hold nothing but skill envelopes.
    """
    messages = generation.messages
    start = 1 if messages and messages[0].role == "summary" else 0
    skills: list[str] = []
    while 0 < start < len(messages) and messages[start].role == "user":
        prefix, blocks, rest = split_skill_blocks(messages[start].content)
        if prefix or not blocks or rest.strip():
            break
        skills.extend(block.name for block in blocks if block.active)
        start += 1
    return GenerationParts(generation.summary, tuple(dict.fromkeys(skills)), messages[start:])


def _is_path(token: str) -> bool:
    if not _PATH_SHAPE.fullmatch(token) or not any(c.isalpha() for c in token):
        return False
    if "/" in token.strip("/") or token.startswith(("./", "../", "~/")):
        return True
    stem, dot, extension = token.rpartition(".")
    return bool(dot and stem) and extension.lower() in _EXTENSIONS


def _paths_in(text: str) -> Iterator[str]:
    for raw in _TOKEN.findall(text):
        if "/" not in raw and "." not in raw:
            continue  # most words: skip them before any further work
        token = raw.strip("*").rstrip(".!?")
        if _is_path(token):
            yield token.removeprefix("./")


def _shell_looking(text: str) -> bool:
    words = text.removeprefix("$ ").split()
    if not words or not re.fullmatch(r"[a-z][\w.+-]*", words[0]):
        return False
    if words[0] in _SHELL_WORDS:
        return len(words) >= 2
    return any(w.startswith("-") for w in words[1:]) or any(w in ("|", "&&") for w in words)


def _commands_in(text: str) -> Iterator[str]:
    for match in _FENCE.finditer(text):
        if match.group(1).lower() in _SHELL_FENCES:
            for line in match.group(2).splitlines():
                line = line.strip().removeprefix("$ ")
                if line and not line.startswith("#"):
                    yield line
    for match in _INLINE_CODE.finditer(_FENCE.sub("", text)):
        code = match.group(1).strip()
        if _shell_looking(code):
            yield code.removeprefix("$ ")


def _code_name(code: str) -> bool:
    """A name in code: an underscore, an inner capital (``SessionLog``) or a dotted name."""
    name = code.removesuffix("()")
    if not _IDENTIFIER.fullmatch(code) or name.isdigit():
        return False
    return "_" in name or "." in name or any(c.isupper() for c in name[1:])


def _identifiers_in(text: str) -> Iterator[str]:
    for match in _INLINE_CODE.finditer(_FENCE.sub("", text)):
        code = match.group(1).strip()
        if _code_name(code) and not _is_path(code):
            yield code


def _numbers_in(text: str) -> Iterator[str]:
    for match in _NUMBER.finditer(text):
        if sum(c.isdigit() for c in match.group()) >= 2:
            yield match.group()


def _said(messages: Iterable[Message], summary: str) -> tuple[list[str], list[str], list[str]]:
    """The texts facts come from: prose, bash commands, and path-valued tool arguments."""
    texts = [summary] if summary else []
    commands: list[str] = []
    paths: list[str] = []
    for message in messages:
        if message.role == "user":
            texts.append(strip_skill_blocks(message.content))
        elif message.role in ("assistant", "summary", "system"):
            texts.append(message.content)
        for call in message.tool_calls:
            for key, value in (call.arguments or {}).items():
                if not isinstance(value, str):
                    continue
                if call.name == "bash" and key == "command":
                    commands.append(value.strip())
                elif key in _PATH_ARGUMENTS:
                    paths.append(value.removeprefix("./"))
    return texts, commands, paths


def extract_facts(messages: Sequence[Message], summary: str = "") -> DroppedFacts:
    """The paths, commands, identifiers and numbers said in ``messages`` and ``summary``.

    Args:
        messages: a conversation; tool results are not read (see the module docstring).
        summary: extra text to read first (a generation's summary).

    Returns:
        The facts, deduplicated: tool-call arguments first, then the texts in order.
    """
    texts, commands, paths = _said(messages, summary)
    for text in texts:
        paths.extend(_paths_in(text))
        commands.extend(_commands_in(text))
    numbers = [n for text in texts for n in _numbers_in(text)]
    identifiers = [i for text in texts for i in _identifiers_in(text)]
    return DroppedFacts(
        tuple(dict.fromkeys(p for p in paths if p)),
        tuple(dict.fromkeys(c for c in commands if c)),
        tuple(dict.fromkeys(numbers)),
        tuple(dict.fromkeys(identifiers)),
    )


def _corpus(generation: ConversationGeneration) -> str:
    parts = [generation.summary]
    for message in generation.messages:
        parts.append(message.content)
        parts.extend(call.raw_arguments for call in message.tool_calls)
        for call in message.tool_calls:
            parts.extend(v for v in (call.arguments or {}).values() if isinstance(v, str))
    return "\n".join(parts)


def _name_suffixes(tokens: Iterable[str]) -> set[str]:
    """Every token and each of its tails after a ``/``: the names a text keeps."""
    names: set[str] = set()
    for raw in tokens:
        token = raw.strip("*").rstrip(".!?").removeprefix("./")
        names.add(token)
        while "/" in token:
            token = token.split("/", 1)[1]
            names.add(token)
    return names


def dropped_facts(
    previous: ConversationGeneration, current: ConversationGeneration
) -> DroppedFacts:
    """What ``previous`` said that ``current`` (summary and every message) no longer holds.

    A path counts as kept when it still appears as a whole name (``app.py`` is kept by
    ``src/app.py``, not the other way round); a command when it appears with the same words;
    an identifier or a number when the same one appears, tool results included.

    Args:
        previous: the generation that was compacted.
        current: the generation compaction produced from it.

    Returns:
        The dropped facts, each kind in order of first appearance in ``previous``.
    """
    facts = extract_facts(previous.messages, previous.summary)
    corpus = _corpus(current)
    flat = _SPACES.sub(" ", corpus)
    tokens = set(_TOKEN.findall(corpus))
    names = _name_suffixes(tokens)
    present_numbers = set(_numbers_in(corpus))

    def command_kept(command: str) -> bool:
        # Every token must be present before the (costlier) substring search.
        if not tokens.issuperset(_TOKEN.findall(command)):
            return False
        return _SPACES.sub(" ", command) in flat

    return DroppedFacts(
        tuple(p for p in facts.paths if p not in names),
        tuple(c for c in facts.commands if not command_kept(c)),
        tuple(n for n in facts.numbers if n not in present_numbers),
        tuple(i for i in facts.identifiers if not _identifier_kept(i, names, flat)),
    )


def _identifier_kept(identifier: str, names: set[str], flat: str) -> bool:
    name = identifier.removesuffix("()")
    if name in names or identifier in names:
        return True
    return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", flat) is not None
