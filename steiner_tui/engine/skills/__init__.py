"""Skills: discovery of ``SKILL.md`` folders and the envelopes that deliver them interactively.

Modules, leaf first: ``quote`` (the quoted form of names), ``modes`` (execution-mode
notices), ``envelopes`` (render, parse, split, prepend, strip, the body cap), ``effective`` (fold
envelopes across a conversation), ``delta`` (what the next message must carry, and the
interactive toggles), ``frontmatter`` and ``discovery`` (skill roots), ``replay`` (resume events).
"""

from steiner_tui.engine.skills.delta import (
    InteractiveSkills,
    SkillState,
    SkillStatus,
    activation_envelope,
    compose_user_message,
    skill_delta_blocks,
)
from steiner_tui.engine.skills.discovery import (
    MAX_SKILL_FILE_BYTES,
    LocalSkillReader,
    SkillReader,
    SkillRoot,
    discover_skills,
    skill_roots,
)
from steiner_tui.engine.skills.effective import (
    SkillFold,
    effective_skills,
    effective_skills_of_messages,
    fold_skills,
)
from steiner_tui.engine.skills.envelopes import (
    SKILL_CONTENT_CAP_BYTES,
    TRUNCATION_MARKER,
    SkillBlock,
    cap_skill_body,
    parse_envelope,
    prepend_skill_blocks,
    render_activation_envelope,
    render_skill_activation,
    render_skill_deactivation,
    split_skill_blocks,
    strip_skill_blocks,
)
from steiner_tui.engine.skills.model import Skill
from steiner_tui.engine.skills.modes import (
    BUILD_MODE_NOTICE,
    PLAN_MODE_NOTICE,
    detect_mode_notice,
    mode_notice,
    strip_mode_notice,
)
from steiner_tui.engine.skills.quote import go_quote, go_unquote
from steiner_tui.engine.skills.replay import replay_skill_states

__all__ = [
    "BUILD_MODE_NOTICE",
    "MAX_SKILL_FILE_BYTES",
    "PLAN_MODE_NOTICE",
    "SKILL_CONTENT_CAP_BYTES",
    "TRUNCATION_MARKER",
    "InteractiveSkills",
    "LocalSkillReader",
    "Skill",
    "SkillBlock",
    "SkillFold",
    "SkillReader",
    "SkillRoot",
    "SkillState",
    "SkillStatus",
    "activation_envelope",
    "cap_skill_body",
    "compose_user_message",
    "detect_mode_notice",
    "discover_skills",
    "effective_skills",
    "effective_skills_of_messages",
    "fold_skills",
    "go_quote",
    "go_unquote",
    "mode_notice",
    "parse_envelope",
    "prepend_skill_blocks",
    "render_activation_envelope",
    "render_skill_activation",
    "render_skill_deactivation",
    "replay_skill_states",
    "skill_delta_blocks",
    "skill_roots",
    "split_skill_blocks",
    "strip_mode_notice",
    "strip_skill_blocks",
]
