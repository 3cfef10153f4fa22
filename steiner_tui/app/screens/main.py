"""The main screen: skills on the left, the conversation and prompt, the context budget right.

The screen composes self-contained widgets and routes between them: the conversation shows
replies, tools, questions and how a run ended (``ConversationPane``), the context panel computes
its figures and steers (``BudgetPanel``), the sub-agent slot lists and opens children
(``BudgetSlot``), changed files wait in ``live_files``, completion is ``PromptCompletion``'s.
The session and its controllers are the screen's ``hold`` (``WorkbenchSession``); what is
submitted, the slash commands and skill toggles are ``SlashCommands``'. The screen keeps the
layout (``SidePanels``), its own keys and the run worker (``messages.run_to_end``). Engine
events arrive as one message, ``EngineUpdate``, in the order the engine emitted them. Runs
happen in one exclusive worker group; Esc cancels it and the runner keeps what streamed as an
interrupted reply; a message sent while one runs waits in the prompt's queue and goes when the
run ends (given back to the prompt if it was cancelled or failed). ``busy`` is the one run
state: the status line and the context panel are bound to it, and the footer follows it.

The session opens at once (tests, benchmarks) or after the first frame (a launch): until then
every key of the workbench shows dimmed and does nothing.
"""

from __future__ import annotations

import asyncio
import os
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import events, getters, on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import BindingType
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.screen import Screen

from steiner_tui.agent.delegation.model import SubAgentUpdated
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.app.adapter import skill_notice
from steiner_tui.app.cache_hint import cache_hint
from steiner_tui.app.commands import SubAgentCommands, WorkbenchCommands
from steiner_tui.app.draft_keeper import DraftKeeper
from steiner_tui.app.external_editor import EditorError, edit_text, editor_command
from steiner_tui.app.help_catalog import key_label
from steiner_tui.app.live_files import FileChangesShown
from steiner_tui.app.main_keys import MAIN_BINDINGS
from steiner_tui.app.messages import Asked, EngineUpdate, RunEnded, Said, WorkbenchReady, run_to_end
from steiner_tui.app.prompt_completion import PromptCompletion
from steiner_tui.app.screens.panel_layout import BREAKPOINTS, WIDE_FROM, SidePanels
from steiner_tui.app.session import opening_text, planned_model_label
from steiner_tui.app.slash import SlashCommand, parse_slash
from steiner_tui.app.slash_commands import SlashCommands
from steiner_tui.app.transcript import NoticeEntry, UserEntry
from steiner_tui.app.typing_route import TypingRouter
from steiner_tui.app.widgets.budget_panel import BudgetPanel
from steiner_tui.app.widgets.compaction_prompt import CompactionPrompt, QuestionLeft, UnpinPrompt
from steiner_tui.app.widgets.completion_list import CompletionList
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.cost_ranking import CostRanking
from steiner_tui.app.widgets.key_footer import KeyFooter
from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
from steiner_tui.app.widgets.prompt import PromptEditor
from steiner_tui.app.widgets.skill_list import SkillList
from steiner_tui.app.widgets.status_line import StatusLine, streaming_note
from steiner_tui.app.widgets.subagents import BudgetSlot
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.app.workbench_session import WorkbenchSession, follow_files
from steiner_tui.engine.events import CompactionApplied, RequestSnapshot, UsageReported
from steiner_tui.sessions.draft import Draft, read_draft
from steiner_tui.sessions.prompt_history import append_prompt, prompt_history_file, read_prompts

__all__ = ["MainScreen"]

_GIVEN_BACK = "What you queued is back in the prompt: Enter sends it."


def _given_back(dropped: list[str]) -> str:
    """What the conversation says when the queue goes back to the prompt (``dropped``: the
    queued commands that did not)."""
    if not dropped:
        return _GIVEN_BACK
    return f"{_GIVEN_BACK} Not run: {', '.join(dropped)}."


_EDITOR_BUSY = "the editor opens once the reply has ended (it would hold the reply while open)"


