"""The one place a runner's request snapshots are built: main calls, dry runs, summaries.

Every model call of a runner is numbered in order from 1, compaction summaries included, and gets
a ``RequestSnapshot`` built from the ``ChatRequest`` as it is sent, with what each of its sources
costs (counted by the runner's estimator). The runner (main calls and the
dry-run preview) and the compaction driver (summary calls) share one ``SnapshotBuilder``, which
owns the request counter, so both number and describe their requests the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from steiner_tui.agent.clock import Clock
from steiner_tui.engine.budget import FitResult
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.snapshots import (
    EstimateLike,
    SourceCounter,
    TokenCounter,
    build_request_snapshot,
)

__all__ = ["FIRST_REQUEST", "SnapshotBuilder"]

FIRST_REQUEST = 1
"""The number of a session's first request (every screen, log and report counts from it)."""


class SnapshotBuilder:
    """Numbers one runner's requests and builds their snapshots.

    Args:
        session_id: the runner's transport session; request ids are ``<session_id>-<index>``.
        clock: stamps each snapshot.
        counter: counts what each source of a request costs (the runner's estimator).
    """

    def __init__(self, session_id: str, clock: Clock, counter: TokenCounter | None = None) -> None:
        self.session_id = session_id
        self.clock = clock
        self.sources = SourceCounter(counter) if counter is not None else None
        """Counts what each source of a request costs (it remembers the last conversation)."""
        self.next_index = FIRST_REQUEST
        """The number of the next request (a dry run shows it without taking it)."""

    def build(
        self,
        request: ChatRequest,
        *,
        provider: str,
        estimate: EstimateLike,
        generation_id: int,
        blocks: Sequence[ContextBlock] = (),
        dry_run: bool = False,
        fit: FitResult | None = None,
        message_hashes: Sequence[str] | None = None,
        prompt_bytes: int | None = None,
    ) -> RequestSnapshot:
        """The snapshot of ``request`` as it is sent, under the next index.

        Args:
            request: the request as sent (its model, messages, tools, reserve and compaction
                flag are recorded; ``cacheable_prefix_messages`` counts its block messages).
            provider: the provider alias the request goes to.
            estimate: the request's prompt estimate.
            generation_id: the lineage generation the request belongs to.
            blocks: the context blocks behind its leading messages (none for a summary).
            dry_run: a preview: the index is shown, not taken.
            fit: the request's fit on the window (None: it fits).
            message_hashes: the messages' hashes when already known (None: computed).
            prompt_bytes: the prompt bytes when already known (None: computed).
        """
        index = self.next_index
        if not dry_run:
            self.next_index += 1
        return build_request_snapshot(
            request_id=f"{self.session_id}-{index}",
            index=index,
            model=request.model,
            provider=provider,
            time=self.clock.now(),
            messages=request.messages,
            blocks=blocks,
            block_message_count=request.cacheable_prefix_messages,
            tools=request.tools,
            max_tokens=request.max_tokens,
            estimate=estimate,
            compaction=request.compaction,
            generation_id=str(generation_id),
            fits=fit.fits if fit is not None else True,
            overflow_tokens=fit.overflow if fit is not None else 0,
            message_hashes=message_hashes,
            prompt_bytes=prompt_bytes,
            counter=self.sources,
        )
