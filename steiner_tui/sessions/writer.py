"""``SessionLog``: the event sink that makes a session durable.

Attached to the runner's sink fan-out and bound to the runner, it appends one record per line to
``session.jsonl`` (see ``records``), large message texts to ``session.text`` (``text_file``),
and keeps ``meta.json`` current. Crash safety:

* every line goes to the kernel in one ``write()`` on an unbuffered descriptor, so a killed
  process leaves each line whole or absent (a torn last line is terminated before appending);
* a text goes to ``session.text`` before the line that refers to it, and is fsynced before
  the log;
* ``fsync`` after turn boundaries (an assistant reply without tool calls, a compaction, an
  error that ends a turn), as a group commit: within ``commit_interval`` seconds
  (``log_file.COMMIT_INTERVAL``, 0.1) of the boundary, one flusher thread syncing every
  boundary of that interval at once (``log_file.LogSync``). The lines are written at once
  either way, so a killed process loses nothing; a power loss or a kernel crash can lose the
  turns of the last interval, never more, and never part of a line. The fsync is made at once
  on ``sync`` (binding included), on close, before ``meta.json`` is replaced by a rename, and
  after a new session's first message, so that ``meta.json`` exists (listing and resuming a
  session killed in its first turn) from then on;
* a tool result's line says how its call ended when its text does not (the runner's
  ``ToolCallFinished`` status, which it emits just before appending the result);
* a pin or an unpin is a ``pin`` record, written when it happens (``PinChanged``);
* ``meta.json`` is created atomically (temporary file + ``os.replace``), then rewritten in
  place (``meta.MetaFile``);
* streamed text is recorded in bounded ``partial`` records (written, not fsynced) so a kill
  mid-stream still restores what was shown, as an ``incomplete`` reply; they go to
  ``session.partial`` beside the log, emptied once the reply is in it (``partial_reply``).

The log follows the runner's lineage rather than trusting events alone, writing exactly what
is missing (``lineage_sync``); what it reads off the runner is a ``LoggedRun``
(``followed_run``). Request records say only what differs from the request record
before (``request_values``); each is held until its reply's usage arrives, which is folded in,
or until any other record is written (a kill while it is held loses a request that got no
reply yet: resuming numbers the next one after the last logged). Folded, it is held until the
next record, the reply's message that the runner appends at once, and both go in one write.
A sink must not raise: a write failure is kept in ``error`` and stops further writes. A write
that fails part-way (a full disk takes part of a line) is cut off again, so the log ends with
a whole record and what was saved resumes as it was; ``on_error`` is told once, with
``failure`` (``log_failure``: the file and the reason), so the person learns at once that
nothing from there on is saved. A log whose folder was removed while the session was open
(its file unlinked) is written anew from the runner's lineage at the next turn boundary or on
close, and ``on_restored`` says so (``log_restore``).

A new session touches the disk only when its first message is appended: until then nothing is
written (records seen earlier, a mode change or a skill toggle, wait in memory), so a launch
that sends nothing leaves no session behind. While open, the log holds the session's lock
(``lock``), which ``sessions delete`` and ``evict`` respect.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import (
    CompactionApplied,
    EngineEvent,
    ErrorEvent,
    MessageAppended,
    PermissionAnswered,
    PinChanged,
    ReasoningDelta,
    RequestSnapshot,
    RequestStopped,
    TextDelta,
    ToolCallFinished,
    ToolInputDelta,
    UsageReported,
    WarningEvent,
)
from steiner_tui.engine.messages import Message
from steiner_tui.sessions.followed_run import LoggedRun, header_record, meta_at_boundary, new_meta
from steiner_tui.sessions.lineage_sync import Written, write_missing
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.lock import SessionLock
from steiner_tui.sessions.log_failure import failure_note
from steiner_tui.sessions.log_file import COMMIT_INTERVAL, LogSync
from steiner_tui.sessions.log_open import create_log, open_log
from steiner_tui.sessions.log_restore import restored_note, restored_tail, rewrite_log
from steiner_tui.sessions.meta import MetaFile, SessionMeta
from steiner_tui.sessions.partial_reply import PARTIAL_INTERVAL, PartialFile, PartialReply
from steiner_tui.sessions.record_values import message_line
from steiner_tui.sessions.records import (
    LOG_FILE_NAME,
    LOG_VERSION,
    CompactionChoice,
    ErrorRecord,
    HeaderRecord,
    ModelRecord,
    ModeRecord,
    PermissionRecord,
    PinRecord,
    Record,
    ResumedRecord,
    SkillRecord,
    WarningRecord,
    encode_record,
)
from steiner_tui.sessions.request_trail import RequestTrail
from steiner_tui.sessions.text_file import TextFile
from steiner_tui.sessions.whole_append import append_whole, write_all

__all__ = ["LoggedRun", "SessionLog"]


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
        write: hands one or more whole lines to the kernel (tests inject a failing one).
        commit_interval: the longest a turn boundary waits for its fsync (0: none waits).
    """

    def __init__(
        self,
        session_dir: Path,
        *,
        clock: Callable[[], datetime],
        partial_bytes: int = 2048,
        partial_interval: float = PARTIAL_INTERVAL,
        monotonic: Callable[[], float] = time.monotonic,
        write: Callable[[int, bytes], None] = write_all,
        commit_interval: float = COMMIT_INTERVAL,
    ) -> None:
        self.on_error: Callable[[str], None] | None = None
        """Told once, with ``failure``, when a write fails (the session's sink says it)."""
        self.on_restored: Callable[[str], None] | None = None
        """Told, with what was saved again, when the log was written anew because its folder
        was removed while the session was open (the session's sink says it)."""
        self.write = write
        """Hands lines to the kernel in one ``write()`` (``whole_append.write_all``)."""
        self._clock = clock
        self.partial = PartialReply(
            every_bytes=partial_bytes, every_seconds=partial_interval, clock=monotonic
        )
        """The streamed reply not yet written as a ``partial`` record, and when one is due."""
        self._fd: int | None = None
        self._durable = LogSync(commit_interval)
        """The fsyncs of the log open on ``_fd``."""
        self._runner: LoggedRun | None = None
        self._mode: str | None = None
        """The last execution mode recorded (written again when the log is restored)."""
        self._begin(session_dir)

    def _begin(self, session_dir: Path) -> None:
        """Become the (not yet written) log of the session in ``session_dir``."""
        self.session_dir = session_dir
        self.path = session_dir / LOG_FILE_NAME
        self._texts = TextFile(session_dir)
        self.partial.file = PartialFile(session_dir)  # outside the log (``partial_reply``)
        self.error: OSError | None = None
        """The first write failure; once set, nothing more is written."""
        self._lock: SessionLock | None = None
        self._open = False
        """True once the log is on disk (a new session: its first message was appended)."""
        self._requests = RequestTrail()
        self._size = -1
        """The log's size after the last append (-1: none yet, or a log written anew)."""
        self._written = Written()
        self._remembered: ConversationLineage | None = None
        """The lineage ``_written`` was last brought up to (nothing to write while it is the
        runner's)."""
        self._header_written = False
        self._meta = SessionMeta(session_dir.name)
        self._meta_file = MetaFile(session_dir, before_replace=self._fsync_now)
        self._early: list[bytes] = []
        self._closed = False
        self._statuses: dict[str, str] = {}
        """How tool calls ended (``ToolCallFinished``), until their result is written."""
        self._meta_written = False
        """True once ``meta.json`` is written (a new session: with its first message)."""

    # -- opening ----------------------------------------------------------------------------

    @classmethod
    def create(
        cls, session_dir: Path, *, clock: Callable[[], datetime], **options: Any
    ) -> SessionLog:
        """A log for a new session; nothing of it is written before its first message.

        The sessions folder itself is created now, so a folder that cannot be made is
        reported when the session opens rather than when its first message is sent.

        Raises:
            FileExistsError: the folder already holds a log.
            OSError: the sessions folder cannot be created.
        """
        if (session_dir / LOG_FILE_NAME).exists():
            raise FileExistsError(f"session {session_dir.name!r} already has a log")
        session_dir.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        return cls(session_dir, clock=clock, **options)

    def start_new_session(self, session_dir: Path) -> None:
        """Close this session's log and become the (not yet written) log of a new one.

        ``/clear`` starts a new session: the old log is completed and unlocked as it is, and
        the next message opens ``session_dir`` with its own header, title and meta. Call it
        before the runner's conversation is replaced.

        Raises:
            FileExistsError: ``session_dir`` already holds a log.
        """
        if (session_dir / LOG_FILE_NAME).exists():
            raise FileExistsError(f"session {session_dir.name!r} already has a log")
        self.close()
        self._begin(session_dir)
        runner = self._runner
        if runner is not None:  # as ``bind`` does, but nothing of the old conversation is synced
            self._meta = new_meta(session_dir.name, runner, self._clock())

    @property
    def on_disk(self) -> bool:
        """True once the log exists (for a new session: after its first message)."""
        return self._open

    @classmethod
    def resume(
        cls, loaded: LoadedSession, *, clock: Callable[[], datetime], **options: Any
    ) -> SessionLog:
        """Append to a loaded session's log; repairs the loader made are written by ``bind``.

        An empty log (nothing of the session was saved) is written as a new session's is: its
        header first, with its first message, and nothing when none is sent.

        Raises:
            SessionBusyError: another running app has the session open.
            OSError: the log cannot be opened for appending (or is a symbolic link).
        """
        log = cls(loaded.directory, clock=clock, **options)
        log._fd, log._lock, log._texts = open_log(loaded.directory, loaded.texts_referred)
        if os.fstat(log._fd).st_size == 0:
            # Nothing of it was ever written (killed, or a full disk, at its first write): it
            # goes on as a new session does, its header first, with its first message.
            return log
        log._open = True
        log._written = Written.resumed(loaded)
        log._header_written = True  # a lost header is reported by the loader, never rewritten
        log._requests = RequestTrail.resumed(loaded)
        log._meta = loaded.meta
        log._meta_written = True
        at = clock()
        log._write(ResumedRecord(at=at, version=LOG_VERSION))
        if (cut := log._requests.cut_off(loaded, at)) is not None:
            log._write(cut)
        return log

    def bind(self, runner: LoggedRun) -> None:
        """Follow ``runner``: write anything not yet written (opening a new log when the
        runner's conversation already has messages), fsync."""
        self._runner = runner
        if not self._header_written:
            self._meta = new_meta(self.session_dir.name, runner, self._clock())
        self.sync()

    def _materialize(self) -> None:
        """Create the folder and the log, take the lock, write the header and early records.

        Raises:
            OSError: the folder or the log cannot be created (``FileExistsError``: taken).
        """
        if self._open:
            return
        if self._fd is None:  # else an empty log, resumed: locked and open already
            self._fd, self._lock = create_log(self.session_dir)
        self._open = True
        header = self._header()
        self._requests.cache_key = header.prompt_cache_key
        self._append(b"".join([encode_record(header), *self._early]))
        self._header_written = True
        self._early.clear()

    def _header(self) -> HeaderRecord:
        return header_record(
            self.session_dir.name, self._runner, self._meta, self._requests.cache_key, self._clock
        )

    def _restore(self) -> None:
        """Write the log anew from the runner's lineage (``log_restore``): its file was removed
        while open (the session folder deleted).

        Raises:
            OSError: the folder or the log cannot be created again.
        """
        runner = self._runner
        if runner is None:
            return
        lineage = runner.lineage
        header = self._header()
        self._requests = self._requests.restarted(header.prompt_cache_key)
        tail = restored_tail(self._requests.last_main, self._mode, self._clock)
        removed = self._fd, self._lock, self._texts
        self._fd, self._lock, self._texts = rewrite_log(
            self.session_dir, header, lineage, tail, removed
        )
        self._size = -1
        self._meta_file.close()  # the removed folder's
        self.partial.close(settled=False)  # the removed folder's
        self._end_commits()  # the removed file's
        self._remember(lineage)
        if self.on_restored is not None:
            self.on_restored(restored_note(self.session_dir))

    # -- the sink ---------------------------------------------------------------------------

    def emit(self, event: EngineEvent) -> None:
        # By the event's class, a subclass by its nearest logged one: ``isinstance`` against a
        # msgspec struct class goes through its metaclass's ``__instancecheck__`` (0.1-0.2 us).
        kind, handlers = type(event), self._HANDLERS
        handle = handlers.get(kind) or next(filter(None, map(handlers.get, kind.__mro__)), None)
        if handle is None or self._closed or self.error is not None:
            return
        try:
            handle(self, event)
        except OSError as exc:
            self._fail(exc)

    def _appended(self, event: MessageAppended) -> None:
        self._materialize()
        self._sync(appended=event.message)
        self.partial.landed()  # after the message: a kill in between keeps the text
        message = event.message
        if message.role == "assistant":
            self._record_last_main()
            if not message.tool_calls:
                self._boundary()
        elif not self._meta_written:
            # The first message: a session killed in its first turn is still listed (with
            # its title) and resumed as the latest.
            self._boundary()

    def _finished(self, event: ToolCallFinished) -> None:
        # Emitted just before its result message is appended, which is written with it.
        self._statuses[event.call.id] = event.status

    def _requested(self, event: RequestSnapshot) -> None:
        self._sync()
        self.partial.restart()
        self._flush_request()
        self._requests.hold(event)  # written with its usage, or before the next record

    def _compacted(self, event: CompactionApplied) -> None:
        self._sync()
        self.partial.landed()
        self._boundary()

    def _answered(self, event: PermissionAnswered) -> None:
        if event.agent:  # a sub-agent's call: its result is not in this log
            return
        self._sync()
        self._write(PermissionRecord(answer=event, at=self._clock()))

    def _pinned(self, event: PinChanged) -> None:
        self._sync()
        self._write(
            PinRecord(key=event.key, pinned=event.pinned, label=event.label, at=self._clock())
        )

    def _warned(self, event: WarningEvent) -> None:
        self._sync()
        self._write(WarningRecord(code=event.code, message=event.message, at=self._clock()))

    def _failed(self, event: ErrorEvent) -> None:
        # A provider fault ends the turn: what was streamed and sent is made durable, so the
        # log resumes from exactly here.
        self._sync()
        self._flush_partial()
        record = ErrorRecord(
            code=event.code, message=event.message, at=self._clock(), remedies=event.remedies
        )
        self._write(record)
        if self._open:
            self._boundary()

    # -- explicit records -------------------------------------------------------------------

    def record_mode(self, mode: str) -> None:
        """Record an execution-mode change (``build``/``plan``)."""
        self._mode = mode
        self._safe(ModeRecord(mode=mode, at=self._clock()))  # type: ignore[arg-type]

    def record_model(self, ref: str = "", *, compaction: CompactionChoice = "") -> None:
        """Record a ``/model`` switch (kept on resume even before a request goes to it) or a
        compaction mode set live."""
        self._safe(ModelRecord(ref=ref, compaction=compaction, at=self._clock()))

    def record_skill(self, name: str, enabled: bool) -> None:
        """Record a skill toggle (it reaches the model with the next message's envelopes)."""
        self._safe(SkillRecord(name=name, enabled=enabled, at=self._clock()))

    def sync(self) -> None:
        """Write whatever the bound runner's lineage holds that the log does not, and fsync."""
        if self._closed or self.error is not None:
            return
        try:
            if not self._open and self._has_messages():
                self._materialize()
            if self._open:
                self._sync()
                self._boundary(now=True)
        except OSError as exc:
            self._fail(exc)

    def app_stopping(self) -> None:
        """The app is quitting (``RequestTrail.app_stopping``)."""
        self._requests.app_stopping = True

    def close(self) -> None:
        """Write what is pending (streamed text included), fsync, update meta, close, unlock.

        A new session that never had a message leaves nothing on disk.
        """
        if self._closed:
            return
        try:
            if self.error is None and self._open:
                self._flush_partial()
                self._sync()
                self._boundary(now=True)
        except OSError as exc:
            self._fail(exc)
        finally:
            self._closed = True
            self._meta_file.close()
            self.partial.close(settled=self._open and self.error is None)
            self._end_commits()
            self._texts.close()
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            if self._lock is not None:
                self._lock.release()

    def _has_messages(self) -> bool:
        runner = self._runner
        return runner is not None and any(g.messages for g in runner.lineage.generations)

    # -- internals --------------------------------------------------------------------------

    def _safe(self, record: Record) -> None:
        if self._closed or self.error is not None:
            return
        try:
            self._write(record)
        except OSError as exc:
            self._fail(exc)

    @property
    def failure(self) -> str:
        """What the first write failure means for the session ("" while the log is written)."""
        return failure_note(self.error, self.path)

    def _fail(self, error: OSError) -> None:
        if self.error is not None:
            return
        self.error = error
        if self.on_error is not None:
            self.on_error(self.failure)

    def _append(self, data: bytes) -> None:
        assert self._fd is not None
        self._size = append_whole(self._fd, data, self.write, self._size)

    def _write(self, record: Record) -> None:
        line = encode_record(record)
        pending = self._requests.take()
        if pending is not None:  # the held request record goes first
            line = encode_record(pending) + line
        if not self._open:
            self._early.append(line)  # before the first message
            return
        self._append(line)

    def _flush_request(self) -> None:
        pending = self._requests.take()
        if pending is not None:
            self._write(pending)

    def _usage(self, event: UsageReported) -> None:
        """Fold the usage into its held request record, else write a ``usage`` record."""
        # The runner notes its last main request as the usage arrives: the same moment.
        last = self._runner.last_main_request if self._runner is not None else None
        at = last.at if last is not None and last.at is not None else self._clock()
        record = self._requests.usage(event, at)
        if record is not None:
            self._write(record)

    def _stopped(self, event: RequestStopped) -> None:
        """Fold why no usage will come into its held request record, else write it."""
        record = self._requests.stopped(event, self._clock())
        if record is not None:
            self._write(record)

    def _stream(self, *, text: str = "", reasoning: str = "") -> None:
        if self.partial.add(text=text, reasoning=reasoning):  # none: a tool call's arguments
            self._flush_partial()

    def _flush_partial(self) -> None:
        if not self.partial.buffered or not self._open:
            return
        self._flush_request()  # the request the reply answers is in the log first
        assert self._fd is not None
        end = self._size if self._size >= 0 else os.lseek(self._fd, 0, os.SEEK_END)
        turn = self._runner.state.turn if self._runner is not None else 0
        self.partial.write(self._written.active_id, turn, end)

    def _record_last_main(self) -> None:
        if self._runner is not None:
            record = self._requests.main_request(self._runner.last_main_request)
            if record is not None:
                self._write(record)

    def _sync(self, appended: Message | None = None) -> None:
        written = self._written
        if self._runner is None:
            if appended is not None:
                written.messages = written.messages.plus((appended,))
                status = self._status(appended)
                self._write(message_line(written.messages, written.count - 1, status, self._texts))
                self._requests.since.append(appended)
            return
        lineage = self._runner.lineage
        if lineage is self._remembered:
            return
        write_missing(
            written,
            lineage,
            write=self._write,
            texts=self._texts,
            trail=self._requests,
            status=self._status,
            clock=self._clock,
        )
        self._remember(lineage)

    def _status(self, message: Message) -> str:
        """The reported status of a tool result's call ("" : none reported), forgotten once
        its result is written."""
        if message.role != "tool":
            return ""
        return self._statuses.pop(message.tool_call_id, "")

    def _remember(self, lineage: ConversationLineage) -> None:
        self._remembered = lineage
        self._written = Written.of(lineage)

    def _fsync_now(self) -> None:
        """fsync the log at once (a pending group commit then finds nothing to add)."""
        if self._fd is not None and self._open:
            os.fsync(self._fd)

    def _end_commits(self) -> None:
        """Stop the group commit of the log open now (its fsync at once, a failure kept)."""
        try:
            self._durable.end()
        except OSError as exc:
            self._fail(exc)

    def _boundary(self, *, now: bool = False) -> None:
        """A turn boundary: the held request written, the log fsynced (``now``, or the first
        time: at once; else as a group commit), ``meta.json`` brought up to date."""
        if not self._open:
            return
        assert self._fd is not None
        if os.fstat(self._fd).st_nlink == 0:  # the session folder was deleted meanwhile
            self._restore()
            assert self._fd is not None
        self._flush_request()
        self._durable.boundary(self._fd, self._texts, now=now or not self._meta_written)
        size = self._size if self._size >= 0 else os.fstat(self._fd).st_size
        self._meta = meta_at_boundary(
            self._meta, self._runner, at=self._clock(), size=size + self._texts.end
        )
        self._meta_file.write(self._meta)
        self._meta_written = True

    _HANDLERS: ClassVar[dict[type[EngineEvent], Callable[[SessionLog, Any], None]]] = {
        TextDelta: lambda self, event: self._stream(text=event.text),
        ReasoningDelta: lambda self, event: self._stream(reasoning=event.text),
        ToolInputDelta: lambda self, event: self._stream(),
        MessageAppended: _appended,
        ToolCallFinished: _finished,
        RequestSnapshot: _requested,
        CompactionApplied: _compacted,
        PinChanged: _pinned,
        PermissionAnswered: _answered,
        UsageReported: _usage,
        RequestStopped: _stopped,
        WarningEvent: _warned,
        ErrorEvent: _failed,
    }
    """What the log records of each event (``emit``)."""
    accepts = tuple(_HANDLERS)
    """The events the log records something of."""
