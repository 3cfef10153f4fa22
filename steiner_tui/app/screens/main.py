"""The main screen: skills on the left, the conversation and prompt, the context budget right.

The screen routes: widgets post what the user asked for, the adapter posts what the engine did,
and the screen calls the controller (engine side) and tells widgets what to show. Runs happen in
one exclusive async worker group, so engine events arrive on the UI loop in order; Esc cancels
that worker and the runner keeps what streamed as an interrupted reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container

from steiner_tui.agent.interactive import DriverRefusal
from steiner_tui.app import messages as ui
from steiner_tui.app.commands import SubAgentCommands, WorkbenchCommands
from steiner_tui.app.completion import CompletionSources
from steiner_tui.app.help_catalog import key_label
from steiner_tui.app.paste import byte_size, paste_notice, save_pastes
from steiner_tui.app.prompt_completion import PromptCompletion
from steiner_tui.app.resend import resend_text
from steiner_tui.app.resume_request import ResumeRequest
from steiner_tui.app.screens.panel_layout import PanelLayoutScreen
from steiner_tui.app.session import model_label, planned_model_label
from steiner_tui.app.slash import SlashCommand, UnknownSlashCommand, parse_slash
from steiner_tui.app.steer_slash import STEER_COMMANDS, run_steer_command
from steiner_tui.app.transcript import NoticeEntry, error_entry
from steiner_tui.app.typing_route import route_typing
from steiner_tui.app.widgets.budget_panel import BudgetPanel
from steiner_tui.app.widgets.compaction_prompt import CompactionPrompt, QuestionLeft, UnpinPrompt
from steiner_tui.app.widgets.completion_list import CompletionList
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.cost_ranking import CostRanking
from steiner_tui.app.widgets.key_footer import KeyFooter
from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
from steiner_tui.app.widgets.prompt import PromptEditor
from steiner_tui.app.widgets.skill_list import SkillList
from steiner_tui.app.widgets.status_line import StatusLine
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.config import ConfigError
from steiner_tui.engine.compaction.escalation import replacement_refusal
from steiner_tui.engine.skills.delta import SkillStatus
from steiner_tui.sessions import SessionStore

__all__ = ["MainScreen"]

_RUN = Binding.Group("Run")
_PANELS = Binding.Group("Panels", compact=True)


def _saved(store: SessionStore, session_id: str) -> bool:
    try:
        return store.exists(session_id)
    except ValueError:  # not a session id at all
        return False


class MainScreen(PanelLayoutScreen):
    """The workbench."""

    # Its sheet, styles/main.tcss, is in SteinerApp.CSS_PATH (the default screen's own
    # CSS_PATH is not loaded by Textual).
    AUTO_FOCUS = ""  # the prompt takes focus on the first resume (``on_screen_resume``)
    COMMANDS: ClassVar = {WorkbenchCommands, SubAgentCommands}
    _last_sent: str | None = None
    """The text of the last message sent from this screen (F5 resends it)."""
    HELP_WIDGETS: ClassVar = (
        SkillList, ConversationPane, ToolBlock, PermissionPrompt, CompactionPrompt, UnpinPrompt,
        BudgetPanel, CostRanking, WhatIfView,
    )  # fmt: skip
    """Widgets whose keys F1 lists even before one is on screen (``help_catalog``)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_run", "Cancel", id="main.cancel", group=_RUN,
                tooltip="Stop the reply; what streamed is kept and marked interrupted"),
        Binding("shift+tab", "toggle_mode", "Mode", id="main.toggle_mode", key_display="⇧Tab",
                tooltip="Switch plan/build mode; the notice goes out with your next message"),
        Binding("ctrl+l", "app.lineage", "Lineage", id="main.lineage",
                tooltip="Browse compaction generations"),
        Binding("f2", "inspect", "Inspect", id="main.inspector",
                tooltip="Inspect the latest request"),
        Binding("ctrl+o", "sessions", "Sessions", id="main.sessions", show=False,
                tooltip="Saved sessions: Enter resumes one, d deletes one"),
        Binding("f3", "focus_subagents", "Sub-agents", id="main.subagents",
                tooltip="Focus the sub-agent panel (Enter opens a child's transcript)"),
        Binding("f9", "toggle_panel('skills')", "Skills", id="main.toggle_skills", group=_PANELS,
                tooltip="Show or hide the skills sidebar (over the conversation when narrow)"),
        Binding("f10", "toggle_panel('context')", "Context", id="main.toggle_context",
                group=_PANELS,
                tooltip="Show or hide the context panel (over the conversation when narrow)"),
        Binding("ctrl+r", "reload_context", "Reload files", id="main.reload_context",
                tooltip="Apply AGENTS.md / project-context changes now (re-sends the cached "
                "prefix); otherwise they apply at the next compaction"),
        Binding("f5", "retry", "Retry", id="main.retry", group=_RUN,
                tooltip="Send the message that got no reply, or whose reply an error cut off, "
                "once more (it is not stored twice)"),
        Binding("f8", "answer_permission", "Answer", id="main.permission", group=_RUN,
                tooltip="Turn to the tool's permission request (then a, A, r or R; typing "
                "never answers one)"),
    ]  # fmt: skip
    """Run control, mode, screens, sub-agents, the side panels and the permission key (shown
    while a request waits; F3 says so when there is no sub-agent yet). Skills' 1-9 belong to
    the sidebar (``SkillList``)."""

    def compose(self) -> ComposeResult:
        # Flat: no wrapper containers (each costs a full-height paint and restyling on focus).
        # The footer, the status line and the side panels are splits (styles/main.tcss), taken
        # off the screen's edges in this order; the conversation and the prompt fill the rest.
        # The focus order (skills, conversation, prompt, context) is the order of focusables.
        # The side panels fill once the session is open; the context panel's dry-run request
        # waits for the first frame (``_fill_budget``).
        yield KeyFooter()
        yield StatusLine(id="status")
        yield from self.first_frame_skills()
        yield ConversationPane(id="conversation")
        yield PromptEditor(id="prompt", cursor_blink=self.request.config.cursor_blink)
        # The completion dropdown (#completions) mounts after the prompt when first needed.
        # A new session's panel first shows the dry run: composed with its class, the figures
        # restyle nothing when they come (a class added restyles the panel and its widgets).
        first = "-preview" if self.request.resume is None else None
        with Container(id="budget-slot"):  # the sub-agent panel mounts under the budget
            yield BudgetPanel(id="budget", classes=first)

    def on_mount(self) -> None:
        """Attach to the engine (a deferred session opens after the first frame)."""
        self.completion = PromptCompletion(
            self.prompt,
            lambda dropdown: self.mount(dropdown, after=self.prompt),
            self.completion_sources,
            lambda: self.request.sessions_dir,
        )
        self.status.project = self.request.project_root.name
        if self.attached:
            self._show_session()
            self.call_after_refresh(self._after_first_frame)
        else:
            try:
                self.status.model = planned_model_label(self.request)
            except ValueError as error:  # the session will not open: it says why
                self.status.model = str(error)
            self._open_after_first_frame = True  # on the first resume (``on_screen_resume``)

    # -- prompt and commands ----------------------------------------------------------------

    @on(PromptEditor.Submitted)
    async def _submitted(self, event: PromptEditor.Submitted) -> None:
        if not self.attached:  # typed before the session opened: the text stays in the prompt
            self.notify("The session is still opening.", severity="warning", markup=False)
            return
        try:
            parsed = parse_slash(event.text)
        except UnknownSlashCommand as error:
            if self.completion.accept(self.completion.chosen):
                return  # Enter on "/mo" completes it
            self.notify(str(error), title="Unknown command", severity="error", markup=False)
            return
        if isinstance(parsed, SlashCommand):
            event.editor.sent(event.text)
            self.completion.sent()
            await self.run_slash(parsed)
            return
        if self.busy:
            self.notify(
                "A reply is still generating: wait, or press Esc to cancel it. "
                "Your text stays in the prompt.",
                title="Busy",
                severity="warning",
                markup=False,
            )
            return
        event.editor.sent(event.text)
        self._last_sent = parsed
        self._set_busy(True)
        self.run_episode(parsed)

    async def run_slash(self, command: SlashCommand) -> None:
        """Carry out a slash command."""
        name = command.name
        if name == "compact":
            self.action_compact(command.argument)
        elif name == "context":
            self.action_context()
        elif name == "lineage":
            await self.run_action("app.lineage")
        elif name == "skills":
            self.skill_command(command.argument)
        elif name == "model":
            self.model_command(command.argument)
        elif name == "sessions":
            self.action_sessions(command.argument)
        elif name == "clear":
            await self.clear_conversation()
        elif name == "help":
            await self.run_action("app.help")
        elif name == "whatif":
            await self.what_if_command(command.argument)
        elif name == "compaction":
            await self.compaction_command(command.argument)
        elif name in STEER_COMMANDS:
            await self.steer(name, command.argument)

    async def steer(self, name: str, argument: str) -> None:
        """``/pin``, ``/unpin``, ``/pins``: a notice says what was done (``steer_slash``)."""
        try:
            text = run_steer_command(self.steering, name, argument)
        except ValueError as error:
            self.notify(str(error), title=f"/{name}", severity="warning", markup=False)
            return
        await self._steer_notice(text)

    def model_choices(self) -> Sequence[str]:
        """The configured model references (``/model NAME`` switches to one)."""
        return self.session.model_refs if self.attached else ()

    def skill_command(self, name: str) -> None:
        """``/skills [name]``: toggle skill ``name``; alone, focus the sidebar."""
        if not name:
            if self.panel_shown("skills"):
                self.skills.focus()
            else:
                self.action_toggle_panel("skills")  # shown (over the conversation) and focused
            return
        names = [row.name for row in self.skill_rows()]
        if name not in names:
            known = ", ".join(names) or "none"
            self.notify(
                f"no skill named {name!r} (skills: {known})",
                title="Skills",
                severity="error",
                markup=False,
            )
            return
        self.toggle_skill(name)

    def model_command(self, name: str) -> None:
        """``/model [name]``: switch to configured model ``name``; alone, show the model."""
        if not name:
            self.notify(self.controller.model_summary(), title="Model", timeout=12, markup=False)
            return
        self.switch_model(name)

    def switch_model(self, ref: str) -> None:
        """Switch the session to model ``ref`` from the next request on (validated by
        resolving it from the configuration, as at start)."""
        before = self.driver.runner.model.ref
        try:
            model = self.session.switch_model(ref)
        except (ConfigError, DriverRefusal) as error:
            known = ", ".join(self.session.model_refs) or "none in [models]"
            self.notify(
                f"cannot switch to {ref!r}: {error} (configured: {known})",
                title="Model",
                severity="error",
                markup=False,
            )
            return
        self.status.model = model_label(model)
        self.call_later(self.conversation.add, NoticeEntry(f"model: {before} → {model.ref}"))
        self.refresh_budget()
        self.learn_model_limits()

    async def clear_conversation(self) -> None:
        """``/clear``: a new, empty conversation (refused while a run generates)."""
        if self.busy and not self.driver.busy:  # a run is starting: the driver is not busy yet
            self.notify(
                "cannot replace the conversation now: a run is starting",
                severity="warning",
                markup=False,
            )
            return

        try:
            self.controller.clear()
        except DriverRefusal as refusal:
            self.notify(str(refusal), title="Not now", severity="warning", markup=False)
            return

        await self.conversation.load([])
        await self.conversation.add(NoticeEntry("new conversation", "clear"))
        self.refresh_skills()
        self.refresh_budget()

    def action_sessions(self, session_id: str = "") -> None:
        """Open the sessions screen (or resume ``session_id``, ``/sessions ID``); resuming
        another session restarts the workbench on it."""
        config_dir = self.session.config_dir
        if config_dir is None:
            self.notify(
                "sessions are not recorded here (no config folder)",
                severity="warning",
                markup=False,
            )
            return
        # Screens are imported when first opened: the first frame needs only the workbench.
        from steiner_tui.app.screens.sessions import SessionsScreen

        current = self.session.session_id

        def resume(session_id: str | None) -> None:
            if not session_id or session_id == current:
                return
            refusal = replacement_refusal(self.busy, self.driver.pending_sub_agents)
            if refusal is not None:
                self.notify(
                    f"cannot switch sessions now: {refusal}", severity="warning", markup=False
                )
                return
            self.app.exit(ResumeRequest(session_id))

        store = SessionStore(config_dir / "sessions")
        if session_id:
            if session_id == current:
                self.notify(f"{session_id} is the session open now", title="Sessions", markup=False)
            elif not _saved(store, session_id):
                self.notify(
                    f"no saved session {session_id!r} (/sessions lists them)",
                    title="Sessions",
                    severity="error",
                    markup=False,
                )
            else:
                resume(session_id)
            return
        self.app.push_screen(SessionsScreen(store, current), resume)

    def action_compact(self, steering: str = "") -> None:
        """Compact now (``/compact [focus]``)."""
        if self.busy:
            self.notify(
                "cannot compact while a reply is generating", severity="warning", markup=False
            )
            return
        self._set_busy(True)
        self.run_compaction(steering)

    @property
    def busy(self) -> bool:
        """A run was started and has not ended (set before its worker starts, so a second
        Enter cannot start another run, which the exclusive worker group would cancel)."""
        return self.status.busy or self.driver.busy

    def _set_busy(self, busy: bool) -> None:
        self.status.busy = busy
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Cancel shows only while a run is generating (idle, Escape has nothing to stop, and
        the 80-column footer needs its room: F1 lists it); the reload key while files changed
        on disk wait for the next compaction.

        Until the session is open (a launch opens it after the first frame) every key of the
        workbench shows dimmed and does nothing.
        """
        if not self.attached:
            return None
        if action == "cancel_run":
            return self.busy
        if action == "retry":
            return self._unanswered() is not None and not self.busy
        if action == "answer_permission":
            return self._open_permission() is not None
        if action == "reload_context":
            return bool(self.driver.runner.context.pending_reloads) and not self.busy
        if action == "pin_focused":  # elsewhere ``p`` is typed into the prompt
            return True if self.pin_target() else None
        return True

    def action_reload_context(self) -> None:
        """Apply the files changed on disk now instead of at the next compaction."""
        if self.busy:
            self.notify("wait for the reply to finish", severity="warning", markup=False)
            return
        pending = self.controller.pending_reload()
        reloaded = self.controller.reload_now()
        self.refresh_pending_reload()
        if reloaded and pending is not None:
            self.refresh_budget()
            self.notify(
                f"reloaded {pending.label} for the next request",
                title="Files changed",
                markup=False,
            )

    # -- completion -------------------------------------------------------------------------

    def completion_sources(self) -> CompletionSources:
        """What ``/model``, ``/skills`` and ``/sessions`` arguments can name."""
        if not self.attached:
            return CompletionSources()
        current = self.driver.runner.model.ref
        refs = dict.fromkeys([*self.session.model_refs, current])
        models = [(ref, "current" if ref == current else "") for ref in refs]
        skills = [(row.name, row.state.replace("_", " ")) for row in self.skill_rows()]
        return CompletionSources(models, skills)

    @on(PromptEditor.Changed, "#prompt")
    def _prompt_changed(self) -> None:
        self.completion.update()
        if self.completion.wants_sessions and self.attached:
            self.run_worker(self.completion.load_sessions(), group="completion", exclusive=True)

    @on(PromptEditor.CompletionRequested)
    def _completion_key(self, event: PromptEditor.CompletionRequested) -> None:
        self.completion.act(event.action)

    @on(CompletionList.Accepted)
    def _completion_clicked(self, event: CompletionList.Accepted) -> None:
        self.completion.accept(event.completion)

    # -- errors and retrying -----------------------------------------------------------------

    def _unanswered(self, *, erred: bool = False) -> str | None:
        """The text F5 sends again (``resend_text``: the person's last message when it got no
        reply, or an error cut its reply off), else None."""
        if not self.attached:
            return None
        entries = self.conversation.entries
        return resend_text(self.driver.runner.conversation, entries, self._last_sent, erred=erred)

    def _retry_key(self, *, erred: bool = False) -> str:
        """The key that resends (as the keymap has it), "" when there is nothing to resend."""
        if self._unanswered(erred=erred) is None:
            return ""
        return key_label(self.request.config.keymap.get("main.retry", "f5"))

    @on(ui.ErrorReported)
    async def _error_reported(self, message: ui.ErrorReported) -> None:
        await self.conversation.end_reply()
        retry = self._retry_key(erred=True)
        entry = error_entry(message.code, message.text, message.remedies, retry)
        await self.conversation.add(entry)

    def action_retry(self) -> None:
        """Send the unanswered message once more (the runner does not store it twice)."""
        text = self._unanswered()
        if text is None or self.busy:
            return
        self._set_busy(True)
        self.run_episode(text)

    @on(PromptEditor.LargePaste)
    def _large_paste(self, event: PromptEditor.LargePaste) -> None:
        self.keep_paste(event.text)

    @work(group="paste", exit_on_error=False)
    async def keep_paste(self, text: str) -> None:
        """Keep a paste too long for the prompt in the project's ``.steiner/pastes/`` (the
        ``read`` tool pages through it; in parts the read tool can open) and name the files in
        the prompt."""
        root = self.session.project_root if self.attached else self.request.project_root
        # Terminals send a pasted newline as CR (tmux's paste-buffer, xterm): keep lines.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        try:
            saved = await asyncio.to_thread(save_pastes, root, text)
        except OSError as error:
            self.notify(
                f"the paste ({byte_size(text)}) is too long for the prompt and could not be "
                f"kept in a file: {error}. Save it to a file in the project and ask the "
                "model to read it.",
                title="Paste",
                severity="error",
                markup=False,
            )
            return
        line, notice = paste_notice(byte_size(text), saved)
        start, end = self.prompt.selection
        self.prompt.replace(line, start, end, maintain_selection_offset=False)
        self.prompt.focus()
        self.notify(
            notice,
            title="Paste",
            markup=False,
        )

    def on_key(self, event: events.Key) -> None:
        """Printable keys no focused widget takes go to the prompt (``typing_route``)."""
        route_typing(self, event, self.prompt)

    def _open_permission(self) -> PermissionPrompt | CompactionPrompt | UnpinPrompt | None:
        """The newest question waiting for an answer: a permission request, or ``ask`` mode's
        compaction or unpin question (none takes the focus when it appears)."""
        return self.conversation.open_question()

    def action_answer_permission(self) -> None:
        """Focus the waiting permission request (its keys and buttons answer it)."""
        prompt = self._open_permission()
        if prompt is not None:
            prompt.focus()
            prompt.scroll_visible()

    @on(PermissionPrompt.Done)
    @on(QuestionLeft)
    def _permission_done(self) -> None:
        self.refresh_bindings()
        self.prompt.focus()

    def action_cancel_run(self) -> None:
        """Cancel the running reply or compaction."""
        if self.busy:
            self.workers.cancel_group(self, "run")

    def action_toggle_mode(self) -> None:
        """Switch plan/build."""
        mode = self.controller.toggle_mode()
        self.status.mode = mode
        self.refresh_budget()  # the panel shows the dry run, the notice in it
        self.notify(
            f"{mode} mode: the notice goes out with your next message", title="Mode", markup=False
        )

    @on(SkillList.ToggleRequested)
    def _toggle_requested(self, event: SkillList.ToggleRequested) -> None:
        if self.attached:  # the sidebar lists no skill before, so this is a safeguard
            self.toggle_skill(event.name)

    def skill_rows(self) -> list[SkillStatus]:
        """The skills, as the sidebar lists them (for the command palette)."""
        return self.controller.skill_rows()

    def toggle_skill(self, name: str) -> None:
        """Toggle ``name``; the envelope goes out with the next message, and the panel shows
        that next request (or the latest again when nothing is left pending)."""
        try:
            self.controller.toggle_skill(name)
        except KeyError:
            self.notify(f"skill {name!r} is no longer on disk", severity="warning", markup=False)
        self.refresh_skills()
        self.refresh_budget()  # the panel shows the dry run, the envelope in it

    async def action_inspect(self) -> None:
        """Open the inspector on the latest request."""
        await self.run_action("app.inspector")

    @on(BudgetPanel.InspectRequested)
    async def _inspect_requested(self) -> None:
        await self.action_inspect()

    # -- runs -------------------------------------------------------------------------------

    @work(exclusive=True, group="run", exit_on_error=False)
    async def run_episode(self, text: str) -> None:
        """Send ``text`` and run the episode; the end is posted as ``RunEnded``."""
        status, detail = "error", ""
        try:
            result = await self.driver.submit(text)
            # A run that ends in an error has already reported it (an ErrorEvent, shown once).
            status, detail = result.status, "" if result.status == "error" else result.error
        except asyncio.CancelledError:
            status = "cancelled"
            raise
        except Exception as error:  # refusals and engine failures end the run, not the app
            detail = str(error) if isinstance(error, DriverRefusal) else repr(error)
        finally:
            self.post_message(ui.RunEnded(status, detail))

    @work(exclusive=True, group="run", exit_on_error=False)
    async def run_compaction(self, steering: str) -> None:
        """Compact now; the end is posted as ``RunEnded``."""
        status, detail = "error", ""
        try:
            outcome = await self.driver.compact(steering)
            status = "done"
            if outcome is None or not outcome.applied:
                detail = "nothing was compacted"
        except asyncio.CancelledError:
            status = "cancelled"
            raise
        except Exception as error:
            detail = str(error) if isinstance(error, DriverRefusal) else repr(error)
        finally:
            self.post_message(ui.RunEnded(status, detail))

    @on(ui.RunEnded)
    async def _run_ended(self, message: ui.RunEnded) -> None:
        interrupted = message.status == "cancelled"
        await self.conversation.end_reply(interrupted)
        self.conversation.close_open_items()
        if interrupted:
            await self.conversation.add(NoticeEntry("interrupted (Esc)", "interrupted"))
        elif message.status == "error" and message.detail:  # else the engine said why
            retry = self._retry_key(erred=True)
            await self.conversation.add(error_entry("run", message.detail, (), retry))
        elif message.detail:
            self.notify(message.detail, markup=False)
        self._set_busy(False)
        self.refresh_skills()
        self.refresh_budget()
        if not self.prompt.has_focus:
            self.prompt.focus()
