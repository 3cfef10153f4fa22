"""The engine-facing half of the main screen: showing engine state and routing its events.

``MainScreen`` adds the layout, the keys and the runs. This base holds the session, the
controller and the typed widget getters, and turns each adapter message into a widget update.

The screen builds its session from a ``SessionRequest`` through the one session factory, with
its own event adapter (``UiEventSink``) and inline permission prompts (``PermissionBroker``) as
the request's sink and callback: at once (tests, benchmarks), or after the first frame (a launch,
``defer_open``). Until the session is open there is no controller: the refresh methods do
nothing and ``MainScreen`` disables the keys that need one. Once it is open the screen shows it,
attaches the brokers, and after the first frame focuses the prompt, fills the context panel,
starts the file watcher and warms the provider's SDK (a session that cannot open ends the app
with ``SessionOpenFailed``).

The context panel's dry run is assembled in a worker thread (``preview_budget``), never on the
UI loop; its figures come back as ``BudgetReady``. One such worker runs at a time: a refresh
asked for while it runs is answered by one more run when it ends (figures of an older refresh
are never shown).

The sub-agent panel is mounted under the context panel on the first ``SubAgentChanged``, so a
session that never delegates keeps its three-column layout (and pays nothing for the table).
A background child's result reaches the conversation as a one-line notice, not as user text.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

import msgspec
from textual import getters, on, work
from textual.screen import Screen

from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.agent.session_factory import LOG_FAILED, LOG_RESTORED, build_session
from steiner_tui.app import messages as ui
from steiner_tui.app.adapter import UiEventSink, to_ui_message
from steiner_tui.app.budget_view import BudgetView
from steiner_tui.app.compaction_broker import CompactionBroker
from steiner_tui.app.controller import SessionController
from steiner_tui.app.permission import PermissionBroker
from steiner_tui.app.steering import SteeringController
from steiner_tui.app.subagent_view import COMPACT_COLUMNS, result_notice
from steiner_tui.app.transcript import (
    CompactionEntry,
    NoticeEntry,
    PermissionEntry,
    UnpinEntry,
    entries_from_messages,
    user_entry,
)
from steiner_tui.app.widgets.budget_panel import BudgetPanel
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.prompt import PromptEditor
from steiner_tui.app.widgets.skill_list import SkillList
from steiner_tui.app.widgets.status_line import StatusLine
from steiner_tui.app.widgets.subagents import ChildTranscript, SubAgentPanel
from steiner_tui.engine.compaction.pins import pin_key
from steiner_tui.engine.events import FanoutSink
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE
from steiner_tui.engine.prompt.pending_reload import PendingReload
from steiner_tui.engine.prompt.static_cache import StaticPartition
from steiner_tui.sessions.errors import SessionLoadError, SessionNotFoundError
from steiner_tui.units import count, token_count

__all__ = ["SUB_AGENT_PANEL_ID", "SessionOpenFailed", "Warmable", "WorkbenchBase"]

SUB_AGENT_PANEL_ID = "subagents"
_KEPT_NOTICES = frozenset({"compaction_off", "compaction_failed", LOG_RESTORED})
"""Engine warnings that stay in the conversation as well as in a toast: ``off`` nearing the
hard limit, why a compaction failed (a window error that follows reads as if nothing was
tried without it), and a session log written anew after its folder was removed."""


class SessionOpenFailed(msgspec.Struct, frozen=True):
    """The app's exit value when its session could not be opened (the CLI prints ``error``)."""

    error: str


@runtime_checkable
class Warmable(Protocol):
    """A provider that can import its SDK ahead of the first call (the SDK providers)."""

    async def warm(self) -> None:
        """Import the SDK and build the client, off the UI loop."""
        ...


