"""Headless runs for scripts and CI: ``exec`` (one task) and ``oneshot`` (phases).

Both use the same runner and context engine as the app. ``exec`` delivers ``--skill`` names as
static blocks (step 4 of the source plan) and keeps no history archive. ``oneshot`` runs each
phase (plan, build, verify by default) as its own session: its own caches, its phase prompt
(step 5), LastMainRequest starting at zero, and its own history archive.

Delegation: ``exec`` gives the runner the ``delegate`` tool (unless told not to) with the same
wiring as the app (``delegating_spec``). Nobody is there to send a next message, so when the
model ends its reply while background children still run, ``exec`` waits for them and runs the
model again on their result envelopes; children still pending when it returns are cancelled.
``oneshot`` phases run without delegation: each phase is already a bounded session of its own
and hands only its reply to the next.

Recording: a ``SessionRecorder`` (the session log, ``sessions.SessionLog``) joins the sink
fan-out, is bound to the runner once it exists and closed when the run ends, so ``exec`` and
each ``oneshot`` phase are saved like the app's sessions. ``exec`` resumes a saved session from
its ``lineage`` and LastMainRequest ``seed``; the same runner and compaction path continue it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from steiner_tui.agent.attachments import find_image_attachments
from steiner_tui.agent.clock import Clock, SystemClock
from steiner_tui.agent.delegation import DelegationSettings, SubAgentManager
from steiner_tui.agent.runner import Runner, RunResult
from steiner_tui.agent.session_factory import SessionSpec, build_runner
from steiner_tui.agent.tool_status import ToolStatusBook
from steiner_tui.engine.compaction.archive import HistoryArchive
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import EngineEvent, EventSink, FanoutSink, WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.escape import escape_user_text
from steiner_tui.engine.templates import render_template
from steiner_tui.engine.tokens import RequestEstimator
from steiner_tui.tools.base import PermissionCallback
from steiner_tui.tools.delegate import tools_with_delegate
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.permissions import PermissionPolicy
from steiner_tui.tools.registry import default_tools

__all__ = [
    "DEFAULT_PHASES",
    "PhaseResult",
    "SessionRecorder",
    "delegating_spec",
    "run_exec",
    "run_oneshot",
]

DEFAULT_PHASES = ("plan", "build", "verify")


class SessionRecorder(Protocol):
    """What records a headless run (the session log): a sink bound to the runner."""

    def emit(self, event: EngineEvent) -> None: ...

    def bind(self, runner: Runner) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class PhaseResult:
    """One oneshot phase: its name, session id and how it ended."""

    phase: str
    session_id: str
    result: RunResult


def delegating_spec(spec: SessionSpec, manager: SubAgentManager) -> SessionSpec:
    """``spec`` for a parent that delegates through ``manager``.

    Compaction's pending line reads the manager's pending children, and the preamble documents
    delegation and asynchronous results (the ``delegate`` tool itself goes in the tool set).
    """
    return replace(
        spec,
        compaction=replace(spec.compaction, pending_sub_agents=manager.pending),
        preamble=replace(spec.preamble, delegation_enabled=True, async_sub_agents=True),
    )


async def run_exec(
    spec: SessionSpec,
    prompt: str,
    *,
    estimator: RequestEstimator,
    sink: EventSink,
    policy: PermissionPolicy,
    clock: Clock | None = None,
    delegation: DelegationSettings | None = None,
    secret_env: tuple[str, ...] = (),
    recorder: SessionRecorder | None = None,
    lineage: ConversationLineage | None = None,
    seed: LastMainRequest | None = None,
) -> RunResult:
    """Run one task to completion (static skills from ``spec.static_skills``, no archive).

    Args:
        spec: the session (its ``enabled_skills`` are ignored: exec has no envelopes).
        prompt: the task.
        estimator: the token estimator.
        sink: every engine event, the children's ``SubAgentUpdated`` included.
        policy: the permission policy (children ask through it too).
        clock: the injected clock.
        delegation: delegation settings; None runs without the ``delegate`` tool.
        secret_env: names kept from tool subprocesses besides the built-in deny list.
        recorder: saves the session (bound to the runner, closed at the end), or None.
        lineage: a resumed session's conversation (None: a new one).
        seed: a resumed session's LastMainRequest.
    """
    clock = clock or SystemClock()
    spec = replace(spec, enabled_skills=())
    attached = find_image_attachments(prompt, spec.project_root)
    for problem in attached.problems:
        sink.emit(WarningEvent("attachment", problem))
    message = Message("user", escape_user_text(prompt), images=attached.images)
    if recorder is not None:
        sink = FanoutSink((recorder, sink))
    try:
        if delegation is None:
            runner = build_runner(
                spec,
                estimator=estimator,
                tools=ToolExecutor(default_tools(), policy, secret_env=secret_env),
                sink=sink,
                clock=clock,
                permission=policy,
                lineage=lineage,
                seed=seed,
            )
            if recorder is not None:
                recorder.bind(runner)
            return await runner.run(message)
        manager = SubAgentManager(
            spec, estimator=estimator, sink=sink, clock=clock, settings=delegation
        )
        runner = build_runner(
            delegating_spec(spec, manager),
            estimator=estimator,
            tools=ToolExecutor(
                tools_with_delegate(default_tools(), manager), policy, secret_env=secret_env
            ),
            sink=sink,
            clock=clock,
            permission=policy,
            lineage=lineage,
            seed=seed,
        )
        if recorder is not None:
            recorder.bind(runner)
        manager.attach(runner)
        try:
            return await _run_until_settled(runner, manager, message)
        finally:
            await manager.aclose()
    finally:
        if recorder is not None:
            recorder.close()


async def _run_until_settled(
    runner: Runner, manager: SubAgentManager, message: Message
) -> RunResult:
    """Run, then while background results are still to come, wait and run on them."""
    result = await runner.run(message)
    while result.status == "done":
        await manager.wait_all()
        late = manager.drain_results()
        if not late:
            return result
        for envelope in late:  # as the runner's inbox would deliver them
            runner.append(replace(envelope, turn=envelope.turn or runner.state.turn))
        result = await runner.run()
    return result


async def run_oneshot(
    spec: SessionSpec,
    task: str,
    *,
    estimator: RequestEstimator,
    sink: EventSink,
    permission: PermissionCallback,
    archive_for: Callable[[str, ToolStatusBook], HistoryArchive | None],
    phases: Sequence[str] = DEFAULT_PHASES,
    clock: Clock | None = None,
    on_phase: Callable[[str], None] | None = None,
    recorder_for: Callable[[str], SessionRecorder | None] | None = None,
) -> list[PhaseResult]:
    """Run ``task`` through ``phases``; each phase's reply feeds the next phase's prompt.

    Stops at the first phase that does not finish (error or cancellation propagates).

    Args:
        recorder_for: the recorder of each phase's session, by session id (None: unsaved).
    """
    results: list[PhaseResult] = []
    previous = ""
    for phase in phases:
        session_id = f"{spec.session_id or uuid.uuid4().hex[:12]}-{phase}"
        phase_prompt = render_template(f"phase_{phase}.md.j2", previous=previous or "(none)")
        book = ToolStatusBook()
        compaction = replace(spec.compaction, archive=archive_for(session_id, book))
        phase_spec = replace(
            spec,
            phase_prompt=phase_prompt,
            session_id=session_id,
            compaction=compaction,
            enabled_skills=(),
            mode="plan" if phase == "plan" else spec.mode,
        )
        policy = PermissionPolicy(permission)
        recorder = recorder_for(session_id) if recorder_for is not None else None
        sinks: tuple[EventSink, ...] = (sink, book) if recorder is None else (recorder, sink, book)
        runner = build_runner(
            phase_spec,
            estimator=estimator,
            tools=ToolExecutor(default_tools(), policy),
            sink=FanoutSink(sinks),
            clock=clock or SystemClock(),
            permission=policy,
        )
        if recorder is not None:
            recorder.bind(runner)
        if on_phase is not None:
            on_phase(phase)
        try:
            result = await runner.run(Message("user", escape_user_text(task)))
        finally:
            if recorder is not None:
                recorder.close()
        results.append(PhaseResult(phase, session_id, result))
        if result.status != "done":
            break
        previous = result.reply
    return results
