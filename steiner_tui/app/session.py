"""The app's session bundle: the driver, its snapshot store and the UI plumbing, built once.

``build_app_session`` is the one place that turns a project folder into a running session for the
app (the CLI and the tests both call it, then ``app.make_app``); ``session_build`` opens the
driver (configured or not, recorded or not, new or resumed). Model selection without
configuration is one function, ``default_main_model`` (the offline model).

Delegation is on by default: the session's ``SubAgentManager`` runs the children, its events
reach the main screen through the same adapter as the runner's, and ``stop_sub_agents`` /
``close`` cancel children still running when the app exits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from steiner_tui.agent.clock import Clock
from steiner_tui.agent.delegation import DelegationSettings, SubAgentManager
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.app.adapter import UiEventSink
from steiner_tui.app.live_files import WatchPlan
from steiner_tui.app.permission import PermissionBroker
from steiner_tui.app.session_build import DriverInputs, open_driver, watch_plan_for
from steiner_tui.config import Config
from steiner_tui.engine.events import FanoutSink
from steiner_tui.engine.frozen import FrozenDict
from steiner_tui.engine.skills.discovery import SkillRoot
from steiner_tui.engine.snapshots import SnapshotStore
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.providers.offline import OFFLINE_ALIAS, OFFLINE_MODEL, OfflineProvider
from steiner_tui.sessions import SessionLog
from steiner_tui.tools.permissions import PermissionPolicy
from steiner_tui.tools.registry import default_tools

__all__ = [
    "DEFAULT_DELEGATION",
    "DEFAULT_THEME",
    "OFFLINE_LABEL",
    "AppSession",
    "build_app_session",
    "default_main_model",
    "keymap_for",
    "model_label",
    "theme_for",
]

DEFAULT_THEME = "textual-dark"
OFFLINE_LABEL = "offline · not a language model"

DEFAULT_DELEGATION = DelegationSettings()
"""Sub-agent settings of app sessions (three children at once; documentor scope README, docs)."""


@dataclass(frozen=True, slots=True)
class AppSession:
    """Everything one running workbench needs.

    Attributes:
        driver: the interactive driver (runner, skills, mode, busy guard).
        snapshots: every request snapshot of the session (also a sink of the runner).
        events: the adapter posting engine events to the main screen.
        permissions: the permission callback answered by inline prompts.
        project_root: the project the session works on.
        model_label: how the status line names the model.
        skill_roots: the skill roots, in search order (rediscovered when they change).
        watch_plan: the files and folders the live-file watcher follows.
        config_dir: ``CONFIG`` (None: no global AGENTS.md, user skills or session files).
        history_path: the session's ``history.md`` (may not exist yet), or None.
        keymap: binding id -> keys, applied with ``App.set_keymap``.
        theme: the Textual theme name.
        watch: run the live-file watcher (tests turn it off).
        cursor_blink: blink the prompt cursor (tests turn it off).
        models: configured model references ``/model`` lists (empty: only the current one).
        log: the session log (None: the session is not recorded).
        notices: things to tell the user when the app starts (resume, config warnings).
        sub_agents: the session's sub-agent manager (None: delegation is off).
    """

    driver: InteractiveDriver
    snapshots: SnapshotStore
    events: UiEventSink
    permissions: PermissionBroker
    project_root: Path
    model_label: str
    skill_roots: tuple[SkillRoot, ...] = ()
    watch_plan: WatchPlan = field(default_factory=WatchPlan)
    config_dir: Path | None = None
    history_path: Path | None = None
    keymap: Mapping[str, str] = field(default_factory=FrozenDict)
    theme: str = DEFAULT_THEME
    watch: bool = True
    cursor_blink: bool = True
    models: tuple[str, ...] = ()
    log: SessionLog | None = None
    notices: tuple[str, ...] = ()
    sub_agents: SubAgentManager | None = None

    async def stop_sub_agents(self) -> None:
        """Cancel the children still running and wait until they have ended."""
        if self.sub_agents is not None:
            await self.sub_agents.aclose()

    def close(self) -> None:
        """Cancel running children, flush and close the session log (when the app exits)."""
        if self.sub_agents is not None:
            self.sub_agents.cancel_all()
        if self.log is not None:
            self.log.close()


def keymap_for(config: Config | None, keymap: Mapping[str, str] | None = None) -> FrozenDict:
    """The keymap of a session: ``config``'s, then ``keymap`` over it."""
    return FrozenDict({**(config.keymap if config else {}), **(keymap or {})})