class WorkbenchBase(Screen[None]):
    """Session, controller and engine-event routing of the workbench."""

    conversation = getters.query_one("#conversation", ConversationPane)
    prompt = getters.query_one("#prompt", PromptEditor)
    budget = getters.query_one("#budget", BudgetPanel)
    status = getters.query_one("#status", StatusLine)

    def __init__(self, request: SessionRequest, *, defer_open: bool = False) -> None:
        super().__init__()
        self.request = request
        """What the session is built from (the screen adds its sink and permission prompts)."""
        self.events = UiEventSink()
        """Posts the session's engine events to this screen."""
        self.permissions = PermissionBroker()
        """Answers the session's permission requests with inline prompts."""
        self.compaction = CompactionBroker()
        """Answers ``ask`` mode's questions and which pins to drop, inline."""
        self._session: Session | None = None
        self._controller: SessionController | None = None
        self._steering: SteeringController | None = None
        self._panel_version = 0
        """Counts the context panel's refreshes (a dry run answers the one it started for)."""
        self._previewing = False
        """A dry-run worker is running."""
        self._starting = False
        """The context panel is filling for the first time (start-up ends when it shows)."""
        self._open_after_first_frame = False
        """Open the session once the first frame is drawn (set when it was deferred)."""
        self._skills = SkillList(id="skills")
        if not defer_open:
            self.open_session()

    @property
    def skills(self) -> SkillList:
        """The skills sidebar (mounted once it is shown or filled: ``PanelLayoutScreen``)."""
        return self._skills

    def open_session(self) -> Session:
        """Build the session (the one factory), with this screen's sink and prompts.

        Raises:
            What ``build_session`` raises.
        """
        request = self.request
        sink = self.events if request.sink is None else FanoutSink((request.sink, self.events))
        session = build_session(
            msgspec.structs.replace(
                request, sink=sink, permission=self.permissions, compaction_policy=self.compaction
            )
        )
        self._session = session
        self._controller = SessionController(session)
        self._steering = SteeringController(session)
        return session

    @property
    def attached(self) -> bool:
        """Whether the session is open (always, unless the screen opens it after a frame)."""
        return self._session is not None

    @property
    def session(self) -> Session:
        """The session shown."""
        if self._session is None:
            raise RuntimeError("the session is still opening")
        return self._session

    @property
    def controller(self) -> SessionController:
        """Engine-side operations."""
        if self._controller is None:
            raise RuntimeError("the session is still opening")
        return self._controller

    @property
    def steering(self) -> SteeringController:
        """The compaction mode, pins, cost ranking and what-if."""
        if self._steering is None:
            raise RuntimeError("the session is still opening")
        return self._steering

    @property
    def driver(self) -> InteractiveDriver:
        """The session's driver."""
        return self.session.driver

    # -- opening and closing ---------------------------------------------------------------

    def _show_session(self) -> None:
        """Show the session's state and start receiving its events."""
        self.status.project = self.session.project_root.name
        self.status.model = self.controller.model_label
        self.status.mode = self.driver.mode
        self.status.compaction = self.steering.mode
        self.events.attach(self)
        self.permissions.attach(self)
        self.compaction.attach(self)
        self.refresh_skills()
        self.show_conversation()
        self.learn_model_limits()

    @work(group="limits", exit_on_error=False)
    async def learn_model_limits(self) -> None:
        """Ask a local model's server for its window and tool support (the probe runs in a
        thread, off the UI loop), then show what it said."""
        if await self.driver.runner.learn_limits():
            self.refresh_budget()

    def _after_first_frame(self) -> None:
        # Focusing restyles the prompt and its ancestors, the context panel computes a dry-run
        # request, and the file watcher loads its native module: the first frame needs none.
        self._focus_prompt()
        self._fill_budget()
        self.warm_provider()

    @work(group="warm", exit_on_error=False)
    async def warm_provider(self) -> None:
        """Import the provider's SDK (in a thread) before the first request needs it."""
        provider = self.driver.runner.model.provider
        if isinstance(provider, Warmable):
            try:
                await provider.warm()
            except Exception:  # the first request reports what is wrong, in the conversation
                return

    def _open_deferred(self) -> None:
        """Open the session (the first frame is on screen), then show it."""
        try:
            self.open_session()
        except (ValueError, SessionNotFoundError, SessionLoadError, OSError) as error:
            self.app.exit(SessionOpenFailed(str(error)))
            return
        self._show_session()
        if not self._focus_prompt():  # focusing also shows the keys as enabled
            self.refresh_bindings()
        self._fill_budget()
        self.warm_provider()

    def _fill_budget(self) -> None:
        """Fill the context panel; once it shows (``_show_budget``), follow the files it shows
        (the watcher loads a native module) and say that start-up is over."""
        self._starting = True
        self.refresh_budget()

    def _started(self) -> None:
        if self.request.config.watch_files:
            self.watch_files()
        self.post_message(ui.WorkbenchReady())

    def on_screen_resume(self) -> None:
        """Focus the prompt when nothing is focused on coming back (as ``AUTO_FOCUS`` did).

        Also while the session is still opening: what is typed ahead then goes straight into
        the focused prompt, in the order it was typed (the footer's keys are drawn once more,
        enabled, when the session is open)."""
        if self.is_mounted:
            self._focus_prompt()
        if self._open_after_first_frame:
            self._open_after_first_frame = False
            # Textual draws the screen's first frame while it handles this resume, after this
            # handler; ``call_next`` runs once that handling is over, before the next message.
            self.call_next(self._open_deferred)

    def _focus_prompt(self) -> bool:
        """Focus the prompt when nothing has focus; returns whether it did."""
        if self.focused is not None:
            return False
        # At once, not as ``Widget.focus`` does (after the next frame): on the first resume the
        # first frame then draws the prompt focused instead of drawing the screen twice more.
        self.set_focus(self.prompt, scroll_visible=False)
        return True

    @work(exclusive=True, group="load")
    async def show_conversation(self) -> None:
        """Show a resumed conversation (the newest entries have widgets), then what the
        session has to say at start (a resume, configuration and start-up warnings)."""
        root = str(self.session.project_root)
        conversation, errors = self.driver.runner.conversation, self.session.logged_errors
        self.conversation.show_pins(self.driver.runner.lineage.pins)  # marked as they are made
        statuses = self.session.tool_status.statuses
        await self.conversation.load(entries_from_messages(conversation, root, errors, statuses))
        for notice in self.session.notices:
            await self.conversation.add(NoticeEntry(notice, "session"))

    async def on_unmount(self) -> None:
        """Detach from the engine; cancel sub-agents still running and wait for them."""
        if not self.attached:
            return
        self.events.detach()
        self.permissions.detach()
        self.compaction.detach()
        await self.session.stop_sub_agents()

    # -- showing engine state ---------------------------------------------------------------

    def refresh_skills(self) -> None:
        """Show the driver's skill states."""
        if self.attached:
            self.skills.show(self.controller.skill_rows())

    def refresh_budget(self) -> None:
        """Show the latest request's figures, or the dry run of the next one (in a worker)."""
        if not self.attached:
            return
        self.status.generation = self.driver.lineage.active.id
        self._panel_version += 1
        controller = self.controller
        sent = controller.sent_snapshot()
        if sent is None or controller.wants_preview():
            self._start_preview()
            return
        self._show_budget(controller.view_of(sent, False))

    def _start_preview(self) -> None:
        if not self._previewing:
            self._previewing = True
            self.preview_budget(self._panel_version)

    @work(thread=True, group="preview", exit_on_error=False)
    def preview_budget(self, version: int) -> None:
        """Assemble the dry run of the next request off the UI loop; post its figures."""
        try:
            result = ui.BudgetReady(self.controller.preview_view(), version=version)
        except Exception as error:  # the UI boundary: say why instead of crashing
            text = f"cannot assemble the request: {error}"
            result = ui.BudgetReady(None, text, version=version)
        self.post_message(result)

    @on(ui.BudgetReady)
    def _budget_ready(self, message: ui.BudgetReady) -> None:
        self._previewing = False
        if message.version != self._panel_version:
            # Out of date: the panel was refreshed while this dry run was assembled.
            if self.controller.wants_preview():
                self._start_preview()
            return
        self._show_budget(message.view, message.error)

    def _show_budget(self, view: BudgetView | None, error: str = "") -> None:
        if view is None:
            self.budget.show_error(error)
        else:
            self.budget.show(view)
        if self._starting:  # the panel's first figures: start-up ends once they are drawn
            self._starting = False
            self.call_after_refresh(self._started)

    # -- engine events ----------------------------------------------------------------------

    @on(ui.ReplyDelta)
    async def _reply_delta(self, message: ui.ReplyDelta) -> None:
        await self.conversation.reply_delta(message.text)

    @on(ui.ToolStarted)
    async def _tool_started(self, message: ui.ToolStarted) -> None:
        await self.conversation.tool_started(
            message.call_id, message.name, message.summary, message.arguments
        )

    @on(ui.ToolFinished)
    def _tool_finished(self, message: ui.ToolFinished) -> None:
        self.conversation.tool_finished(
            message.call_id, message.status, message.output, message.cut
        )
        if message.cut is not None:
            self.budget.show_cut(message.name, message.cut)

    @on(ui.MessageStored)
    async def _stored(self, message: ui.MessageStored) -> None:

        stored = message.message
        if stored.source == SUB_AGENT_RESULT_SOURCE:
            await self.conversation.add(NoticeEntry(result_notice(stored.content), "subagent"))
        elif stored.role == "user":
            await self.conversation.add(user_entry(stored.content, pin_key(stored)))
        elif stored.role == "assistant":
            await self.conversation.end_reply(stored.incomplete, pin_key(stored))
        elif stored.role == "tool":
            self.conversation.result_stored(stored.tool_call_id, pin_key(stored))

    @on(ui.PinsChanged)
    def _pins_changed(self) -> None:
        self.conversation.show_pins(self.driver.runner.lineage.pins)

    @on(ui.RequestSent)
    def _request_sent(self) -> None:
        self.refresh_budget()
        if self.driver.runner.context.pending_reloads:
            self.refresh_pending_reload()  # the cost of reloading grows with every request

    @on(ui.UsageReceived)
    def _usage(self, message: ui.UsageReceived) -> None:
        self.controller.observe_usage(message.usage)
        self.refresh_budget()

    @on(ui.HealthChanged)
    def _health(self, message: ui.HealthChanged) -> None:
        self.controller.observe_health(message.health)
        if message.health.severity != "info":
            self.notify(
                message.health.guidance, title="Session health", severity="warning", markup=False
            )

    @on(ui.Compacted)
    async def _compacted(self, message: ui.Compacted) -> None:
        outcome = message.outcome
        text = (
            f"compacted into generation {message.generation_id}: "
            f"{count(outcome.before_tokens)} → {token_count(outcome.after_tokens)}"
        )
        await self.conversation.add(NoticeEntry(text, "compaction"))
        self.refresh_budget()
        self.refresh_pending_reload()  # the compaction applied the pending file changes

    @on(ui.EngineNotice)
    async def _notice(self, message: ui.EngineNotice) -> None:
        if message.code in _KEPT_NOTICES:  # stays in the conversation, not only a toast
            await self.conversation.add(NoticeEntry(message.text, "warning"))
        if message.code == LOG_FAILED:  # nothing from here on is saved: said where it stays
            await self.conversation.add(NoticeEntry(message.text, "error"))
            self.notify(message.text, title="Session not saved", severity="error", markup=False)
        elif message.severity == "error":
            self.notify(message.text, title=message.code, severity="error", markup=False)
        else:
            self.notify(message.text, title=message.code, severity="warning", markup=False)

    @on(ui.SkillNotice)
    def _skill_notice(self, message: ui.SkillNotice) -> None:
        self.notify(
            message.text,
            title="Skills",
            severity="warning" if message.warning else "information",
            markup=False,
        )
        self.refresh_skills()

    @on(ui.SubAgentChanged)
    async def _sub_agent_changed(self, message: ui.SubAgentChanged) -> None:
        info = message.info
        panel = await self.sub_agent_panel()
        panel.update_agent(info)
        screen = self.app.screen
        if isinstance(screen, ChildTranscript) and screen.agent_id == info.id:
            screen.show_info(info)
        if not info.wait and not info.pending:
            after = "before its next call" if self.driver.busy else "with your next message"
            self.notify(
                f"{info.id} {info.state}: the model gets its result {after}",
                title="Sub-agent",
                markup=False,
            )

    async def sub_agent_panel(self) -> SubAgentPanel:
        """The sub-agent panel, mounted under the context panel the first time it is needed."""

        for panel in self.query(SubAgentPanel):
            return panel
        panel = SubAgentPanel(
            self.controller.sub_agent_transcript,
            columns=COMPACT_COLUMNS,
            id=SUB_AGENT_PANEL_ID,
            classes="-boxed",
        )
        await self.query_one("#budget-slot").mount(panel)
        self.refresh_bindings()
        return panel

    @property
    def has_sub_agents(self) -> bool:
        """Whether the sub-agent panel is mounted (a child was started)."""
        return bool(self.query(f"#{SUB_AGENT_PANEL_ID}"))

    def sub_agent_infos(self) -> tuple[SubAgentInfo, ...]:
        """Every sub-agent of the session (``SubAgentHost``)."""
        return self.controller.sub_agents()

    def open_sub_agent(self, agent_id: str) -> None:
        """Show ``agent_id``'s own transcript (``SubAgentHost``)."""
        # Screens are imported when first opened: the first frame needs only the workbench.
        from steiner_tui.app.screens.subagent_transcript import SubAgentTranscriptScreen

        transcript = self.controller.sub_agent_transcript
        info = next((i for i in self.controller.sub_agents() if i.id == agent_id), None)
        self.app.push_screen(SubAgentTranscriptScreen(agent_id, transcript, info))

    @on(ui.PermissionAsked)
    async def _permission(self, message: ui.PermissionAsked) -> None:
        # Shown, never focused: text typed ahead stays in the prompt editor, and only a
        # deliberate action answers (F8 or a click; see ``PermissionPrompt``).
        await self.conversation.add(PermissionEntry(message.request, message.answer))
        self.refresh_bindings()  # F8 shows while a request waits
        self.notify(
            f"{message.request.tool} asks for permission: F8 to answer",
            title="Permission",
            severity="warning",
            markup=False,
        )

    @on(ui.CompactionQuestionPosted)
    async def _compaction_question(self, message: ui.CompactionQuestionPosted) -> None:
        # Not focused, as a permission request is not: typing never answers it (F8 does).
        await self.conversation.add(CompactionEntry(message.question, message.answer))
        self.refresh_bindings()

    @on(ui.UnpinQuestionPosted)
    async def _unpin_question(self, message: ui.UnpinQuestionPosted) -> None:
        await self.conversation.add(UnpinEntry(message.question, message.answer))
        self.refresh_bindings()

    # -- live files -------------------------------------------------------------------------

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_files(self) -> None:
        """Follow AGENTS.md, project-context files and skill roots until the screen closes."""
        # watchfiles loads a native module: imported when the watcher starts, after the first frame.
        from watchfiles import awatch

        plan = self.controller.watch_plan

        async def follow(paths: tuple[Path, ...], recursive: bool) -> None:
            if paths:
                async for changes in awatch(*paths, recursive=recursive):
                    self.apply_file_changes(changes)

        await asyncio.gather(follow(plan.file_dirs(), False), follow(plan.root_dirs(), True))

    def apply_file_changes(self, changes: Iterable[tuple[object, str]]) -> frozenset[str]:
        """Handle a batch of watchfiles changes; returns the partitions they touched.

        AGENTS.md and project-context changes wait for the next compaction (the status line
        says so, with the cost of reloading now); skill folders refresh the sidebar at once.
        What the skills' rediscovery says for the first time (a broken skill, a duplicate name)
        is a toast, through the engine's events, and stays in the conversation as a warning,
        as the start's do; said again by the next rescan, it is not repeated.
        """
        changed = self.controller.apply_file_changes(Path(path) for _, path in changes)
        partitions = changed.partitions
        if StaticPartition.SKILLS in partitions:
            self.refresh_skills()
        for event in changed.skill_notices:
            message = to_ui_message(event)
            if isinstance(message, (ui.EngineNotice, ui.SkillNotice)):
                self.call_later(self.conversation.add, NoticeEntry(message.text, "warning"))
        pending = self.refresh_pending_reload()
        if pending is not None and partitions - {StaticPartition.SKILLS}:
            self.notify(
                pending.notice + " · ctrl+r reloads now", title="Files changed", markup=False
            )
        return frozenset(str(p) for p in partitions)

    def refresh_pending_reload(self) -> PendingReload | None:
        """Show the changes waiting for the next compaction (and their cost) in the status line."""
        pending = self.controller.pending_reload() if self.attached else None
        self.status.pending_reload = pending.short if pending is not None else ""
        self.refresh_bindings()  # the reload key shows only while something is pending
        return pending
