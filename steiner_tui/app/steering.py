"""Steering the context from the workbench: the compaction mode, pins, the cost ranking and
what-if thresholds, as engine calls (free of Textual, like the controller).

Messages are numbered as ``/pin`` lists them: their position in the active conversation, from
1. Every figure comes from the engine (``Runner.cost_ranking``, ``agent.whatif.what_if``); acting
on a ranking row masks in a new generation (``Runner.mask_results``), recorded in the lineage.
Writing a chosen mode or threshold into the project config is the confirmation screen's
(``screens.config_save``): this controller only uses the threshold once it is written.
"""

from __future__ import annotations

import typing

import msgspec

from steiner_tui.agent.runner import Runner
from steiner_tui.agent.session import Session
from steiner_tui.agent.whatif import what_if
from steiner_tui.engine.compaction.pins import PINNABLE_ROLES, is_pinned_by, pin_key, pin_label
from steiner_tui.engine.compaction.policy import AUTO_COMPACTION_MODES, AutoCompaction
from steiner_tui.engine.costs import CostItem
from steiner_tui.engine.events import CompactionOutcome, RequestSnapshot
from steiner_tui.engine.messages import Message
from steiner_tui.engine.whatif import WhatIf, WhatIfResult

__all__ = ["SteeringController", "WhatIfFigures"]

_MODES: tuple[AutoCompaction, ...] = typing.get_args(AutoCompaction)
_LISTED = 12
"""How many recent messages ``/pin`` lists."""


class WhatIfFigures(typing.NamedTuple):
    """The session as it went, and under the chosen threshold."""

    observed: WhatIfResult
    trial: WhatIfResult


