"""The compact JSON's byte form: numbers as the reference writes a decoded float64, surrogates."""

from __future__ import annotations

import hashlib
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from steiner_tui.engine.frozen import FrozenDict, freeze
from steiner_tui.engine.jsonenc import JSONValueError, frozen_json, go_json, go_number
from steiner_tui.engine.messages import Message, ToolCall, message_hash
from steiner_tui.engine.utf8 import utf8

# What the reference's encoder writes for the float64 each value decodes to.
GO_NUMBERS = [
    (1.0, "1"),
    (1, "1"),
    (-2.0, "-2"),
    (0.1, "0.1"),
    (1e-05, "0.00001"),
    (1e-06, "0.000001"),
    (9.999999e-07, "9.999999e-7"),
    (1.5e-07, "1.5e-7"),
    (1e-10, "1e-10"),
    (5e-324, "5e-324"),
    (1e16, "10000000000000000"),
    (1e20, "100000000000000000000"),
    (1.2345678901234568e20, "123456789012345680000"),
    (1e21, "1e+21"),
    (-1e21, "-1e+21"),
    (1e100, "1e+100"),
    (-0.0, "-0"),
    (0, "0"),
    (2**53, "9007199254740992"),
    (2**53 + 1, "9007199254740992"),
    (10**21, "1e+21"),
]


@pytest.mark.parametrize(("value", "expected"), GO_NUMBERS)
def test_numbers_are_written_as_the_reference_writes_a_decoded_float(
    value: float, expected: str
) -> None:
    assert go_number(value) == expected
    assert go_json({"n": value}) == '{"n":' + expected + "}"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 10**400])
def test_values_without_a_json_form_are_a_clear_error(value: float) -> None:
    with pytest.raises(JSONValueError):
        go_json({"n": value})


def test_other_types_and_keys_are_errors() -> None:
    with pytest.raises(JSONValueError):
        go_json({1: "a"})
    with pytest.raises(JSONValueError):
        go_json({"a": object()})


def test_objects_sort_keys_escape_html_and_keep_non_ascii_raw() -> None:
    assert go_json({"b": [1.0, True, None], "a": "<é>&\u2028"}) == (
        '{"a":"\\u003cé\\u003e\\u0026\\u2028","b":[1,true,null]}'
    )
    # Without a float: msgspec writes it, the five characters escaped after.
    assert go_json({"b": [1, True, None], "a": "<é>&\u2028\u2029"}) == (
        '{"a":"\\u003cé\\u003e\\u0026\\u2028\\u2029","b":[1,true,null]}'
    )
    assert go_json(None) == "null"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_round_trips_through_its_form(value: float) -> None:
    text = go_number(value)
    assert float(text) == value
    assert "e-0" not in text  # the exponent is never padded


def test_lone_surrogates_are_written_as_the_replacement_character() -> None:
    assert go_json("a\ud800") == '"a\ufffd"'
    # An escaped pair held as two halves is the one character it stands for.
    assert go_json("\ud83d\ude00") == '"😀"'
    assert utf8("a\ud800") == "a\ufffd".encode()


def test_tool_call_arguments_with_a_lone_surrogate_hash_without_raising() -> None:
    call = ToolCall("c1", "grep", {"pattern": "\ud800"}, raw_arguments='{"pattern":"\\ud800"}')
    message = Message("assistant", tool_calls=(call,))
    expected = hashlib.sha256(
        b"assistant" + b"grep" + '{"pattern":"\ufffd"}'.encode() + b'{"pattern":"\\ud800"}'
    ).digest()[:4]
    assert message_hash(message) == expected.hex()


def test_two_halves_of_a_pair_in_two_fields_hash_as_two_replacement_characters() -> None:
    call = ToolCall("c1", "\ude00grep", None)  # the pair's low half, after reasoning's high
    message = Message("assistant", reasoning="a\ud83d", tool_calls=(call,))
    fields = ("assistant", "", "a\ufffd", "\ufffdgrep", "null", "")
    expected = hashlib.sha256("".join(fields).encode()).digest()[:4]
    assert message_hash(message) == expected.hex()


def test_content_with_a_lone_surrogate_hashes_as_its_replacement_form() -> None:
    assert message_hash(Message("user", "a\ud800")) == message_hash(Message("user", "a\ufffd"))
    assert Message("user", "a\ud800").prompt_bytes == len(b"user") + len("a\ufffd".encode())


def test_integral_float_arguments_hash_as_integers() -> None:
    # The reference writes 1.0 as 1, so both calls hash alike (issue 18, item 9).
    with_float = Message("assistant", tool_calls=(ToolCall("c", "read", {"limit": 1.0}),))
    with_int = Message("assistant", tool_calls=(ToolCall("c", "read", {"limit": 1}),))
    assert message_hash(with_float) == message_hash(with_int)
    assert with_float.tool_calls[0].arguments_json == '{"limit":1}'


def test_arguments_without_a_json_form_are_kept_only_raw() -> None:
    raw = '{"limit": NaN}'
    call = ToolCall("c", "read", json.loads(raw), raw_arguments=raw)
    assert call.arguments is None
    assert call.arguments_json == "null"
    message_hash(Message("assistant", tool_calls=(call,)))  # no crash later in the turn


@pytest.mark.parametrize(
    "value",
    [
        {"path": "a.py", "offset": 3},
        {"z": "é", "a": "<b>&</b>\u2028\u2029"},
        {"big": 2**53 + 1, "small": -(2**53), "flag": True, "none": None},
        {"n": 1.0},
        {"nested": {"b": [1, {"<": ">"}]}, "a": []},
        {"lone": "\ud800"},
        {1: "a"},
        FrozenDict({"b": "1", "a": "2"}),
        {},
        None,
        [1, "a"],
    ],
)
def test_frozen_json_is_freeze_and_go_json_in_one(value: object) -> None:
    frozen, text = frozen_json(value)
    assert text == go_json(freeze(value))
    assert frozen == freeze(value) and type(frozen) is type(freeze(value))


def test_frozen_json_of_a_value_without_a_json_form_is_none_and_null() -> None:
    assert frozen_json({"n": math.nan}) == (None, "null")
    assert frozen_json({"a": [10**400]}) == (None, "null")
