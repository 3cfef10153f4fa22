"""Images attached by naming them in the prompt, as people do in Claude Code and aider.

A word of the prompt that names an existing PNG, JPEG, GIF or WebP file (relative to the project
root, absolute, or ``~``-relative; optionally prefixed with ``@`` or quoted) is attached to the
user message as an ``Image``. The text stays as typed, so the model also sees the file name.
The file's type comes from its first bytes, not its extension; a named image that is missing,
unreadable, not really an image, or larger than the limit is reported and not attached.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import msgspec

from steiner_tui.engine.messages import Image
from steiner_tui.tools.files import image_media_type

__all__ = ["Attachments", "find_image_attachments"]

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""Providers reject larger images (Anthropic: 5 MB per image after encoding; OpenAI: 20 MB)."""


_CANDIDATE = re.compile(
    r"""(?:^|(?<=\s))@?(?:"([^"]+\.(?:png|jpe?g|gif|webp))"|'([^']+\.(?:png|jpe?g|gif|webp))'"""
    r"""|([^\s"'`]+\.(?:png|jpe?g|gif|webp)))(?=[\s.,;:!?)]|$)""",
    re.IGNORECASE,
)
"""An image path in a prompt (compiled when a prompt is first sent, not at start)."""


class Attachments(msgspec.Struct, frozen=True):
    """What the prompt attached: the images (in prompt order) and the problems to report."""

    images: tuple[Image, ...] = ()
    problems: tuple[str, ...] = ()


def _resolve(word: str, project_root: Path) -> Path:
    path = Path(word).expanduser()
    return path if path.is_absolute() else project_root / path


def find_image_attachments(text: str, project_root: Path) -> Attachments:
    """The images named in ``text``; each file is attached once."""
    images: list[Image] = []
    problems: list[str] = []
    seen: set[Path] = set()
    for match in _CANDIDATE.finditer(text):
        word = next(group for group in match.groups() if group)
        path = _resolve(word, project_root)
        try:
            resolved = path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            if not resolved.is_file():
                if "/" in word or (path.suffix and (project_root / word).parent.exists()):
                    problems.append(f"image {word} not attached: no such file")
                continue
            size = resolved.stat().st_size
            if size > MAX_IMAGE_BYTES:
                mib = size / 1_048_576
                problems.append(
                    f"image {word} not attached: {mib:.1f} MiB is over the 20 MiB limit"
                )
                continue
            data = resolved.read_bytes()
        except OSError as error:
            problems.append(f"image {word} not attached: {error.strerror or error}")
            continue
        except RuntimeError:  # Python 3.11/3.12 resolving a link loop (``a -> b -> a``)
            problems.append(f"image {word} not attached: a symlink loop")
            continue
        media_type = image_media_type(data[:16])
        if media_type is None:
            problems.append(f"image {word} not attached: not a PNG, JPEG, GIF or WebP file")
            continue
        images.append(Image(media_type, base64.b64encode(data).decode("ascii")))
    return Attachments(tuple(images), tuple(problems))