def theme_for(config: Config | None, theme: str = DEFAULT_THEME) -> str:
    """The theme of a session: ``config``'s when it names one, else ``theme``."""
    return config.theme if config is not None and config.theme else theme


def default_main_model(project_root: Path) -> MainModel:
    """The main model without configuration: the offline model."""
    provider = OfflineProvider(project_root)
    return MainModel(OFFLINE_ALIAS, OFFLINE_MODEL, provider, provider.model_info(OFFLINE_MODEL))


def model_label(main: MainModel) -> str:
    """The status-line name of ``main``; the offline model says plainly what it is."""
    if main.alias == OFFLINE_ALIAS:
        return OFFLINE_LABEL
    return main.ref


def build_app_session(
    project_root: Path,
    *,
    config_dir: Path | None,
    main: MainModel | None = None,
    config: Config | None = None,
    env: Mapping[str, str] | None = None,
    cache_dir: Path | None = None,
    clock: Clock | None = None,
    session_id: str = "",
    session_date: datetime | None = None,
    enabled_skills: tuple[str, ...] = (),
    keymap: Mapping[str, str] | None = None,
    theme: str = DEFAULT_THEME,
    watch: bool = True,
    cursor_blink: bool = True,
    models: tuple[str, ...] = (),
    record: bool = True,
    resume: str | None = None,
    delegation: DelegationSettings | None = DEFAULT_DELEGATION,
) -> AppSession:
    """Build the session for ``project_root``.

    Args:
        project_root: the project folder.
        config_dir: ``CONFIG`` (global AGENTS.md, user skills, ``sessions/``), or None.
        main: the main model (default: from ``config``, else ``default_main_model``).
        config: the loaded configuration (model, skills, permissions, keymap, theme), or None.
        env: the environment for provider keys (default: the process environment).
        cache_dir: where tokenizer data is unpacked (None: in memory).
        clock: the injected clock (tests pass a ``ManualClock``).
        session_id: a fixed session id (tests); a fresh one when empty.
        session_date: a fixed session date (tests); captured from the clock when None.
        enabled_skills: skills enabled at start (default: ``config``'s).
        keymap: binding id -> keys, over ``config``'s keymap.
        theme: the Textual theme name (``config``'s theme wins when set).
        watch: run the live-file watcher.
        cursor_blink: blink the prompt cursor.
        models: model references ``/model`` lists (default: ``config``'s named models).
        record: keep the session log under ``CONFIG/sessions/`` (needs ``config_dir``).
        resume: ``"latest"`` or a session id to resume (needs ``record``); None: a new session.
        delegation: how sub-agents run; None: no ``delegate`` tool and no sub-agent panel.

    Raises:
        ConfigError: the configured model cannot be resolved.
        ValueError, SessionNotFoundError, SessionLoadError: ``resume`` names no usable session.
        OSError: the session log cannot be created or opened.
    """
    root = project_root.resolve()
    store = SnapshotStore()
    events = UiEventSink()
    broker = PermissionBroker()
    rules = dict(config.permissions) if config is not None else {}
    policy = PermissionPolicy(broker, rules)
    inputs = DriverInputs(
        config_dir=config_dir,
        estimator=RequestEstimator(default_encoding_loader(cache_dir)),
        tools=default_tools(),
        sink=FanoutSink([store, events]),
        policy=policy,
        default_model=default_main_model,
        main=main,
        config=config,
        env=env,
        clock=clock,
        session_date=session_date,
        enabled_skills=enabled_skills,
        delegation=delegation,
        sub_agent_sink=events,
    )
    opened = open_driver(inputs, root, session_id=session_id, record=record, resume=resume)
    driver, root = opened.driver, opened.project_root
    roots = driver.runner.context.options.skill_roots  # the roots discovery used
    warnings = tuple(f"config: {w}" for w in config.warnings) if config is not None else ()
    return AppSession(
        driver=driver,
        snapshots=store,
        events=events,
        permissions=broker,
        project_root=root,
        model_label=model_label(driver.runner.model),
        skill_roots=roots,
        watch_plan=watch_plan_for(driver, root, roots),
        config_dir=config_dir,
        history_path=opened.history_path,
        keymap=keymap_for(config, keymap),
        theme=theme_for(config, theme),
        watch=watch,
        cursor_blink=cursor_blink,
        models=models or (tuple(config.models) if config is not None else ()),
        log=opened.log,
        notices=opened.notices + warnings,
        sub_agents=opened.sub_agents,
    )
