"""The interactive driver: what a person's session does between the prompt and the runner.

It owns the state that belongs to a person rather than to a model call: the enabled skill set
(delivered as envelopes ahead of the next message, never rewriting what was sent), the
execution mode (a change puts the mode notice in front of the next message), and the busy
guard (no manual compaction or conversation replacement while a run generates).
"""

from __future__ import annotations

import msgspec

from steiner_tui.agent.attachments import find_image_attachments
from steiner_tui.agent.runner import Runner, RunResult
from steiner_tui.engine.compaction.escalation import replacement_refusal
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import CompactionOutcome, RequestSnapshot, WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.delta import InteractiveSkills, SkillStatus, compose_user_message
from steiner_tui.errors import SteinerError
from steiner_tui.tools.base import Mode

__all__ = ["DriverRefusal", "InteractiveDriver"]


class DriverRefusal(SteinerError):
    """The driver refused an operation (busy, pending sub-agents); the message says why."""


class _Pending(msgspec.Struct):
    mode_changed: bool = False


class InteractiveDriver:
    """Turns submitted text into user messages and runs episodes on one runner.

    Args:
        runner: the session's runner.
        skills: the discovered skills and the enabled set.
        pending_sub_agents: how many sub-agents are still running (replacement guard).
    """

    def __init__(self, runner: Runner, skills: InteractiveSkills) -> None:
        self.runner = runner
        self.skills = skills
        self.busy = False
        self._pending = _Pending()
        self.pending_sub_agents = 0

    # -- state the UI shows -----------------------------------------------------------------

    @property
    def mode(self) -> Mode:
        return self.runner.mode

    @property
    def lineage(self) -> ConversationLineage:
        return self.runner.lineage

    def skill_states(self) -> list[SkillStatus]:
        return self.skills.states(self.runner.conversation)

    @property
    def has_pending(self) -> bool:
        """Whether the next message carries something besides the text: skill envelopes
        (toggles not yet sent) or the mode notice."""
        return self._pending.mode_changed or bool(self.skills.take_delta(self.runner.conversation))

    def pending_message(self) -> Message | None:
        """What the driver puts in front of the next text (mode notice, skill envelopes), as
        the user message it would send with no text; None when nothing is pending."""
        delta = self.skills.take_delta(self.runner.conversation)
        mode = self.runner.mode if self._pending.mode_changed else None
        if not delta and mode is None:
            return None
        return Message("user", compose_user_message("", delta, mode))

    def preview(self) -> RequestSnapshot:
        """The dry-run snapshot of the next request, exactly as the runner would prepare it:
        the conversation, then what the driver would put in front of the next text.

        Only the text the person has not typed yet is missing. The conversation is passed
        explicitly, so the dry run (the app assembles it in a worker thread) never touches the
        runner's ledger, which only its runs keep.
        """
        pending = self.pending_message()
        conversation = self.runner.conversation
        return self.runner.preview(conversation if pending is None else (*conversation, pending))

    # -- commands ---------------------------------------------------------------------------

    def toggle_skill(self, name: str) -> bool:
        """Toggle ``name``; the change goes out with the next message. Returns the new state."""
        return self.skills.toggle(name)

    def set_mode(self, mode: Mode) -> None:
        if mode != self.runner.mode:
            self.runner.mode = mode
            self._pending.mode_changed = not self._pending.mode_changed

    def compose(self, text: str) -> Message:
        """The user message for ``text``: mode notice, skill delta envelopes, then the text.

        Images named in the text are attached (see ``attachments``); problems with named
        images are reported to the runner's sink as warnings.
        """
        delta = self.skills.take_delta(self.runner.conversation)
        mode = self.runner.mode if self._pending.mode_changed else None
        self._pending.mode_changed = False
        attached = find_image_attachments(text, self.runner.project_root)
        for problem in attached.problems:
            self.runner.sink.emit(WarningEvent("attachment", problem))
        return Message("user", compose_user_message(text, delta, mode), images=attached.images)

    async def submit(self, text: str) -> RunResult:
        """Send ``text`` and run the episode to its end."""
        if self.busy:
            raise DriverRefusal("a run is still generating; wait for it or press Esc to cancel")
        self.busy = True
        try:
            return await self.runner.run(self.compose(text))
        finally:
            self.busy = False

    async def compact(self, steering: str = "") -> CompactionOutcome | None:
        """Manual ``/compact [steering]``; refused while a run generates."""
        refusal = replacement_refusal(self.busy, self.pending_sub_agents)
        if refusal is not None:
            raise DriverRefusal(f"cannot compact now: {refusal}")
        self.busy = True
        try:
            return await self.runner.compact(steering=steering, manual=True)
        finally:
            self.busy = False

    def refuse_replacement(self) -> None:
        """Raise ``DriverRefusal`` while the conversation may not be swapped (a run generates,
        or a sub-agent is pending)."""
        refusal = replacement_refusal(self.busy, self.pending_sub_agents)
        if refusal is not None:
            raise DriverRefusal(f"cannot replace the conversation now: {refusal}")

    def replace_lineage(self, lineage: ConversationLineage) -> None:
        """Swap the conversation (``/clear``, resume, fork); refused while anything runs."""
        self.refuse_replacement()
        self.runner.replace_conversation(lineage)
