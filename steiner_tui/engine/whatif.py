"""What-if thresholds: replay a session's recorded requests under another soft trigger or mode.

``simulate`` takes the main requests a session sent (``recorded_requests`` reads them from its
snapshots), rebuilds the timeline of what each request added (the person's message, the replies
and tool results since the request before), and plays that timeline again with another soft
threshold and compaction mode, using the engine's own rules for the new conversation after a
compaction (``split_for_retention``, the retention anchor, pins, ``compose_compacted_conversation``:
the normal stage, then the emergency stage while the result still reaches the trigger). It
reports, per setting:

* when it would have compacted (the request positions; ``ask`` would have asked there) and how
  many times; ``off`` never compacts and says where a request would first not fit
  (``stopped_at``: the run would have stopped there);
* the prompt tokens of every request as it would have been (the line over the
  tokens-per-request chart), and the tokens sent in total (main requests and summary requests);
* the estimated **cache-read share**: a request repeats the one before it as its prefix within
  a generation; the first request after a compaction shares only the static prefix (blocks and
  tools), a summary request shares the static prefix and the summarized part; the first request
  of the session is cold.

Two things are supplied by the caller, as functions, so the simulation stays pure: how a
normal request over a conversation is estimated (the runner's ``prepare``) and what a summary
of a summarized part would be (its text: the offline model's own extractive summarizer, which
makes an offline session's replay exact, or a stand-in the size of the session's summaries).
The replies a session would have received after a different compaction are unknown; the
simulation reuses the recorded ones, which is exact for a deterministic model whose replies do
not depend on what was compacted, and an estimate otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from steiner_tui.engine.budget import CompactionMode, ModelTokenBudget
from steiner_tui.engine.compaction.escalation import ineffective_note
from steiner_tui.engine.compaction.pins import is_pinned_by, pin_key
from steiner_tui.engine.compaction.policy import AutoCompaction
from steiner_tui.engine.compaction.retention import (
    anchor_real_user_retention,
    compose_compacted_conversation,
    is_pending_sub_agents_message,
)
from steiner_tui.engine.compaction.room import Sizer, mask_retained, take_pinned
from steiner_tui.engine.compaction.summary_request import compaction_instruction
from steiner_tui.engine.compaction.turns import (
    EMERGENCY_RETAINED_TURNS,
    NORMAL_RETAINED_TURNS,
    split_for_retention,
)
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.state.artifacts import ArtifactLedger, build_ledger, strip_ledger

__all__ = [
    "RecordedRequest",
    "Summarize",
    "WhatIf",
    "WhatIfResult",
    "observed",
    "recorded_requests",
    "simulate",
]

Summarize = Callable[[Sequence[Message], CompactionMode], str]
"""The summary text a compaction stage would write for a summarized part."""


class RecordedRequest(msgspec.Struct, frozen=True):
    """One request of the session as it was sent.

    Attributes:
        conversation: its conversation messages (after the block messages).
        prompt_tokens: its estimated prompt, as recorded.
        generation: the generation it was sent in.
        compaction: a summary request (not part of the timeline; counted by ``observed``).
    """

    conversation: tuple[Message, ...]
    prompt_tokens: int
    generation: str = ""
    compaction: bool = False


def recorded_requests(snapshots: Sequence[RequestSnapshot]) -> tuple[RecordedRequest, ...]:
    """The recorded requests of a session's snapshots, in order (dry runs are not recorded)."""
    return tuple(
        RecordedRequest(
            tuple(s.messages[s.block_message_count :]),
            s.estimated_prompt_tokens,
            s.generation_id,
            s.compaction,
        )
        for s in snapshots
    )


class WhatIf(msgspec.Struct, frozen=True):
    """One setting to try: a soft threshold in tokens and a compaction mode."""

    threshold: int
    mode: AutoCompaction = "auto"


