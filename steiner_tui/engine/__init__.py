"""The context engine: pure, typed, and free of any UI import.

It assembles requests (sources, budgets, skills, session date), estimates tokens, snapshots every
request, and compacts conversations into generations. I/O (providers, clock, filesystem, tools)
is handed in through small interfaces. ``__all__`` below is the public surface, imported from
the modules that define it; ``tests/engine/test_exports.py`` pins the list. Importing the engine
never imports Textual or Rich.

Exceptions raised by the engine:

* ``ValueError``: invalid input the caller must fix (negative budgets, a project-context path
  escaping the root, a naive datetime for the session date, an unknown message role).
* ``TokenizerLoadError``: a tokenizer failed to load; raised again on every later call.
* ``ProviderError``: raised by providers (``kind`` says which failure), handled by the runner.
* ``CompactionFailed`` and ``CompactionCancelled`` (``compaction.failures``): a compaction failed
  or was cancelled; both say whether the stateful backend transcript was retired first.
"""

from steiner_tui.engine.budget import (
    ModelTokenBudget,
    compaction_escalation,
    derive_summary_max_tokens,
    escalation_guidance,
    safety_margin_tokens,
    should_compact_prompt,
    summary_max_tokens,
)
from steiner_tui.engine.compaction.lineage import ConversationGeneration, ConversationLineage
from steiner_tui.engine.compaction.reasons import format_fallback_reason
from steiner_tui.engine.compaction.retention import render_pending_sub_agents_line
from steiner_tui.engine.compaction.turns import retain_recent_turns, split_compaction_turns
from steiner_tui.engine.events import (
    CompactionOutcome,
    EngineEvent,
    EventSink,
    ListSink,
    RequestSnapshot,
)
from steiner_tui.engine.messages import (
    Image,
    Message,
    ToolCall,
    cumulative_prefix_hashes,
    message_hash,
    short_hash,
)
from steiner_tui.engine.models import lookup_model
from steiner_tui.engine.prompt.budget import apply_budget
from steiner_tui.engine.prompt.session_date import render_session_date
from steiner_tui.engine.provider import ChatRequest, ModelInfo, Provider, ProviderError
from steiner_tui.engine.skills.delta import InteractiveSkills, SkillStatus
from steiner_tui.engine.skills.effective import effective_skills
from steiner_tui.engine.skills.envelopes import (
    SKILL_CONTENT_CAP_BYTES,
    SkillBlock,
    prepend_skill_blocks,
    render_skill_activation,
    render_skill_deactivation,
    split_skill_blocks,
    strip_skill_blocks,
)
from steiner_tui.engine.skills.modes import mode_notice, strip_mode_notice
from steiner_tui.engine.snapshots import SnapshotStore
from steiner_tui.engine.state.recent_calls import summarize_recent_tool_calls
from steiner_tui.engine.tokens import (
    RequestEstimator,
    TokenCalibration,
    TokenEstimate,
    TokenizerLoadError,
    heuristic_tokens,
)

__all__ = [
    "SKILL_CONTENT_CAP_BYTES",
    "ChatRequest",
    "CompactionOutcome",
    "ConversationGeneration",
    "ConversationLineage",
    "EngineEvent",
    "EventSink",
    "Image",
    "InteractiveSkills",
    "ListSink",
    "Message",
    "ModelInfo",
    "ModelTokenBudget",
    "Provider",
    "ProviderError",
    "RequestEstimator",
    "RequestSnapshot",
    "SkillBlock",
    "SkillStatus",
    "SnapshotStore",
    "TokenCalibration",
    "TokenEstimate",
    "TokenizerLoadError",
    "ToolCall",
    "apply_budget",
    "compaction_escalation",
    "cumulative_prefix_hashes",
    "derive_summary_max_tokens",
    "effective_skills",
    "escalation_guidance",
    "format_fallback_reason",
    "heuristic_tokens",
    "lookup_model",
    "message_hash",
    "mode_notice",
    "prepend_skill_blocks",
    "render_pending_sub_agents_line",
    "render_session_date",
    "render_skill_activation",
    "render_skill_deactivation",
    "retain_recent_turns",
    "safety_margin_tokens",
    "short_hash",
    "should_compact_prompt",
    "split_compaction_turns",
    "split_skill_blocks",
    "strip_mode_notice",
    "strip_skill_blocks",
    "summarize_recent_tool_calls",
    "summary_max_tokens",
]
