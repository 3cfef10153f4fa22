"""``SubAgentManager``: runs delegated children and keeps the parent's context bounded.

Each ``delegate`` call becomes a child with id ``<type>-<n>`` running on its own runner (see
``child``) as an asyncio task; at most ``max_concurrent`` run at once, the rest wait ``queued``.
The child's events go to the manager, never to the parent's sinks, so its transcript never
reaches the parent conversation; the parent gets only the bounded envelope (``envelope``):

* ``wait`` (default): the envelope is the tool result;
* background: the tool returns at once; the envelope waits in the inbox and the parent runner
  appends it as a ``sub_agent_result`` user message before its next model call.

The manager feeds the rest of the session: ``pending()`` for compaction's pending line, the
pending count for the interactive driver's replacement guard, ``SubAgentUpdated`` events for the
sub-agent panel, and ``transcript(id)`` for the child's own transcript on demand. When the task
that started a child is cancelled (the parent run stopped), its children are cancelled too.

A child that ended is saved in the parent's result store (``child.save_child``); attached to a
resumed parent, the manager reads those back: the panel lists them, their conversations open,
a continuation goes on from one, and the next child is numbered after them (a resumed session
started its ``code-1`` again, beside the earlier ``code-1`` of its conversation).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import msgspec

from steiner_tui.agent.clock import Clock, SystemClock
from steiner_tui.agent.delegation.child import (
    SavedChild,
    build_child_runner,
    child_number,
    save_child,
    saved_children,
)
from steiner_tui.agent.delegation.envelope import render_sub_agent_result
from steiner_tui.agent.delegation.model import (
    DelegationSettings,
    SubAgentInfo,
    SubAgentState,
    SubAgentUpdated,
)
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import (
    EngineEvent,
    EventSink,
    MessageAppended,
    RequestSnapshot,
    UsageReported,
    WarningEvent,
)
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message
from steiner_tui.tools.base import (
    PermissionCallback,
    PermissionDecision,
    PermissionRequest,
    ToolContext,
    ToolResult,
    failed,
)
from steiner_tui.tools.delegate import DelegationRequest

__all__ = ["SubAgentManager"]


class _Child(msgspec.Struct):
    info: SubAgentInfo
    saved: tuple[Message, ...] = ()
    """The conversation of a child saved before the resume (until it runs again)."""
    runner: Runner | None = None
    task: asyncio.Task[str] | None = None
    owner: asyncio.Task[object] | None = None
    estimate_pending: int = 0


class _ChildSink(msgspec.Struct):
    """Turns a child's engine events into figures on its ``SubAgentInfo``."""

    update: Callable[[_Child, SubAgentInfo], None]
    """Stores the child's new snapshot and announces it (``SubAgentManager._update``)."""
    child: _Child

    def emit(self, event: EngineEvent) -> None:
        child = self.child
        info = child.info
        if isinstance(event, RequestSnapshot):
            if event.compaction:
                return
            child.estimate_pending = event.estimated_prompt_tokens
            info = msgspec.structs.replace(
                info,
                turns=info.turns + 1,
                prompt_tokens=info.prompt_tokens + event.estimated_prompt_tokens,
            )
        elif isinstance(event, UsageReported):
            info = msgspec.structs.replace(
                info,
                prompt_tokens=info.prompt_tokens - child.estimate_pending + event.prompt_tokens,
                completion_tokens=info.completion_tokens + event.completion_tokens,
                cache_read_tokens=info.cache_read_tokens + event.cache_read_tokens,
            )
            child.estimate_pending = 0
        elif not isinstance(event, MessageAppended):
            return
        self.update(child, info)


