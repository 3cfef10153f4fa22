"""Read ``session.jsonl`` (and its ``session.text``, read once) back into a lineage, tolerating
whatever a crash or a disk left behind.

Every line is parsed on its own. A line that is not UTF-8, not JSON, not an object, of an unknown
type, or malformed for its type becomes a ``LogProblem`` with its 1-based line number, and the
rest of the log still loads. Only an unreadable folder or log raises (``SessionLoadError``), and
so does a log, its ``session.text`` or session folder that is a symbolic link: resuming would
append outside the sessions folder. A record whose text is missing from ``session.text``
(``text_file``) is a problem of its line, which is dropped as a torn line is; its place still
counts for the generation records after it (their kept messages are indices), so one lost text
does not lose the compactions that followed; a generation record's own lost text loses that
message only, not the record.

Repairs make a log cut by a crash or damaged on disk usable again, because every provider
requires each tool result to follow the assistant message that called it, and each call to
have one result:

* a message record written twice (a retried write, a file synced twice) is read once: a
  repeated tool call or result would make every later request fail (``_drop_repeats``);
* streamed text left in trailing ``partial`` records becomes an ``incomplete`` assistant
  message, exactly as a cancelled reply is stored;
* tool calls of the last assistant message that have no result get an "interrupted" result;
* a tool call elsewhere whose result line was lost gets a result saying so, and a tool result
  whose assistant message was lost gets that call restored as "lost" (an assistant message with
  the calls and a note); each is reported as a problem of that line.

The middle two are appended after everything that was sent, so the prefix of the last request is
untouched; the others change the middle of the conversation, so a resumed log rewrites the
lineage (``LoadedSession.rewritten``).
"""

from __future__ import annotations

import itertools
import mmap
import operator
from collections.abc import Mapping
from pathlib import Path

import msgspec

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import PermissionAnswered
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message, ToolCall
from steiner_tui.engine.tool_results import INTERRUPTED_TOOL_RESULT
from steiner_tui.gc_pause import gc_paused
from steiner_tui.sessions.errors import SessionLoadError
from steiner_tui.sessions.ids import validate_session_id
from steiner_tui.sessions.log_parse import (
    APP_STOPPED,
    LoggedError,
    LogProblem,
    LogState,
    RequestRecord,
    SessionHeader,
    parse_log_bytes,
    stop_cut_request,
)
from steiner_tui.sessions.meta import SessionMeta, own_meta
from steiner_tui.sessions.partial_reply import read_partials
from steiner_tui.sessions.record_values import trusted_content
from steiner_tui.sessions.records import LOG_FILE_NAME, LOG_VERSION, HeaderRecord, decode_record
from steiner_tui.sessions.request_values import LoggedRecords
from steiner_tui.sessions.text_file import TEXT_FILE_NAME, map_texts

__all__ = [
    "INTERRUPTED_TOOL_RESULT",
    "LOST_TOOL_CALL_NOTE",
    "LOST_TOOL_RESULT",
    "LoadedSession",
    "LogProblem",
    "RequestRecord",
    "SessionHeader",
    "SessionLoadError",
    "load_session",
]

LOST_TOOL_RESULT = (
    "The result of this tool call was lost from the session log; the call may or may not have run."
)
LOST_TOOL_CALL_NOTE = (
    "[This message was lost from the session log; only its tool calls, without their "
    "arguments, could be restored from their results.]"
)