class MainScreen(Screen[None]):
    """The workbench."""

    # Its sheet, styles/main.tcss, is in SteinerApp.CSS_PATH (the default screen's own
    # CSS_PATH is not loaded by Textual).
    AUTO_FOCUS = ""  # the prompt takes focus on the first resume (``on_screen_resume``)
    COMMANDS: ClassVar = {WorkbenchCommands, SubAgentCommands}
    HORIZONTAL_BREAKPOINTS = BREAKPOINTS
    HELP_WIDGETS: ClassVar = (
        SkillList, ConversationPane, ToolBlock, PermissionPrompt, CompactionPrompt, UnpinPrompt,
        BudgetPanel, CostRanking, WhatIfView,
    )  # fmt: skip
    """Widgets whose keys F1 lists even before one is on screen (``help_catalog``)."""
    BINDINGS: ClassVar[list[BindingType]] = list(MAIN_BINDINGS)
    """The workbench's own keys (``main_keys``)."""

    busy: reactive[bool] = reactive(False, bindings=True)
    """A run was started and has not ended (set before its worker starts, so a second Enter
    cannot start another run, which the exclusive worker group would cancel)."""
    opened: reactive[bool] = reactive(False, bindings=True)
    """The session is shown (until then the workbench's keys are drawn dimmed)."""
    pending_reload: reactive[bool] = reactive(False, bindings=True)
    """Files changed on disk wait for the next compaction (Ctrl+R reloads them now)."""

    conversation = getters.query_one("#conversation", ConversationPane)
    prompt = getters.query_one("#prompt", PromptEditor)
    budget = getters.query_one("#budget", BudgetPanel)
    status = getters.query_one("#status", StatusLine)
    slot = getters.query_one(BudgetSlot)

    def __init__(
        self, request: SessionRequest, *, defer_open: bool = False, draft: Draft | None = None
    ) -> None:
        super().__init__()
        self.request = request
        """What the session is built from (configuration included)."""
        self.hold = WorkbenchSession(request)
        """The session, its controllers and the adapters that post its events here."""
        self.skills = SkillList(id="skills")
        """The skills sidebar (mounted once it is shown or filled)."""
        self.panels = SidePanels(self, self.skills)
        """Docking by width, F9 / F10 and ``/context``."""
        self.commands = SlashCommands(self, self)
        """The slash commands (and F4)."""
        burst = request.config.typing_burst
        self.typing = TypingRouter(self, lambda: self.prompt, burst=burst)
        """Printable keys and pastes to the prompt, whatever has focus (``typing_route``)."""
        self.files = FileChangesShown(self)
        """Changed files: pending reloads (Ctrl+R) and the skills sidebar (``live_files``)."""
        self._open_after_first_frame = defer_open
        self.draft = DraftKeeper(self, self._session_folder)
        """The prompt's unsent text, kept as the session's draft while it is typed."""
        self._carried = draft
        """Typed in the app this one replaces (trusting the folder opens the app again)."""
        if not defer_open:
            self.hold.open()

    def compose(self) -> ComposeResult:
        # Flat: no wrapper containers (each costs a full-height paint and restyling on focus).
        # The footer, the status line and the side panels are splits (styles/main.tcss); the
        # focus order (skills, conversation, prompt, context) is the order of focusables.
        yield KeyFooter()
        yield StatusLine(id="status").data_bind(MainScreen.busy)
        if self.hold.attached or self.app.size.width >= WIDE_FROM:
            yield self.skills  # docked in the first frame (else mounted when first needed)
        yield ConversationPane(id="conversation", empty=opening_text(self.request))
        blink = self.request.config.cursor_blink
        yield PromptEditor(
            self.request.project_root, id="prompt", cursor_blink=blink, model_reads=self._reads
        )
        # A new session's panel first shows the dry run: composed with its class, the figures
        # restyle nothing when they come (a class added restyles the panel and its widgets).
        first = "-preview" if self.request.resume is None else None
        with BudgetSlot(id="budget-slot"):  # the sub-agent panel mounts under the budget
            yield BudgetPanel(id="budget", classes=first).data_bind(MainScreen.busy)

    def _reads(self) -> bool:
        """Whether the model can call its read tool (a server may ignore tools)."""
        return not (self.hold.attached and self.hold.session.driver.runner.model.tools_ignored)

    def on_mount(self) -> None:
        """Take the width's class before the first frame (Textual sets it on the first resize,
        after that frame: it would be laid out twice), and attach to the engine."""
        self.add_class(self.panels.first_class(self.app.size.width), update=False)
        self.completion = PromptCompletion(self.prompt, self.hold)
        self.status.project = self.request.project_root.name or str(self.request.project_root)
        self.watch(self, "focused", self._show_cache_hint, init=False)
        self.watch(self.budget, "cache_actions", self._show_cache_hint, init=False)
        for name in ("waiting", "compacting"):  # what the run waits on, what it is doing
            self.watch(self.conversation, name, partial(setattr, self.status, name))
        if self.hold.attached:
            self._show_session()
        else:
            try:
                self.status.model = planned_model_label(self.request)
            except ValueError as error:  # the session will not open: it says why
                self.status.model = str(error)

    # -- opening and closing ---------------------------------------------------------------

    def _show_session(self) -> None:
        """Show the session's state and start receiving its events."""
        hold, controller, steering = self.hold, self.hold.controller, self.hold.steering
        self.status.model, self.status.mode = controller.model_label, hold.driver.mode
        self.status.compaction, self.conversation.steering = steering.mode, steering
        keymap = self.request.config.keymap
        self.conversation.retry_label = key_label(keymap.get("main.retry", "f5"))
        self.prompt.project_root = hold.session.project_root
        self.budget.attach(controller, steering)
        self.slot.attach(controller)
        hold.attach(self)
        self.refresh_skills()
        self.run_worker(self._show_conversation(hold.session), group="load", exclusive=True)
        self.budget.learn_model_limits()
        self.opened = True  # the keys are drawn enabled

    async def _show_conversation(self, session: Session) -> None:
        await self.conversation.show_session(session)
        await self.slot.show_earlier()
        # Up recalls what was sent in the project before, then what a resumed session sent.
        history = self.prompt.prompt_history
        if self.request.config_dir is not None:
            kept = prompt_history_file(self.request.config_dir, session.project_root)
            for text in await asyncio.to_thread(read_prompts, kept):
                history.push(text)
            self.prompt.keep_prompt = partial(self._keep_prompt, kept)
        for entry in self.conversation.entries:
            if isinstance(entry, UserEntry):
                history.push(entry.text)
        await self._restore_draft(session)
        # Focusing restyles the prompt, the watcher loads a native module: none is needed to
        # see it. The dry run and the SDK's import are threads: started before the frame that
        # draws a resumed conversation, they took the interpreter from it (text typed at its
        # first frame showed 60-90 ms later at 10,000 messages). A new session's panel fills
        # sooner with its dry run started at once.
        self._focus_prompt()
        if self.conversation.entries:
            self.call_after_refresh(self._after_conversation_shown)
        else:
            self._after_conversation_shown()

    def _keep_prompt(self, path: Path, text: str) -> None:
        """Append ``text`` to the project's prompt history, off the event loop (a history
        that cannot be written loses only that convenience)."""
        work = partial(append_prompt, path, text)
        self.run_worker(work, thread=True, group="history", exit_on_error=False)

    async def _restore_draft(self, session: Session) -> None:
        """Put back what was typed and not sent when the app last quit (``sessions.draft``)."""
        if self._carried is not None:
            self.prompt.restore(self._carried.text, self._carried.pastes)
        if session.log is None:
            return
        try:
            draft = read_draft(session.log.session_dir)
        except ValueError as error:
            notice = f"the message you had not sent was not restored: {error}"
            await self.conversation.add(NoticeEntry(notice, "warning"))
            return
        if draft is None or not draft.text.strip():
            return
        self.prompt.restore(draft.text, draft.pastes)
        lines = draft.text.count("\n") + 1
        size = "1 line" if lines == 1 else f"{lines:,} lines"
        notice = f"the message you had not sent ({size}) is back in the prompt"
        await self.conversation.add(NoticeEntry(notice))

    def _session_folder(self) -> Path | None:
        session = self.hold.session if self.hold.attached else None
        return session.log.session_dir if session is not None and session.log else None

    def unsent(self) -> Draft:
        """What is typed in the prompt and not sent."""
        return Draft(*self.prompt.unsent())

    def keep_draft(self) -> str | None:
        """Keep what is typed and not sent as the session's draft (the app is quitting); what
        went wrong, if anything."""
        try:
            draft = self.unsent()
        except NoMatches:  # a second quit once the screen is taken down
            return None
        try:
            self.draft.keep_now(draft)
        except OSError as error:
            return f"the message you had not sent could not be kept: {error}\n\n{draft.text}"
        return None

    def _after_conversation_shown(self) -> None:
        self.refresh_budget()
        self.run_worker(self.hold.warm(), group="warm", exit_on_error=False)

    def on_screen_resume(self) -> None:
        """Focus the prompt when nothing is focused on coming back; the first resume of a
        launch opens the session once the first frame is drawn (what is typed meanwhile goes
        into the focused prompt, in order)."""
        if self.is_mounted:
            self._focus_prompt()
        if self._open_after_first_frame:
            self._open_after_first_frame = False
            self.call_next(self._open_deferred)  # after Textual draws the first frame

    def _open_deferred(self) -> None:
        if (failed := self.hold.try_open()) is not None:
            self.app.exit(failed)
            return
        self._show_session()

    def _focus_prompt(self) -> None:
        if self.focused is None:  # at once, not after the next frame as ``Widget.focus`` does
            self.set_focus(self.prompt, scroll_visible=False)

    @on(BudgetPanel.WindowShown)
    def _window_shown(self, message: BudgetPanel.WindowShown) -> None:
        self.status.window = message.window

    @on(BudgetPanel.Shown)
    def _started(self) -> None:
        if self.request.config.watch_files:
            plan = self.hold.controller.watch_plan
            self.run_worker(follow_files(plan, self.files.apply), group="watch")
        self.post_message(WorkbenchReady())

    async def on_unmount(self) -> None:
        """Detach from the engine; cancel sub-agents still running and wait for them; close the
        providers' connections."""
        await self.hold.close()

    # -- showing engine state ---------------------------------------------------------------

    def refresh_skills(self) -> None:
        """Show the driver's skill states (mounting the sidebar the first time)."""
        if self.hold.attached:
            self.panels.mount_skills(self.conversation)
            self.skills.show(self.hold.controller.skill_rows())

    def refresh_budget(self) -> None:
        """Show the latest request's figures, or the dry run of the next one (in a worker)."""
        if self.hold.attached:
            self.status.generation = self.hold.driver.lineage.active.id
            self.budget.refresh_figures()

    @on(EngineUpdate)
    async def _engine_event(self, message: EngineUpdate) -> None:
        event = message.event
        self.status.streaming = streaming_note(event, self.status.streaming)
        await self.conversation.show_event(event)
        self.budget.observe(event)
        self.files.observe(event)
        if isinstance(event, RequestSnapshot | CompactionApplied | UsageReported):
            self.refresh_budget()
            if isinstance(event, RequestSnapshot):  # its envelopes are sent: no longer pending
                self.refresh_skills()
        elif isinstance(event, SubAgentUpdated):
            await self.slot.show_agent(event.info, self.hold.driver.busy)
        if (said := skill_notice(event)) is not None:
            self.notify(said[0], title="Skills", severity="warning" if said[1] else "information")
            self.refresh_skills()

    @on(Asked)
    async def _asked(self, message: Asked) -> None:
        await self.conversation.ask(message.entry)

    @on(Said)
    async def _said(self, message: Said) -> None:
        await self.conversation.add(NoticeEntry(message.text, message.kind))
        if message.kind == "steer":
            self.status.compaction = self.hold.steering.mode
            self.refresh_budget()

    # -- the side panels ----------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        """A width that docks the sidebar shows it, mounted if it is not yet."""
        if self.panels.shown("skills"):
            self.panels.mount_skills(self.conversation)

    def action_toggle_panel(self, panel: str) -> None:
        """Show or hide a side panel (F9: skills, F10: context), at any width."""
        self.panels.show_or_hide(panel, self.budget, self.conversation, self.prompt)

    def action_close_panel(self) -> None:
        """Esc: the panel over the conversation closes (``/context``'s goes back to its size)."""
        panel = self.panels.over_conversation()
        if self.has_class("-context"):
            self.action_context()
        elif panel is not None:
            self.action_toggle_panel(panel)

    def action_context(self) -> None:
        """``/context``: the context panel enlarged, over the conversation."""
        self.panels.enlarge_context(self.budget, self.prompt)

    def action_focus_subagents(self) -> None:
        """Focus the sub-agent panel (showing the context panel); before the first
        delegation there is none, and F3 says so."""
        if self.slot.has_sub_agents and not self.panels.shown("context"):
            self.action_toggle_panel("context")
        self.slot.focus_agents()

    # -- keys ---------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Cancel shows only while a run is generating (Esc closes a panel over the
        conversation otherwise), Retry while a message is unanswered, Answer while a question
        waits, Reload while changed files wait. Until the session is open every key of the
        workbench shows dimmed and does nothing."""
        if not self.hold.attached:
            return None
        if action == "cancel_run":
            return self.busy
        if action == "interrupt":  # else Ctrl+C goes on to the app ("Press Ctrl+Q to quit.")
            return self.busy or bool(self.get_selected_text() or self.prompt.text.strip())
        if action == "close_panel":
            return not self.busy and self.panels.over_conversation() is not None
        if action == "retry":
            return not self.busy and self.conversation.unanswered() is not None
        if action == "answer_permission":
            return self.conversation.waiting
        if action == "reload_context":
            return self.pending_reload and not self.busy
        return True

    def action_reload_context(self) -> None:
        """Apply the files changed on disk now instead of at the next compaction."""
        self.files.reload_now()

    async def action_answer_permission(self) -> None:
        """Focus the waiting question (its keys and buttons answer it)."""
        await self.conversation.turn_to_question()

    @on(PermissionPrompt.Done)
    @on(QuestionLeft)
    def _question_left(self) -> None:
        self.prompt.focus()

    def action_interrupt(self) -> None:
        """Ctrl+C: copy the text selected in the conversation, as on any screen (this key
        takes Textual's copy over on this one), else stop the reply, else clear the prompt as
        a shell drops its line (Claude Code and aider do so too), the text kept in its history."""
        if self.get_selected_text():
            self.action_copy_text()
        elif self.busy:
            self.action_cancel_run()
        elif self.prompt.set_aside():
            self.notify("prompt cleared: Up brings its text back", title="Prompt")

    def action_cancel_run(self) -> None:
        """Cancel the running reply or compaction."""
        if self.busy:
            self.workers.cancel_group(self, "run")

    def action_toggle_mode(self) -> None:
        """Switch plan/build; with a conversation entry focused, Shift+Tab moves the focus
        back instead (as Tab moves it on)."""
        focused = self.focused
        if focused is not None and self.conversation in focused.ancestors:
            self.focus_previous()
            return
        mode = self.status.mode = self.hold.controller.toggle_mode()
        self.refresh_budget()  # the panel shows the dry run, the notice in it
        self.notify(f"{mode} mode: the notice goes out with your next message", title="Mode")

    async def action_cycle_compaction(self) -> None:
        """Switch to the next compaction mode (auto, ask, off)."""
        await self.commands.cycle_compaction()

    @on(BudgetPanel.InspectRequested)
    async def action_inspect(self) -> None:
        """Open the inspector on the latest request."""
        await self.run_action("app.inspector")

    def action_sessions(self, session_id: str = "") -> None:
        """Open the sessions screen (or resume ``session_id``)."""
        self.commands.sessions(session_id)

    @on(SkillList.ToggleRequested)
    def _toggle_requested(self, event: SkillList.ToggleRequested) -> None:
        if self.hold.attached:  # the sidebar lists no skill before, so this is a safeguard
            self.commands.toggle_skill(event.name)

    # -- the prompt -------------------------------------------------------------------------

    @on(PromptEditor.Submitted)
    async def _submitted(self, event: PromptEditor.Submitted) -> None:
        text = await self.commands.submit(event.text, event.editor, self.completion)
        if text is not None:  # a message to send (not a command, nothing in the way)
            self._send(text)

    def _send(self, text: str) -> None:
        self.busy = True
        self.run_episode(text)
        self.draft.sent(self.unsent())  # a killed app must not give back a message that went

    @on(PromptEditor.Changed, "#prompt")
    def _prompt_changed(self) -> None:
        self.completion.update(load_sessions=self.hold.attached)
        self.draft.changed(self.prompt.unsent)
        self._show_cache_hint()

    def _show_cache_hint(self) -> None:
        """Say in the status line what the action about to be taken does to the cache."""
        focused = self.focused.id if self.focused is not None else None
        actions = self.budget.cache_actions
        # Asked only once something is cached: a restored draft fills the prompt before the
        # session (and its controller) has opened.
        self.status.cache_hint = cache_hint(
            self.prompt.text,
            focused or "",
            actions,
            lambda ref: self.hold.controller.model_effect(ref),
        )

    @on(PromptEditor.EditorRequested)
    def _edit_in_editor(self) -> None:
        if self.busy:  # the editor holds the event loop: the reply would stop streaming
            self.post_message(Said(_EDITOR_BUSY, "warning"))
            return
        try:
            command = editor_command(os.environ)
            text = edit_text(self.prompt.text, command, self.app.suspend)
        except SuspendNotSupported:
            self.post_message(Said("this terminal cannot be handed to an editor", "warning"))
        except EditorError as error:
            self.post_message(Said(f"{error}: the prompt is unchanged", "warning"))
        else:
            self.prompt.edited(text)

    @on(PromptEditor.ScrollRequested)
    async def _scroll_from_prompt(self, event: PromptEditor.ScrollRequested) -> None:
        await self.conversation.scroll_from_prompt(event.key)

    @on(PromptEditor.CompletionRequested)
    def _completion_key(self, event: PromptEditor.CompletionRequested) -> None:
        self.completion.act(event.action)

    @on(CompletionList.Accepted)
    def _completion_clicked(self, event: CompletionList.Accepted) -> None:
        self.completion.accept(event.completion)

    # -- runs -------------------------------------------------------------------------------

    def action_retry(self) -> None:
        """Send the unanswered message once more (the runner does not store it twice)."""
        text = self.conversation.unanswered()
        if text is not None and not self.busy:
            self.busy = True
            self.run_episode(text)

    def action_compact(self, steering: str = "") -> None:
        """Compact now (``/compact [focus]``)."""
        if self.busy:
            self.post_message(Said("cannot compact while a reply is generating", "warning"))
            return
        self.busy = True
        self.run_compaction(steering)

    @work(exclusive=True, group="run", exit_on_error=False)
    async def run_episode(self, text: str) -> None:
        """Send ``text`` and run the episode; the end is posted as ``RunEnded``."""
        await run_to_end(self.hold.driver.submit(text), self.post_message)

    @work(exclusive=True, group="run", exit_on_error=False)
    async def run_compaction(self, steering: str) -> None:
        """Compact now; the end is posted as ``RunEnded``."""
        await run_to_end(self.hold.driver.compact(steering), self.post_message, compaction=True)

    @on(RunEnded)
    async def _run_ended(self, message: RunEnded) -> None:
        if not self.is_attached:  # the app exits (its exit cancelled the run): nothing to show
            return
        await self.conversation.run_ended(message.status, message.detail, message.compaction)
        self.busy = False
        self.refresh_skills()
        self.refresh_budget()
        if not self.prompt.has_focus:
            self.prompt.focus()
        if self.prompt.queued and message.status == "done":
            await self._take_queue()
        elif self.prompt.queued:  # cancelled or failed: the person decides what goes next
            await self._give_back()

    async def _take_queue(self) -> None:
        """Go on with the queue: its commands in order, up to a message sent or a compaction
        started (whose run's end takes the rest)."""
        while self.prompt.queued:
            text, command = self.prompt.take_queued()
            if not command:
                self.conversation.last_sent = text
                self._send(text)
                return
            parsed = parse_slash(text)  # a queued command: /model NAME or /compact
            argument = parsed.argument if isinstance(parsed, SlashCommand) else ""
            if isinstance(parsed, SlashCommand) and parsed.name == "model":
                if not self.commands.model(argument):
                    self.call_later(self._give_back)  # after the failure it posted
                    return
                continue
            self.action_compact(argument)
            return

    async def _give_back(self) -> None:
        dropped = self.prompt.unqueue()
        await self.conversation.add(NoticeEntry(_given_back(dropped), "warning"))
