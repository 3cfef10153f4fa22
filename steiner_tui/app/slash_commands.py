"""The workbench's slash commands and the compaction-mode key, carried out on its screen.

``submit`` takes what the prompt sent: a ``SlashCommand`` is run, a message returned to send.
What a command did, what it answers and why it did nothing are entries in the conversation (a
toast would be gone in five seconds; the conversation keeps them).
``/pin``, ``/unpin`` and ``/pins`` are the steering controller's (``steer_slash``);
``/compaction save`` and ``/whatif N save`` write the project config only once the person has
seen the change on the confirmation screen (``screens.config_save``).
"""

from __future__ import annotations

from typing import Any, Protocol

from textual.screen import Screen

from steiner_tui.agent.interactive import DriverRefusal
from steiner_tui.app.completion import mention
from steiner_tui.app.messages import Said
from steiner_tui.app.prompt_completion import PromptCompletion
from steiner_tui.app.resume_request import ResumeRequest
from steiner_tui.app.screens.panel_layout import SidePanels
from steiner_tui.app.session import model_label
from steiner_tui.app.slash import SlashCommand, UnknownSlashCommand, parse_slash
from steiner_tui.app.steer_slash import STEER_COMMANDS, run_steer_command
from steiner_tui.app.transcript import NoticeEntry
from steiner_tui.app.widgets.budget_panel import BudgetPanel, not_saved
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.prompt import PromptEditor
from steiner_tui.app.widgets.skill_list import SkillList
from steiner_tui.app.widgets.status_line import StatusLine
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.app.workbench_session import WorkbenchSession
from steiner_tui.config import ConfigError, nearest_ref
from steiner_tui.engine.compaction.escalation import replacement_refusal
from steiner_tui.sessions import SessionStore

__all__ = ["SlashCommands"]

_STAYS = "Your text stays in the prompt."
_REPLACES = (
    "replaces the conversation: send it once the reply has ended (Esc cancels the reply). " + _STAYS
)


def _waits_for_reply(command: SlashCommand) -> bool:
    """Whether ``command``, typed while a reply generates, is queued to run once it ends
    (``/compact``, and ``/model`` with a name; ``/model`` alone shows the model at once)."""
    return command.name == "compact" or (command.name == "model" and bool(command.argument))


def _replaces_conversation(command: SlashCommand) -> bool:
    return command.name == "clear" or (command.name == "sessions" and bool(command.argument))


_WAITING = (
    "A question waits for your answer (F8 goes to it): your text stays in the prompt, to send "
    "once the run goes on."
)
MODE_HELP = {
    "auto": "compacts by itself at the soft trigger",
    "ask": "asks before compacting",
    "off": "never compacts by itself; warns near the hard limit",
}


def _saved(store: SessionStore, session_id: str) -> bool:
    try:
        return store.exists(session_id)
    except ValueError:  # not a session id at all
        return False


class Workbench(Protocol):
    """What the commands use of the workbench screen (beside Textual's ``Screen``)."""

    @property
    def busy(self) -> bool: ...
    @property
    def hold(self) -> WorkbenchSession: ...
    @property
    def budget(self) -> BudgetPanel: ...
    @property
    def conversation(self) -> ConversationPane: ...
    @property
    def status(self) -> StatusLine: ...
    @property
    def skills(self) -> SkillList: ...
    def action_compact(self, steering: str = "") -> None: ...
    @property
    def panels(self) -> SidePanels: ...
    def action_context(self) -> None: ...
    def action_toggle_panel(self, panel: str) -> None: ...
    def refresh_budget(self) -> None: ...
    def refresh_skills(self) -> None: ...