class LoadedSession(msgspec.Struct, frozen=True):
    """A session read back from disk.

    Attributes:
        session_id: the folder name.
        directory: the session folder.
        header: the header record (None when line 1 was lost).
        lineage: every generation, rebuilt exactly; repairs appended to the active one.
        last_main_request: the last logged one (zero when none).
        problems: each bad line, in order.
        meta: ``meta.json`` when readable, else derived from the log.
        requests: logged request metadata, in order (each record read when first asked for;
            what resume needs of them is in ``requests.heads``).
        mode: the last logged execution mode.
        switched_model: the ref of a ``/model`` switch no main request went to since ("":
            none): the model the person chose last.
        compaction_mode: the compaction mode last set live (F4, ``/compaction``; "": none).
        restored_incomplete: the log ends in a reply the app's stop cut off: restored from its
            streamed text (the app was killed) or logged ``incomplete`` (it quit).
        repaired_tool_results: interrupted results added for calls that had none.
        skill_toggles: the logged skill toggles, in order.
        rewritten: a repair changed the middle of the active generation, so a resumed log
            rewrites the lineage instead of appending to it.
        skill_messages: the active messages as skill state is read from them: only what the
            driver composed is parsable (``record_values.trusted_content``).
        as_logged: the active generation's messages as the log holds them (before repairs,
            which come after them and are written when the session is resumed).
        errors: the errors logged in the active generation, each where it happened.
        tool_statuses: how tool calls ended (``done``, ``failed``, ``rejected``), by call id,
            where the log recorded it; other results read as their text says
            (``engine.tool_results.default_tool_status``).
        permission_answers: how the permission requests of tool calls were answered, by call
            id (the session model's calls; ``PermissionRecord``).
        texts_referred: the end of the furthest text the records refer to in
            ``session.text`` (a resumed log appends its texts from there on, or from the
            file's end when that is further).
    """

    session_id: str
    directory: Path
    header: SessionHeader | None
    lineage: ConversationLineage
    last_main_request: LastMainRequest
    problems: tuple[LogProblem, ...]
    meta: SessionMeta
    requests: LoggedRecords = msgspec.field(default_factory=LoggedRecords)
    mode: str = "build"
    switched_model: str = ""
    compaction_mode: str = ""
    restored_incomplete: bool = False
    repaired_tool_results: int = 0
    skill_toggles: tuple[tuple[str, bool], ...] = msgspec.field(default=())
    rewritten: bool = False
    skill_messages: tuple[Message, ...] = ()
    as_logged: tuple[Message, ...] = ()
    errors: tuple[LoggedError, ...] = ()
    tool_statuses: Mapping[str, str] = msgspec.field(default_factory=dict)
    permission_answers: Mapping[str, PermissionAnswered] = msgspec.field(default_factory=dict)
    texts_referred: int = 0

    @property
    def prompt_cache_key(self) -> str:
        return self.header.prompt_cache_key if self.header is not None else ""

    @property
    def project_root(self) -> str:
        return self.header.project_root if self.header is not None else self.meta.project_root


class _Repair(msgspec.Struct):
    messages: list[Message] = msgspec.field(default_factory=list)
    problems: list[LogProblem] = msgspec.field(default_factory=list)
    interrupted: int = 0
    in_place: bool = False


def _lost_call(run: list[Message]) -> Message:
    calls = tuple(ToolCall(m.tool_call_id, m.name, {}) for m in run)
    return Message("assistant", LOST_TOOL_CALL_NOTE, tool_calls=calls, turn=run[0].turn)


def _drop_repeats(
    messages: list[Message], lines: list[int]
) -> tuple[list[Message], list[int], list[LogProblem]]:
    """The messages without records written twice (a retried write, a file synced twice).

    A repeat is a message equal to the one kept before it, or equal to an earlier one that
    could not occur twice: a user message (each writes its own turn), an assistant message
    with tool calls, or a tool result (call ids are unique, and a provider refuses a request
    that repeats one). Sub-agent results are never taken for repeats.
    """
    kept: list[Message] = []
    kept_lines: list[int] = []
    problems: list[LogProblem] = []
    # Keyed by call id, not by the whole message: hashing every tool call's arguments cost
    # more than comparing the few messages that share an id.
    earlier: dict[object, list[tuple[Message, int]]] = {}
    for message, line in zip(messages, lines, strict=True):
        key: object = None
        if message.role == "tool":
            key = ("tool", message.tool_call_id)
        elif message.role == "assistant" and message.tool_calls:
            key = ("calls", message.tool_calls[0].id)
        elif message.role == "user" and message.source != SUB_AGENT_RESULT_SOURCE:
            key = ("user", message.content)
        first = None
        for other, at in earlier.get(key, ()) if key is not None else ():
            if other == message:
                first = at
                break
        if first is None and kept and kept[-1] == message and message.role != "tool":
            first = kept_lines[-1]
        if first is not None:
            problems.append(
                LogProblem(line, f"a repeat of the {message.role} message of line {first}; dropped")
            )
            continue
        if key is not None:
            earlier.setdefault(key, []).append((message, line))
        kept.append(message)
        kept_lines.append(line)
    return kept, kept_lines, problems


