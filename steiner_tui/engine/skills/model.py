"""What a discovered skill is: a folder with ``SKILL.md`` and its front matter."""

from __future__ import annotations

from pathlib import Path

import msgspec

__all__ = ["Skill"]


class Skill(msgspec.Struct, frozen=True):
    """One skill: ``name`` and ``description`` from the front matter, ``body`` after it.

    ``body`` is already capped (see envelopes); ``original_bytes`` is the body's size before the
    cap and ``truncated`` says whether the cap cut it.
    """

    name: str
    description: str
    body: str
    path: Path
    root: Path
    original_bytes: int
    truncated: bool = False
    bundled: bool = False

    @property
    def size_bytes(self) -> int:
        return len(self.body.encode())
