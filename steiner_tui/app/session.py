"""The app's session bundle: the driver, its snapshot store and the UI plumbing, built once.

``build_app_session`` is the one place that turns a project folder into a running session for the
app (the CLI and the tests both call it, then ``app.make_app``). Model selection is a single
function, ``default_main_model``, returning the offline model for now, so that config-driven
selection can replace it without touching anything else.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from steiner_tui.agent.clock import Clock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session_factory import SessionSpec, build_interactive_session
from steiner_tui.app.adapter import UiEventSink
from steiner_tui.app.live_files import WatchPlan
from steiner_tui.app.permission import PermissionBroker
from steiner_tui.engine.events import FanoutSink
from steiner_tui.engine.frozen import FrozenDict
from steiner_tui.engine.skills.discovery import SkillRoot, skill_roots
from steiner_tui.engine.snapshots import SnapshotStore
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.providers.offline import OFFLINE_ALIAS, OFFLINE_MODEL, OfflineProvider
from steiner_tui.resources import bundled_skills_dir
from steiner_tui.sessions.history_archive import FileHistoryArchive
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.permissions import PermissionPolicy
from steiner_tui.tools.registry import default_tools

__all__ = [
    "DEFAULT_THEME",
    "OFFLINE_LABEL",
    "AppSession",
    "build_app_session",
    "default_main_model",
    "model_label",
]

DEFAULT_THEME = "textual-dark"
OFFLINE_LABEL = "offline · not a language model"


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


def default_main_model(project_root: Path) -> MainModel:
    """The main model of a new session: the offline model (config selection comes later)."""
    provider = OfflineProvider(project_root)
    return MainModel(OFFLINE_ALIAS, OFFLINE_MODEL, provider, provider.model_info(OFFLINE_MODEL))


def model_label(main: MainModel) -> str:
    """The status-line name of ``main``; the offline model says plainly what it is."""
    if main.alias == OFFLINE_ALIAS:
        return OFFLINE_LABEL
    return main.ref


def _watch_plan(
    driver: InteractiveDriver, root: Path, config_dir: Path | None, roots: tuple[SkillRoot, ...]
) -> WatchPlan:
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


def build_app_session(
    project_root: Path,
    *,
    config_dir: Path | None,
    main: MainModel | None = None,
    cache_dir: Path | None = None,
    clock: Clock | None = None,
    session_id: str = "",
    session_date: datetime | None = None,
    enabled_skills: tuple[str, ...] = (),
    keymap: Mapping[str, str] | None = None,
    theme: str = DEFAULT_THEME,
    watch: bool = True,
    cursor_blink: bool = True,
) -> AppSession:
    """Build the session for ``project_root`` (offline model unless ``main`` is given).

    Args:
        project_root: the project folder.
        config_dir: ``CONFIG`` (global AGENTS.md, user skills, ``sessions/``), or None.
        main: the main model; ``default_main_model`` when None.
        cache_dir: where tokenizer data is unpacked (None: in memory).
        clock: the injected clock (tests pass a ``ManualClock``).
        session_id: a fixed session id (tests); a fresh one when empty.
        session_date: a fixed session date (tests); captured from the clock when None.
        enabled_skills: skills enabled at start (sent as envelopes with the first message).
        keymap: binding id -> keys overrides.
        theme: the Textual theme name.
        watch: run the live-file watcher.
        cursor_blink: blink the prompt cursor.
    """
    root = project_root.resolve()
    model = main if main is not None else default_main_model(root)
    session_id = session_id or uuid.uuid4().hex[:12]
    archive = FileHistoryArchive(config_dir / "sessions" / session_id) if config_dir else None
    spec = SessionSpec(
        project_root=root,
        main=model,
        config_dir=config_dir,
        enabled_skills=enabled_skills,
        compaction=CompactionSettings(archive=archive),
        session_id=session_id,
        session_date=session_date,
    )
    store = SnapshotStore()
    events = UiEventSink()
    broker = PermissionBroker()
    policy = PermissionPolicy(broker)
    driver = build_interactive_session(
        spec,
        estimator=RequestEstimator(default_encoding_loader(cache_dir)),
        tools=ToolExecutor(default_tools(), policy),
        sink=FanoutSink([store, events]),
        clock=clock,
        permission=policy,
    )
    roots = skill_roots(bundled_skills_dir(), config_dir, root)
    return AppSession(
        driver=driver,
        snapshots=store,
        events=events,
        permissions=broker,
        project_root=root,
        model_label=model_label(model),
        skill_roots=roots,
        watch_plan=_watch_plan(driver, root, config_dir, roots),
        config_dir=config_dir,
        history_path=archive.history_path if archive is not None else None,
        keymap=FrozenDict(keymap or {}),
        theme=theme,
        watch=watch,
        cursor_blink=cursor_blink,
    )
