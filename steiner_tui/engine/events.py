"""Every event the engine and the runner emit, and the sink protocol that receives them.

The engine and the runner never call into the UI: they emit these frozen events to sinks (the
snapshot store, the session log, the event log, the app's adapter, a test's ``ListSink``). Every
event has a stable ``kind`` string, the ``type`` field of the JSONL event log.

Events, by who emits them:

* a turn: ``RequestSnapshot`` and ``CacheDiagnostic`` (before each model call), ``TextDelta``,
  ``ReasoningDelta``, ``ToolCallStarted``, ``ToolCallFinished``, ``MessageAppended``,
  ``UsageReported``, ``ErrorEvent``, ``RequestStopped`` (Esc or a provider error: no usage
  will come);
* compaction: ``CompactionProgress`` (a summary call started, and its output so far),
  ``CompactionApplied`` (its payload, ``CompactionOutcome``, is also recorded on the
  generation it created), ``HealthEvent``, ``CompactionAsked`` (``ask`` mode: the question and
  its answer) and ``PinChanged`` (a message was pinned or unpinned);
* assembly and skills: ``WarningEvent``, ``SkillTruncated``, ``SkillStateEvent`` (replayed on
  resume), ``StaticContextReloaded`` (files changed on disk were applied).

The sub-agent manager's ``SubAgentUpdated`` is the one event defined elsewhere
(``agent.delegation.model``): its payload describes a delegated child, which the engine does not
know about.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar, Literal, Protocol

import msgspec

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.prices import RequestCost
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.provider import Remedy
from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = [
    "FALLBACK_SKIPPED",
    "FALLBACK_USED",
    "CacheDiagnostic",
    "CacheExplanation",
    "CompactionApplied",
    "CompactionAsked",
    "CompactionOutcome",
    "CompactionProgress",
    "EditKind",
    "EngineEvent",
    "ErrorEvent",
    "EventSink",
    "FanoutSink",
    "HealthEvent",
    "ListSink",
    "MessageAppended",
    "OutputCut",
    "PermissionAnswered",
    "PinChanged",
    "ReasoningDelta",
    "RequestStopped",
    "RoomEdit",
    "RequestSnapshot",
    "SkillStateEvent",
    "SkillTruncated",
    "StaticContextReloaded",
    "SourceTokens",
    "TextDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolInputDelta",
    "ToolOutputProgress",
    "UsageReported",
    "WarningEvent",
]


class EngineEvent(msgspec.Struct, frozen=True):
    """Base of every event. ``kind`` names the event in logs."""

    kind: ClassVar[str] = "event"


class EventSink(Protocol):
    """Anything that accepts engine events. Must not block for long; must not raise. A sink
    that uses only some events may say which in a class attribute ``accepts`` (a tuple of
    event classes): ``FanoutSink`` then sends it only those."""

    def emit(self, event: EngineEvent) -> None: ...


class ListSink(msgspec.Struct):
    """Collects events in order (tests, and the runner's per-turn buffer)."""

    events: list[EngineEvent] = msgspec.field(default_factory=list)

    def emit(self, event: EngineEvent) -> None:
        self.events.append(event)

    def of(self, cls: type[EngineEvent]) -> list[EngineEvent]:
        return [e for e in self.events if isinstance(e, cls)]


class FanoutSink:
    """Sends each event to several sinks in order.

    A sink that names the events it takes (an ``accepts`` tuple of event classes) is sent only
    those: each of a session's turns emits about fifteen events, most of which concern one or
    two of its sinks, and the calls that would be turned away cost a tenth of the turn's own
    work. Which sinks an event class goes to is decided once per class.
    """

    def __init__(self, sinks: Sequence[EventSink]) -> None:
        self.sinks = tuple(sinks)
        self._routes: dict[type[EngineEvent], tuple[EventSink, ...]] = {}

    def emit(self, event: EngineEvent) -> None:
        kind = type(event)
        route = self._routes.get(kind)
        if route is None:
            route = self._routes[kind] = tuple(
                s for s in self.sinks if issubclass(kind, getattr(s, "accepts", EngineEvent))
            )
        for sink in route:
            sink.emit(event)


# -- a turn ---------------------------------------------------------------------------------


class SourceTokens(msgspec.Struct, frozen=True):
    """What one source of a request costs: its bytes and its raw (uncalibrated) tokens.

    ``source`` is a ``ContextSource`` value, or ``tools`` for the tool definitions; ``path`` is
    a file-backed block's file; ``name`` the skill an envelope in the conversation carries.
    """

    source: str
    bytes: int
    tokens: int
    path: str = ""
    name: str = ""
    truncated: bool = False


class RequestSnapshot(EngineEvent, frozen=True):
    """One model request as sent: the event behind the context report.

    ``prompt_bytes`` is role plus content bytes over ``messages``; ``blocks_bytes`` the sum of
    the blocks' sizes; ``tools_bytes`` the encoded tool list's length, computed for every
    request. ``block_message_count`` is how many leading messages came from blocks.
    ``index`` numbers a runner's requests from 1. ``sources`` is what each source costs (each
    block, each skill envelope in the conversation, the rest of the conversation, the tool
    definitions); their tokens add up to ``raw_prompt_tokens``.
    ``snapshots.build_request_snapshot`` computes the derived figures.
    """

    kind: ClassVar[str] = "request"
    request_id: str
    index: int
    model: str
    provider: str
    time: datetime
    message_hashes: Sequence[str]
    messages: Sequence[Message]
    blocks: tuple[ContextBlock, ...]
    block_message_count: int
    prompt_bytes: int
    blocks_bytes: int
    tools: tuple[ToolDefinition, ...]
    tools_bytes: int
    max_tokens: int
    estimated_prompt_tokens: int
    raw_prompt_tokens: int
    estimate_strategy: str
    estimate_confidence: str
    compaction: bool = False
    generation_id: str = ""
    fits: bool = True
    """Whether the request fits the window (prompt + reserve + margin): False on a dry run of a
    next request that cannot be sent, which the UI shows as "over the window"."""
    overflow_tokens: int = 0
    """Tokens over the window when it does not fit (0 when it does)."""
    sources: Sequence[SourceTokens] = ()
    """Counted when first read (``source_counts.CountedSources``) when the snapshot was built
    with a counter."""


class CacheDiagnostic(EngineEvent, frozen=True):
    """What the provider's prompt cache can reuse of one request, emitted with its snapshot.

    ``cold_start`` is True for the first main request of the process (nothing can be cached
    yet); ``prefix_hash`` is the prefix chain over the ``prefix_messages`` cacheable leading
    messages; ``prefix_stable`` says it equals the previous main request's (the cache
    baseline), so the provider can reuse that prefix. A compaction fallback's call is
    ``fallback``: it reports no cold start and is never compared with, nor becomes, the
    main session's baseline.
    """

    kind: ClassVar[str] = "cache"
    request_id: str
    cold_start: bool
    prefix_messages: int
    prefix_hash: str
    prefix_stable: bool
    compaction: bool = False
    fallback: bool = False


class TextDelta(EngineEvent, frozen=True):
    """A chunk of assistant text streamed by the model."""

    kind: ClassVar[str] = "text_delta"
    text: str


class ReasoningDelta(EngineEvent, frozen=True):
    """A chunk of reasoning text streamed by the model."""

    kind: ClassVar[str] = "reasoning_delta"
    text: str


class ToolInputDelta(EngineEvent, frozen=True):
    """The model is writing a tool call: its name and the characters of its arguments so far
    (the call is shown once whole, with ``ToolCallStarted``)."""

    kind: ClassVar[str] = "tool_input_delta"
    name: str
    chars: int


class ToolCallStarted(EngineEvent, frozen=True):
    """A tool call is about to run."""

    kind: ClassVar[str] = "tool_call_started"
    call: ToolCall
    summary: str


class OutputCut(msgspec.Struct, frozen=True):
    """What of a tool's output the model did not get: it was over its budget.

    Attributes:
        total_bytes: UTF-8 bytes of the whole output.
        shown_bytes: bytes of what the model got.
        total_lines: lines of the whole output.
        shown_lines: lines the model got.
        saved_at: where the whole output is (the file itself for ``read``; "" when nowhere).
        budget_tokens: the result's budget.
        saved_bytes: how much of the output the file at ``saved_at`` holds when that is not
            all of it (the file was cut at its cap); 0: the whole output.
    """

    total_bytes: int
    shown_bytes: int
    total_lines: int
    shown_lines: int
    saved_at: str = ""
    budget_tokens: int = 0
    saved_bytes: int = 0


class ToolCallFinished(EngineEvent, frozen=True):
    """A tool call finished; ``status`` is ``done``, ``failed`` or ``rejected``. ``cut`` says
    what of the output was left out to keep the result within its budget (None: nothing)."""

    kind: ClassVar[str] = "tool_call_finished"
    call: ToolCall
    status: str
    output: str
    cut: OutputCut | None = None


class ToolOutputProgress(EngineEvent, frozen=True):
    """A running command's output so far: its size, its lines and its last lines (a few a
    second at most, so that a long build or test run shows it is alive). Shown, never logged:
    the finished call carries the output."""

    kind: ClassVar[str] = "tool_output"
    call_id: str
    bytes: int
    lines: int
    tail: str


class PermissionAnswered(EngineEvent, frozen=True):
    """A tool call's permission request was answered by whoever the session asks (the person in
    the workbench; ``--yes`` or its absence in a headless run), not by a rule of
    ``[permissions]`` or an earlier ``always`` answer: what was asked (``summary``) and the
    ``decision`` (``allow_once``, ``allow_always``, ``reject_once``, ``reject_always``).
    ``agent``: the sub-agent whose call it was ("" the session's model). Emitted before the
    call's result."""

    kind: ClassVar[str] = "permission_answered"
    call_id: str
    tool: str
    summary: str
    decision: str
    agent: str = ""


class MessageAppended(EngineEvent, frozen=True):
    """A message was added to the active conversation (exactly as stored)."""

    kind: ClassVar[str] = "message"
    message: Message


class CacheExplanation(msgspec.Struct, frozen=True):
    """What the cache reused of a request, what it wrote again, why, and what that cost.

    ``cost_usd`` prices ``rewritten_tokens`` at the cache-write price (``None``: unknown price);
    ``provider_reason`` is the provider's own diagnostic, ``disagrees`` says it names another
    cause than ours; ``estimated`` marks figures taken from bytes, not from reported usage.
    """

    reused_tokens: int
    rewritten_tokens: int
    cause: str
    detail: str
    cost_usd: float | None = None
    provider_reason: str = ""
    disagrees: bool = False
    estimated: bool = False


class UsageReported(EngineEvent, frozen=True):
    """Provider-reported usage for one model call, with what it cost and why the cache missed.

    ``cost_usd`` is the call's cost (``cost`` its four parts) and ``session_cost_usd`` the
    session's total so far, ``None`` when the model's price is unknown (never 0);
    ``cache`` explains the cache reuse (``engine.cache_causes``); ``cache_miss_reason`` is the
    provider's own diagnostic, when it gave one.
    """

    kind: ClassVar[str] = "usage"
    model: str
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    estimated_prompt_tokens: int = 0
    request_id: str = ""
    cost_usd: float | None = None
    cost: RequestCost | None = None
    session_cost_usd: float | None = None
    session_cost: RequestCost | None = None
    cache: CacheExplanation | None = None
    cache_miss_reason: str = ""


class RequestStopped(EngineEvent, frozen=True):
    """A request that ended before its usage came (none will for it): cancelled (Esc), or
    failed with a provider error (``error``: its words; the turn's ``ErrorEvent``, or its retry,
    follows). ``streamed_chars``: the reply's text that had arrived (a main reply's is kept,
    marked incomplete). ``cost_usd``: what it cost all the same, known only for a free model
    (a local server: $0); None: unknown, the provider may bill what it read."""

    kind: ClassVar[str] = "request_stopped"
    request_id: str
    error: str = ""
    streamed_chars: int = 0
    cost_usd: float | None = None


class ErrorEvent(EngineEvent, frozen=True):
    """A turn ended in an error; the conversation stays intact."""

    kind: ClassVar[str] = "error"
    code: str
    message: str
    remedies: tuple[Remedy, ...] = ()
    """What the user can do about it (a provider error's ``remedies``), for the UI to offer."""


# -- compaction -----------------------------------------------------------------------------


class HealthEvent(EngineEvent, frozen=True):
    """Session health after compaction: severity info/warning/critical, state and guidance."""

    kind: ClassVar[str] = "health"
    severity: str
    state: str
    guidance: str
    stage_count: int = 0


EditKind = Literal["masked", "summarized", "cut", "omitted"]


class RoomEdit(msgspec.Struct, frozen=True):
    """One thing a stage did to fit the window.

    Attributes:
        kind: ``masked`` (a tool result replaced by a stub), ``summarized`` (retained turns
            moved into the summarized part), ``cut`` (a message's middle left out), or
            ``omitted`` (messages left out of the summary request).
        where: ``retained`` (the kept tail) or ``summary_request`` (the summary's input).
        role: the role of the message (``tool`` for a masked result).
        label: what it was: ``read path=docs_big.md`` for a tool result, ``3 messages`` for
            moved or omitted messages.
        turn: the turn of the (first) message.
        bytes_before: UTF-8 bytes of the content before.
        bytes_after: after (0 for moved or omitted messages).
        tokens_before: estimated tokens before.
        tokens_after: after.
        saved_at: where the full output is kept ("" when nowhere).
        count: how many messages the edit covers.
    """

    kind: EditKind
    where: Literal["retained", "summary_request"]
    role: str
    label: str
    turn: int
    bytes_before: int
    bytes_after: int
    tokens_before: int
    tokens_after: int
    saved_at: str = ""
    count: int = 1


FALLBACK_USED = "used"
"""``CompactionOutcome.fallback_status``: the compaction fallback model wrote the summary."""
FALLBACK_SKIPPED = "skipped"
"""``CompactionOutcome.fallback_status``: the fallback was tried or unavailable; main wrote it."""


class CompactionOutcome(msgspec.Struct, frozen=True):
    """What one compaction operation did.

    ``applied`` is False when no stage produced a usable summary; the other counters then
    describe the attempt. ``modes`` lists the stages that applied (``"normal"``,
    ``"emergency"``), so ``stage_count == len(modes)``. ``summary_model`` is ``alias/model`` of
    the model that wrote the summary. ``fallback_status`` is ``"used"``, ``"skipped"`` or ``""``
    (no fallback involved). The source messages to archive travel beside it, on the
    operation's result (``CompactionResult.pending_archive``).
    """

    applied: bool
    stage_count: int = 0
    modes: tuple[str, ...] = ()
    before_tokens: int = 0
    after_tokens: int = 0
    summary_model: str = ""
    fallback_status: str = ""
    fallback_reason: str = ""
    backend_state_cleared: bool = False
    health: HealthEvent | None = None
    at: datetime | None = None
    summarized_count: int = 0
    retained_count: int = 0
    steering: str = ""
    manual: bool = False
    summary: str = ""
    edits: tuple[RoomEdit, ...] = ()
    """What the stages did to fit the window (masked, moved, cut, left out), in order."""
    trigger: str = ""
    """Why it ran (``compaction.triggers``: ``soft threshold``, ``hard fit``, ``manual /compact``,
    ...); ``""``: not recorded (a generation from an older log)."""
    notes: tuple[str, ...] = ()
    """What else the operation says about itself: results masked to leave room, a summary
    rejected and why, ``ineffective: ...`` when it freed too little."""
    summary_tokens: int = 0
    retained_tokens: int = 0
    """Main's estimate of the summary and of the ``retained_count`` messages kept, parts of
    ``after_tokens`` (with the context blocks, tools and framing); 0 and 0: no summary applied,
    or an outcome from an older log."""

    @property
    def mode(self) -> str:
        """The last stage that applied (``""`` when none did)."""
        return self.modes[-1] if self.modes else ""


class CompactionApplied(EngineEvent, frozen=True):
    """A compaction applied: the lineage gained generation ``generation_id``."""

    kind: ClassVar[str] = "compaction"
    generation_id: int
    outcome: CompactionOutcome


class CompactionProgress(EngineEvent, frozen=True):
    """A compaction stage is running: the engine emits it (``tokens`` 0) as the stage starts,
    before its plan and summary call, the runner again as the summary streams in.

    ``stage`` is ``normal`` or ``emergency``; ``target`` the summarizing model's ref;
    ``fallback``: the compaction fallback model writes it. ``tokens`` is the output so far
    (text and reasoning) estimated as characters / 4: servers report usage only at the end.
    ``trigger`` is why the compaction runs (``compaction.triggers``), as its outcome records it.
    """

    kind: ClassVar[str] = "compaction_progress"
    stage: str
    target: str
    fallback: bool = False
    tokens: int = 0
    trigger: str = ""


class CompactionAsked(EngineEvent, frozen=True):
    """``ask`` mode asked before a request, and was answered.

    ``answer`` is ``compact``, ``send``, ``mask`` or ``refused``; ``focus`` the steering text
    of a ``compact`` answer; ``reason`` is ``soft_trigger``, ``over_window`` or ``too_large``.
    """

    kind: ClassVar[str] = "compaction_asked"
    reason: str
    prompt_tokens: int
    soft_threshold: int
    answer: str
    focus: str = ""


class PinChanged(EngineEvent, frozen=True):
    """A message was pinned (``pinned``) or unpinned; ``key`` is its pin key, ``label`` how it
    is named to the person. The session log records it; the lineage carries the pins."""

    kind: ClassVar[str] = "pin"
    key: str
    pinned: bool
    label: str = ""


# -- assembly and skills --------------------------------------------------------------------


class WarningEvent(EngineEvent, frozen=True):
    """Something went wrong but nothing was lost (unreadable file, archive append failure...)."""

    kind: ClassVar[str] = "warning"
    code: str
    message: str


class SkillTruncated(EngineEvent, frozen=True):
    """A skill body exceeded the cap and was cut."""

    kind: ClassVar[str] = "skill_truncated"
    name: str
    original_bytes: int
    cap_bytes: int


class SkillStateEvent(EngineEvent, frozen=True):
    """A skill envelope was replayed from a stored conversation (resume)."""

    kind: ClassVar[str] = "skill_state"
    name: str
    state: str
    bytes: int


class StaticContextReloaded(EngineEvent, frozen=True):
    """Static partitions whose files changed on disk were applied: the next request has them.

    ``reason`` is ``compaction`` (applied with the next compaction), ``manual`` (the person
    asked to reload now) or ``unsent`` (applied as they changed: no request was sent yet, so
    no cached prefix broke).
    """

    kind: ClassVar[str] = "static_reloaded"
    partitions: tuple[str, ...]
    reason: str