class SubAgentManager:
    """Runs and tracks the children of one parent session (a ``Delegator``).

    Children are derived from the parent runner it is ``attach``-ed to (its assembly options,
    estimator, fallback, result store and session date).

    Args:
        sink: receives ``SubAgentUpdated`` events (the app's adapter, tests' list sink).
        clock: the injected clock.
        settings: concurrency and the documentor's write scope.
        model: the children's model (default: the parent's).
        secret_env: names kept from the children's tool subprocesses besides the built-in
            deny list (the configuration's ``secret_env`` and provider key names).
    """

    def __init__(
        self,
        *,
        sink: EventSink,
        clock: Clock | None = None,
        settings: DelegationSettings | None = None,
        model: MainModel | None = None,
        secret_env: tuple[str, ...] = (),
    ) -> None:
        self.sink = sink
        self.clock: Clock = clock or SystemClock()
        self.settings = settings or DelegationSettings()
        self.model = model
        self.secret_env = secret_env
        self._parent: Runner | None = None
        self._driver: InteractiveDriver | None = None
        self._children: dict[str, _Child] = {}
        self._next = 1
        """The number of the next child (``<type>-<n>``, across types)."""
        self._slots = asyncio.Semaphore(max(1, self.settings.max_concurrent))
        self._inbox: list[Message] = []
        self._watched: set[asyncio.Task[object]] = set()

    # -- wiring -----------------------------------------------------------------------------

    def attach(self, parent: Runner, driver: InteractiveDriver | None = None) -> None:
        """Serve ``parent``: its inbox receives background results; ``driver`` gets the count."""
        self._parent = parent
        self._driver = driver
        parent.inbox = self.drain_results
        for saved in saved_children(parent.results):
            if saved.info.id in self._children:
                continue
            self._children[saved.info.id] = _Child(saved.info, saved.messages)
            self._next = max(self._next, child_number(saved.info.id) + 1)

    # -- what others read -------------------------------------------------------------------

    def infos(self) -> tuple[SubAgentInfo, ...]:
        """Every child, in start order."""
        return tuple(child.info for child in self._children.values())

    def info(self, agent_id: str) -> SubAgentInfo:
        """One child. Raises ``KeyError`` for an unknown id."""
        return self._children[agent_id].info

    def pending(self) -> tuple[tuple[str, str, str], ...]:
        """``(id, type, state)`` of queued and running children (compaction's pending line)."""
        return tuple(
            (c.info.id, c.info.type, c.info.state)
            for c in self._children.values()
            if c.info.pending
        )

    @property
    def pending_count(self) -> int:
        return sum(1 for child in self._children.values() if child.info.pending)

    def transcript(self, agent_id: str) -> tuple[Message, ...]:
        """The child's own conversation (its active generation; empty before it starts)."""
        child = self._children[agent_id]
        return tuple(child.runner.conversation) if child.runner is not None else child.saved

    def lineage(self, agent_id: str) -> ConversationLineage | None:
        """The child's whole lineage (None before it starts)."""
        runner = self._children[agent_id].runner
        return runner.lineage if runner is not None else None

    def last_main_request(self, agent_id: str) -> LastMainRequest:
        """The child's own last main request (the zero value before it made one).

        Raises:
            KeyError: no sub-agent has that id.
        """
        runner = self._children[agent_id].runner
        return runner.last_main_request if runner is not None else LastMainRequest()

    def drain_results(self) -> list[Message]:
        """Background results not yet delivered (the parent runner's inbox hook)."""
        messages, self._inbox = self._inbox, []
        return messages

    # -- delegation -------------------------------------------------------------------------

    async def delegate(self, request: DelegationRequest, ctx: ToolContext) -> ToolResult:
        """Start a child for ``request`` (or continue ``request.agent_id``); wait for its
        envelope unless ``request.wait`` is false."""
        if request.agent_id:
            found = self._continuable(request)
            if isinstance(found, ToolResult):
                return found
            child = found
            child.info = msgspec.structs.replace(
                child.info, task=request.task, wait=request.wait, state="queued", reason=""
            )
        else:
            agent_id = f"{request.type}-{self._next}"
            self._next += 1
            child = _Child(SubAgentInfo(agent_id, request.type, request.task, wait=request.wait))
            self._children[agent_id] = child
        agent_id = child.info.id
        self._publish(child)
        owner = asyncio.current_task()
        child.task = asyncio.create_task(self._run(child, request, ctx), name=agent_id)
        child.task.add_done_callback(lambda task: self._never_started(child, request, task))
        if owner is not None:
            child.owner = owner
            self._watch(owner)
        if not request.wait:
            return ToolResult(
                f"Sub-agent {agent_id} ({request.type}) started in the background; its result "
                "will arrive later as a sub-agent result message."
            )
        try:
            envelope = await child.task
        except asyncio.CancelledError:
            child.task.cancel()
            raise
        return ToolResult(envelope, status="done" if child.info.state == "done" else "failed")

    def _continuable(self, request: DelegationRequest) -> _Child | ToolResult:
        child = self._children.get(request.agent_id)
        if child is None:
            known = ", ".join(self._children) or "none"
            return failed(f"no sub-agent {request.agent_id!r} to continue (known: {known})")
        if child.info.pending:
            return failed(f"sub-agent {request.agent_id} is still {child.info.state}")
        if child.info.type != request.type:
            return failed(
                f"sub-agent {request.agent_id} is a {child.info.type} sub-agent, not {request.type}"
            )
        return child

    async def _run(self, child: _Child, request: DelegationRequest, ctx: ToolContext) -> str:
        output, reason = "", ""
        state: SubAgentState = "failed"
        try:
            async with self._slots:
                self._update(
                    child,
                    msgspec.structs.replace(child.info, state="running"),
                )
                # A continuation goes on with the child's own runner: its conversation, its
                # caches and its own last main request (its cold-cache test reads that).
                runner = child.runner or self._build(child, request, ctx)
                child.runner = runner
                result = await runner.run(Message("user", request.task))
            output = result.reply
            if result.status == "done":
                state = "done"
            else:
                reason = result.error or result.status
                state = "cancelled" if result.status == "cancelled" else "failed"
        except asyncio.CancelledError:
            self._finish(child, request, "cancelled", self._partial(child), "cancelled")
            raise
        except Exception as error:  # a child must never take the parent down
            reason = f"{type(error).__name__}: {error}"
        return self._finish(child, request, state, output, reason)

    def _never_started(
        self, child: _Child, request: DelegationRequest, task: asyncio.Task[str]
    ) -> None:
        # A task cancelled before its first step never runs ``_run``: settle it here, or it
        # would stay queued and hold the replacement guard forever.
        if task.cancelled() and child.info.pending:
            self._finish(child, request, "cancelled", "", "cancelled")

    def _partial(self, child: _Child) -> str:
        runner = child.runner
        if runner is None:
            return ""
        last = runner.conversation[-1] if runner.conversation else None
        return last.content if last is not None and last.role == "assistant" else ""

    def _finish(
        self,
        child: _Child,
        request: DelegationRequest,
        state: SubAgentState,
        output: str,
        reason: str,
    ) -> str:
        envelope = render_sub_agent_result(child.info.id, child.info.type, state, output, reason)
        self._update(
            child,
            msgspec.structs.replace(child.info, state=state, reason=reason),
        )
        if not request.wait:
            self._inbox.append(Message("user", envelope, source=SUB_AGENT_RESULT_SOURCE))
        parent = self._parent
        if parent is not None:
            try:
                save_child(parent.results, SavedChild(child.info, self.transcript(child.info.id)))
            except OSError as error:  # the result is in the conversation: only the rest is lost
                text = f"sub-agent {child.info.id} could not be saved for a resume: {error}"
                self.sink.emit(WarningEvent("sub_agent_not_saved", text))
        return envelope

    def _build(self, child: _Child, request: DelegationRequest, ctx: ToolContext) -> Runner:
        parent = self._parent
        if parent is None:
            raise RuntimeError("the sub-agent manager is not attached to a parent runner")
        return build_child_runner(
            parent,
            kind=request.type,
            child_id=child.info.id,
            model=self.model or parent.model,
            mode=ctx.mode,
            write_scope=self.settings.documentor_write_scope,
            sink=_ChildSink(self._update, child),
            clock=self.clock,
            permission=_asking_for(child.info.id, ctx.permission),
            secret_env=self.secret_env,
            conversation=child.saved,
        )

    # -- cancellation -----------------------------------------------------------------------

    def _watch(self, owner: asyncio.Task[object]) -> None:
        if owner in self._watched:
            return
        self._watched.add(owner)

        def done(task: asyncio.Task[object]) -> None:
            self._watched.discard(task)
            if task.cancelled():
                self.cancel_all(owner=task)

        owner.add_done_callback(done)

    def cancel_all(self, owner: asyncio.Task[object] | None = None) -> int:
        """Cancel pending children (only those started by ``owner`` when given)."""
        cancelled = 0
        for child in self._children.values():
            task = child.task
            running = child.info.pending and task is not None and not task.done()
            if running and task is not None and (owner is None or child.owner is owner):
                task.cancel()
                cancelled += 1
        return cancelled

    async def wait_all(self) -> None:
        """Wait until every child has ended (cancelled ones included)."""
        tasks: Sequence[asyncio.Task[str]] = [
            c.task for c in self._children.values() if c.task is not None
        ]
        await asyncio.gather(*tasks, return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel every child and wait for them (app shutdown)."""
        self.cancel_all()
        await self.wait_all()

    # -- events -----------------------------------------------------------------------------

    def _update(self, child: _Child, info: SubAgentInfo) -> None:
        child.info = info
        self._publish(child)

    def _publish(self, child: _Child) -> None:
        if self._driver is not None:
            self._driver.pending_sub_agents = self.pending_count
        self.sink.emit(SubAgentUpdated(child.info))


def _asking_for(agent: str, permission: PermissionCallback) -> PermissionCallback:
    """``permission``, each request marked as the sub-agent ``agent``'s: the person is asked
    the same question, and told whose call it is."""

    async def ask(request: PermissionRequest) -> PermissionDecision:
        return await permission(msgspec.structs.replace(request, agent=agent))

    return ask
