"""Images in requests: stripped to a placeholder for models without vision, or after a rejection.

Stripping changes the request, so the runner re-estimates it (the only times a prepared request
is re-estimated besides compaction requests).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from steiner_tui.engine.messages import Message

__all__ = ["strip_images"]

IMAGE_PLACEHOLDER = "[image omitted: {media_type}; this model cannot see images]"


def strip_images(messages: Sequence[Message]) -> tuple[tuple[Message, ...], bool]:
    """Replace every image with a text placeholder. Returns the messages and whether any changed."""
    changed = False
    out: list[Message] = []
    for message in messages:
        if not message.images:
            out.append(message)
            continue
        changed = True
        notes = "\n".join(IMAGE_PLACEHOLDER.format(media_type=i.media_type) for i in message.images)
        content = f"{message.content}\n{notes}" if message.content else notes
        out.append(msgspec.structs.replace(message, content=content, images=()))
    return tuple(out), changed
