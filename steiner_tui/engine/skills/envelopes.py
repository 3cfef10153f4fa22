"""Skill envelopes: the length-delimited blocks that carry skill state inside user messages.

Interactive sessions keep skills out of the cacheable prefix: toggling a skill sends an envelope
ahead of the user's next text instead (docs/design.md, "3. Skill envelopes and mode notices").
The layout is fixed::

    <steiner-skill name=Q state="S" bytes="N">\\nINNER\\n</steiner-skill>

``N`` is the UTF-8 byte length of INNER, so parsing never searches for the close tag and a body
that contains ``</steiner-skill>`` round-trips. Byte lengths use ``surrogatepass`` so that a
string with lone surrogates (possible in stored JSON) measures and parses instead of raising.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Final

import msgspec

from steiner_tui.engine.skills.modes import MODE_NOTICES, detect_mode_notice
from steiner_tui.engine.skills.quote import go_quote, go_unquote
from steiner_tui.engine.templates import template_source

__all__ = [
    "INACTIVE",
    "SKILL_CONTENT_CAP_BYTES",
    "TRUNCATION_MARKER",
    "SkillBlock",
    "cap_skill_body",
    "parse_envelope",
    "prepend_skill_blocks",
    "render_activation_envelope",
    "render_skill_activation",
    "render_skill_deactivation",
    "skill_framing",
    "split_skill_blocks",
    "strip_skill_blocks",
    "utf8_len",
]

SKILL_CONTENT_CAP_BYTES: Final = 106496
TRUNCATION_MARKER: Final = f"\n\n[truncated: skill exceeded the {SKILL_CONTENT_CAP_BYTES}-byte cap]"
ACTIVE: Final = "active"
INACTIVE: Final = "inactive"

_OPEN: Final = "<steiner-skill name="
_CLOSE: Final = "\n</steiner-skill>"
_OPENINGS: Final = (_OPEN, *MODE_NOTICES.values())
"""How a message with a mode notice or an envelope starts."""
_ACTIVE_HEADING: Final = "## Active Skill: "
_MAX_N_DIGITS: Final = 19
_MAX_N: Final = 2**63 - 1


@cache
def _quoted() -> re.Pattern[str]:
    """The envelope's quoted name (compiled when an envelope is first read back, not at start)."""
    return re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')


@cache
def _attrs() -> re.Pattern[str]:
    return re.compile(r' state="(active|inactive)" bytes="([0-9]+)">\n')


def utf8_len(text: str) -> int:
    """Byte length of ``text`` in UTF-8 (lone surrogates count as three bytes)."""
    return len(text.encode("utf-8", "surrogatepass"))


@cache
def skill_framing() -> str:
    """The fixed framing paragraph of every activation (``templates/skill_framing.md.j2``)."""
    return template_source("skill_framing.md.j2").rstrip("\n")


class SkillBlock(msgspec.Struct, frozen=True):
    """One parsed envelope: ``text`` is the whole envelope byte-identical, ``body`` its INNER."""

    name: str
    state: str
    text: str
    body: str

    @property
    def active(self) -> bool:
        return self.state == ACTIVE

    @property
    def size_bytes(self) -> int:
        """``N``: the UTF-8 byte length of INNER."""
        return utf8_len(self.body)

    @property
    def skill_body(self) -> str:
        """For an activation in our layout, the skill body after the framing; else INNER."""
        header = f"{_ACTIVE_HEADING}{self.name}\n\n{skill_framing()}\n\n"
        if self.active and self.body.startswith(header):
            return self.body[len(header) :]
        return self.body


def cap_skill_body(body: str) -> tuple[str, bool]:
    """Apply the skill cap: cut, back off to a character start, strip, add the marker.

    Returns:
        ``(body, truncated)``; a body of at most ``SKILL_CONTENT_CAP_BYTES`` bytes is unchanged.
    """
    data = body.encode("utf-8", "surrogatepass")
    if len(data) <= SKILL_CONTENT_CAP_BYTES:
        return body, False
    cut = SKILL_CONTENT_CAP_BYTES
    while cut > 0 and data[cut] & 0xC0 == 0x80:
        cut -= 1
    head = data[:cut].decode("utf-8", "surrogatepass").rstrip(" \t\r\n")
    return head + TRUNCATION_MARKER, True