class SteeringController:
    """Mode, pins, ranking and what-if of one session."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._numbers: dict[str, int] = {}
        """Each message's number, by its pin key (and which of equal ones it is)."""

    @property
    def runner(self) -> Runner:
        return self.session.runner

    # -- the compaction mode ----------------------------------------------------------------

    @property
    def mode(self) -> AutoCompaction:
        return self.runner.compaction_mode

    def set_mode(self, text: str) -> AutoCompaction:
        """Set the mode from ``/compaction <mode>`` (empty: the next one in turn).

        Raises:
            ValueError: not a mode.
        """
        value = text.strip().lower()
        if not value:
            mode = _MODES[(_MODES.index(self.mode) + 1) % len(_MODES)]
        elif value in AUTO_COMPACTION_MODES:
            mode = typing.cast(AutoCompaction, value)
        else:
            raise ValueError(f"compaction mode must be auto, ask or off, not {text.strip()!r}")
        self.runner.compaction_mode = mode
        if self.session.log is not None:
            self.session.log.record_model(compaction=mode)
        return mode

    # -- pins -------------------------------------------------------------------------------

    def _numbered(self) -> list[tuple[int, int]]:
        """``(number, index)`` of each message of the active conversation. A message keeps the
        number it was first given: a compaction numbers its summary anew and leaves the kept
        messages' numbers as they were (equal messages are told apart by their order)."""
        seen: dict[str, int] = {}
        numbered = []
        for index, message in enumerate(self.runner.conversation):
            key = pin_key(message)
            nth = seen[key] = seen.get(key, 0) + 1
            number = self._numbers.setdefault(f"{key}#{nth}", len(self._numbers) + 1)
            numbered.append((number, index))
        return numbered

    def _message(self, number: int) -> Message:
        index = dict(self._numbered()).get(number)
        if index is None:
            kept = len(self.runner.conversation)
            raise ValueError(
                f"no message #{number} in the conversation ({kept} messages; /pin lists them)"
            )
        return self.runner.conversation[index]

    def numbered(self) -> list[str]:
        """The recent pinnable messages, as ``#N label`` lines (``/pin`` with no number)."""
        conversation = self.runner.conversation
        pinned = is_pinned_by(self.runner.lineage.pins)
        lines = []
        for number, index in self._numbered():
            message = conversation[index]
            if message.role not in PINNABLE_ROLES:
                continue
            mark = " (pinned)" if pinned(message) else ""
            lines.append(f"#{number} {pin_label(message, conversation[: index + 1])}{mark}")
        return lines[-_LISTED:]

    def pin_number(self, number: int) -> str:
        """Pin message ``number``; its label.

        Raises:
            ValueError: no such message, or it cannot be pinned.
        """
        message = self._message(number)
        self.runner.pin(message)
        return pin_label(message, self.runner.conversation)

    def unpin_number(self, number: int) -> str:
        """Unpin message ``number``; its label (raises ``ValueError`` when it is not pinned)."""
        message = self._message(number)
        if not self.runner.unpin(pin_key(message)):
            raise ValueError(f"message #{number} is not pinned")
        return pin_label(message, self.runner.conversation)

    def toggle_call(self, call_id: str) -> tuple[bool, str]:
        """Pin or unpin the result of tool call ``call_id``: ``(pinned now, label)``.

        Raises:
            ValueError: the call has no result in the active conversation.
        """
        conversation = self.runner.conversation
        found = next(
            (m for m in conversation if m.role == "tool" and m.tool_call_id == call_id), None
        )
        if found is None:
            raise ValueError("that tool call has no result in the active conversation")
        label = pin_label(found, conversation)
        if self.runner.unpin(pin_key(found)):
            return False, label
        self.runner.pin(found)
        return True, label

    def toggle_key(self, key: str) -> tuple[bool, str]:
        """Pin or unpin the message whose pin key is ``key``: ``(pinned now, label)``.

        Raises:
            ValueError: not pinned and not in the active conversation (compacted away).
        """
        conversation = self.runner.conversation
        found = next((m for m in conversation if pin_key(m) == key), None)
        label = pin_label(found, conversation) if found is not None else "the message"
        if self.runner.unpin(key):
            return False, label
        if found is None:
            raise ValueError(
                "that message is no longer in the active conversation (a compaction summarized "
                "it); only what the next request sends can be pinned"
            )
        self.runner.pin(found)
        return True, label

    def toggle_newest_reply(self) -> tuple[bool, str]:
        """Pin or unpin the newest reply with text: ``(pinned now, label)``.

        Raises:
            ValueError: there is no reply yet.
        """
        runner = self.runner
        conversation = runner.conversation
        for message in reversed(conversation):
            if message.role == "assistant" and message.content.strip():
                label = pin_label(message, conversation)
                if runner.unpin(pin_key(message)):
                    return False, label
                runner.pin(message)
                return True, label
        raise ValueError("no reply to pin yet (/pin N pins any message by its number)")

    def pins(self) -> list[str]:
        """The pinned messages of the active conversation, as ``#N label`` lines."""
        conversation = self.runner.conversation
        pinned = is_pinned_by(self.runner.lineage.pins)
        return [
            f"#{number} {pin_label(m, conversation[:number])}"
            for number, m in enumerate(conversation, start=1)
            if pinned(m)
        ]

    # -- what costs the most ----------------------------------------------------------------

    def act_on(self, row: CostItem) -> CompactionOutcome | None:
        """Mask what ``row`` offers to mask, in a new generation (None: nothing to mask)."""
        if not row.action or not row.call_ids:
            return None
        verb = "drop reads" if row.action == "drop_reads" else "mask"
        return self.runner.mask_results(row.call_ids, reason=f"{verb}: {row.label}")

    # -- what-if thresholds -----------------------------------------------------------------

    def snapshots(self) -> tuple[RequestSnapshot, ...]:
        """This conversation's recorded requests."""
        first = self.session.first_request
        return tuple(s for s in self.session.snapshots.all() if s.index >= first)

    def what_if(self, threshold: int, mode: AutoCompaction | None = None) -> WhatIfFigures:
        """How the conversation went, and how it would have gone at ``threshold``."""
        setting = WhatIf(threshold, mode or self.mode)
        observed, (trial,) = what_if(self.runner, self.snapshots(), [setting])
        return WhatIfFigures(observed, trial)

    def use_threshold(self, threshold: int) -> None:
        """Use ``threshold`` as the soft trigger from now on (once it is written to the
        project config as the model's ``compaction_threshold_tokens``)."""
        runner = self.runner
        runner.model = msgspec.structs.replace(runner.model, threshold_tokens=threshold)
        runner.compactor.model = runner.model
