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
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from steiner_tui.agent.attachments import find_image_attachments
from steiner_tui.agent.clock import Clock, SystemClock
from steiner_tui.agent.delegation import DelegationSettings, SubAgentManager
from steiner_tui.agent.runner import Runner, RunResult
from steiner_tui.agent.session_factory import SessionSpec, build_runner
from steiner_tui.agent.tool_status import ToolStatusBook
from steiner_tui.engine.compaction.archive import HistoryArchive
from steiner_tui.engine.events import EventSink, FanoutSink, WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.escape import escape_user_text
from steiner_tui.engine.templates import render_template
from steiner_tui.engine.tokens import RequestEstimator
from steiner_tui.tools.base import PermissionCallback
from steiner_tui.tools.delegate import tools_with_delegate
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.permissions import PermissionPolicy
from steiner_tui.tools.registry import default_tools

__all__ = ["DEFAULT_PHASES", "PhaseResult", "delegating_spec", "run_exec", "run_oneshot"]

DEFAULT_PHASES = ("plan", "build", "verify")


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
    """
    clock = clock or SystemClock()
    spec = replace(spec, enabled_skills=())
    attached = find_image_attachments(prompt, spec.project_root)
    for problem in attached.problems:
        sink.emit(WarningEvent("attachment", problem))
    message = Message("user", escape_user_text(prompt), images=attached.images)
    if delegation is None:
        runner = build_runner(
            spec,
            estimator=estimator,
            tools=ToolExecutor(default_tools(), policy, secret_env=secret_env),
            sink=sink,
            clock=clock,
            permission=policy,
        )
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
    )
    manager.attach(runner)
    try:
        return await _run_until_settled(runner, manager, message)
    finally:
        await manager.aclose()


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
) -> list[PhaseResult]:
    """Run ``task`` through ``phases``; each phase's reply feeds the next phase's prompt.

    Stops at the first phase that does not finish (error or cancellation propagates).
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
        runner = build_runner(
            phase_spec,
            estimator=estimator,
            tools=ToolExecutor(default_tools(), policy),
            sink=FanoutSink((sink, book)),
            clock=clock or SystemClock(),
            permission=policy,
        )
        if on_phase is not None:
            on_phase(phase)
        result = await runner.run(Message("user", task))
        results.append(PhaseResult(phase, session_id, result))
        if result.status != "done":
            break
        previous = result.reply
    return results
