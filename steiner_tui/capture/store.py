"""Capture sessions on disk: one folder per capture, one JSONL line per request and per reply.

A capture lives in the sessions folder, under ``.captures/<id>/`` (a name the session store
never lists as a session of its own): ``capture.json`` says when and against which upstream it
ran, ``requests.jsonl`` holds each request body exactly as the agent sent it (``request``
lines) and, when its reply has ended, what the reply reported (``reply`` lines: status, bytes,
usage). Headers are never written: API keys travel in them; a key-like query parameter's value
(``?key=``) is written as ``[redacted]``. The files are the user's alone (0600, in a 0700
folder), like sessions. The file is appended to and flushed line by line, so a workbench can
follow a capture that is still running.

Everything else (blocks, tools, prefixes) is derived from the stored bodies when read
(``capture.report``), so an improved decoder applies to old captures too.

Nothing it holds can fill memory or tear: a request body over ``RECORD_CAP`` is not stored (the
line says its size and why), a line is appended whole or not at all (a failed write, a full
disk, is cut back off the file, so the next line starts clean), and reading goes line by line
in bounded pieces: ``list_captures`` counts the request lines without reading their bodies, and
a line over the cap is skipped and named.

A folder damaged on disk loses only what is damaged: a line that is not UTF-8, not JSON or not
a record of the shape written here is skipped and named by its number in the capture's
``problems``, and the lines after it are read; a ``capture.json`` that cannot be read is a
problem too, the id then taken from the folder's name and the start time from the folder. Only
a requests file that cannot be opened at all (``CaptureUnreadableError``) stops the reading.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import msgspec

from steiner_tui.capture.usage import Usage
from steiner_tui.errors import CaptureError
from steiner_tui.sessions.ids import new_session_id, validate_session_id

__all__ = [
    "CAPTURES_DIR",
    "CaptureInfo",
    "CaptureNotFoundError",
    "CaptureUnreadableError",
    "CaptureWriter",
    "RecordedReply",
    "RecordedRequest",
    "list_captures",
    "read_capture",
    "without_secrets",
]

CAPTURES_DIR = ".captures"
"""The folder under the sessions folder that holds captures."""
_META = "capture.json"
_LOG = "requests.jsonl"
RECORD_CAP = 64 * 1024 * 1024
"""The largest request body stored (an agent's largest requests are a few MB)."""
_LINE_CAP = RECORD_CAP * 2 + 4096
"""The longest line read back (a body as base64, with the record's other fields)."""
_PIECE = 1024 * 1024
_HEAD = 64
_RECORD_START = re.compile(rb'\{"type": "(request|reply)", "seq": (\d{1,18}), "')
"""How every line the writer appends starts (``json.dumps`` keeps the key order)."""


def _append(fd: int, data: bytes) -> None:
    """Write all of ``data`` at ``fd`` (a test replaces it to fail part way)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class CaptureNotFoundError(CaptureError, LookupError):
    """There is no capture with that id."""


class CaptureUnreadableError(CaptureError, ValueError):
    """The capture's requests file exists but cannot be opened (the message names it)."""


class CaptureInfo(msgspec.Struct, frozen=True):
    """One capture: id, folder, start time, upstream and how many requests it holds, with
    what could not be read of it (``problems``: one sentence each, a line by its number)."""

    capture_id: str
    directory: Path
    created: datetime
    upstream: str
    requests: int
    problems: tuple[str, ...] = ()


class RecordedReply(msgspec.Struct, frozen=True):
    """What came back for one request; ``cut`` says why it stopped before its end ("" when it
    ended): its usage is then what had come, often the input side only."""

    status: int
    content_type: str
    bytes: int
    usage: Usage | None
    time: datetime
    cut: str = ""


class RecordedRequest(msgspec.Struct, frozen=True):
    """One request as the agent sent it, with its reply once that has ended."""

    seq: int
    time: datetime
    method: str
    path: str
    body: bytes
    reply: RecordedReply | None = None


def _now() -> datetime:
    return datetime.now(UTC)


_SECRET_PARAMETER = re.compile(r"key|token|secret|password|passwd|auth|sig|credential", re.I)
"""Query parameters whose values are never stored (Gemini's ``?key=``, signed URLs...)."""


def without_secrets(url: str) -> str:
    """``url`` with the values of key-like query parameters replaced by ``[redacted]``."""
    base, mark, query = url.partition("?")
    if not mark:
        return url
    parts = []
    for item in query.split("&"):
        name, equals, _ = item.partition("=")
        secret = equals and _SECRET_PARAMETER.search(urllib.parse.unquote_plus(name))
        parts.append(f"{name}=[redacted]" if secret else item)
    return f"{base}?{'&'.join(parts)}"


def _private(path: Path, mode: int) -> IO[str]:
    """``path`` opened for writing text, created readable by the user only (0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | mode, 0o600)
    return os.fdopen(fd, "w" if mode == os.O_TRUNC else "a", encoding="utf-8")


class CaptureWriter:
    """Appends one capture's requests and replies (thread-safe; each line flushed)."""

    def __init__(
        self,
        base: Path,
        upstream: str,
        capture_id: str | None = None,
        *,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self._clock = clock
        self.capture_id = validate_session_id(capture_id or new_session_id())
        self.directory = base / CAPTURES_DIR / self.capture_id
        # Bodies hold the agent's whole context: readable by the user only, like sessions.
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        meta = {
            "id": self.capture_id,
            "created": clock().isoformat(),
            "upstream": without_secrets(upstream),
        }
        with _private(self.directory / _META, os.O_TRUNC) as handle:
            handle.write(json.dumps(meta) + "\n")
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
        self._fd = os.open(self.directory / _LOG, flags, 0o600)
        self._lock = threading.Lock()
        self._seq = 0

    def _write(self, record: dict[str, Any]) -> None:
        """Append ``record``'s line whole, or nothing: a failed write is cut back off.

        Raises:
            OSError: the line could not be written (the file is as it was).
        """
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
        with self._lock:
            end = os.lseek(self._fd, 0, os.SEEK_END)
            try:
                _append(self._fd, data)
                os.fsync(self._fd)
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, end)
                raise

    def request(self, method: str, path: str, body: bytes, problem: str = "") -> int:
        """Record a request; returns its sequence number (from 1). ``problem`` says why the
        body is recorded as it came (an encoding the proxy could not undo); a body over
        ``RECORD_CAP`` is not stored, and the problem says so.

        Raises:
            OSError: the line could not be written (nothing of it is in the file).
        """
        with self._lock:
            self._seq += 1
            seq = self._seq
        if len(body) > RECORD_CAP:
            cut = f"a body of {len(body):,} bytes, over the {RECORD_CAP:,} stored: not stored"
            problem = f"{problem}; {cut}" if problem else cut
            body = b""
        try:
            text, encoding = body.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, encoding = base64.b64encode(body).decode("ascii"), "base64"
        record: dict[str, Any] = {
            "type": "request",
            "seq": seq,
            "time": self._clock().isoformat(),
            "method": method,
            "path": without_secrets(path),
            "body": text,
            "body_encoding": encoding,
        }
        if problem:
            record["problem"] = problem
        self._write(record)
        return seq

    def reply(
        self,
        seq: int,
        status: int,
        content_type: str,
        size: int,
        usage: Usage | None,
        cut: str = "",
    ) -> None:
        """Record the end of request ``seq``'s reply (``cut``: why it stopped short)."""
        record: dict[str, Any] = {
            "type": "reply",
            "seq": seq,
            "time": self._clock().isoformat(),
            "status": status,
            "content_type": content_type,
            "bytes": size,
            "usage": usage.to_json() if usage is not None else None,
        }
        if cut:
            record["cut"] = cut
        self._write(record)

    def close(self) -> None:
        with self._lock:
            os.close(self._fd)


def _time(value: Any) -> datetime:
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return datetime(1970, 1, 1, tzinfo=UTC)


def _raw_lines(handle: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """Each line with its number (from 1): its bytes, or None for a line over ``_LINE_CAP``
    (read past in pieces); a last line still being written is left out."""
    number = 0
    while raw := handle.readline(_LINE_CAP + 1):
        number += 1
        if len(raw) > _LINE_CAP and not raw.endswith(b"\n"):
            while (rest := handle.readline(_PIECE)) and not rest.endswith(b"\n"):
                pass
            if rest:
                yield number, None
            return
        if not raw.endswith(b"\n"):
            return
        yield number, raw


def _unreadable(path: Path, exc: OSError) -> CaptureUnreadableError:
    return CaptureUnreadableError(f"cannot read {path}: {exc.strerror or exc.__class__.__name__}")


def _opened(path: Path) -> IO[bytes] | None:
    """``path`` open for reading, or None when it does not exist.

    Raises:
        CaptureUnreadableError: it exists but cannot be opened.
    """
    try:
        return path.open("rb")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _unreadable(path, exc) from exc


def _record(raw: bytes) -> dict[str, Any] | str:
    """A line's record, or why it holds none."""
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte {exc.start + 1})"
    except ValueError as exc:
        return f"not JSON ({exc})"
    except RecursionError:
        return "nested too deeply"
    return record if isinstance(record, dict) else "not a JSON object"


def _lines(path: Path, problems: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each complete line's record with its number (from 1); what cannot be read is added
    to ``problems`` and skipped.

    Raises:
        CaptureUnreadableError: the file exists but cannot be opened or read.
    """
    handle = _opened(path)
    if handle is None:
        return
    try:
        with handle:
            for number, raw in _raw_lines(handle):
                if raw is not None and not raw.strip():
                    continue
                record = _record(raw) if raw is not None else f"over {_LINE_CAP:,} bytes"
                if isinstance(record, str):
                    problems.append(f"{path.name} line {number}: {record}; skipped")
                else:
                    yield number, record
    except OSError as exc:
        raise _unreadable(path, exc) from exc


def _scan(path: Path) -> tuple[int, list[str]]:
    """The requests in ``path`` and its lines that are not records written here, told by
    each line's start and end only (no body is read whole, however long).

    Raises:
        CaptureUnreadableError: the file exists but cannot be opened or read.
    """
    handle = _opened(path)
    if handle is None:
        return 0, []
    seqs: set[int] = set()
    problems: list[str] = []
    number = 0
    try:
        with handle:
            while head := handle.readline(_HEAD):
                number, tail = number + 1, head[-3:]
                while not tail.endswith(b"\n") and (rest := handle.readline(_PIECE)):
                    tail = (tail + rest)[-3:]
                if not tail.endswith(b"\n"):
                    break  # a line still being written
                if not head.strip():
                    continue
                written = _RECORD_START.match(head)
                request = written is not None and written.group(1) == b"request"
                # A request's last member is a string (its body, or the problem); a reply's
                # may be an object, a number or null.
                if written is None or not tail.endswith(b'"}\n' if request else b"}\n"):
                    problems.append(f"{_LOG} line {number}: not a record as written; skipped")
                elif request:
                    seqs.add(int(written.group(2)))
    except OSError as exc:
        raise _unreadable(path, exc) from exc
    return len(seqs), problems


def _usage(value: Any) -> Usage | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"usage is {type(value).__name__}, not an object")
    return Usage(
        int(value.get("input_tokens", 0)),
        int(value.get("cache_read_tokens", 0)),
        int(value.get("cache_creation_tokens", 0)),
        int(value.get("output_tokens", 0)),
        int(value.get("cache_creation_1h_tokens", 0)),
    )


def _request(seq: int, record: dict[str, Any]) -> RecordedRequest:
    text = record.get("body", "")
    if not isinstance(text, str):
        raise ValueError(f"body is {type(text).__name__}, not a string")
    body = (
        base64.b64decode(text, validate=True)
        if record.get("body_encoding") == "base64"
        else text.encode("utf-8", "surrogatepass")
    )
    return RecordedRequest(
        seq,
        _time(record.get("time")),
        str(record.get("method", "POST")),
        str(record.get("path", "")),
        body,
    )


def _reply(record: dict[str, Any]) -> RecordedReply:
    return RecordedReply(
        int(record.get("status", 0)),
        str(record.get("content_type", "")),
        int(record.get("bytes", 0)),
        _usage(record.get("usage")),
        _time(record.get("time")),
        str(record.get("cut") or ""),
    )


def _meta(directory: Path, problems: list[str]) -> dict[str, Any]:
    """``capture.json``'s fields, or none (and a problem) when it cannot be read."""
    try:
        meta = json.loads((directory / _META).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        problems.append(f"{_META}: cannot be read ({exc}); id and start taken from the folder")
        return {}
    if not isinstance(meta, dict):
        problems.append(f"{_META}: not a JSON object; id and start taken from the folder")
        return {}
    return meta


def _folder_time(directory: Path) -> datetime:
    try:
        return datetime.fromtimestamp(directory.stat().st_mtime, UTC)
    except OSError:
        return datetime(1970, 1, 1, tzinfo=UTC)


def read_capture(base: Path, capture_id: str) -> tuple[CaptureInfo, list[RecordedRequest]]:
    """A capture's requests in order, each with its reply when it has ended; what could not
    be read is in the info's ``problems`` (module docstring).

    Raises:
        ValueError: the id is not valid.
        CaptureNotFoundError: there is no such capture.
        CaptureUnreadableError: its requests file cannot be opened.
    """
    directory = base / CAPTURES_DIR / validate_session_id(capture_id)
    if not (directory / _META).exists():
        raise CaptureNotFoundError(f"no capture {capture_id!r} in {base / CAPTURES_DIR}")
    problems: list[str] = []
    meta = _meta(directory, problems)
    requests: dict[int, RecordedRequest] = {}
    for number, record in _lines(directory / _LOG, problems):
        kind = record.get("type")
        try:
            seq = int(record.get("seq", 0))
            if kind == "request":
                requests[seq] = _request(seq, record)
            elif kind == "reply" and seq in requests:
                requests[seq] = msgspec.structs.replace(requests[seq], reply=_reply(record))
            elif kind == "reply":
                problems.append(
                    f"{_LOG} line {number}: a reply to request {seq}, whose own line is "
                    "missing; skipped"
                )
            else:
                problems.append(f"{_LOG} line {number}: unknown record type {kind!r}; skipped")
        except (TypeError, ValueError) as exc:
            problems.append(f"{_LOG} line {number}: unreadable {kind} record ({exc}); skipped")
    created = meta.get("created")
    info = CaptureInfo(
        directory.name,  # the id it opens by, even in a folder copied under another name
        directory,
        _time(created) if created is not None else _folder_time(directory),
        str(meta.get("upstream", "")),
        len(requests),
        tuple(problems),
    )
    return info, [requests[k] for k in sorted(requests)]


def list_captures(base: Path) -> list[CaptureInfo]:
    """Every capture, newest first, read lazily: its requests counted by their lines' starts
    (``read_capture`` reads them, and names what it cannot read); one whose requests file
    cannot be opened is listed with no requests and that problem."""
    root = base / CAPTURES_DIR
    try:
        names = [entry.name for entry in os.scandir(root) if entry.is_dir()]
    except (FileNotFoundError, NotADirectoryError):
        return []
    out: list[CaptureInfo] = []
    for name in names:
        directory = root / name
        try:
            validate_session_id(name)
        except ValueError:
            continue  # not a capture's folder
        if not (directory / _META).exists():
            continue
        problems: list[str] = []
        meta = _meta(directory, problems)
        created = meta.get("created")
        try:
            requests, damaged = _scan(directory / _LOG)
        except CaptureUnreadableError as exc:
            requests, damaged = 0, [str(exc)]
        problems += damaged
        when = _time(created) if created is not None else _folder_time(directory)
        upstream = str(meta.get("upstream", ""))
        out.append(CaptureInfo(name, directory, when, upstream, requests, tuple(problems)))
    out.sort(key=lambda info: (info.created, info.capture_id), reverse=True)
    return out
