"""The skill delta: what the next user message must carry so the model's view matches the toggles.

The enabled set (owned by the interactive driver through ``InteractiveSkills``) is diffed against
the conversation's effective skills at send time. Deactivations come first, in effective order,
then activations of newly enabled skills in the enabled set's order. Because the diff is taken
only at send time, enabling then disabling a skill between two sends produces nothing, and an
enabled skill that is already active is never sent again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Literal

import msgspec

from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.effective import SkillFold, fold_skills, user_contents
from steiner_tui.engine.skills.envelopes import (
    SkillBlock,
    prepend_skill_blocks,
    render_activation_envelope,
    render_skill_activation,
    render_skill_deactivation,
    utf8_len,
)
from steiner_tui.engine.skills.escape import escape_user_text
from steiner_tui.engine.skills.model import Skill
from steiner_tui.engine.skills.modes import mode_notice

__all__ = [
    "InteractiveSkills",
    "SkillCounts",
    "SkillState",
    "SkillStatus",
    "activation_envelope",
    "compose_user_message",
    "skill_counts",
    "skill_delta_blocks",
]

SkillState = Literal["active", "inactive", "pending_activation", "pending_deactivation"]


def activation_envelope(skill: Skill) -> str:
    """The activation envelope for a discovered skill."""
    if skill.truncated:
        # Discovery already capped the body and appended the marker: capping again would cut it.
        return render_activation_envelope(skill.name, skill.body)
    return render_skill_activation(skill.name, skill.body)[0]


def skill_delta_blocks(
    enabled: Sequence[str], effective: Sequence[SkillBlock], skills: Mapping[str, Skill]
) -> list[str]:
    """The envelopes the next user message must carry.

    Args:
        enabled: the enabled skill names, in the order they were enabled.
        effective: the conversation's effective skills (``effective_skills``).
        skills: discovered skills by name; an enabled name missing here cannot be activated.

    Returns:
        Deactivations (effective order), then activations (enabled order), as envelope texts.
    """
    wanted = set(enabled)
    active = {block.name for block in effective}
    blocks = [render_skill_deactivation(b.name) for b in effective if b.name not in wanted]
    for name in dict.fromkeys(enabled):
        skill = skills.get(name)
        if name not in active and skill is not None:
            blocks.append(activation_envelope(skill))
    return blocks


def compose_user_message(text: str, delta_blocks: Sequence[str], mode: str | None = None) -> str:
    """Build the stored user message: mode notice prefix, then the delta, then the user's text.

    The user's text is escaped (``escape.escape_user_text``) so that nothing in it can read back
    as a mode notice or an envelope.

    Args:
        text: what the user typed.
        delta_blocks: from ``skill_delta_blocks``.
        mode: the new execution mode when a mode change is pending (``"plan"``/``"build"``),
            else ``None``.
    """
    notice = mode_notice(mode) if mode is not None else ""
    prefix = notice + "\n\n" if notice else ""
    return prefix + prepend_skill_blocks(delta_blocks, escape_user_text(text))


class SkillStatus(msgspec.Struct, frozen=True):
    """One row of the skills panel.

    ``state`` compares the enabled set with the conversation: ``pending_*`` until the next send.
    ``leftover_inactive`` marks a skill that is not in force but whose earlier activation text is
    still in the conversation (it goes away at the next compaction).
    """

    name: str
    description: str
    size_bytes: int
    """What the skill costs in a request: the bytes of its envelope (in force: the one sent; else
    the one the next message would carry), the figure the context panel's row shows."""
    truncated: bool
    state: SkillState
    leftover_inactive: bool = False


class SkillCounts(msgspec.Struct, frozen=True):
    """How many skills are in force in the conversation now, how many change with the next
    message, and how many there are.

    A skill pending off is still in force (its envelope was sent); one pending on is not yet.
    """

    in_force: int
    pending: int
    total: int


def skill_counts(rows: Iterable[SkillStatus]) -> SkillCounts:
    """The counts of ``rows`` (``InteractiveSkills.states``)."""
    listed = list(rows)
    in_force = sum(row.state in ("active", "pending_deactivation") for row in listed)
    pending = sum(row.state.startswith("pending_") for row in listed)
    return SkillCounts(in_force, pending, len(listed))


def _state(enabled: bool, active: bool) -> SkillState:
    if enabled:
        return "active" if active else "pending_activation"
    return "pending_deactivation" if active else "inactive"