def _may_repeat(messages: list[Message]) -> bool:
    """Whether ``_drop_repeats`` may find a repeat: two messages share its key, or two in a
    row are equal. Almost no log has one, and this asks it of the whole list at once."""
    tools = [m.tool_call_id for m in messages if m.role == "tool"]
    calls = [m.tool_calls[0].id for m in messages if m.role == "assistant" and m.tool_calls]
    users = [
        m.content for m in messages if m.role == "user" and m.source != SUB_AGENT_RESULT_SOURCE
    ]
    return any(len(set(keys)) < len(keys) for keys in (tools, calls, users)) or any(
        map(operator.eq, messages, itertools.islice(messages, 1, None))
    )


def _repair_pairs(messages: list[Message], lines: list[int]) -> _Repair:
    """Every tool result right after its call, every call with one result (see module doc)."""
    repair = _Repair()
    if _may_repeat(messages):
        messages, lines, repair.problems = _drop_repeats(messages, lines)
    repair.in_place = bool(repair.problems)
    out = repair.messages
    i, count = 0, len(messages)
    while i < count:
        message = messages[i]
        if message.role == "tool":  # not consumed by a call before it: an orphan run
            run: list[Message] = []
            seen: set[str] = set()
            while i < count and messages[i].role == "tool":
                if messages[i].tool_call_id in seen:
                    repair.problems.append(
                        LogProblem(lines[i], "a second result for one tool call was dropped")
                    )
                else:
                    seen.add(messages[i].tool_call_id)
                    run.append(messages[i])
                    repair.problems.append(
                        LogProblem(
                            lines[i],
                            f"tool result {messages[i].tool_call_id} ({messages[i].name}) had "
                            "no tool call (its message was lost); the call was restored as lost",
                        )
                    )
                i += 1
            out.extend([_lost_call(run), *run])
            repair.in_place = True
            continue
        out.append(message)
        i += 1
        if message.role != "assistant" or not message.tool_calls:
            continue
        calls = {call.id for call in message.tool_calls}
        answered: set[str] = set()
        while i < count and messages[i].role == "tool" and messages[i].tool_call_id in calls:
            if messages[i].tool_call_id in answered:
                repair.problems.append(
                    LogProblem(lines[i], "a second result for one tool call was dropped")
                )
                repair.in_place = True
            else:
                answered.add(messages[i].tool_call_id)
                out.append(messages[i])
            i += 1
        trailing = i == count
        for call in message.tool_calls:
            if call.id in answered:
                continue
            text = INTERRUPTED_TOOL_RESULT if trailing else LOST_TOOL_RESULT
            out.append(
                Message("tool", text, name=call.name, tool_call_id=call.id, turn=message.turn)
            )
            if trailing:
                repair.interrupted += 1
            else:
                repair.in_place = True
                repair.problems.append(
                    LogProblem(
                        lines[i - 1] if i else 1,
                        f"tool call {call.id} ({call.name}) had no result (its line was lost); "
                        "a result saying so was added",
                    )
                )
    return repair


def _trusted(state: LogState, as_logged: tuple[Message, ...]) -> tuple[Message, ...]:
    """The active messages with only driver-composed prefixes left parsable (skill state);
    ``as_logged`` itself when that changes none."""
    active = state.active
    out: list[Message] | None = None  # a copy only when a message changes (almost never)
    for position, driver in enumerate(active.drivers):
        message = active.messages[position]
        if driver is None or message.role != "user":
            continue
        content = trusted_content(message, driver)
        if content != message.content:
            out = list(active.messages) if out is None else out
            out[position] = message.with_content(content)
    return as_logged if out is None else tuple(out)


def _meta(session_id: str, state: LogState, lineage: ConversationLineage, size: int) -> SessionMeta:
    header = state.header
    return SessionMeta(
        session_id=session_id,
        project_root=header.project_root if header else "",
        created=header.created if header else None,
        last_activity=state.last_time,
        alias=header.alias if header else "",
        model=header.model if header else "",
        generations=len(lineage.generations),
        messages=len(lineage.active.messages),
        size_bytes=size,
        forked_from=header.forked_from if header else "",
    )


def _check_version(session_id: str, data: bytes) -> None:
    """Refuse a log of an older version: this one keeps no readers for them (a newer one
    loads, with a problem saying so).

    Raises:
        SessionLoadError: the header says an older version.
    """
    try:
        header = decode_record(data[: data.find(b"\n")] if b"\n" in data else data)
    except (ValueError, RecursionError):
        return  # a lost header: the parser reports it, the rest still loads
    if isinstance(header, HeaderRecord) and header.version < LOG_VERSION:
        raise SessionLoadError(
            f"session {session_id!r} was written by an older development version of "
            f"steiner-tui (log version {header.version}; this one reads version {LOG_VERSION})"
            " and cannot be loaded"
        )


