"""The next request's new text counted in a worker thread, before the runner counts it.

The runner runs on the app's event loop, and Claude's tokenizer (ctok) is pure Python: a
25,000-token tool result takes about half a second to count, and the screen would freeze for
as long. So whatever a request adds (the messages since the last one, a changed prefix, the
tool list, a user message's skill envelopes) is counted here first, in a thread, filling the
estimator's cache; the synchronous engine code that then assembles, estimates and describes
the request (``Runner.prepare``, the snapshot's per-source rows, the cost ranking) only reads
that cache. The counts are the same either way: only where they are made changes. The
character heuristic is arithmetic and stays on the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.assembler import AssembledPrompt
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.tokens import HEURISTIC, RequestEstimator, TokenizerLoadError
from steiner_tui.engine.tooldefs import ToolDefinition, tools_json

__all__ = ["count_ahead"]


async def count_ahead(
    estimator: RequestEstimator,
    model_id: str,
    prefix: AssembledPrompt,
    new: Sequence[Message],
    project: Callable[[Message], Message],
    tools: Sequence[ToolDefinition],
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
    """
    if estimator.units_key(model_id) == HEURISTIC:
        return

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