class InteractiveSkills:
    """The interactive session's skill toggles: discovered skills and the ordered enabled set.

    The only mutable object of the skills package; the interactive driver owns it. Everything it
    reports about the conversation is derived from the messages passed in: the fold of the last
    conversation is kept, and one that extends it folds only the messages added (the sidebar and
    the prompt's completions ask on every key).
    """

    def __init__(
        self,
        skills: Mapping[str, Skill] | Iterable[Skill],
        enabled: Iterable[str] = (),
        folded: tuple[tuple[Message, ...], SkillFold] | None = None,
    ) -> None:
        """Hold ``skills`` (by name) with ``enabled`` names switched on, in that order;
        ``folded``: messages and their fold already made (a resume's), gone on from."""
        self._skills: dict[str, Skill] = {}
        self.replace_skills(skills)
        self._enabled: dict[str, None] = dict.fromkeys(enabled)
        self._folded: tuple[tuple[Message, ...], SkillFold] = folded or ((), fold_skills(()))
        """The last conversation folded, and its fold."""
        self._envelope_bytes: dict[str, int] = {}
        """Each discovered skill's activation envelope bytes, rendered once."""

    def replace_skills(self, skills: Mapping[str, Skill] | Iterable[Skill]) -> None:
        """Swap in a fresh discovery result; the enabled set is kept as is."""
        if isinstance(skills, Mapping):
            self._skills = dict(skills)
        else:
            self._skills = {skill.name: skill for skill in skills}
        self._envelope_bytes = {}

    @property
    def skills(self) -> Mapping[str, Skill]:
        """Discovered skills by name (read-only view)."""
        return MappingProxyType(self._skills)

    @property
    def enabled(self) -> tuple[str, ...]:
        """Enabled names in the order they were enabled."""
        return tuple(self._enabled)

    def enable(self, name: str) -> None:
        """Switch ``name`` on (no-op when already on; it keeps its place).

        Raises:
            KeyError: when no skill of that name was discovered.
        """
        if name not in self._skills:
            raise KeyError(name)
        self._enabled.setdefault(name, None)

    def disable(self, name: str) -> None:
        """Switch ``name`` off (no-op when it is not on)."""
        self._enabled.pop(name, None)

    def toggle(self, name: str) -> bool:
        """Flip ``name`` and return whether it is now enabled.

        Raises:
            KeyError: when enabling a name with no discovered skill.
        """
        if name in self._enabled:
            self.disable(name)
            return False
        self.enable(name)
        return True

    def _fold(self, messages: Iterable[Message]) -> SkillFold:
        """The fold of ``messages``, going on from the last one when they extend it."""
        conversation = tuple(messages)
        folded, fold = self._folded
        if conversation is folded:  # the runner's conversation, unchanged since: no copy made
            return fold
        if conversation[: len(folded)] == folded:  # identical messages compare at once
            if len(conversation) == len(folded):
                return fold
            fold = fold_skills(user_contents(conversation[len(folded) :]), fold)
        else:
            fold = fold_skills(user_contents(conversation))
        self._folded = (conversation, fold)
        return fold

    def _envelope_size(self, name: str) -> int:
        """The bytes of discovered skill ``name``'s activation envelope."""
        size = self._envelope_bytes.get(name)
        if size is None:
            size = self._envelope_bytes[name] = utf8_len(activation_envelope(self._skills[name]))
        return size

    def take_delta(self, messages: Iterable[Message]) -> list[str]:
        """The envelopes the next user message must carry, given the conversation so far."""
        effective = self._fold(messages).effective
        return skill_delta_blocks(self.enabled, effective, self._skills)

    def states(self, messages: Iterable[Message]) -> list[SkillStatus]:
        """One status per discovered or in-force skill, sorted by name."""
        fold = self._fold(messages)
        in_force = {block.name: block for block in fold.effective}
        rows: list[SkillStatus] = []
        for name in sorted(self._skills.keys() | in_force.keys()):
            block = in_force.get(name)
            active = block is not None
            leftover = not active and name in fold.ever_activated
            skill = self._skills.get(name)
            description, truncated = (skill.description, skill.truncated) if skill else ("", False)
            size = utf8_len(block.text) if block is not None else self._envelope_size(name)
            state = _state(name in self._enabled, active)
            rows.append(SkillStatus(name, description, size, truncated, state, leftover))
        return rows
