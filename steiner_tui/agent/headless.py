"""Headless runs for scripts and CI: ``exec`` (one task) and ``oneshot`` (phases).

Both run sessions built by the one session factory, so their requests are the app's: the same
preamble and tools, ``[skills] enabled`` delivered as envelopes with the first message (exec's
``--skill`` names go in as static blocks, step 4 of the source plan), the mode notice when the
mode differs from the session's. The text goes through the interactive driver, as in the app.

``exec`` runs one task in its session (new or resumed). The model may delegate: nobody is there
to send a next message, so when the model ends its reply while background children still run,
``exec`` waits for them and runs the model again on their result envelopes; children still
pending when it returns are cancelled. ``oneshot`` runs each phase (plan, build, verify by
default) as a session of its own: its own id (``<base>-<phase>``), caches, log and history
archive, its phase prompt (step 5), LastMainRequest starting at zero, and no delegation (each
phase is already a bounded session and hands only its reply to the next).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from steiner_tui.agent.runner import RunResult
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.templates import render_template
from steiner_tui.sessions.ids import new_session_id

__all__ = ["DEFAULT_PHASES", "PhaseResult", "run_exec", "run_oneshot"]

DEFAULT_PHASES = ("plan", "build", "verify")


class PhaseResult(msgspec.Struct, frozen=True):
    """One oneshot phase: its name, session id and how it ended."""

    phase: str
    session_id: str
    result: RunResult


async def run_exec(session: Session, prompt: str) -> RunResult:
    """Run one task to completion in ``session``; background children are waited for.

    Children still running and the providers' connections end with it (``Session.stop``);
    the caller closes the session's log.
    """
    runner, manager = session.runner, session.sub_agents
    try:
        result = await session.driver.submit(prompt)
        while manager is not None and result.status == "done":
            await manager.wait_all()
            late = manager.drain_results()
            if not late:
                break
            for envelope in late:  # as the runner's inbox would deliver them
                runner.append(
                    msgspec.structs.replace(envelope, turn=envelope.turn or runner.state.turn)
                )
            result = await runner.run()
        return result
    finally:
        await session.stop()


async def run_oneshot(
    request: SessionRequest,
    task: str,
    *,
    phases: Sequence[str] = DEFAULT_PHASES,
    on_phase: Callable[[str], None] | None = None,
) -> list[PhaseResult]:
    """Run ``task`` through ``phases``; each phase's reply feeds the next phase's prompt.

    Each phase is built from ``request`` (its id ``<base>-<phase>``, the base being
    ``request.session_id`` or a new id; the plan phase in plan mode; no delegation). Stops at
    the first phase that does not finish (error or cancellation propagates).

    Raises:
        What ``build_session`` raises for a phase.
    """
    base = request.session_id or new_session_id()
    results: list[PhaseResult] = []
    previous = ""
    for phase in phases:
        phase_request = msgspec.structs.replace(
            request,
            session_id=f"{base}-{phase}",
            phase_prompt=render_template(f"phase_{phase}.md.j2", previous=previous or "(none)"),
            mode="plan" if phase == "plan" else request.mode,
            delegation=None,
            resume=None,
        )
        session = build_session(phase_request)
        if on_phase is not None:
            on_phase(phase)
        try:
            result = await session.driver.submit(task)
        finally:
            await session.stop()
            session.close()
        results.append(PhaseResult(phase, session.session_id, result))
        if result.status != "done":
            break
        previous = result.reply
    return results
