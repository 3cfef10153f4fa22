"""What the engine's values cache stays outside what they mean: equality, hash, repr, copies."""

from __future__ import annotations

import copy
import hashlib

import msgspec
import pytest

from steiner_tui.engine.messages import Image, Message, ToolCall, message_hash
from steiner_tui.engine.serialize import to_jsonable
from steiner_tui.engine.tooldefs import ToolDefinition


def test_a_message_equals_and_hashes_as_an_equal_one_whatever_it_cached() -> None:
    used = Message("user", "héllo", turn=2)
    assert (used.digest(), used.prompt_bytes) == (message_hash(used), len("user") + 6)
    fresh = Message("user", "héllo", turn=2)
    assert used == fresh and hash(used) == hash(fresh)
    assert used != Message("user", "héllo", turn=3)
    assert "digest" not in repr(used) and "_size" not in repr(used)
    assert Message.__struct_fields__[:2] == ("role", "content")


def test_a_copied_message_derives_its_own_values() -> None:
    original = Message("assistant", "short", turn=1)
    original.digest()
    assert original.prompt_bytes == len("assistant") + 5
    copy = original.with_content("a longer reply")
    assert copy.digest() == Message("assistant", "a longer reply", turn=1).digest()
    assert copy.digest() != original.digest()
    assert copy.prompt_bytes == len("assistant") + len("a longer reply")


DIGESTED = (
    Message("tool", "naïve → ünïcode 😀\n" * 100, name="read", tool_call_id="c1", turn=2),
    Message(
        "assistant",
        "Reading.",
        reasoning="first — the file",
        turn=2,
        tool_calls=(ToolCall("c1", "read", {"path": "ä.py", "limit": 1.0}),),
    ),
    Message("user", "see", images=(Image("image/png", "iVBORw0KGgo="),), turn=3),
    Message("tool", '{"path":"a.py","output":"x"}', name="read", tool_call_id="c2"),
    Message("user", ""),
    Message(
        "assistant",
        tool_calls=(ToolCall("c3", "grep", {"pattern": "<a>"}), ToolCall("c4", "ls", None, "?")),
    ),
)


@pytest.mark.parametrize("message", DIGESTED)
def test_a_digest_hashes_the_designs_input_field_by_field(message: Message) -> None:
    # docs/design.md, section 5: the digests are logged and compared, so their bytes never move.
    h = hashlib.sha256(message.role.encode())
    for text in (message.content, message.reasoning):
        h.update(text.encode())
    for call in message.tool_calls:
        for text in (call.name, call.arguments_json, call.raw_arguments):
            h.update(text.encode())
    for image in message.images:
        h.update(image.media_type.encode() + image.data.encode())
    assert message_hash(Message(**msgspec.structs.asdict(message))) == h.digest()[:4].hex()


@pytest.mark.parametrize("message", DIGESTED)
def test_a_digest_from_the_contents_bytes_is_the_messages_digest(message: Message) -> None:
    expected = Message(**msgspec.structs.asdict(message)).digest()
    data = message.content.encode()
    fed = Message(**msgspec.structs.asdict(message))
    assert fed.digest_from(memoryview(b"<" + data + b">")[1:-1]) == expected
    assert fed.digest() == expected == message_hash(message)
    assert copy.copy(fed).digest() == expected  # a copy skips ``__post_init__``
    other = fed.with_content("ü")  # derives its own digest and size
    assert (other.digest(), other.prompt_bytes) == (
        Message(**msgspec.structs.asdict(other)).digest(),
        len(message.role) + 2,
    )
    assert fed.prompt_bytes == len(message.role) + len(data)


def test_messages_and_calls_are_immutable() -> None:
    call = ToolCall("c1", "read", {"path": "a.py"})
    message = Message("assistant", "", tool_calls=[call])  # type: ignore[arg-type]
    assert message.tool_calls == (call,)
    with pytest.raises(AttributeError):
        message.content = "changed"  # type: ignore[misc]


def test_a_tool_calls_encoding_is_outside_its_fields_and_follows_a_copy() -> None:
    call = ToolCall("c1", "read", {"path": "a.py"})
    assert call.arguments_json == '{"path":"a.py"}'
    assert ToolCall.__struct_fields__ == ("id", "name", "arguments", "raw_arguments")
    assert to_jsonable(call) == {
        "id": "c1",
        "name": "read",
        "arguments": {"path": "a.py"},
        "raw_arguments": "",
    }
    moved = msgspec.structs.replace(call, arguments={"path": "b.py"})
    assert moved.arguments_json == '{"path":"b.py"}'
    assert ToolCall("c2", "read", None).arguments_json == "null"
    bad = ToolCall("c3", "read", {"n": float("nan")}, '{"n": NaN}')
    assert bad.arguments is None and bad.arguments_json == "null"


def test_a_tool_definition_caches_its_json_outside_equality() -> None:
    used = ToolDefinition("read", "Read a file.", {"type": "object"})
    expected = '{"description":"Read a file.","name":"read","parameters":{"type":"object"}}'
    assert used.json == expected
    assert used == ToolDefinition("read", "Read a file.", {"type": "object"})
    assert "_json" not in repr(used)