class WhatIfResult(msgspec.Struct, frozen=True):
    """How the session would have gone under ``setting`` (``observed``: how it went).

    Attributes:
        setting: the threshold and mode.
        prompt_tokens: each main request's prompt, in order (up to ``stopped_at``).
        compactions: the positions (0-based, among main requests) of the requests that a
            compaction would have preceded (``ask``: where it would have asked).
        stopped_at: ``off``: the first request that would not have fit (the run stops there).
        tokens_sent: every prompt sent, summary requests included.
        cache_read_tokens: the part of ``tokens_sent`` estimated to be read from the cache.
    """

    setting: WhatIf
    prompt_tokens: tuple[int, ...]
    compactions: tuple[int, ...]
    stopped_at: int | None
    tokens_sent: int
    cache_read_tokens: int

    @property
    def count(self) -> int:
        """How many compactions."""
        return len(self.compactions)

    @property
    def cache_read_share(self) -> float:
        """``cache_read_tokens / tokens_sent`` (0 when nothing was sent)."""
        return self.cache_read_tokens / self.tokens_sent if self.tokens_sent else 0.0


def _slot(message: Message) -> tuple[int, str, str]:
    """A message's identity across generations (a masked result keeps its call's)."""
    if message.role == "tool" and message.tool_call_id:
        return (message.turn, "tool", message.tool_call_id)
    return (message.turn, message.role, pin_key(message))


def _written_by_compaction(message: Message) -> bool:
    if message.role == "summary" or is_pending_sub_agents_message(message):
        return True
    if message.role != "user":
        return False
    prefix, blocks, rest = split_skill_blocks(message.content)
    return bool(blocks) and not prefix and not rest  # a skill replay


def _timeline(requests: Sequence[RecordedRequest]) -> list[list[Message]]:
    """Per main request, the messages it was the first to carry."""
    seen: set[tuple[int, str, str]] = set()
    out: list[list[Message]] = []
    for request in requests:
        if request.compaction:
            continue
        new: list[Message] = []
        for message in request.conversation:
            slot = _slot(message)
            if slot in seen or _written_by_compaction(message):
                continue
            seen.add(slot)
            new.append(message)
        out.append(new)
    return out


class _Sim(msgspec.Struct):
    budget: ModelTokenBudget
    estimate: Callable[[Sequence[Message]], int]
    summarize: Summarize
    pins: tuple[str, ...]
    history_note: str

    def stage(
        self, conversation: Sequence[Message], mode: CompactionMode
    ) -> tuple[tuple[Message, ...], tuple[Message, ...]] | None:
        """One stage: the new conversation and the summarized part (None: nothing to do)."""
        keep = NORMAL_RETAINED_TURNS if mode == "normal" else EMERGENCY_RETAINED_TURNS
        summarized, retained = split_for_retention(conversation, keep)
        if mode == "normal":
            budget, estimate = self.budget, self.estimate
            summarized, retained = anchor_real_user_retention(
                summarized, retained, lambda tail: budget.fit_request(estimate(tail)).fits
            )
        kept: tuple[Message, ...] = ()
        if self.pins:
            sizer = Sizer(lambda m: self.estimate((m,)), lambda m: "")
            summarized, kept, _, _ = take_pinned(summarized, is_pinned_by(self.pins), sizer)
        if not summarized:
            return None
        text = self.summarize(summarized, mode).strip()
        # The artifact ledger rides with the summary, as the stage writes it.
        earlier = next((m.content for m in conversation if m.role == "summary"), "")
        ledger = build_ledger(summarized, ArtifactLedger.parse(earlier)).render()
        text = f"{strip_ledger(text)}\n\n{ledger}" if ledger else strip_ledger(text)
        if self.history_note:
            text = f"{text}\n\n{self.history_note}" if text else self.history_note
        composed = compose_compacted_conversation(text, conversation, (*kept, *retained))
        return composed.messages, summarized

    def relieve(self, conversation: Sequence[Message], prompt: int, static: int) -> list[Message]:
        """``conversation`` with its largest retained tool results masked (``mask_retained``)."""
        sizer = Sizer(lambda m: self.estimate((m,)) - static, lambda m: "")
        overhead = prompt - sum(sizer.message_tokens(m) for m in conversation)
        target = max(0, self.budget.relief_target - overhead)
        masked, _ = mask_retained(conversation, target, sizer=sizer, pinned=is_pinned_by(self.pins))
        return list(masked)

    def summary_request_tokens(self, summarized: Sequence[Message], mode: CompactionMode) -> int:
        instruction = compaction_instruction(mode, "", "", None)
        return self.estimate((*summarized, Message("user", instruction)))