def _envelope(name: str, state: str, inner: str) -> str:
    return (
        f'<steiner-skill name={go_quote(name)} state="{state}" bytes="{utf8_len(inner)}">\n'
        f"{inner}{_CLOSE}"
    )


def render_activation_envelope(name: str, capped_body: str) -> str:
    """The activation envelope for a body that is already capped (e.g. ``Skill.body``)."""
    return _envelope(name, ACTIVE, f"{_ACTIVE_HEADING}{name}\n\n{skill_framing()}\n\n{capped_body}")


def render_skill_activation(name: str, body: str) -> tuple[str, bool]:
    """Render the activation envelope for skill ``name``.

    Args:
        name: the skill's name (quoted in the tag, raw in the heading).
        body: the skill's instructions; capped at ``SKILL_CONTENT_CAP_BYTES``.

    Returns:
        ``(envelope text, truncated)``.
    """
    capped, truncated = cap_skill_body(body)
    return render_activation_envelope(name, capped), truncated


def render_skill_deactivation(name: str) -> str:
    """Render the envelope that tells the model skill ``name`` no longer applies."""
    inner = (
        f"Skill {go_quote(name)} is no longer active. Stop following its workflow; "
        "its earlier instructions no longer apply."
    )
    return _envelope(name, INACTIVE, inner)


def _parse_n(digits: str) -> int | None:
    # int() refuses very long digit strings, and leading zeros are allowed: trim them first.
    significant = digits.lstrip("0") or "0"
    if len(significant) > _MAX_N_DIGITS:
        return None
    value = int(significant)
    return value if value <= _MAX_N else None


def _take_bytes(text: str, start: int, n: int) -> str | None:
    """The characters of ``text`` from ``start`` that make exactly ``n`` UTF-8 bytes, or None."""
    # n characters encode to at least n bytes, so this slice is always long enough.
    data = text[start : start + n].encode("utf-8", "surrogatepass")
    if len(data) < n:
        return None
    try:
        return data[:n].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None  # N ends inside a character, so the close tag cannot follow.


def parse_envelope(text: str, pos: int = 0) -> tuple[SkillBlock, int] | None:
    """Parse one envelope starting exactly at ``pos``.

    Returns:
        ``(block, end)`` with ``end`` just past the close tag, or ``None`` when the text at
        ``pos`` is not a well-formed envelope. Never raises on malformed input.
    """
    if not text.startswith(_OPEN, pos):
        return None
    quoted = _quoted().match(text, pos + len(_OPEN))
    if quoted is None:
        return None
    try:
        name = go_unquote(quoted.group())
    except ValueError:
        return None
    attrs = _attrs().match(text, quoted.end())
    if attrs is None:
        return None
    n = _parse_n(attrs.group(2))
    if n is None:
        return None
    inner = _take_bytes(text, attrs.end(), n)
    if inner is None:
        return None
    inner_end = attrs.end() + len(inner)
    if not text.startswith(_CLOSE, inner_end):
        return None
    end = inner_end + len(_CLOSE)
    return SkillBlock(name, attrs.group(1), text[pos:end], inner), end


def split_skill_blocks(content: str) -> tuple[str, list[SkillBlock], str]:
    """Split a user message into its mode-notice prefix, leading envelopes and the rest.

    Parsing stops at the first malformed envelope; one ``\\n\\n`` after each envelope is skipped.

    Returns:
        ``(notice prefix, blocks, rest)``; ``prefix + envelopes + rest`` rebuilds ``content``.
    """
    if not content.startswith(_OPENINGS):  # nearly every message: nothing to look for
        return "", [], content
    prefix = detect_mode_notice(content)
    pos = len(prefix)
    blocks: list[SkillBlock] = []
    while (parsed := parse_envelope(content, pos)) is not None:
        block, pos = parsed
        blocks.append(block)
        if content.startswith("\n\n", pos):
            pos += 2
    return prefix, blocks, content[pos:]


def prepend_skill_blocks(blocks: Sequence[str] | None, content: str) -> str:
    """Put envelope texts ahead of ``content``, each followed by ``\\n\\n``; none: unchanged."""
    if not blocks:
        return content
    return "\n\n".join(blocks) + "\n\n" + content


def strip_skill_blocks(content: str) -> str:
    """``content`` without its leading envelopes (the mode notice stays)."""
    prefix, _, rest = split_skill_blocks(content)
    return prefix + rest
