"""The next request's new text counted in a worker thread, before the runner counts it.

The runner runs on the app's event loop, and Claude's tokenizer (ctok) is pure Python: a
25,000-token tool result takes about half a second to count, and the screen would freeze for
as long. So whatever a request adds (the messages since the last one, a changed prefix, the
tool list, a user message's skill envelopes) is counted here first, in a thread, filling the
estimator's cache; the synchronous engine code that then assembles, estimates and describes
the request (``Runner.prepare``, the snapshot's per-source rows, the cost ranking) only reads
that cache. The counts are the same either way: only where they are made changes. The
character heuristic is arithmetic and stays on the loop, and so does a short text once the
prefix is counted (``inline_chars``): the thread hop would cost more than the count. Such a
text is not counted ahead at all: the synchronous code counts it where it needs it, as it
would have here. The tokenizer is built in a thread too, then first used on the loop
(``RequestEstimator.claim``): the thread that uses tiktoken first counts fastest with it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.assembler import AssembledPrompt
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.tokens import HEURISTIC, RequestEstimator, TokenizerLoadError
from steiner_tui.engine.tooldefs import ToolDefinition, tools_json

__all__ = [
    "INLINE_CHARS",
    "claim_on_loop",
    "count_ahead",
    "inline_chars",
    "off_loop",
]

INLINE_CHARS = 8_000
"""Text shorter than this is counted on the event loop: ctok counts it in under 10 ms (about
1 MB/s), tiktoken in well under one, and the hop to a worker thread and back cost a tiktoken
model's turn a quarter of its engine time in ``benchmarks/bench_soak.py``."""

NATIVE_INLINE_CHARS = 64_000
"""The same for tiktoken (native code, 10-20 characters a microsecond: 64,000 in well under
10 ms): a tool result of a few thousand characters hopped to a thread twice a turn, for about
a tenth of a turn's engine time."""


def inline_chars(strategy: str) -> int:
    """How long a text the ``strategy``'s tokenizer counts on the event loop
    (``TokenEstimate.strategy``: the heuristic is arithmetic, any length)."""
    if strategy == "heuristic":
        return sys.maxsize
    return NATIVE_INLINE_CHARS if strategy == "tiktoken" else INLINE_CHARS


T = TypeVar("T")


async def off_loop(work: Callable[[], T], chars: int, limit: int = INLINE_CHARS) -> T:
    """``work()``, which counts about ``chars`` characters: in a worker thread from ``limit``
    (``inline_chars``) on, at once below."""
    return work() if chars < limit else await asyncio.to_thread(work)


async def claim_on_loop(estimator: RequestEstimator, model_id: str) -> None:
    """Build ``model_id``'s tokenizer in a worker thread, then count with it first here, on the
    event loop that counts nearly everything (``RequestEstimator.claim``); at once when that
    was done. A tokenizer that fails to load is left to the count that needs it to report."""
    if estimator.claimed(model_id):
        return
    try:
        await asyncio.to_thread(estimator.load, model_id)
        estimator.claim(model_id)
    except TokenizerLoadError:
        return


async def count_ahead(
    estimator: RequestEstimator,
    model_id: str,
    prefix: AssembledPrompt,
    new: Sequence[Message],
    project: Callable[[Message], Message],
    tools: Sequence[ToolDefinition],
    *,
    counted_prefix: bool = False,
) -> None:
    """Count, in a worker thread, what the next request to ``model_id`` holds that
    ``estimator`` may not have counted yet.

    Args:
        estimator: the runner's estimator (thread-safe; its cache keeps the counts).
        model_id: the model the request goes to.
        prefix: the request's blocks and block messages.
        new: the stored messages the request adds (``ConversationLedger.unsynced``).
        project: a stored message as the provider gets it.
        tools: the request's tool list.
        counted_prefix: ``prefix`` and ``tools`` are those the last call counted (then only
            ``new`` decides whether anything is counted ahead).
    """
    if estimator.units_key(model_id) == HEURISTIC:
        return
    await claim_on_loop(estimator, model_id)  # before the thread below counts with it
    chars = sum(len(message.content) for message in new)
    limit = inline_chars(estimator.choice(model_id).strategy)
    if counted_prefix and chars < limit:
        return  # counted where it is needed, as fast as here

    def count() -> None:
        messages = [*prefix.messages, *(project(message) for message in new)]
        texts = [block.content for block in prefix.blocks]
        for message in messages:
            if message.role == "user":
                texts.extend(envelope.text for envelope in split_skill_blocks(message.content)[1])
        if tools:  # the whole list (the request's row), and each definition (the ranking's)
            texts.append(tools_json(tools))
            texts.extend(tool.json for tool in tools)
        try:
            estimator.message_tokens(model_id, messages)
            estimator.count_parts(model_id, texts)
        except TokenizerLoadError:
            return  # the request's own count reports it, as it does without counting ahead

    await asyncio.to_thread(count)
