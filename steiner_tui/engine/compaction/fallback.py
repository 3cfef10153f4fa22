"""Compaction fallback: a second model for summary calls when main's prompt cache is cold.

Summarizing on the main model re-reads the whole conversation; when its prompt cache has gone
cold (no main request recorded, or idle longer than ``after``) a cheaper model may write the
summary instead. Selection runs once per compaction operation (both stages share the target):

* nothing is read or resolved when ``after`` is not positive or ``resolve`` is None;
* a warm cache runs on main;
* a cold cache resolves the target; a resolve error or a target without a provider fails the
  attempt (the operation then reruns on main, ``fallback_status`` ``skipped``);
* a target with main's alias and backend model is not selected (runs on main).

``LastMainRequest`` records the last successful main model call; it is seeded from the previous
owner only when alias, backend model and prompt cache key all match. Built fallback providers
are memoized by ``CompactionFallbackTargets`` (alias, model, cache scope), never by session id;
failed builds are not memoized.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Generic, TypeVar

import msgspec

from steiner_tui.engine.compaction.host import SummaryTarget
from steiner_tui.engine.compaction.reasons import format_fallback_reason
from steiner_tui.engine.messages import short_hash
from steiner_tui.errors import CompactionError

__all__ = [
    "CompactionFallback",
    "CompactionFallbackTargets",
    "FallbackSelection",
    "FallbackUnavailable",
    "LastMainRequest",
    "compaction_cache_cold",
    "fallback_transport_identity",
    "seed_last_main_request",
    "select_compaction_fallback",
]

T = TypeVar("T")


class LastMainRequest(msgspec.Struct, frozen=True):
    """The last successful main model call; the zero value (``at`` None) means none."""

    provider_alias: str = ""
    backend_model: str = ""
    prompt_cache_key: str = ""
    at: datetime | None = None

    @property
    def is_zero(self) -> bool:
        return self.at is None


def seed_last_main_request(
    seed: LastMainRequest, alias: str, model: str, cache_key: str
) -> LastMainRequest:
    """``seed`` when alias, backend model and prompt cache key all match; else the zero value."""
    if (seed.provider_alias, seed.backend_model, seed.prompt_cache_key) == (
        alias,
        model,
        cache_key,
    ):
        return seed
    return LastMainRequest()


class CompactionFallback(msgspec.Struct, frozen=True):
    """The fallback configuration of one run; the zero value disables it.

    Attributes:
        target: the configured ``alias/model`` reference (for display).
        after: idle time after which main's cache counts as cold; not positive disables.
        resolve: ``resolve(cache_scope)`` returns the target (with its built provider) or
            raises; ``cache_scope`` is the compacting run's prompt cache key (a delegated
            child's own key), which memoized targets are keyed by.
    """

    target: str = ""
    after: timedelta = timedelta(0)
    resolve: Callable[[str], SummaryTarget] | None = None


class FallbackUnavailable(CompactionError):
    """The resolved fallback target has no provider."""


def compaction_cache_cold(last: LastMainRequest, now: datetime, after: timedelta) -> bool:
    """True when no main request is recorded or it is older than ``after``."""
    return last.at is None or now - last.at > after


def fallback_transport_identity(
    main_session: str, target_ref: str, new_key: Callable[[], str] | None = None
) -> str:
    """The fallback's transport identity: derived from the main session, else a random key.

    It never equals the main session, so a stateful provider never continues main's transcript.
    """
    if main_session:
        return f"{main_session}-compaction-{short_hash(main_session + '|' + target_ref)}"
    return (new_key or (lambda: os.urandom(8).hex()))()  # as secrets.token_hex(8)


class FallbackSelection(msgspec.Struct, frozen=True):
    """A selected fallback (``target``) or a failed attempt (``error``), with the cold reason."""

    reason: str
    target: SummaryTarget | None = None
    error: Exception | None = None


def select_compaction_fallback(
    fallback: CompactionFallback | None,
    last: LastMainRequest,
    now: Callable[[], datetime],
    main: SummaryTarget,
    *,
    main_session: str = "",
    new_key: Callable[[], str] | None = None,
    cache_scope: str = "",
) -> FallbackSelection | None:
    """Choose the summary target of one compaction operation.

    Args:
        fallback: the run's fallback configuration (None or zero: disabled).
        last: the last main request (seeded).
        now: the injected clock; read only when the fallback is enabled.
        main: the main target (for the same-model check).
        main_session: the main transport session (for the fallback identity).
        new_key: random key source when there is no main session.
        cache_scope: the run's prompt cache key, handed to ``resolve``.

    Returns:
        None to run on main; otherwise the selected target or the failed attempt.
    """
    if fallback is None or fallback.after <= timedelta(0) or fallback.resolve is None:
        return None
    moment = now()
    if not compaction_cache_cold(last, moment, fallback.after):
        return None
    idle = None if last.at is None else moment - last.at
    reason = format_fallback_reason(idle, fallback.after)
    try:
        target = fallback.resolve(cache_scope)
    except Exception as err:
        return FallbackSelection(reason, error=err)
    if target.provider is None:
        missing = FallbackUnavailable(f"compaction fallback {target.ref} has no provider")
        return FallbackSelection(reason, error=missing)
    if (target.alias, target.model) == (main.alias, main.model):
        return None
    identity = fallback_transport_identity(main_session, target.ref, new_key)
    return FallbackSelection(
        reason, msgspec.structs.replace(target, fallback=True, transport_session=identity)
    )


class CompactionFallbackTargets(Generic[T]):
    """Built fallback providers memoized by (alias, backend model, cache scope).

    The cache scope is the main run's prompt cache key. The session id is not part of the key:
    the first call's session id builds the provider and later calls reuse it. A failed build
    is not memoized. ``take_all`` empties the memo when the process's session ends, to close
    the targets' providers on the loop that used them.
    """

    def __init__(self) -> None:
        self._built: dict[tuple[str, str, str], T] = {}

    def get(
        self, alias: str, model: str, cache_scope: str, session_id: str, build: Callable[[str], T]
    ) -> T:
        """The memoized target, building it with ``build(session_id)`` on the first call."""
        key = (alias, model, cache_scope)
        if key not in self._built:
            self._built[key] = build(session_id)
        return self._built[key]

    def take_all(self) -> list[T]:
        """Every built target, forgotten: the next call builds its own."""
        built = list(self._built.values())
        self._built.clear()
        return built

    def __len__(self) -> int:
        return len(self._built)
