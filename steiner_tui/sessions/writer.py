"""``SessionLog``: the event sink that makes a session durable.

Attached to the runner's sink fan-out and bound to the runner, it appends one record per line to
``session.jsonl`` (see ``records``) and keeps ``meta.json`` current. Crash safety:

* every line goes to the kernel in one ``write()`` on an unbuffered descriptor, so a killed
  process leaves each line whole or absent (a torn last line is terminated before appending);
* ``fsync`` on turn boundaries: after an assistant reply without tool calls, after compaction,
  after binding and on close;
* ``meta.json`` is rewritten atomically (temporary file + ``os.replace``);
* streamed text is recorded in bounded ``partial`` records (written, not fsynced) so a kill
  mid-stream still restores what was shown, as an ``incomplete`` reply.

The log follows the runner's lineage rather than trusting events alone: on each structural event
it compares the lineage with what it has written (generation count, active id, message count and
the identity of the last written message) and writes exactly what is missing. Appended messages
become ``message`` records, compaction a ``generation`` record with the new generation's whole
conversation, and anything else (a cleared or replaced conversation) a ``reset``. A sink must
not raise: a write failure is kept in ``error`` and stops further writes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from steiner_tui.agent.runner import Runner
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import (
    CompactionApplied,
    EngineEvent,
    ErrorEvent,
    MessageAppended,
    ReasoningDelta,
    RequestSnapshot,
    TextDelta,
    UsageReported,
    WarningEvent,
)
from steiner_tui.engine.messages import Message
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.log_file import header_record, open_for_append, title_of, write_all
from steiner_tui.sessions.meta import SessionMeta, write_meta
from steiner_tui.sessions.records import (
    LOG_FILE_NAME,
    encode_record,
    format_time,
    generation_record,
    last_main_request_record,
    message_record,
    request_record,
)

__all__ = ["SessionLog"]


@dataclass(slots=True)
class _Written:
    """What the log holds: generations, active id, active messages, last message, backend."""

    generations: int = 1
    active_id: int = 0
    count: int = 0
    last: Message | None = None
    backend: str | None = None


class SessionLog:
    """Appends a session's records to ``<session_dir>/session.jsonl`` (an ``EventSink``).

    Build it with ``create`` (a new session) or ``resume`` (an existing log), pass it in the
    runner's sink fan-out, then ``bind`` the runner once it exists.

    Args:
        session_dir: ``CONFIG/sessions/<id>/``.
        clock: the injected clock (header time, record timestamps, meta).
        partial_bytes: write a ``partial`` record once this much streamed text is buffered.
        partial_interval: ... or once this many seconds passed since the last one (0: on
            every delta).
        monotonic: the interval clock (tests may inject one).
    """

    def __init__(
        self,
        session_dir: Path,
        *,
        clock: Callable[[], datetime],
        partial_bytes: int = 2048,
        partial_interval: float = 0.1,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session_dir = session_dir
        self.path = session_dir / LOG_FILE_NAME
        self.error: OSError | None = None
        """The first write failure; once set, nothing more is written."""
        self._clock = clock
        self._partial_bytes = partial_bytes
        self._partial_interval = partial_interval
        self._monotonic = monotonic
        self._fd: int | None = None
        self._runner: Runner | None = None
        self._written = _Written()
        self._header_written = False
        self._last_main = LastMainRequest()
        self._meta = SessionMeta(session_dir.name)
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._buffered = 0
        self._partial_at = 0.0
        self._early: list[bytes] = []

    # -- opening ----------------------------------------------------------------------------

    @classmethod
    def create(
        cls, session_dir: Path, *, clock: Callable[[], datetime], **options: Any
    ) -> SessionLog:
        """A log for a new session; the header is written by ``bind``.

        Raises:
            FileExistsError: the folder already holds a log.
            OSError: the folder cannot be created.
        """
        session_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        log = cls(session_dir, clock=clock, **options)
        log._fd = os.open(log.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o600)
        return log

    @classmethod
    def resume(
        cls, loaded: LoadedSession, *, clock: Callable[[], datetime], **options: Any
    ) -> SessionLog:
        """Append to a loaded session's log; repairs the loader made are written by ``bind``.

        Raises:
            OSError: the log cannot be opened for appending.
        """
        log = cls(loaded.directory, clock=clock, **options)
        log._fd = open_for_append(log.path)
        active = loaded.lineage.active
        count = loaded.logged_messages
        log._written = _Written(
            len(loaded.lineage.generations),
            active.id,
            count,
            active.messages[count - 1] if count else None,
            active.backend_state,
        )
        log._header_written = True  # a lost header is reported by the loader, never rewritten
        log._last_main = loaded.last_main_request
        log._meta = loaded.meta
        log._write({"type": "resumed", "at": format_time(clock())})
        return log

    def bind(self, runner: Runner) -> None:
        """Follow ``runner``: write the header (new log) and anything not yet written, fsync."""
        self._runner = runner
        if not self._header_written:
            model = runner.model
            self._meta = SessionMeta(
                self.session_dir.name,
                project_root=str(runner.project_root),
                created=self._clock(),
                alias=model.alias,
                model=model.model,
            )
            header = header_record(
                self.session_dir.name,
                str(runner.project_root),
                self._meta.created,
                model.alias,
                model.model,
                model.prompt_cache_key,
            )
            assert self._fd is not None
            write_all(self._fd, b"".join([encode_record(header), *self._early]))
            self._header_written = True
            self._early.clear()
        self.sync()

    # -- the sink ---------------------------------------------------------------------------

    def emit(self, event: EngineEvent) -> None:
        if self._fd is None or self.error is not None:
            return
        try:
            self._handle(event)
        except OSError as exc:
            self.error = exc

    def _handle(self, event: EngineEvent) -> None:
        if isinstance(event, TextDelta):
            self._stream(text=event.text)
        elif isinstance(event, ReasoningDelta):
            self._stream(reasoning=event.text)
        elif isinstance(event, MessageAppended):
            self._drop_partial()
            self._sync(appended=event.message)
            message = event.message
            if message.role == "assistant":
                self._record_last_main()
                if not message.tool_calls:
                    self._boundary()
        elif isinstance(event, RequestSnapshot):
            self._sync()
            self._drop_partial()
            self._partial_at = self._monotonic()
            self._write(request_record(event))
        elif isinstance(event, CompactionApplied):
            self._sync()
            self._boundary()
        elif isinstance(event, UsageReported):
            self._write(
                {
                    "type": "usage",
                    "model": event.model,
                    "prompt_tokens": event.prompt_tokens,
                    "completion_tokens": event.completion_tokens,
                    "cache_read_tokens": event.cache_read_tokens,
                    "cache_write_tokens": event.cache_write_tokens,
                    "at": format_time(self._clock()),
                }
            )
        elif isinstance(event, (WarningEvent, ErrorEvent)):
            self._sync()
            kind = "warning" if isinstance(event, WarningEvent) else "error"
            self._write(
                {
                    "type": kind,
                    "code": event.code,
                    "message": event.message,
                    "at": format_time(self._clock()),
                }
            )

    # -- explicit records -------------------------------------------------------------------

    def record_mode(self, mode: str) -> None:
        """Record an execution-mode change (``build``/``plan``)."""
        self._safe({"type": "mode", "mode": mode, "at": format_time(self._clock())})

    def record_skill(self, name: str, enabled: bool) -> None:
        """Record a skill toggle (it reaches the model with the next message's envelopes)."""
        self._safe(
            {"type": "skill", "name": name, "enabled": enabled, "at": format_time(self._clock())}
        )

    def sync(self) -> None:
        """Write whatever the bound runner's lineage holds that the log does not, and fsync."""
        if self._fd is None or self.error is not None:
            return
        try:
            self._sync()
            self._boundary()
        except OSError as exc:
            self.error = exc

    def close(self) -> None:
        """Write what is pending (streamed text included), fsync, update meta, close."""
        if self._fd is None:
            return
        try:
            if self.error is None:
                self._flush_partial()
                self._sync()
                self._boundary()
        except OSError as exc:
            self.error = exc
        finally:
            os.close(self._fd)
            self._fd = None

    # -- internals --------------------------------------------------------------------------

    def _safe(self, record: Mapping[str, Any]) -> None:
        if self._fd is None or self.error is not None:
            return
        try:
            self._write(record)
        except OSError as exc:
            self.error = exc

    def _write(self, record: Mapping[str, Any]) -> None:
        assert self._fd is not None
        if not self._header_written:
            self._early.append(encode_record(record))  # events seen before ``bind``
            return
        write_all(self._fd, encode_record(record))

    def _stream(self, *, text: str = "", reasoning: str = "") -> None:
        self._text.append(text)
        self._reasoning.append(reasoning)
        self._buffered += len(text) + len(reasoning)
        now = self._monotonic()
        if (
            self._buffered >= self._partial_bytes
            or now - self._partial_at >= self._partial_interval
        ):
            self._flush_partial()
            self._partial_at = now

    def _flush_partial(self) -> None:
        if not self._buffered:
            return
        turn = self._runner.state.turn if self._runner is not None else 0
        self._write(
            {
                "type": "partial",
                "gen": self._written.active_id,
                "turn": turn,
                "text": "".join(self._text),
                "reasoning": "".join(self._reasoning),
            }
        )
        self._drop_partial()

    def _drop_partial(self) -> None:
        self._text.clear()
        self._reasoning.clear()
        self._buffered = 0

    def _record_last_main(self) -> None:
        if self._runner is None:
            return
        last = self._runner.last_main_request
        if not last.is_zero and last != self._last_main:
            self._write(last_main_request_record(last))
            self._last_main = last

    def _sync(self, appended: Message | None = None) -> None:
        written = self._written
        if self._runner is None:
            if appended is not None:
                self._write(message_record(written.active_id, appended))
                written.count += 1
                written.last = appended
            return
        lineage = self._runner.lineage
        generations = lineage.generations
        known = written.generations
        if len(generations) >= known and generations[known - 1].id == written.active_id:
            previous = generations[known - 1]
            messages = previous.messages
            intact = len(messages) >= written.count and (
                written.count == 0 or messages[written.count - 1] is written.last
            )
            if intact:
                for message in messages[written.count :]:
                    self._write(message_record(previous.id, message))
                if previous.backend_state != written.backend:
                    self._write(
                        {
                            "type": "backend_state",
                            "gen": previous.id,
                            "state": previous.backend_state,
                        }
                    )
                for generation in generations[known:]:
                    self._write(generation_record(generation))
                self._remember(lineage)
                return
        for index, generation in enumerate(generations):
            self._write(generation_record(generation, reset=index == 0))
        self._remember(lineage)

    def _remember(self, lineage: ConversationLineage) -> None:
        active = lineage.active
        self._written = _Written(
            len(lineage.generations),
            active.id,
            len(active.messages),
            active.messages[-1] if active.messages else None,
            active.backend_state,
        )

    def _boundary(self) -> None:
        assert self._fd is not None
        os.fsync(self._fd)
        meta = self._meta
        updates: dict[str, Any] = {
            "last_activity": self._clock(),
            "size_bytes": os.fstat(self._fd).st_size,
        }
        if self._runner is not None:
            lineage = self._runner.lineage
            updates["generations"] = len(lineage.generations)
            updates["messages"] = len(lineage.active.messages)
            updates["alias"] = self._runner.model.alias
            updates["model"] = self._runner.model.model
            if not meta.title:
                updates["title"] = title_of(lineage)
        self._meta = replace(meta, **updates)
        write_meta(self.session_dir, self._meta)
