"""The conversation ledger: figures kept per message equal those of a whole recount.

Per-turn work must depend on the new messages only, so the runner keeps each message's
projection, hash, bytes and token share in a ledger; whatever the conversation does (grows,
is compacted, resumed, counted for another model), the ledger's figures are exactly those of
counting the whole request again.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from steiner_tui.engine.ledger import ConversationLedger
from steiner_tui.engine.messages import (
    Image,
    Message,
    ToolCall,
    message_hash,
    messages_bytes,
    to_provider_message,
)
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.engine.tooldefs import ToolDefinition

ESTIMATOR = RequestEstimator(default_encoding_loader(None))
TOOLS = (ToolDefinition("read", "Read a file.", {"type": "object", "properties": {}}),)
MODELS = ("offline", "gpt-4o", "claude-sonnet-4-5")


def _message(kind: int, text: str) -> Message:
    if kind == 0:
        return Message("user", text)
    if kind == 1:
        call = ToolCall(f"c{len(text)}", "read", {"path": text[:20], "limit": 2.0})
        return Message("assistant", text, tool_calls=(call,), reasoning="thinking")
    if kind == 2:
        return Message("tool", text, tool_call_id="c1", name="read")
    if kind == 3:
        return Message("assistant", text, incomplete=True)
    if kind == 4:
        return Message("summary", text)
    return Message("user", text, images=(Image("image/png", "aGVsbG8="),))


MESSAGES = st.lists(
    st.builds(_message, st.integers(0, 5), st.text(max_size=300)), min_size=0, max_size=30
)


@settings(max_examples=40, deadline=None)
@given(first=MESSAGES, more=MESSAGES, replaced=MESSAGES, model=st.sampled_from(MODELS))
def test_the_ledger_equals_a_whole_recount(
    first: list[Message], more: list[Message], replaced: list[Message], model: str
) -> None:
    ledger = ConversationLedger(ESTIMATOR)
    for conversation in (tuple(first), tuple(first + more), tuple(replaced)):
        if conversation is not None and conversation == tuple(replaced):
            ledger.forget()  # the owner replaced its conversation
        view = ledger.sync(conversation, model, to_provider_message, False)
        projected = tuple(to_provider_message(m) for m in conversation)
        assert view.messages == projected
        assert view.hashes == tuple(message_hash(m) for m in projected)
        assert view.prompt_bytes == messages_bytes(projected)
        images = sum(len(m.images) for m in projected)
        assert view.images == images
        raw = ESTIMATOR.raw_from_units(model, view.units, view.images, TOOLS)
        assert raw == ESTIMATOR.raw_tokens(model, projected, TOOLS)


def test_growth_adds_only_the_new_messages_and_anything_else_rebuilds() -> None:
    ledger = ConversationLedger(ESTIMATOR)
    base = tuple(Message("user", f"m{n}") for n in range(5))
    ledger.sync(base, "offline", to_provider_message, False)
    ledger.sync((*base, Message("assistant", "a")), "offline", to_provider_message, False)
    assert ledger.rebuilds == 1
    ledger.sync(base[:3], "offline", to_provider_message, False)  # shorter: not a growth
    assert ledger.rebuilds == 2
    ledger.forget()  # the owner replaced it (a compaction)
    ledger.sync(base[:3], "offline", to_provider_message, False)
    assert ledger.rebuilds == 3
    ledger.sync(base[:3], "gpt-4o", to_provider_message, False)  # another encoding
    assert ledger.rebuilds == 4


@settings(max_examples=40, deadline=None)
@given(
    parts=st.lists(MESSAGES, min_size=1, max_size=5),
    prefixes=st.lists(st.integers(0, 2), min_size=5, max_size=5),
)
def test_a_growing_conversation_under_changing_prefixes_equals_a_whole_rebuild(
    parts: list[list[Message]], prefixes: list[int]
) -> None:
    # Each view extends the last one's tuples when the prefix is the same; whatever the
    # prefix does between growths, a view is exactly prefix then the projected conversation.
    choices = (
        (),
        (Message("system", "rules"),),
        (Message("system", "rules"), Message("user", "b")),
    )
    ledger = ConversationLedger(ESTIMATOR)
    conversation: tuple[Message, ...] = ()
    for part, choice in zip(parts, prefixes, strict=False):
        conversation = (*conversation, *part)
        prefix = tuple([*choices[choice]])  # an equal prefix, not the same object
        view = ledger.sync(conversation, "offline", to_provider_message, False, prefix)
        projected = tuple(to_provider_message(m) for m in conversation)
        assert view.messages == (*prefix, *projected)
        assert view.hashes == tuple(message_hash(m) for m in (*prefix, *projected))
        assert view.prompt_bytes == messages_bytes(projected)
