"""The one session factory: a ``SessionRequest`` in, one ``Session`` out.

Every session is built here: the app's (new or resumed), ``exec`` and ``oneshot`` runs,
``steiner-tui context``'s dry run, tests and benchmarks. The request holds the loaded
configuration and the few choices that are not configuration (the project, resuming, how the
caller observes and answers the session); ``build_session`` resolves the model, mints the
session id (``sessions.ids.new_session_id``, the one place ids are made), opens the session log,
discovers skills and wires the runner, its tools, delegation and the interactive driver. So the
app, ``exec`` and ``context`` assemble the same request for the same project and configuration.

``SessionRequest`` and ``Session``, what a session is built from and the object a caller keeps,
live in ``agent.session``; this module only builds.

Building, in order: the session to resume (``SessionRequest.resume``: an id, ``"latest"`` or a
``LoadedSession``), the project (a resumed session's own), the id, the main model (the request's,
or the configuration's resolved; a resumed session keeps its prompt cache key), the compaction
settings (the configured fallback, the session's ``history.md``), the log (``CONFIG/sessions/<id>``
when recorded), the event fan-out (log, snapshot store, tool statuses, the caller's sink), the
tools (the permission policy from ``[permissions]`` around the caller's callback, subprocess
environments without provider secrets or ``[tools] secret_env``), the sub-agent manager and the
``delegate`` tool (unless delegation is off), the assembly options and context manager, the
runner, skill discovery and the enabled set, the driver.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar, cast

import msgspec

from steiner_tui.agent.clock import Clock, SystemClock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.context_manager import ContextManager
from steiner_tui.agent.delegation import SubAgentManager
from steiner_tui.agent.from_config import (
    compaction_fallback,
    extra_skill_roots,
    main_model_from_config,
)
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.agent.tool_status import ToolStatusBook
from steiner_tui.config import Config, ConfigError
from steiner_tui.engine.events import (
    EngineEvent,
    EventSink,
    FanoutSink,
    ListSink,
    PermissionAnswered,
    WarningEvent,
)
from steiner_tui.engine.prices import price_for
from steiner_tui.engine.prompt.assembler import AssemblyOptions
from steiner_tui.engine.prompt.files import LocalFileReader
from steiner_tui.engine.prompt.preamble import PreambleInputs
from steiner_tui.engine.prompt.project_context import load_project_context_spec
from steiner_tui.engine.skills.delta import InteractiveSkills
from steiner_tui.engine.skills.discovery import discover_skills, skill_roots
from steiner_tui.engine.skills.replay import replay_skill_states
from steiner_tui.engine.snapshots import SnapshotStore
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.resources import bundled_skills_dir
from steiner_tui.sessions.earlier_requests import LoggedRequests
from steiner_tui.sessions.history_archive import FileHistoryArchive
from steiner_tui.sessions.ids import new_session_id
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.resume import (
    cache_key_for,
    find_session,
    next_request_number,
    resumed_cache_key,
    resumed_calibration,
    resumed_compaction_mode,
    resumed_date,
    resumed_mode,
    resumed_skills,
)
from steiner_tui.sessions.writer import SessionLog
from steiner_tui.tools.base import Mode, PermissionDecision, PermissionRequest
from steiner_tui.tools.delegate import tools_with_delegate
from steiner_tui.tools.environment import secret_names
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.permissions import PermissionPolicy
from steiner_tui.tools.registry import default_tools
from steiner_tui.tools.results import RESULTS_FOLDER, DirectoryResultStore
from steiner_tui.units import counted

__all__ = [
    "ERROR_ABOVE",
    "LOG_FAILED",
    "LOG_RESTORED",
    "NO_ANSWER",
    "STOPPED_MID_REPLY",
    "build_session",
]

LOG_FAILED = "session_log"
"""The code of the warning that says the session log cannot be written any more."""
LOG_RESTORED = "session_log_restored"
"""The code of the warning that says the session's log was written anew (its folder was
removed while the session was open)."""

STOPPED_MID_REPLY = "the app stopped while a reply streamed: what came is kept, marked interrupted"
"""The notice of a resumed session whose log ended in the middle of a reply."""
NO_ANSWER = "the last turn ended without the model's answer: send a message to go on"
"""The notice of a resumed session whose conversation ends in a question or a tool result (the
app stopped before the answer: e.g. killed while compacting)."""
ERROR_ABOVE = "the last turn ended in the error above: what it says you can do still holds"
"""The notice of a resumed session whose last turn ended in an error, which the conversation
shows with its remedies (sending a message would meet it again: a window too small for the
request, a key missing)."""
_UNASKED = (
    "compaction mode ask (set in the app) has nobody to answer here: this run uses the "
    "configured mode, {configured}; --compaction chooses another"
)
"""The notice of a headless run resuming a session set to ``ask`` live: nobody can answer."""


class _Warnings(msgspec.Struct):
    """Collects the warnings emitted while a session is built (the user sees them at start)."""

    texts: list[str] = msgspec.field(default_factory=list)
    open: bool = True
    accepts: ClassVar[tuple[type[EngineEvent], ...]] = (WarningEvent,)

    def emit(self, event: EngineEvent) -> None:
        if self.open and isinstance(event, WarningEvent):
            self.texts.append(event.message)


def _loaded(request: SessionRequest) -> LoadedSession | None:
    resume = request.resume
    if resume is None or isinstance(resume, LoadedSession):
        return resume
    sessions = request.sessions_dir
    if sessions is None:
        raise ValueError("sessions are not recorded here (no config folder): nothing to resume")
    return find_session(request.project_root, resume, sessions)


def _main_model(
    request: SessionRequest, root: Path, session_id: str, env: Mapping[str, str]
) -> MainModel:
    model = request.model
    if isinstance(model, MainModel):
        if model.prompt_cache_key:
            return model
        return msgspec.structs.replace(model, prompt_cache_key=cache_key_for(session_id))
    return main_model_from_config(request.config, root, session_id=session_id, ref=model, env=env)


def _open_log(
    request: SessionRequest, loaded: LoadedSession | None, folder: Path | None, clock: Clock
) -> SessionLog | None:
    if not request.record or folder is None:
        return None
    if loaded is not None:
        return SessionLog.resume(loaded, clock=clock.now)
    return SessionLog.create(folder, clock=clock.now)


class _Identity(msgspec.Struct, frozen=True):
    """Who the session is: resumed or not, its project, id, model and folder."""

    loaded: LoadedSession | None
    root: Path
    session_id: str
    main: MainModel
    folder: Path | None
    model_note: str = ""
    """Why a resumed session does not answer with the model it last used (empty: it does)."""

    @classmethod
    def of(cls, request: SessionRequest, env: Mapping[str, str]) -> _Identity:
        loaded = _loaded(request)
        root = request.project_root.resolve()
        if loaded is None:
            session_id = request.session_id or new_session_id()
            main = _main_model(request, root, session_id, env)
            sessions = request.sessions_dir
            folder = sessions / session_id if sessions is not None else None
            return cls(None, root, session_id, main, folder)
        if loaded.project_root:
            root = Path(loaded.project_root)
        main, note = _resumed_model(request, root, loaded, env)
        main = msgspec.structs.replace(main, prompt_cache_key=resumed_cache_key(loaded))
        return cls(loaded, root, loaded.session_id, main, loaded.directory, note)


def _resumed_model(
    request: SessionRequest, root: Path, loaded: LoadedSession, env: Mapping[str, str]
) -> tuple[MainModel, str]:
    """The model a resumed session answers with, and a note when it is not the one it used.

    A session goes on with the model its last request went to (a ``/model`` switch included),
    unless the request names one (``--model``). When that model cannot be built now (its
    provider left the configuration, its API key is missing), the configured default answers
    and the note says why.
    """
    ref = _last_used(loaded)
    if request.model is not None or not ref:
        return _main_model(request, root, loaded.session_id, env), ""
    try:
        model = main_model_from_config(
            request.config, root, session_id=loaded.session_id, ref=ref, env=env
        )
    except ConfigError as error:
        main = _main_model(request, root, loaded.session_id, env)
        return main, (
            f"the session last answered with {ref}, which cannot be used now ({error}): "
            f"it goes on with {main.alias}/{main.model}"
        )
    return model, ""


def _last_used(loaded: LoadedSession) -> str:
    """The ref of the model the session last used: a ``/model`` switch no turn went to yet,
    else its last request's, answered or not (cancelled, the server down, the app stopped
    mid-reply: the user's choice all the same), else its last answered request's (a log that
    names no request's provider), else the one it was opened with; empty when the log names
    none."""
    if loaded.switched_model:
        return loaded.switched_model
    asked = [r for r in loaded.requests.heads if not r.compaction and r.provider]
    if asked:
        return f"{asked[-1].provider}/{asked[-1].model}"
    last = loaded.last_main_request
    if not last.is_zero and last.provider_alias:
        return f"{last.provider_alias}/{last.backend_model}"
    header = loaded.header
    return f"{header.alias}/{header.model}" if header is not None and header.alias else ""


def build_session(request: SessionRequest) -> Session:
    """Build the session ``request`` asks for.

    Raises:
        ConfigError: the model cannot be resolved (unknown alias, missing API key, ...).
        ValueError, SessionNotFoundError, SessionLoadError: ``resume`` names no usable session
            (``SessionBusyError``: it is open in another app).
        OSError: the session log cannot be created or opened.
    """
    env = os.environ if request.env is None else request.env
    clock = request.clock or SystemClock()
    identity = _Identity.of(request, env)
    log = _open_log(request, identity.loaded, identity.folder, clock)
    try:
        return _build(request, identity, env, clock, log)
    except BaseException:
        if log is not None:
            log.close()
        raise


def _delegation(
    request: SessionRequest, caller: EventSink | None, clock: Clock, secrets: tuple[str, ...]
) -> SubAgentManager | None:
    if request.delegation is None:
        return None
    # Children's progress goes to the caller (the sub-agent panel, exec's stderr), never to
    # the log: a child's transcript stays with the child.
    return SubAgentManager(
        sink=caller or FanoutSink(()),
        clock=clock,
        settings=request.delegation,
        secret_env=secrets,
    )


def _build(
    request: SessionRequest,
    identity: _Identity,
    env: Mapping[str, str],
    clock: Clock,
    log: SessionLog | None,
) -> Session:
    config, loaded, root = request.config, identity.loaded, identity.root
    estimator = request.estimator or RequestEstimator(default_encoding_loader(None))
    if loaded is not None:
        resumed_calibration(loaded, estimator.calibration)
    book = ToolStatusBook(
        loaded.tool_statuses if loaded is not None else None,
        loaded.permission_answers if loaded is not None else None,
    )
    held = book.always()  # the resumed session's "always" answers: the policy's and the notice's
    compaction = request.compaction or CompactionSettings(
        fallback=compaction_fallback(config, root, identity.main, env),
        archive=None
        if identity.folder is None
        else FileHistoryArchive(identity.folder, tool_status=book),
    )
    store, warnings, caller = SnapshotStore(), _Warnings(), request.sink
    sink = FanoutSink(tuple(s for s in (log, store, book, warnings, caller) if s is not None))

    secrets = secret_names(config)
    tools = default_tools() if request.tools is None else request.tools
    preamble = PreambleInputs()
    manager = _delegation(request, caller, clock, secrets)
    if manager is not None:
        tools = tools_with_delegate(tools, manager)
        compaction = msgspec.structs.replace(compaction, pending_sub_agents=manager.pending)
        preamble = PreambleInputs(delegation_enabled=True, async_sub_agents=True)

    reader = LocalFileReader()
    roots = skill_roots(
        bundled_skills_dir(), request.config_dir, root, extra_skill_roots(config, root)
    )
    options = AssemblyOptions(
        project_root=root,
        global_agents_path=request.config_dir / "AGENTS.md" if request.config_dir else None,
        project_context=load_project_context_spec(root, reader, sink),
        skill_roots=roots,
        skill_names=request.static_skills,
        phase_prompt=request.phase_prompt,
        preamble=preamble,
        scope=identity.session_id,
    )
    # A resumed session keeps the date it started with (its date line, so its cached prefix).
    date = request.session_date if loaded is None else resumed_date(loaded)
    context = ContextManager(
        options, estimator, sink, session_date=date or clock.now(), reader=reader
    )
    resumed_as = cast(Mode, resumed_mode(loaded)) if loaded is not None else "build"
    configured = config.compaction_mode_for(identity.main.alias, identity.main.model)
    kept, unasked = request.compaction_mode or resumed_compaction_mode(loaded), ""
    asked = request.compaction_mode or request.compaction_policy is not None
    if kept == "ask" != configured and not asked:
        # Asking was the person's choice in the app; nobody answers a headless run.
        kept, unasked = None, _UNASKED.format(configured=configured)
    policy = PermissionPolicy(
        request.permission,
        dict(config.permissions),
        on_answer=functools.partial(_answered, sink),
        remembered=held,
    )
    runner = Runner(
        model=identity.main,
        context=context,
        tools=ToolExecutor(tools, policy, secret_env=secrets),
        sink=sink,
        project_root=root,
        clock=clock,
        compaction=compaction,
        lineage=loaded.lineage if loaded is not None else None,
        seed_last_main_request=loaded.last_main_request if loaded is not None else None,
        permission=policy,
        mode=request.mode or resumed_as,
        session_id=identity.session_id,
        results=None
        if identity.folder is None
        else DirectoryResultStore(identity.folder / RESULTS_FOLDER),
        compaction_mode=kept or configured,
        policy=request.compaction_policy,
    )
    earlier = None
    if loaded is not None:
        earlier = LoggedRequests(
            loaded.requests,
            loaded.lineage,
            lambda model: (
                runner.model.price
                if model == runner.model.model
                else price_for(model, overrides=config.price_overrides)
            ),
        )
        runner.snapshots.next_index = next_request_number(loaded)
        # The session's total goes on from what its earlier requests cost.
        runner.cache.session_cost = earlier.cost()
        runner.cache.resumed = True
    # A resume's fold is the skills' first: the next request goes on from it, not folding the
    # conversation again (when its messages equal the ones folded: ``InteractiveSkills``).
    fold = resumed_skills(loaded) if loaded is not None else None
    enabled = [b.name for b in fold.effective] if fold is not None else config.skills_enabled
    static = set(request.static_skills)  # delivered as blocks: never as envelopes too
    scan = ListSink()  # what the discovery says, so a rescan says only what is new
    skills = InteractiveSkills(
        discover_skills(roots, FanoutSink((sink, scan))),
        (name for name in enabled if name not in static),
        None if loaded is None or fold is None else (loaded.skill_messages, fold),
    )
    driver = InteractiveDriver(runner, skills)
    if manager is not None:
        manager.attach(runner, driver)
    if log is not None:
        log.bind(runner)
        # A log that cannot be written any more (a full disk) is said at once: at start as a
        # notice, later as a warning that the workbench and exec show.
        log.on_error = functools.partial(_log_failed, sink)
        log.on_restored = functools.partial(_log_restored, sink)
    if loaded is not None and caller is not None:
        replay_skill_states(loaded.skill_messages, caller)  # the UI's, never the log's
    warnings.open = False
    session = Session(
        request=request,
        driver=driver,
        snapshots=store,
        log=log,
        sub_agents=manager,
        notices=_notices(
            loaded,
            runner,
            config,
            [
                identity.model_note,
                unasked,
                _held_answers(held),
                *warnings.texts,
                log.failure if log is not None else "",
            ],
        ),
        resumed=loaded is not None,
        tool_status=book,
        skill_scan=tuple(scan.events),
        earlier=earlier,
    )
    if loaded is not None:
        session.logged_errors = loaded.errors
    return session


def _held_answers(always: Mapping[str, PermissionDecision]) -> str:
    """The notice of a resumed session whose ``always`` permission answers hold again ("" none):
    which tools run, and which are refused, without asking until the session ends."""
    parts = []
    for allowed, word in ((True, "allowed"), (False, "rejected")):
        if tools := [tool for tool, decision in always.items() if decision.allowed is allowed]:
            parts.append(f"{', '.join(tools)} {word}")
    if not parts:
        return ""
    return (
        f"your answers for the rest of this session still hold: {'; '.join(parts)} "
        "without asking (a new session asks again)"
    )


def _answered(sink: EventSink, request: PermissionRequest, decision: PermissionDecision) -> None:
    sink.emit(
        PermissionAnswered(
            request.call_id, request.tool, request.summary, decision.value, request.agent
        )
    )


def _log_failed(sink: EventSink, text: str) -> None:
    sink.emit(WarningEvent(LOG_FAILED, text))


def _log_restored(sink: EventSink, text: str) -> None:
    sink.emit(WarningEvent(LOG_RESTORED, text))


def _notices(
    loaded: LoadedSession | None, runner: Runner, config: Config, warnings: list[str]
) -> tuple[str, ...]:
    notices: list[str] = []
    if loaded is not None:
        count = len(runner.conversation)
        notices.append(f"resumed session {loaded.session_id} ({counted(count, 'message')})")
        if loaded.restored_incomplete:
            notices.append(STOPPED_MID_REPLY)
        elif count and runner.conversation[-1].role in ("user", "tool"):
            erred = any(not e.warning and e.position >= count for e in loaded.errors)
            notices.append(ERROR_ABOVE if erred else NO_ANSWER)
        if repaired := loaded.repaired_tool_results:
            calls = "1 tool call" if repaired == 1 else f"{repaired} tool calls"
            notices.append(f"{calls} had no result when the app stopped: marked interrupted")
        notices.extend(f"session log: {problem}" for problem in loaded.problems)
    notices.extend(f"config: {warning}" for warning in config.warnings)
    notices.extend(warning for warning in warnings if warning)
    return tuple(notices)
