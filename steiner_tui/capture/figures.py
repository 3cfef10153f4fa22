"""A capture's figures for the context panel: each request's sources, its window, the chart rows.

The panel and the tokens-per-request chart read what the engine's own requests carry: per-source
rows (``SourceTokens``), a model window, and one ``RequestSummary`` per request. A captured
request has bytes per source and the usage the API reported, so:

* **sources**: each block the agent put in the request (its system blocks, the instruction
  files, the reminders, developer messages), the tool definitions and the rest of the
  conversation, by bytes as sent. Their tokens are the reported context (input, cache read and
  cache creation) shared out by bytes, largest remainders first, so they add up to what the API
  counted. The request's other members (model, ``max_tokens``, metadata) and the JSON framing
  are not context and get no row.
* **a request with no usage** (its reply has not ended, which is the latest request whenever
  the agent is waiting for the model, or the reply carried none): its context is estimated
  from its bytes at the tokens per byte of the latest earlier request that has usage, or at
  four bytes a token when none has, and says so (``ContextFigure.how``), so a capture followed
  live never shows the request the agent just sent as empty.
* **window**: the model's window and max output from the engine's model table
  (``engine.models``), or for an agent's model id the table does not list, the family's: every
  ``claude-*`` model has Anthropic's 200,000 tokens, every ``gemini-*`` one Google's 1,048,576.
  Any other id is *unknown*, and the view says so. An import's window starts from the same
  figures (``importers.window``).
* **compactions**: the agent's summary call (Claude Code's "Do NOT call any tools" prompt that
  asks for a ``<summary>``, Codex's "CONTEXT CHECKPOINT COMPACTION" prompt) is a compaction
  row, so the chart marks the compaction before the next request.
* **cache reuse**: the share of a request's context its reply says was read from cache
  (``RequestSummary.reuse``).
* **cost and cache cause** (``request_costs``): each request with usage is priced from the
  config's prices for its model id, else the engine's price table, and its cache reuse is
  explained against the request it was compared with (``engine.cache_causes.explain_usage``):
  the bytes name what changed (the model, the system prompt, the tool list, an instruction file
  or reminder in the first changed message, the agent's compaction), else the time between
  them or the provider.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from steiner_tui.capture.report import CapturedRequest
from steiner_tui.capture.wire import Block, DecodedRequest
from steiner_tui.engine.cache_causes import UsageTurn, explain_usage
from steiner_tui.engine.events import CacheExplanation, SourceTokens
from steiner_tui.engine.models import is_known_model, lookup_model, model_key
from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides, RequestCost
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.snapshots import TOOL_RESULTS_SOURCE, TOOLS_SOURCE, RequestSummary

__all__ = [
    "ContextFigure",
    "ModelWindow",
    "context_figures",
    "is_compaction_call",
    "model_window",
    "request_costs",
    "request_sources",
    "request_summaries",
    "source_name",
]

ANTHROPIC_WINDOW = 200_000
"""The window of every Claude model the model table does not list by name."""
GEMINI_WINDOW = 1_048_576
"""The window of every Gemini model the model table does not list by name (Gemini 2.5 and 3)."""

_CLAUDE_SUMMARY = ("Do NOT call any tools", "<summary>")
_CODEX_SUMMARY = "CONTEXT CHECKPOINT COMPACTION"
_SOURCE_NAMES = {
    "system": "system",
    "system_message": "system message",
    "developer": "developer",
    "reminder": "reminders",
    "environment": "environment",
}


class ModelWindow(msgspec.Struct, frozen=True):
    """A model's window and where the figure came from (``tokens`` 0: unknown)."""

    model: str
    tokens: int
    origin: str
    max_output: int = 0
    """The model's largest reply (0: unknown)."""

    @property
    def known(self) -> bool:
        return self.tokens > 0


def model_window(model: str) -> ModelWindow:
    """The window of ``model`` (module docstring)."""
    if model and is_known_model(model):
        info = lookup_model(model)
        return ModelWindow(model, info.context_window, "model table", info.max_output)
    family = model_key(model)
    if family.startswith("claude-"):
        return ModelWindow(model, ANTHROPIC_WINDOW, "claude-* models")
    if family.startswith("gemini-"):
        return ModelWindow(model, GEMINI_WINDOW, "gemini-* models")
    return ModelWindow(model, 0, f"window unknown: {model or 'no model'} is not in the model table")


