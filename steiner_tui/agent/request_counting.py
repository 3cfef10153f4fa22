"""Preparing and counting the runner's requests: assembled and estimated, the active
conversation through the ledger, the prefix's units memoized, and what the next request adds
counted ahead in a worker thread.

The runner asks for these figures several times a turn; ``RequestCounter`` holds the caches
that make them cheap (the ledger, the prefix's summed units, what was last counted ahead), so
the runner holds only turns. The counts are the same as counting each request whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from steiner_tui.agent.context_manager import ContextManager
from steiner_tui.agent.count_ahead import count_ahead
from steiner_tui.agent.images import strip_images
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.run_types import PreparedTurn
from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.ledger import ConversationLedger
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.assembler import AssembledPrompt
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.tokens import TokenEstimate
from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = ["RequestCounter"]


class RequestCounter:
    """The caches of one runner's request counts.

    Args:
        context: the session's assembly and estimation.
        project: a message as the model is sent it (images dropped for a model without them).
    """

    def __init__(self, context: ContextManager, project: Callable[[Message], Message]) -> None:
        self.context = context
        self.ledger = ConversationLedger(context.estimator)
        """The active conversation's per-message request figures, kept incrementally."""
        self._project = project
        self._prefix_units: tuple[str, Sequence[Message] | None, int] = ("", None, 0)
        self._counted_ahead: tuple[object, ...] = ()
        """The model id, prefix and tool list ``count_next`` counted last."""

    def prepare(
        self,
        model: MainModel,
        tools: tuple[ToolDefinition, ...],
        session_id: str,
        active: ConversationGeneration,
        conversation: Sequence[Message] | None = None,
    ) -> PreparedTurn:
        """Assemble and estimate a request over ``conversation`` (default: the ``active``
        generation's), for ``model`` in the session ``session_id``.

        The active conversation goes through the ledger, so a request costs what the messages
        added since the last one cost; any other conversation (compaction's estimates) is
        assembled and counted whole.
        """
        hashes: Sequence[str] | None = None
        prompt_bytes: int | None = None
        if conversation is None:
            assembled, estimate, hashes, prompt_bytes = self.active(model, active.messages, tools)
            messages = assembled.messages
        else:
            assembled = self.context.assemble(tuple(conversation))
            messages = assembled.messages
            if not model.sees_images:
                messages, _ = strip_images(messages)
            estimate = self.context.estimate(model.model, messages, tools)
        fit = model.budget.fit_request(estimate.tokens, model.explicit_max_tokens)
        request = ChatRequest(
            model=model.model,
            messages=messages,
            tools=tools,
            max_tokens=fit.reserve,
            prompt_cache_key=model.prompt_cache_key,
            transport_session=session_id,
            backend_state=active.backend_state if model.stateful else None,
            cacheable_prefix_messages=assembled.block_message_count,
            raw_prompt_tokens=estimate.raw_tokens,
            extra_body=model.request_fields,
        )
        return PreparedTurn(assembled, request, estimate, fit, hashes, prompt_bytes)

    def active(
        self, model: MainModel, conversation: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> tuple[AssembledPrompt, TokenEstimate, Sequence[str], int]:
        """The active ``conversation``'s request: assembled, estimated, its message hashes and
        prompt bytes, costing what was added since the last one."""
        model_id = model.model
        prefix = self.context.prefix()
        blocks = prefix.messages
        view = self.ledger.sync(conversation, model_id, self._project, model.sees_images, blocks)
        estimator = self.context.estimator
        units = self._units_of(model_id, blocks) + view.units
        raw = estimator.raw_from_units(model_id, units, view.images, tools)
        assembled = AssembledPrompt(prefix.blocks, view.messages, len(blocks))
        prompt_bytes = sum(m.prompt_bytes for m in blocks) + view.prompt_bytes
        return assembled, estimator.calibrated(model_id, raw), view.hashes, prompt_bytes

    async def count_next(
        self,
        model: MainModel,
        conversation: Sequence[Message],
        tools: tuple[ToolDefinition, ...],
    ) -> None:
        """Count what the next request adds in a worker thread (``agent.count_ahead``)."""
        model_id = model.model
        new = self.ledger.unsynced(conversation, model_id, model.sees_images)
        counted = (model_id, self.context.prefix(), tools)
        await count_ahead(
            self.context.estimator,
            model_id,
            counted[1],
            new,
            self._project,
            tools,
            counted_prefix=counted == self._counted_ahead,
        )
        self._counted_ahead = counted

    def fixed_tokens(self, model_id: str, tools: Sequence[ToolDefinition]) -> int:
        """The calibrated tokens of a request with no conversation: what every request pays
        (preamble, instruction files, session date, tool definitions). Counted over the
        memoized prefix as ``active`` counts it: assembling a request anew for it was a
        tenth of a turn's work."""
        estimator = self.context.estimator
        blocks = self.context.prefix().messages
        raw = estimator.raw_from_units(model_id, self._units_of(model_id, blocks), 0, tools)
        return estimator.calibrated(model_id, raw).tokens

    def _units_of(self, model_id: str, blocks: Sequence[Message]) -> int:
        """The summed ``message_units`` of the prefix's ``blocks`` (the memoized prefix's
        are kept: asked three times a turn)."""
        held_model, held_blocks, units = self._prefix_units
        if held_model == model_id and held_blocks is blocks:
            return units
        estimator = self.context.estimator
        units = sum(estimator.message_units(model_id, m) for m in blocks)
        self._prefix_units = (model_id, blocks, units)
        return units