def load_session(directory: Path) -> LoadedSession:
    """Load the session in ``directory`` (``CONFIG/sessions/<id>/``).

    Raises:
        ValueError: the folder name is not a valid session id.
        SessionLoadError: the folder or its ``session.jsonl`` cannot be read, either is a
            symbolic link, or the log is of another version.
    """
    session_id = validate_session_id(directory.name)
    path = directory / LOG_FILE_NAME
    text_path = directory / TEXT_FILE_NAME
    try:
        for link in (directory, path, text_path):
            if link.is_symlink():
                raise SessionLoadError(
                    f"session {session_id!r}: {link} is a symbolic link; refusing to read or "
                    "append through it"
                )
        if not directory.is_dir():
            raise SessionLoadError(f"session {session_id!r}: no session folder at {directory}")
    except OSError as exc:  # a folder that may not be searched
        raise SessionLoadError(f"session {session_id!r}: cannot read {directory}: {exc}") from exc
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SessionLoadError(f"session {session_id!r}: no session log at {path}") from None
    except OSError as exc:
        raise SessionLoadError(f"session {session_id!r}: cannot read {path}: {exc}") from exc
    _check_version(session_id, data)
    try:
        texts = map_texts(text_path)
    except OSError as exc:
        raise SessionLoadError(f"session {session_id!r}: cannot read {text_path}: {exc}") from exc
    # The mapping goes with its last reference, on return: not closed here, as a lost text's
    # exception may keep a view of it (in its traceback) until it is collected.
    with gc_paused():  # some 30,000 objects that live on (a 10,000-message log): ``gc_pause``
        return _loaded(directory, session_id, data, texts)


def _loaded(
    directory: Path, session_id: str, data: bytes, texts: bytes | mmap.mmap
) -> LoadedSession:
    """``load_session``'s session from its log ``data`` and ``session.text`` bytes."""
    state = parse_log_bytes(data, texts, read_partials(directory, data))
    as_logged = tuple(state.active.messages)
    lost = state.without_lost()
    logged = len(as_logged)
    skill_messages = _trusted(state, tuple(state.active.messages) if lost else as_logged)
    repair = _repair_pairs(state.active.messages, state.message_lines)
    text = "".join(p.text for p in state.partials)
    reasoning = "".join(p.reasoning for p in state.partials)
    if text or reasoning:
        turn = state.partials[0].turn
        repair.messages.append(
            Message("assistant", text, reasoning=reasoning, turn=turn, incomplete=True)
        )
        stop_cut_request(state)
    tip, last = state.requests.last, repair.messages[-1] if repair.messages else None
    quit_mid_reply = bool(last and last.incomplete and tip and tip.error == APP_STOPPED)
    restored = bool(text or reasoning) or quit_mid_reply
    state.active.messages = repair.messages
    # Nothing repaired: the generation shares the tuple of logged messages.
    same = len(repair.messages) == logged and not repair.in_place and not lost
    active = state.active.freeze(as_logged if same else None)
    lineage = ConversationLineage((*state.done, active), tuple(state.pins))
    problems = sorted((*state.problems, *repair.problems), key=lambda p: p.line_number)
    meta = own_meta(directory) or _meta(session_id, state, lineage, len(data) + len(texts))
    return LoadedSession(
        session_id=session_id,
        directory=directory,
        header=state.header,
        lineage=lineage,
        last_main_request=state.last_main_request,
        problems=tuple(problems),
        meta=meta,
        requests=state.requests,
        mode=state.mode,
        switched_model=state.switched_model,
        compaction_mode=state.compaction_mode,
        restored_incomplete=restored,
        repaired_tool_results=repair.interrupted,
        skill_toggles=tuple(state.skill_toggles),
        rewritten=repair.in_place or lost,
        skill_messages=skill_messages,
        as_logged=as_logged,
        errors=tuple(e for e in state.errors if e.generation == state.active.id),
        tool_statuses=state.tool_statuses,
        permission_answers=state.permission_answers,
        texts_referred=state.stored.referred,
    )
