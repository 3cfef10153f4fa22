"""A session as its callers hold it: what it was built from, and what it is.

``SessionRequest`` is what a session is built from (the loaded configuration and the few choices
that are not configuration); ``Session`` is the one object a caller keeps once
``session_factory.build_session`` has built it. It follows the session through ``/clear`` (a new
id, log, title, lock, cache key and history archive), rediscovers the skills when their folders
change, switches models, and closes what it opened.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Protocol, runtime_checkable

import msgspec

from steiner_tui.agent.clock import Clock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.delegation import DelegationSettings, SubAgentManager
from steiner_tui.agent.from_config import (
    main_model_from_config,
    take_fallback_providers,
)
from steiner_tui.agent.interactive import DriverRefusal, InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner
from steiner_tui.agent.tool_status import ToolStatusBook
from steiner_tui.config import Config, ConfigError
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.policy import AutoCompaction, CompactionPolicy
from steiner_tui.engine.events import (
    EngineEvent,
    EventSink,
    ListSink,
    RequestSnapshot,
)
from steiner_tui.engine.prices import ModelPrice, price_for
from steiner_tui.engine.provider import Provider
from steiner_tui.engine.skills.discovery import SkillRoot, discover_skills
from steiner_tui.engine.snapshots import SnapshotStore
from steiner_tui.engine.tokens import RequestEstimator
from steiner_tui.providers.factory import (
    api_key_for,
    is_local_server,
    model_choices,
    split_model_ref,
)
from steiner_tui.providers.server_limits import served_models
from steiner_tui.sessions.earlier_requests import LoggedRequests, SessionRequests
from steiner_tui.sessions.history_archive import FileHistoryArchive
from steiner_tui.sessions.ids import new_session_id
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.log_parse import LoggedError
from steiner_tui.sessions.resume import (
    cache_key_for,
)
from steiner_tui.sessions.writer import SessionLog
from steiner_tui.tools.base import Mode, PermissionCallback, Tool, reject_all
from steiner_tui.tools.permissions import PermissionPolicy
from steiner_tui.tools.results import RESULTS_FOLDER, DirectoryResultStore

__all__ = ["DEFAULT_DELEGATION", "Session", "SessionRequest"]

DEFAULT_DELEGATION = DelegationSettings()
"""How sub-agents run unless a request says otherwise (three at once; documentor scope README,
docs)."""


class SessionRequest(msgspec.Struct, frozen=True):
    """What to build a session from: the loaded configuration and the choices beside it.

    Attributes:
        project_root: the project folder (a resumed session works in its recorded one).
        config: the loaded configuration (model, skills, permissions, fallback, tools).
        config_dir: ``CONFIG``: the global AGENTS.md, user skills, ``sessions/``; None reads
            none of them and records nothing.
        env: the environment for provider keys (None: the process environment).
        model: a model reference instead of ``config``'s default, or a built model (tests,
            benchmarks; its prompt cache key is kept for a new session).
        resume: ``"latest"``, a session id or a ``LoadedSession`` to continue; None: a new one.
        record: keep the session log under ``CONFIG/sessions/<id>/`` (needs ``config_dir``).
        session_id: a fixed id for a new session (tests, screenshots); minted when empty.
        session_date: a fixed session date (tests); captured from the clock when None.
        mode: the starting execution mode (None: build, or the resumed session's).
        static_skills: skills assembled as static blocks (``exec --skill``); the configured
            ``[skills] enabled`` go out as envelopes with the first message, as in the app.
        phase_prompt: a ``oneshot`` phase's prompt.
        delegation: how sub-agents run; None: no ``delegate`` tool.
        tools: the built-in tools (None: all of them).
        compaction: compaction settings instead of the configured ones (tests).
        sink: receives every engine event (the app's adapter, exec's progress, a test's list).
        permission: answers permission requests (the app's inline prompts, exec's ``--yes``).
        clock: the injected clock.
        estimator: the token estimator (None: one decompressing its tokenizers in memory).
        compaction_mode: ``auto``, ``ask`` or ``off`` (``--compaction``); None: the model's
            ``compaction_mode``, else ``[compaction] mode``.
        compaction_policy: answers ``ask`` and which pins to drop (the app's prompt in the
            conversation); None: nobody can answer, every question is refused (exec).
    """

    project_root: Path
    config: Config = msgspec.field(default_factory=Config)
    config_dir: Path | None = None
    env: Mapping[str, str] | None = None
    model: str | MainModel | None = None
    resume: str | LoadedSession | None = None
    record: bool = True
    session_id: str = ""
    session_date: datetime | None = None
    mode: Mode | None = None
    static_skills: tuple[str, ...] = ()
    phase_prompt: str = ""
    delegation: DelegationSettings | None = DEFAULT_DELEGATION
    tools: tuple[Tool, ...] | None = None
    compaction: CompactionSettings | None = None
    sink: EventSink | None = None
    permission: PermissionCallback = reject_all
    clock: Clock | None = None
    estimator: RequestEstimator | None = None
    compaction_mode: AutoCompaction | None = None
    compaction_policy: CompactionPolicy | None = None

    @property
    def sessions_dir(self) -> Path | None:
        """``CONFIG/sessions`` (None without a config folder)."""
        return self.config_dir / "sessions" if self.config_dir is not None else None


@runtime_checkable
class _Closable(Protocol):
    """A provider holding connections (the SDK providers' HTTP client)."""

    async def aclose(self) -> None: ...


class Session:
    """One running session: the driver and everything built around it.

    Built by ``build_session`` only. Attributes that change with ``/clear`` (the id, the
    history archive, the log's folder) are read through the runner and the log, so whoever
    holds the session follows it.

    Attributes:
        request: what it was built from.
        driver: the interactive driver (runner, skills, mode, busy guard).
        snapshots: every request snapshot of the session (a sink of the runner).
        log: the session log (None: not recorded).
        sub_agents: the sub-agent manager (None: delegation is off).
        notices: what to tell the user at start: a resume, log problems, configuration and
            start-up warnings (a project skill replacing a bundled one...).
        resumed: whether it continues a saved session.
        tool_status: how each tool call ended (read by the history archive).
        earlier: a resumed session's earlier requests, read from its log when asked.
    """

    def __init__(
        self,
        *,
        request: SessionRequest,
        driver: InteractiveDriver,
        snapshots: SnapshotStore,
        log: SessionLog | None,
        sub_agents: SubAgentManager | None,
        notices: tuple[str, ...],
        resumed: bool,
        tool_status: ToolStatusBook,
        skill_scan: tuple[EngineEvent, ...] = (),
        earlier: LoggedRequests | None = None,
    ) -> None:
        self.request = request
        self.driver = driver
        self.snapshots = snapshots
        self.log = log
        self.sub_agents = sub_agents
        self.notices = notices
        self.resumed = resumed
        self.logged_errors: tuple[LoggedError, ...] = ()
        """The errors a resumed session's log holds for its active generation, each where it
        happened (the conversation shows them again)."""
        self.tool_status = tool_status
        """How each tool call ended (the history archive marks failures with it)."""
        self.first_request = driver.runner.snapshots.next_index
        """The number of the first request of this conversation (moves on ``/clear``)."""
        self.requests = SessionRequests(snapshots, earlier)
        """Every request of the session: a resumed session's earlier ones read from its log
        (``earlier``), then the store's (the request inspector and the chart list them)."""
        self.skill_scan = skill_scan
        """What the latest discovery of the skills said (warnings, skills cut to the cap):
        the build's, then each ``rescan_skills``'s."""
        self.served: tuple[str, ...] = ()
        """The models the local servers serve, as references (``learn_served_models``)."""
        self._providers: list[Provider] = [driver.runner.model.provider]
        """Every model's provider this session used (``/model`` replaces them), closed by
        ``stop``."""

    # -- what the session is ----------------------------------------------------------------

    @property
    def runner(self) -> Runner:
        return self.driver.runner

    @property
    def session_id(self) -> str:
        """The current id (``/clear`` in a recorded session starts a new one)."""
        return self.runner.session_id

    @property
    def project_root(self) -> Path:
        return self.runner.project_root

    @property
    def config_dir(self) -> Path | None:
        return self.request.config_dir

    @property
    def history_path(self) -> Path | None:
        """The current session's ``history.md`` (may not exist yet), or None."""
        archive = self.runner.compactor.settings.archive
        return archive.history_path if isinstance(archive, FileHistoryArchive) else None

    @property
    def skill_roots(self) -> tuple[SkillRoot, ...]:
        """The skill roots in search order (rediscovered when they change)."""
        return self.runner.context.options.skill_roots

    def rescan_skills(self) -> tuple[EngineEvent, ...]:
        """Discover the skills again (a skill root changed): the next message has them.

        What the discovery says (a skill with broken front matter, a duplicate name, a skill cut
        to the cap) reaches the runner's sink only when the scan before it did not say it, so
        each is said once, not on every rescan; one that goes away and comes back, or changes,
        is said again.

        Returns:
            The events said now.
        """
        scan = ListSink()
        self.driver.skills.replace_skills(discover_skills(self.skill_roots, scan))
        fresh = tuple(event for event in scan.events if event not in self.skill_scan)
        self.skill_scan = tuple(scan.events)
        for event in fresh:
            self.runner.sink.emit(event)
        return fresh

    @property
    def model_refs(self) -> tuple[str, ...]:
        """The model references ``/model`` can switch to: the configured ones
        (``factory.model_choices``), then those the local servers serve (``served``)."""
        return tuple(dict.fromkeys((*model_choices(self.request.config), *self.served)))

    def learn_served_models(self) -> None:
        """Ask the local servers of the configured references which models they serve
        (``server_limits.served_models``), into ``served`` (blocking: call it in a thread)."""
        config = self.request.config
        env = os.environ if self.request.env is None else self.request.env
        refs: list[str] = []
        for alias in dict.fromkeys(ref.partition("/")[0] for ref in model_choices(config)):
            provider = config.providers[alias]
            if not is_local_server(provider) or provider.base_url is None:
                continue
            try:
                key = api_key_for(provider, env)
            except ConfigError:  # its key is not set: /model says so when it is chosen
                continue
            refs += (f"{alias}/{model}" for model in served_models(provider.base_url, api_key=key))
        self.served = tuple(refs)

    def price_of(self, ref: str) -> ModelPrice | None:
        """The price of model ``ref`` as ``/model ref`` would resolve it (None: unknown).

        Raises:
            ConfigError: ``ref`` names an unknown provider or no model.
        """
        config = self.request.config
        alias, model = split_model_ref(config, ref)
        local = is_local_server(config.providers[alias])
        return price_for(model, overrides=config.price_overrides, local=local)

    def switch_model(self, ref: str) -> MainModel:
        """Answer with model ``ref`` from the next request on (``/model NAME``).

        ``ref`` is resolved from the session's configuration as the first model was (its
        provider, API key and limits); the session keeps its id, conversation, prompt cache
        key and request numbering (``Runner.switch_model``).

        Raises:
            ConfigError: ``ref`` names an unknown provider or no model, or its key is missing.
            DriverRefusal: a run is generating.
        """
        if self.driver.busy:
            raise DriverRefusal("cannot switch models while a reply is generating")
        env = os.environ if self.request.env is None else self.request.env
        runner = self.runner
        model = main_model_from_config(
            self.request.config, self.project_root, session_id=self.session_id, ref=ref, env=env
        )
        runner.switch_model(
            msgspec.structs.replace(model, prompt_cache_key=runner.model.prompt_cache_key)
        )
        self._providers.append(model.provider)
        return runner.model

    # -- what the next request is -----------------------------------------------------------

    def preview(self) -> RequestSnapshot:
        """The dry run of the next request, as the next message would send it (see
        ``InteractiveDriver.preview``)."""
        return self.driver.preview()

    # -- replacing the conversation ---------------------------------------------------------

    def clear(self) -> None:
        """Start a new conversation (``/clear``); undelivered sub-agent results are dropped.

        A recorded session becomes a new session: a new id (its own log, title, lock, prompt
        cache key, request numbering and history archive); the old one stays as it was saved.
        The ``always`` permission answers were the old conversation's: the new one asks again.

        Raises:
            DriverRefusal: while a run is generating or a sub-agent is pending.
        """
        driver = self.driver
        driver.refuse_replacement()
        log = self.log
        if log is not None:
            new_id = new_session_id()
            folder = log.session_dir.parent / new_id
            log.start_new_session(folder)
            self.snapshots.clear()  # numbered from 1 again: the old requests stay in their log
            self.runner.start_new_session(
                new_id,
                prompt_cache_key=cache_key_for(new_id),
                archive=FileHistoryArchive(folder, tool_status=self.tool_status),
                results=DirectoryResultStore(folder / RESULTS_FOLDER),
            )
        driver.replace_lineage(ConversationLineage())
        if isinstance(self.runner.permission, PermissionPolicy):
            self.runner.permission.forget()
        if self.sub_agents is not None:
            self.sub_agents.drain_results()  # results for the old conversation
        if log is not None:
            log.sync()
        self.first_request = self.runner.snapshots.next_index
        self.requests = SessionRequests(self.snapshots)  # the saved session's stay with it
        self.logged_errors = ()

    # -- ending -----------------------------------------------------------------------------

    async def stop(self) -> None:
        """Cancel the children still running and wait until they have ended; then close the
        providers' HTTP clients, on the loop that opened their connections.

        A connection left open in a client's pool (a server that keeps it alive after a
        stream, as llama.cpp does for a moment) is closed otherwise only by the garbage
        collector, after the loop has ended, with a ResourceWarning. The compaction fallback's
        providers are kept in a process-wide memo; they close here too.
        """
        if self.sub_agents is not None:
            await self.sub_agents.aclose()
        for provider in [*self._providers, *take_fallback_providers()]:
            if isinstance(provider, _Closable):
                await provider.aclose()

    def close(self) -> None:
        """Cancel running children, flush and close the session log (idempotent)."""
        if self.sub_agents is not None:
            self.sub_agents.cancel_all()
        if self.log is not None:
            self.log.close()
