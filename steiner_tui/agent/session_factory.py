"""Build a runnable session from explicit inputs: one factory for the app, the CLI and tests.

``SessionSpec`` says everything a session needs (project, main model, skills, compaction); the
factory wires the context manager, the runner, tools and the interactive driver. Translating the
user's configuration into a ``SessionSpec`` is ``steiner_tui.agent.from_config``'s job, so tests
can build sessions without touching any config file.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from steiner_tui.agent.clock import Clock, SystemClock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.context_manager import ContextManager
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner
from steiner_tui.agent.tool_calls import ToolRunner
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import EventSink
from steiner_tui.engine.prompt.assembler import AssemblyOptions
from steiner_tui.engine.prompt.budget import AssemblyPolicy
from steiner_tui.engine.prompt.files import LocalFileReader
from steiner_tui.engine.prompt.preamble import PreambleInputs
from steiner_tui.engine.prompt.project_context import load_project_context_spec
from steiner_tui.engine.skills.delta import InteractiveSkills
from steiner_tui.engine.skills.discovery import SkillRoot, discover_skills, skill_roots
from steiner_tui.engine.tokens import RequestEstimator
from steiner_tui.resources import bundled_skills_dir
from steiner_tui.tools.base import Mode, PermissionCallback, reject_all
from steiner_tui.tools.results import ResultStore

__all__ = ["SessionSpec", "build_context_manager", "build_interactive_session", "build_runner"]


@dataclass(frozen=True, slots=True)
class SessionSpec:
    """Everything one session needs.

    Attributes:
        project_root: the repository the session works on.
        config_dir: ``CONFIG`` (global AGENTS.md, user skills); None: neither is read.
        main: the main model.
        enabled_skills: skills enabled at start (interactive: delivered as envelopes).
        static_skills: skills assembled as static blocks (exec and oneshot only).
        extra_skill_roots: skill roots listed in config (after the standard ones).
        policy: per-source byte budgets.
        preamble: preamble inputs.
        phase_prompt: a oneshot phase's prompt.
        compaction: fallback, archive, pending sub-agents.
        mode: starting execution mode.
        session_id: the session identity (also the static-cache scope).
        session_date: captured once per session identity; None: captured from the clock.
        results: where whole tool outputs are kept (a saved session's ``tool-results``
            folder); None: a temporary folder of the run's own.
    """

    project_root: Path
    main: MainModel
    config_dir: Path | None = None
    enabled_skills: tuple[str, ...] = ()
    static_skills: tuple[str, ...] = ()
    extra_skill_roots: tuple[Path, ...] = ()
    policy: AssemblyPolicy = field(default_factory=AssemblyPolicy)
    preamble: PreambleInputs = field(default_factory=PreambleInputs)
    phase_prompt: str = ""
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    mode: Mode = "build"
    session_id: str = ""
    session_date: datetime | None = None
    results: ResultStore | None = None


def _skill_roots(spec: SessionSpec) -> tuple[SkillRoot, ...]:
    return skill_roots(
        bundled_skills_dir(), spec.config_dir, spec.project_root, spec.extra_skill_roots
    )


def build_context_manager(
    spec: SessionSpec, estimator: RequestEstimator, sink: EventSink, clock: Clock
) -> ContextManager:
    """The per-session context manager (static cache, preamble memo, session date)."""
    reader = LocalFileReader()
    options = AssemblyOptions(
        project_root=spec.project_root,
        global_agents_path=spec.config_dir / "AGENTS.md" if spec.config_dir else None,
        policy=spec.policy,
        project_context=load_project_context_spec(spec.project_root, reader, sink),
        skill_roots=_skill_roots(spec),
        skill_names=spec.static_skills,
        phase_prompt=spec.phase_prompt,
        preamble=spec.preamble,
        scope=spec.session_id,
    )
    date = spec.session_date if spec.session_date is not None else clock.now()
    return ContextManager(options, estimator, sink, session_date=date, reader=reader)


def build_runner(
    spec: SessionSpec,
    *,
    estimator: RequestEstimator,
    tools: ToolRunner | None,
    sink: EventSink,
    clock: Clock | None = None,
    permission: PermissionCallback = reject_all,
    lineage: ConversationLineage | None = None,
    seed: LastMainRequest | None = None,
) -> Runner:
    """A runner with its own context manager, caches and compaction path."""
    clock = clock or SystemClock()
    session_id = spec.session_id or uuid.uuid4().hex[:12]
    if not spec.session_id:
        spec = replace(spec, session_id=session_id)
    context = build_context_manager(spec, estimator, sink, clock)
    return Runner(
        model=spec.main,
        context=context,
        tools=tools,
        sink=sink,
        project_root=spec.project_root,
        clock=clock,
        compaction=spec.compaction,
        lineage=lineage,
        seed_last_main_request=seed,
        permission=permission,
        mode=spec.mode,
        session_id=session_id,
        results=spec.results,
    )


def build_interactive_session(
    spec: SessionSpec,
    *,
    estimator: RequestEstimator,
    tools: ToolRunner | None,
    sink: EventSink,
    clock: Clock | None = None,
    permission: PermissionCallback = reject_all,
    lineage: ConversationLineage | None = None,
    seed: LastMainRequest | None = None,
) -> InteractiveDriver:
    """An interactive driver over a new runner; skills discovered from the standard roots."""
    runner = build_runner(
        spec,
        estimator=estimator,
        tools=tools,
        sink=sink,
        clock=clock,
        permission=permission,
        lineage=lineage,
        seed=seed,
    )
    skills = InteractiveSkills(discover_skills(_skill_roots(spec), sink), spec.enabled_skills)
    return InteractiveDriver(runner, skills)
