"""Per-session context: the static cache, the memoized preamble, the session date, the estimator.

One ``ContextManager`` exists per interactive session, oneshot phase, exec run and delegated
child (each gets its own caches, created then). It turns a stored conversation into
an assembled request and estimates it; the runner owns everything that talks to a model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from steiner_tui.engine.events import EventSink
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.assembler import AssembledPrompt, AssemblyOptions, assemble
from steiner_tui.engine.prompt.files import FileReader, LocalFileReader
from steiner_tui.engine.prompt.preamble import CachedSystemPreamble
from steiner_tui.engine.prompt.static_cache import StaticContextCache, StaticPartition
from steiner_tui.engine.skills.discovery import discover_skills
from steiner_tui.engine.tokens import RequestEstimator, TokenEstimate
from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = ["ContextManager"]


class ContextManager:
    """Assembles and estimates requests for one session identity.

    Args:
        options: static assembly inputs (project root, AGENTS paths, budgets, ...).
        estimator: the shared token estimator (its calibration is per model, process-wide).
        sink: receives assembly warnings (unreadable files, invalid UTF-8, skill truncation).
        session_date: captured once when the session started; ``None`` adds no date block.
        reader: the filesystem seam (tests inject fakes).
    """

    def __init__(
        self,
        options: AssemblyOptions,
        estimator: RequestEstimator,
        sink: EventSink,
        *,
        session_date: datetime | None,
        reader: FileReader | None = None,
    ) -> None:
        self.options = options
        self.estimator = estimator
        self.sink = sink
        self.session_date = session_date
        self.cache = StaticContextCache(reader or LocalFileReader(), discover_skills)
        self.preamble = CachedSystemPreamble()
        self._prefix: AssembledPrompt | None = None
        self._prefix_inputs: tuple[object, datetime | None, int] = (None, None, -1)

    def assemble(self, conversation: Sequence[Message]) -> AssembledPrompt:
        """The request for ``conversation`` (an empty one is the dry-run preview)."""
        return assemble(
            self.options,
            conversation,
            cache=self.cache,
            preamble=self.preamble,
            session_date=self.session_date,
            sink=self.sink,
        )

    def prefix(self) -> AssembledPrompt:
        """The request's static part alone (blocks and block messages; a dry run), the same
        message objects as long as the blocks are the same, so their hashes and counts are
        computed once."""
        last = self._prefix
        inputs = self._prefix_inputs
        if last is not None and inputs[0] is self.options and inputs[1:] == self._inputs():
            return last  # same options, date and cache state: the same assembly, not redone
        assembled = self.assemble(())
        self._prefix_inputs = (self.options, *self._inputs())
        if last is not None and last.blocks == assembled.blocks:
            return last
        self._prefix = assembled
        return assembled

    def _inputs(self) -> tuple[datetime | None, int]:
        return self.session_date, self.cache.version

    def estimate(
        self, model_id: str, messages: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> TokenEstimate:
        """The calibrated estimate of a request to ``model_id``."""
        return self.estimator.estimate(model_id, messages, tools)

    def mark_changed(self, partitions: Iterable[StaticPartition | str]) -> None:
        """Files of ``partitions`` changed on disk: pending until ``reload_pending``."""
        for partition in partitions:
            self.cache.mark_changed(partition)

    @property
    def pending_reloads(self) -> frozenset[StaticPartition]:
        """Partitions changed on disk and not applied yet."""
        return self.cache.pending

    def reload_pending(self) -> frozenset[StaticPartition]:
        """Apply the pending changes (the next compaction does, or the person asks)."""
        return self.cache.reload_pending()