def _inside_messages(block: Block) -> bool:
    """A block that is (part of) a message: its bytes are out of the conversation row."""
    return block.where.startswith(("messages[", "input["))


def _label(block: Block) -> str:
    if block.source == "instructions":
        return f"instructions · {block.path.rsplit('/', 1)[-1] or 'file'}"
    return source_name(block.source)


def source_name(source: str) -> str:
    """How a captured block's ``source`` reads (its id when it has no other name)."""
    return _SOURCE_NAMES.get(source, source)


def share_out(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` split in proportion to ``weights``, largest remainders first (sums to it)."""
    whole = sum(weights)
    if not whole or total <= 0:
        return [0] * len(weights)
    exact = [total * w / whole for w in weights]
    parts = [int(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: exact[i] - parts[i], reverse=True)
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return parts


def request_sources(decoded: DecodedRequest, tokens: int) -> tuple[SourceTokens, ...]:
    """The request's sources by bytes, ``tokens`` shared out among them."""
    rows: list[tuple[str, str, int]] = []  # source, path, bytes
    inside = 0
    for block in decoded.blocks:
        rows.append((_label(block), block.path, block.bytes))
        if _inside_messages(block):
            inside += block.bytes
    if decoded.tools:
        rows.append((TOOLS_SOURCE, "", decoded.tools_bytes))
    # Tool definitions inside an input item (Codex's ``additional_tools``) are tools, not talk.
    inside += sum(t.bytes for t in decoded.tools if t.where.startswith("input["))
    results = sum(r.bytes for m in decoded.messages for r in m.tool_results)
    conversation = sum(m.bytes for m in decoded.messages) - inside - results
    if conversation > 0:
        rows.append((ContextSource.CONVERSATION, "", conversation))
    if results > 0:
        rows.append((TOOL_RESULTS_SOURCE, "", results))
    shares = share_out(tokens, [size for _, _, size in rows])
    return tuple(
        SourceTokens(source, size, share, path)
        for (source, path, size), share in zip(rows, shares, strict=True)
    )


class ContextFigure(msgspec.Struct, frozen=True):
    """A request's context in tokens: reported by the API, or else estimated (``how`` says
    from what and why; "" when reported)."""

    tokens: int
    how: str = ""

    @property
    def reported(self) -> bool:
        return not self.how


_BYTES_PER_TOKEN = 4


def context_figures(requests: Sequence[CapturedRequest]) -> list[ContextFigure]:
    """Each request's context, reported or estimated (module docstring)."""
    out: list[ContextFigure] = []
    rate: tuple[int, float] | None = None  # the latest request with usage: its number, tokens/B
    for request in requests:
        usage = request.usage
        size = sum(source.bytes for source in request_sources(request.decoded, 0))
        if usage is not None:
            out.append(ContextFigure(usage.context_tokens))
            if size:
                rate = (request.recorded.seq, usage.context_tokens / size)
            continue
        reply = request.recorded.reply
        why = "its reply has not ended" if reply is None else "its reply carried none"
        if rate is None:
            tokens = -(-size // _BYTES_PER_TOKEN)
            basis = f"{_BYTES_PER_TOKEN} bytes a token"
        else:
            tokens = round(size * rate[1])
            basis = f"request #{rate[0]}'s tokens per byte"
        out.append(ContextFigure(tokens, f"no usage ({why}): estimated from its bytes at {basis}"))
    return out


def _last_user_text(decoded: DecodedRequest) -> str:
    for message in reversed(decoded.messages):
        if message.role == "user":
            return message.text
    return ""


def is_compaction_call(decoded: DecodedRequest) -> bool:
    """Whether the request is the agent's own summary call (module docstring)."""
    text = _last_user_text(decoded)
    if _CODEX_SUMMARY in text[:200]:
        return True
    return all(marker in text for marker in _CLAUDE_SUMMARY)


def _bytes_cause(request: CapturedRequest, compared: CapturedRequest) -> tuple[str, str] | None:
    decoded, prefix = request.decoded, request.prefix
    if decoded.model != compared.decoded.model:
        return "model", f"model changed: {compared.decoded.model} → {decoded.model}"
    if is_compaction_call(compared.decoded):
        return "compaction", "the agent's compaction replaced the conversation"
    if prefix.system_changed:
        return "source", "the system prompt changed"
    if prefix.tools_changed:
        return "tools", "tool definitions changed"
    index = prefix.first_diverging
    if index is None:
        return None
    where = (f"messages[{index}]", f"input[{index}]")
    named = [b for b in decoded.blocks if b.where.startswith(where) and b.source != "system"]
    if named:
        block = named[0]
        name = block.path.rsplit("/", 1)[-1] if block.path else _label(block)
        return "source", f"{name} changed (message {index + 1})"
    role = decoded.messages[index].role if index < len(decoded.messages) else "message"
    return "conversation", f"message {index + 1} ({role}) changed"


def request_costs(
    requests: Sequence[CapturedRequest], prices: PriceOverrides = NO_OVERRIDES
) -> list[tuple[RequestCost | None, CacheExplanation] | None]:
    """Each request's cost (the config's ``prices`` before the table) and cache cause (None:
    no usage reported), module docstring."""
    by_seq = {request.recorded.seq: request for request in requests}
    thread_of: dict[int, str] = {}
    turn_of: dict[int, int] = {}
    turns: list[UsageTurn] = []
    placed: list[int | None] = []
    for request in requests:
        seq, usage = request.recorded.seq, request.usage
        compared = by_seq.get(request.prefix.compared_with)
        thread_of[seq] = thread_of.get(request.prefix.compared_with, str(seq))
        if usage is None:
            placed.append(None)
            continue
        turn_of[seq] = len(turns)
        placed.append(len(turns))
        turns.append(
            UsageTurn(
                request.recorded.time,
                request.decoded.model,
                usage.context_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_creation_tokens,
                thread_of[seq],
                _bytes_cause(request, compared) if compared is not None else None,
                usage.cache_creation_1h_tokens,
                turn_of.get(request.prefix.compared_with, -1),
            )
        )
    explained = explain_usage(turns, bytes_known=True, prices=prices)
    return [None if at is None else explained[at] for at in placed]


def request_summaries(
    requests: Sequence[CapturedRequest],
    window: ModelWindow,
    prices: PriceOverrides = NO_OVERRIDES,
) -> tuple[RequestSummary, ...]:
    """One chart row per captured request, oldest first (its context reported or estimated,
    ``context_figures``; its cost and cache cause, ``request_costs``)."""
    rows: list[RequestSummary] = []
    figures = context_figures(requests)
    costs = request_costs(requests, prices)
    for position, request in enumerate(requests):
        tokens = figures[position].tokens
        decoded, usage = request.decoded, request.usage
        priced = costs[position]
        fits = not window.known or tokens <= window.tokens
        rows.append(
            RequestSummary(
                position=position,
                index=position + 1,
                time=request.recorded.time,
                model=decoded.model,
                compaction=is_compaction_call(decoded),
                generation_id="",
                estimated_prompt_tokens=tokens,
                max_tokens=decoded.max_tokens,
                prompt_bytes=sum(m.bytes for m in decoded.messages),
                message_count=len(decoded.messages),
                fits=fits,
                overflow_tokens=0 if fits else tokens - window.tokens,
                reported=priced is not None,
                prompt_tokens=usage.context_tokens if usage is not None else 0,
                cache_read_tokens=usage.cache_read_tokens if usage is not None else 0,
                cache_write_tokens=usage.cache_creation_tokens if usage is not None else 0,
                cost_usd=_total(priced),
                cache=priced[1] if priced is not None else None,
            )
        )
    return tuple(rows)


def _total(figures: tuple[RequestCost | None, CacheExplanation] | None) -> float | None:
    cost = figures[0] if figures is not None else None
    return cost.total_usd if cost is not None else None