def simulate(
    requests: Sequence[RecordedRequest],
    setting: WhatIf,
    *,
    budget: ModelTokenBudget,
    estimate: Callable[[Sequence[Message]], int],
    summarize: Summarize,
    pins: Sequence[str] = (),
    history_note: str = "",
) -> WhatIfResult:
    """Play the session's timeline again under ``setting`` (module docstring).

    Args:
        requests: the session's recorded requests, in order.
        setting: the soft threshold and mode to try.
        budget: the main model's budget (its hard fit; its own threshold is replaced).
        estimate: the calibrated prompt of a normal request over a conversation.
        summarize: the summary text a stage would write.
        pins: the conversation's pin keys (kept by every stage).
        history_note: appended to every summary, as the session's archive does ("": none).

    Returns:
        What would have happened.
    """
    trial = ModelTokenBudget(
        budget.context_size, budget.max_output, budget.completion_reserve, setting.threshold
    )
    sim = _Sim(trial, estimate, summarize, tuple(pins), history_note)
    static = estimate(())
    conversation: list[Message] = []
    prompts: list[int] = []
    compactions: list[int] = []
    sent = cached = 0
    previous = 0
    stopped: int | None = None
    for position, new in enumerate(_timeline(requests)):
        conversation.extend(new)
        prompt = estimate(conversation)
        needs = trial.should_compact(prompt) or not trial.fit_request(prompt).fits
        if needs and setting.mode == "off":
            if not trial.fit_request(prompt).fits:
                stopped = position
                break
        elif needs:
            compactions.append(position)
            before = prompt
            for mode in ("normal", "emergency"):
                staged = sim.stage(conversation, mode)
                if staged is None:
                    continue
                conversation[:], summarized = list(staged[0]), staged[1]
                request = sim.summary_request_tokens(summarized, mode)
                shared = min(previous, sim.estimate(summarized)) if previous else 0
                sent += request
                cached += shared
                previous = static  # the next request shares only the static prefix
                prompt = estimate(conversation)
                if prompt > trial.relief_target:  # as the stages do: results give way first
                    conversation[:] = sim.relieve(conversation, prompt, static)
                    prompt = estimate(conversation)
                fair = not ineffective_note(before, prompt) and not trial.should_compact(prompt)
                room = prompt <= trial.relief_target or fair
                if room and trial.fit_request(prompt).fits:
                    break
            if not trial.fit_request(prompt).fits:
                stopped = position
                break
        sent += prompt
        cached += min(previous, prompt)
        previous = prompt
        prompts.append(prompt)
    return WhatIfResult(setting, tuple(prompts), tuple(compactions), stopped, sent, cached)


def observed(
    requests: Sequence[RecordedRequest],
    budget: ModelTokenBudget,
    estimate: Callable[[Sequence[Message]], int],
) -> WhatIfResult:
    """How the session went, in ``simulate``'s terms (with the same cache-read model).

    Args:
        requests: the recorded requests, summary requests included.
        budget: the main model's budget (its threshold is the setting reported).
        estimate: the calibrated prompt of a normal request over a conversation (the static
            prefix is its value for none; a summary request shares all but its instruction).
    """
    static = estimate(())
    prompts: list[int] = []
    compactions: list[int] = []
    sent = cached = 0
    previous = 0
    generation: str | None = None
    after_summary = False
    for request in requests:
        sent += request.prompt_tokens
        if request.compaction:
            cached += min(previous, estimate(request.conversation[:-1]))
            after_summary = True
            continue
        if generation is not None and request.generation != generation:
            compactions.append(len(prompts))
            previous = static if after_summary else min(previous, static)
        cached += min(previous, request.prompt_tokens)
        previous = request.prompt_tokens
        generation = request.generation
        after_summary = False
        prompts.append(request.prompt_tokens)
    setting = WhatIf(budget.soft_threshold)
    return WhatIfResult(setting, tuple(prompts), tuple(compactions), None, sent, cached)