class SlashCommands:
    """What each ``/command`` does on the workbench ``screen`` (given as its Textual screen and
    as the ``Workbench`` it is: this module does not import the screen's)."""

    def __init__(self, screen: Screen[Any], workbench: Workbench) -> None:
        self.textual = screen
        self.screen = workbench

    def fail(self, text: str, *, title: str = "", error: bool = False) -> None:
        """Say why a command did nothing (``title``: the command, in front)."""
        lead = f"{title}: " if title and not title.startswith("/") else f"{title} " if title else ""
        self.textual.post_message(Said(lead + text, "error" if error else "warning"))

    def say(self, text: str) -> None:
        """Say what a command did (a notice in the conversation; the panel follows)."""
        self.textual.post_message(Said(text))

    async def submit(
        self, text: str, editor: PromptEditor, completion: PromptCompletion
    ) -> str | None:
        """Carry out ``text`` if it is a slash command (an unknown one is completed, as Enter
        on "/mo" does, or said and left selected in the prompt); else it is the message to
        send, returned. Typed while a run generates, a message, ``/compact`` or ``/model NAME``
        is queued (the screen takes it when the run ends), and ``/clear`` or ``/sessions ID``
        stays in the prompt; so does anything while the run waits on a question, or before
        the session opened."""
        if not self.screen.hold.attached:
            self.textual.notify("The session is still opening.", severity="warning")
            return None
        if mention(text) is not None and completion.accept(completion.chosen):
            return None  # Enter on a listed path takes it, as Tab does (Esc closes the list)
        try:
            parsed = parse_slash(text)
        except UnknownSlashCommand as error:
            if not completion.accept(completion.chosen):
                await self.screen.conversation.bring_back()
                await self.screen.conversation.add(NoticeEntry(str(error), "error"))
                # Kept to be mended, selected so that the next command typed replaces it
                # (it was appended to: "/resume/cost").
                editor.select_all()
            return None
        if isinstance(parsed, SlashCommand):
            if parsed.name == "history":  # a search: not itself a prompt to remember
                await self.screen.conversation.bring_back()
                self.history(parsed.argument, completion)
                return None
            if self.screen.busy and _waits_for_reply(parsed):  # run once the reply ends
                if self.screen.conversation.waiting:
                    self.textual.notify(_WAITING, title="Waiting", severity="warning")
                else:
                    editor.queue(text, alone=True)
                    completion.sent()
                return None
            if _replaces_conversation(parsed) and (notice := self._not_replaceable(parsed)):
                # Not queued: messages queued behind it would go into the new conversation.
                self.textual.notify(notice, title="Not now", severity="warning")
                return None
            editor.sent(text)
            completion.sent()
            # Its answer comes below the newest entries, as a message sent would: in view.
            await self.screen.conversation.bring_back()
            await self.run(parsed)
            return None
        if self.screen.busy and self.screen.conversation.waiting:
            self.textual.notify(_WAITING, title="Waiting", severity="warning")
            return None
        if self.screen.busy:
            editor.queue(text)
            return None
        editor.sent(text)
        self.screen.conversation.last_sent = parsed
        return parsed

    def _not_replaceable(self, command: SlashCommand) -> str:
        """Why ``command`` (``/clear``, ``/sessions ID``) cannot replace the conversation now,
        said where it stays (in the prompt); "" when it can."""
        if self.screen.busy:
            return f"/{command.name} {_REPLACES}"
        pending = self.screen.hold.driver.pending_sub_agents
        if (refusal := replacement_refusal(False, pending)) is None:
            return ""
        return f"/{command.name} replaces the conversation: {refusal} (F3). {_STAYS}"

    async def slash(self, text: str) -> None:
        """Carry out the slash command ``text`` (the palette's ``/model``, ``/clear``)."""
        command = parse_slash(text)
        if isinstance(command, SlashCommand):
            await self.run(command)

    async def run(self, command: SlashCommand) -> None:
        """Carry out ``command``."""
        screen, name, argument = self.screen, command.name, command.argument
        if name == "compact":
            screen.action_compact(argument)
        elif name == "context":
            screen.action_context()
        elif name in ("lineage", "help", "quit"):
            await self.textual.run_action(f"app.{name}")
        elif name == "skills":
            self.skills(argument)
        elif name == "model":
            self.model(argument)
        elif name == "sessions":
            self.sessions(argument)
        elif name == "clear":
            await self.clear()
        elif name == "whatif":
            self.what_if(argument)
        elif name == "compaction":
            self.compaction(argument)
        elif name in STEER_COMMANDS:
            try:
                self.say(run_steer_command(screen.hold.steering, name, argument))
            except ValueError as error:
                self.fail(str(error), title=f"/{name}")

    def history(self, words: str, completion: PromptCompletion) -> None:
        """``/history [words]``: the highlighted prompt sent (else the newest holding every
        word) replaces the prompt's text, to edit or send."""
        if not completion.accept(completion.best()):
            held = f" holds {words!r}" if words else " was kept"
            self.fail(f"no prompt sent in this project{held}", title="History")

    def skills(self, name: str) -> None:
        """``/skills [name]``: toggle skill ``name``; alone, focus the sidebar."""
        screen = self.screen
        if not name:
            if screen.panels.shown("skills"):
                screen.skills.focus()
            else:
                screen.action_toggle_panel("skills")  # shown (over the conversation), focused
            return
        names = [row.name for row in screen.hold.controller.skill_rows()]
        if name not in names:
            known = ", ".join(names) or "none"
            self.fail(f"no skill named {name!r} (skills: {known})", title="Skills", error=True)
            return
        self.toggle_skill(name)

    def toggle_skill(self, name: str) -> None:
        """Toggle ``name``; the envelope goes out with the next message (the panel shows it)."""
        try:
            self.screen.hold.controller.toggle_skill(name)
        except KeyError:
            self.textual.notify(f"skill {name!r} is no longer on disk", severity="warning")
        self.screen.refresh_skills()
        self.screen.refresh_budget()

    def model(self, name: str) -> bool:
        """``/model [name]``: switch to configured model ``name``; alone, show the model.
        False when it did not switch."""
        screen = self.screen
        if not name:
            self.textual.post_message(Said(screen.hold.controller.model_summary(), "info"))
            return False
        before = screen.hold.driver.runner.model.ref
        try:
            model = screen.hold.session.switch_model(name)
        except DriverRefusal as refusal:  # the palette's /model while a run starts
            self.fail(str(refusal), title="Model", error=True)
            return False
        except ConfigError as error:
            text = f"cannot switch to {name!r}: {error} ({screen.hold.controller.switch_choices()})"
            if (near := nearest_ref(name, screen.hold.session.model_refs)) is not None:
                text += f"; did you mean /model {near}?"
            self.fail(text, title="Model", error=True)
            return False
        if (log := screen.hold.session.log) is not None:
            log.record_model(model.ref)
        screen.status.model = model_label(model)
        self.textual.call_later(
            screen.conversation.add, NoticeEntry(f"model: {before} → {model.ref}")
        )
        screen.refresh_budget()
        screen.budget.learn_model_limits()
        return True

    async def clear(self) -> None:
        """``/clear``: a new, empty conversation (refused while a run generates)."""
        screen = self.screen
        if screen.busy and not screen.hold.driver.busy:  # a run is starting: the driver is not yet
            self.fail("cannot replace the conversation now: a run is starting")
            return
        try:
            screen.hold.controller.clear()
        except DriverRefusal as refusal:
            self.fail(str(refusal), title="Not now")
            return
        await screen.conversation.load([])
        await screen.conversation.add(NoticeEntry("new conversation", "clear"))
        screen.refresh_skills()
        screen.refresh_budget()

    def sessions(self, session_id: str = "") -> None:
        """``/sessions [ID]``: the sessions screen, or resume ``ID`` (the app restarts on it)."""
        screen = self.screen
        config_dir = screen.hold.session.config_dir
        if config_dir is None:
            self.fail("sessions are not recorded here (no config folder)")
            return
        from steiner_tui.app.screens.sessions import SessionsScreen

        current = screen.hold.session.session_id

        def resume(chosen: str | None) -> None:
            if not chosen or chosen == current:
                return
            refusal = replacement_refusal(screen.busy, screen.hold.driver.pending_sub_agents)
            if refusal is not None:
                self.fail(f"cannot switch sessions now: {refusal}")
                return
            self.textual.app.exit(ResumeRequest(chosen))

        store = SessionStore(config_dir / "sessions")
        if not session_id:
            prices = screen.hold.session.request.config.price_overrides
            self.textual.app.push_screen(SessionsScreen(store, current, prices), resume)
        elif session_id == current:
            self.textual.post_message(Said(f"{session_id} is the session open now", "info"))
        elif not _saved(store, session_id):
            text = f"no saved session {session_id!r} (/sessions lists them)"
            self.fail(text, title="Sessions", error=True)
        else:
            resume(session_id)

    def what_if(self, argument: str) -> None:
        """``/whatif [tokens] [save]``: try ``tokens`` in the what-if view; ``save`` also
        writes it to the project config."""
        screen = self.screen
        words = argument.split()
        rest = [word for word in words if word != "save"]
        budget = screen.hold.steering.runner.model.budget
        try:
            threshold = int(rest[0].replace(",", "").replace("_", "")) if rest else 0
        except ValueError:
            self.fail(f"/whatif takes a number of tokens, not {rest[0]!r}", title="Context")
            return
        threshold = threshold or budget.soft_threshold
        if not 0 < threshold < budget.context_size:
            limit = f"{budget.context_size - 1:,}"
            self.fail(f"the threshold must be between 1 and {limit}", title="Context")
            return
        if not screen.panels.shown("context"):  # the view is in it
            screen.action_toggle_panel("context")
        screen.budget.try_threshold(threshold)
        if "save" in words:
            screen.budget.save_threshold(WhatIfView.SaveRequested(threshold))

    async def cycle_compaction(self) -> None:
        """F4: the next compaction mode (auto, ask, off)."""
        mode = self.screen.hold.steering.set_mode("")
        self.say(f"compaction mode: {mode} ({MODE_HELP[mode]})")

    def compaction(self, argument: str) -> None:
        """``/compaction [auto|ask|off] [save]``: set the mode live (no mode: the next one);
        ``save`` also writes it to the project config, once the person confirms."""
        screen = self.screen
        words = argument.split()
        rest = [word for word in words if word != "save"]
        try:
            mode = screen.hold.steering.set_mode(rest[0] if rest else "")
        except ValueError as error:
            self.fail(str(error), title="/compaction")
            return
        text = f"compaction mode: {mode}"
        if "save" not in words:
            self.say(text)
            return
        from steiner_tui.app.screens.config_save import ConfigSaveScreen, SaveOutcome

        try:
            confirm = ConfigSaveScreen.for_mode(screen.hold.steering.session.project_root, mode)
        except (ConfigError, OSError) as error:
            self.say(text)
            self.fail(str(error), title="/compaction")
            return
        screen.status.compaction = mode

        def saved(outcome: SaveOutcome | None) -> None:
            if outcome is not None and outcome.written is not None:
                self.say(f"{text} (saved to {outcome.written})")
                return
            error = outcome.error if outcome is not None else ""
            self.say(text)
            why = not_saved(error, confirm.change.path)
            self.textual.notify(
                why, title="/compaction", severity="warning" if error else "information"
            )

        self.textual.app.push_screen(confirm, saved)
