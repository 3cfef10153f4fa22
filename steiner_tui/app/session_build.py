"""Opening the driver of an app session: configured or not, recorded or not, new or resumed.

``build_app_session`` (in ``session``) hands the UI plumbing in; this module chooses the session
identity and builds the driver:

* with a ``Config``, the base ``SessionSpec`` comes from ``agent.from_config`` (model, enabled
  skills, extra skill roots, compaction fallback); without one, the offline model is used;
* with a ``CONFIG`` folder and ``record``, ``steiner_tui.sessions`` opens a new session or
  resumes one, and its ``SessionLog`` joins the sink fan-out ahead of the UI;
* otherwise the driver is built directly (tests, and sessions with no ``CONFIG``).

With ``DriverInputs.delegation`` set, the session gets a ``SubAgentManager``: the runner's tools
gain ``delegate``, compaction's pending line and the preamble's delegation section are wired
(``agent.headless.delegating_spec``), and the manager is attached to the runner (background
results) and the driver (its pending count feeds the replacement guard). The manager's
``SubAgentUpdated`` events go to ``sub_agent_sink`` (the UI), never to the session log: a
child's transcript stays with the child; the parent log holds only the result envelopes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from steiner_tui.agent.clock import Clock
from steiner_tui.agent.delegation import DelegationSettings, SubAgentManager
from steiner_tui.agent.from_config import SessionInputs, session_spec_from_config
from steiner_tui.agent.headless import delegating_spec
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session_factory import SessionSpec, build_interactive_session
from steiner_tui.agent.tool_calls import ToolRunner
from steiner_tui.app.live_files import WatchPlan
from steiner_tui.config import Config
from steiner_tui.engine.events import EventSink
from steiner_tui.engine.skills.discovery import SkillRoot
from steiner_tui.engine.tokens import RequestEstimator
from steiner_tui.sessions import SessionLog, SessionOpening, SessionStore
from steiner_tui.sessions.history_archive import FileHistoryArchive
from steiner_tui.sessions.resume import (
    cache_key_for,
    open_interactive_session,
    open_session_for_app,
)
from steiner_tui.tools.base import Tool
from steiner_tui.tools.delegate import tools_with_delegate
from steiner_tui.tools.environment import secret_names
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.permissions import PermissionPolicy
from steiner_tui.tools.results import RESULTS_FOLDER, DirectoryResultStore

__all__ = ["DriverInputs", "OpenedDriver", "open_driver", "watch_plan_for"]


@dataclass(frozen=True, slots=True)
class DriverInputs:
    """What the driver is built from besides the session identity.

    Attributes:
        tools: the built-in tools (``delegate`` is added when ``delegation`` is set).
        policy: the permission policy (it also answers the children's permission requests).
        delegation: how sub-agents run; None: no ``delegate`` tool.
        sub_agent_sink: receives ``SubAgentUpdated`` (default: ``sink``).
    """

    config_dir: Path | None
    estimator: RequestEstimator
    tools: tuple[Tool, ...]
    sink: EventSink
    policy: PermissionPolicy
    default_model: Callable[[Path], MainModel]
    main: MainModel | None = None
    config: Config | None = None
    env: Mapping[str, str] | None = None
    clock: Clock | None = None
    session_date: datetime | None = None
    enabled_skills: tuple[str, ...] = ()
    delegation: DelegationSettings | None = None
    sub_agent_sink: EventSink | None = None


@dataclass(frozen=True, slots=True)
class OpenedDriver:
    """The driver and what the app shows about its session."""

    driver: InteractiveDriver
    project_root: Path
    log: SessionLog | None = None
    history_path: Path | None = None
    notices: tuple[str, ...] = ()
    sub_agents: SubAgentManager | None = None


def _base_spec(inputs: DriverInputs, root: Path, session_id: str) -> SessionSpec:
    if inputs.config is None:
        main = inputs.main or inputs.default_model(root)
        spec = SessionSpec(project_root=root, main=main, config_dir=inputs.config_dir)
    else:
        ids = SessionInputs(session_id=session_id)
        spec = session_spec_from_config(
            inputs.config, root, inputs.config_dir, ids, env=inputs.env, main=inputs.main
        )
    return replace(
        spec,
        session_id=session_id,
        session_date=inputs.session_date,
        enabled_skills=inputs.enabled_skills or spec.enabled_skills,
    )


def _delegating(
    inputs: DriverInputs, spec: SessionSpec
) -> tuple[SessionSpec, ToolRunner, SubAgentManager | None]:
    """The spec, tool runner and sub-agent manager (None without delegation) for ``spec``."""
    secrets = secret_names(inputs.config)
    if inputs.delegation is None:
        return spec, ToolExecutor(inputs.tools, inputs.policy, secret_env=secrets), None
    manager = SubAgentManager(
        spec,
        estimator=inputs.estimator,
        sink=inputs.sub_agent_sink or inputs.sink,
        clock=inputs.clock,
        settings=inputs.delegation,
    )
    tools = ToolExecutor(
        tools_with_delegate(inputs.tools, manager), inputs.policy, secret_env=secrets
    )
    return delegating_spec(spec, manager), tools, manager


def _opening(root: Path, sessions: Path, resume: str | None, session_id: str) -> SessionOpening:
    if resume is None and session_id:
        directory = SessionStore(sessions).session_dir(session_id)
        return SessionOpening(session_id, directory, root, cache_key_for(session_id))
    return open_session_for_app(root, resume, sessions)


def open_driver(
    inputs: DriverInputs,
    project_root: Path,
    *,
    session_id: str = "",
    record: bool = True,
    resume: str | None = None,
) -> OpenedDriver:
    """Build the session's driver (recorded under ``CONFIG/sessions`` when possible).

    Raises:
        ConfigError: the configured model cannot be resolved.
        ValueError, SessionNotFoundError, SessionLoadError: ``resume`` names no usable session.
        OSError: the session log cannot be created or opened.
    """
    if inputs.config_dir is None or not record:
        session_id = session_id or uuid.uuid4().hex[:12]
        folder = inputs.config_dir / "sessions" / session_id if inputs.config_dir else None
        archive = FileHistoryArchive(folder) if folder is not None else None
        spec = _base_spec(inputs, project_root, session_id)
        spec = replace(spec, compaction=replace(spec.compaction, archive=archive))
        if folder is not None:
            spec = replace(spec, results=DirectoryResultStore(folder / RESULTS_FOLDER))
        spec, tools, manager = _delegating(inputs, spec)
        driver = build_interactive_session(
            spec,
            estimator=inputs.estimator,
            tools=tools,
            sink=inputs.sink,
            clock=inputs.clock,
            permission=inputs.policy,
        )
        if manager is not None:
            manager.attach(driver.runner, driver)
        history = archive.history_path if archive is not None else None
        return OpenedDriver(driver, project_root, history_path=history, sub_agents=manager)
    opening = _opening(project_root, inputs.config_dir / "sessions", resume, session_id)
    spec, tools, manager = _delegating(
        inputs, _base_spec(inputs, opening.project_root, opening.session_id)
    )
    opened = open_interactive_session(
        spec,
        opening,
        estimator=inputs.estimator,
        tools=tools,
        sink=inputs.sink,
        clock=inputs.clock,
        permission=inputs.policy,
    )
    if manager is not None:
        manager.attach(opened.driver.runner, opened.driver)
    notices: tuple[str, ...] = ()
    if opening.resumed:
        count = len(opened.driver.runner.conversation)
        notices = (f"resumed session {opening.session_id} ({count} messages)",)
        notices += tuple(f"session log: {problem}" for problem in opening.problems)
    history = opening.archive.history_path
    return OpenedDriver(
        opened.driver, opening.project_root, opened.log, history, notices, sub_agents=manager
    )


def watch_plan_for(
    driver: InteractiveDriver, root: Path, roots: tuple[SkillRoot, ...]
) -> WatchPlan:
    """The files and folders whose changes reach the driver's static cache."""
    options = driver.runner.context.options
    agents = [root / "AGENTS.md"]
    if options.global_agents_path is not None:
        agents.append(options.global_agents_path)
    context = [root / ".steiner" / "config.toml"]
    context.extend(root / name for name in options.project_context.files)
    return WatchPlan(
        agents_files=tuple(path.resolve() for path in agents),
        context_files=tuple(path.resolve() for path in context),
        skill_roots=tuple(r.path.resolve() for r in roots if not r.bundled),
    )
