"""Pasted logs and stack traces, collapsed before a summary request sees them.

A summarizer shown 230 stack frames writes them back (issue 31: 228 of 260 summary lines were
frames, and the focus the person asked for was left out to fit the cap). Before the summary
request is built, a long run of lines of a few repeating shapes (frames, log lines, test
progress) is collapsed to its first and last lines plus its distinct error line, with a marker
saying how many lines were left out. Only the summary's input changes: the conversation and the
history archive keep every line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from steiner_tui.engine.messages import Message

__all__ = ["collapse_pastes", "collapse_text"]

_RUN = 12
"""Runs shorter than this are left as they are."""
_KEEP = 2
"""Lines kept at each end of a collapsed run."""
_WORD = re.compile(r"[^\W_]+|_+")
_ERROR = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\b|\b(?:error|panic|fatal|FAIL|FAILED)\b|^E\s", re.I
)


def _shape(line: str) -> str:
    return _WORD.sub("w", line.strip())


def _repetitive(run: Sequence[str]) -> bool:
    """Most of the run is two shapes (a frame and its code line, a log line)."""
    counts = Counter(_shape(line) for line in run)
    return sum(n for _, n in counts.most_common(2)) * 10 >= len(run) * 6


def _collapse(run: list[str]) -> list[str]:
    head, tail = run[:_KEEP], run[-_KEEP:]
    middle = run[_KEEP:-_KEEP]
    errors = [line for line in middle if _ERROR.search(line)]
    kept = [errors[-1]] if errors else []
    marker = f"[... {len(middle) - len(kept):,} similar lines collapsed for the summary ...]"
    return [*head, marker, *kept, *tail]


def collapse_text(text: str) -> str:
    """``text`` with each long repetitive run of non-blank lines collapsed."""
    lines = text.split("\n")
    if len(lines) < _RUN:
        return text
    out: list[str] = []
    run: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            run.append(line)
            continue
        out += _collapse(run) if len(run) >= _RUN and _repetitive(run) else run
        run = []
        out.append(line)
    return "\n".join(out[:-1])


def collapse_pastes(
    messages: Sequence[Message], seen: dict[int, tuple[Message, Message]] | None = None
) -> tuple[Message, ...]:
    """``messages`` with pasted logs collapsed in user and tool messages (others as given).

    ``seen`` keeps each message's collapsed form by identity across calls: fitting a summary
    input builds its request again for every part it tries, over the same messages.
    """
    out = []
    for message in messages:
        known = None if seen is None else seen.get(id(message))
        if known is not None and known[0] is message:
            out.append(known[1])
            continue
        shown = message
        if message.role in ("user", "tool"):
            text = collapse_text(message.content)
            if text != message.content:
                shown = message.with_content(text)
        if seen is not None:
            seen[id(message)] = (message, shown)
        out.append(shown)
    return tuple(out)
