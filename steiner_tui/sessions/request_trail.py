"""What a session log has written about requests, so the next request record can say less.

``SessionLog`` keeps one ``RequestTrail``: the last request record as the parser will read it
back, every hash of that request, the messages written since (a version 4 record derives its
hashes and prompt bytes from them), the header's prompt cache key, the record being held
until its usage arrives (``request_values``; docs/design.md, "14. Durable context state"), and
the last main request the log says (written only when it differs from what a usage implies),
and the main requests with usage against which a usage's cache explanation is read back
(``CacheBases``: the last one to its model, else the last; ``logged_cause``: written beside
the usage only when the records do not imply it).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import msgspec
from msgspec.structs import replace

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.events import (
    CacheExplanation,
    RequestSnapshot,
    RequestStopped,
    UsageReported,
)
from steiner_tui.engine.messages import Message
from steiner_tui.sessions.earlier_requests import CacheBases, logged_cause
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.log_parse import APP_STOPPED
from steiner_tui.sessions.records import LastMainRequestRecord, RequestEntry, UsageRecord
from steiner_tui.sessions.request_values import (
    RequestRecord,
    implied_last_main,
    request_delta,
    same_time,
    shared_prefix,
    usage_values,
)

__all__ = ["RequestTrail"]


class RequestTrail(msgspec.Struct):
    """The request records a log has written (see the module docstring)."""

    hashes: Sequence[str] = ()
    """Every message hash of the last request written."""
    last: RequestRecord | None = None
    """The last request record written, as the parser reads it back."""
    pending: RequestEntry | None = None
    """A request record held until its usage or any other record comes."""
    since: list[Message] = msgspec.field(default_factory=list)
    """Messages written since the last request or generation record (or the resume)."""
    cache_key: str = ""
    """The header's prompt cache key (what a usage implies for the last main request)."""
    resumed_from: Sequence[RequestRecord] = ()
    """The log's request records, of which the last is read (and its hashes rebuilt) when the
    trail is first used (so resuming does not wait for them)."""
    app_stopping: bool = False
    """The app is quitting: a request cancelled from now on was cut off by it, not by Esc
    (``APP_STOPPED``, as a killed app's)."""
    last_main: LastMainRequest = msgspec.field(default_factory=LastMainRequest)
    """The last main request the log says: its last ``last_main_request`` record, or what a
    usage after it implies (``implied_last_main``)."""
    cache_bases: CacheBases[tuple[RequestRecord, Sequence[str]]] = msgspec.field(
        default_factory=CacheBases
    )
    """The main requests written with usage since the log was begun or resumed, with every
    message hash of each, that a usage's cause is read against (the last one to its model)."""
    since_resume: bool = False
    """The log was resumed (a ``resumed`` record written)."""

    @classmethod
    def resumed(cls, loaded: LoadedSession) -> RequestTrail:
        return cls(
            cache_key=loaded.prompt_cache_key,
            resumed_from=loaded.requests,
            last_main=loaded.last_main_request,
            since_resume=True,
        )

    def restarted(self, cache_key: str) -> RequestTrail:
        """The trail of this log written anew (``log_restore``), whose header says
        ``cache_key``: none of its request records, the held one dropped (it was said against
        them); the last main request and whether the app is quitting carry over."""
        return RequestTrail(
            cache_key=cache_key, app_stopping=self.app_stopping, last_main=self.last_main
        )

    def _settle(self) -> None:
        """Take the resumed log's last request as the last one written (once)."""
        if self.resumed_from:
            last = self.resumed_from[-1]
            self.last, self.hashes = replace(last, previous=None), last.message_hashes
        self.resumed_from = ()

    def hold(self, snapshot: RequestSnapshot) -> None:
        """Make ``snapshot``'s record the held one (take the one held before first)."""
        self._settle()
        self.pending, self.last = request_delta(snapshot, self.last, self.hashes, self.since)
        self.since = []
        self.hashes = snapshot.message_hashes

    def take(self) -> RequestEntry | None:
        """The held record, no longer held (None: none)."""
        pending, self.pending = self.pending, None
        return pending

    def usage(self, event: UsageReported, at: datetime) -> UsageRecord | None:
        """Fold ``event`` into the held request record, held again (the reply follows at once,
        in the same write), else the ``usage`` record to write; the last main request becomes
        the one it implies, if any."""
        self._settle()
        request, pending = self.last, self.take()
        usage = usage_values(
            event.prompt_tokens,
            event.completion_tokens,
            event.cache_read_tokens,
            event.cache_write_tokens,
        )
        foldable = pending is not None and not pending.usage  # not folded already
        same_model = request is not None and event.model == request.model
        cache = self._cache(event, usage) if same_model else None
        record = None
        if foldable and request is not None and same_model:
            usage_at = None if same_time(at, request.time) else at
            assert pending is not None
            # The usage's prompt tokens stand for an equal estimate (``read_request``).
            estimate = request.estimated_prompt_tokens
            self.pending = replace(
                pending,
                usage=usage,
                usage_at=usage_at,
                estimated_prompt_tokens=None if estimate == usage[0] else estimate,
                cache=cache,
            )
        else:
            self.pending = pending  # written before the usage record
            record = UsageRecord(model=event.model, usage=usage, at=at, cache=cache)
        implied = implied_last_main(self.last, self.cache_key, at) if same_model else None
        if implied is not None:
            self.last_main = implied
        return record

    def _cache(self, event: UsageReported, usage: tuple[int, ...]) -> CacheExplanation | None:
        """``event``'s cache explanation of the last request, when its records do not imply
        it (``logged_cause``); that request, with ``usage``, becomes the cache base."""
        live, request = event.cache, self.last
        if live is None or request is None or request.compaction:
            return None  # a summary call's usage: no cause
        request = replace(request, usage=usage)
        base, matching = self.cache_bases.of(request.model), 0
        if base is not None:
            matching = shared_prefix(base[1], self.hashes)
        before = None if base is None else base[0]
        implied = logged_cause(before, request, matching, resumed=self.since_resume, price=None)
        self.cache_bases.moved(request.model, (request, self.hashes))
        return None if replace(implied, cost_usd=live.cost_usd) == live else live

    def stopped(self, event: RequestStopped, at: datetime) -> UsageRecord | None:
        """Fold why ``event``'s request got no usage into its held record, else the ``usage``
        record that says it (None: not the last request written)."""
        self._settle()
        request = self.last
        if request is None or request.request_id != event.request_id:
            return None
        stopped = event.error or (APP_STOPPED if self.app_stopping else "")
        streamed = event.streamed_chars
        pending = self.pending
        if pending is not None and not pending.usage:
            self.pending = replace(pending, stopped=stopped, streamed=streamed)
            return None
        return UsageRecord(model=request.model, at=at, stopped=stopped, streamed=streamed)

    def cut_off(self, loaded: LoadedSession, at: datetime) -> UsageRecord | None:
        """The record that says the resumed log's last request was cut off by the app with
        its reply restored (read from ``session.partial``, removed once the log is settled),
        else None."""
        tip = loaded.requests.last
        if not loaded.restored_incomplete or tip is None or tip.error != APP_STOPPED:
            return None
        return UsageRecord(model=tip.model, at=at, stopped=APP_STOPPED, streamed=tip.streamed_chars)

    def main_request(self, request: LastMainRequest) -> LastMainRequestRecord | None:
        """The record of the runner's last main ``request`` when the log says another one
        (None: it says this one, or there is none), which it says from then on."""
        if request.is_zero or request == self.last_main:
            return None
        self.last_main = request
        return LastMainRequestRecord(request=request)
