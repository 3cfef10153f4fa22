"""go_quote / go_unquote: the byte form of quoted skill names, and reading it back."""

from __future__ import annotations

import pytest

from steiner_tui.engine.skills.quote import go_quote, go_unquote


@pytest.mark.parametrize(
    ("raw", "quoted"),
    [
        ("good", '"good"'),
        ("", '""'),
        ('say "hi"', '"say \\"hi\\""'),
        ("a\\b", '"a\\\\b"'),
        ("line\nnext", '"line\\nnext"'),
        ("\a\b\f\r\t\v", '"\\a\\b\\f\\r\\t\\v"'),
        ("\x7f", '"\\x7f"'),
        ("\x01", '"\\x01"'),
        ("\x1b[0m", '"\\x1b[0m"'),
        ("\u00a0", '"\\u00a0"'),
        ("a b", '"a b"'),
        ("\U0001f600", '"\U0001f600"'),
        ("\u2028", '"\\u2028"'),
        ("\u200b", '"\\u200b"'),
        ("\ufeff", '"\\ufeff"'),
        ("\ue000", '"\\ue000"'),
        ("\U000f0000", '"\\U000f0000"'),
        ("\U000e0001", '"\\U000e0001"'),
        ("café ünï 日本", '"café ünï 日本"'),
        ("\ufffd", '"\ufffd"'),
        ("\u0301", '"\u0301"'),
        ("\ud800", '"\\xed\\xa0\\x80"'),
    ],
)
def test_quote_matches_go(raw: str, quoted: str) -> None:
    assert go_quote(raw) == quoted
    assert go_unquote(quoted) == raw


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ('"\\x67ood"', "good"),
        ('"\\u00e9"', "é"),
        ('"\\U0001F600"', "\U0001f600"),
        ('"\\147ood"', "good"),
        ('"\\000"', "\x00"),
        ('"\\xc3\\xa9"', "é"),
        ('"raw\ttab"', "raw\ttab"),
    ],
)
def test_unquote_accepts_go_escapes(literal: str, value: str) -> None:
    assert go_unquote(literal) == value


@pytest.mark.parametrize(
    "literal",
    [
        "",
        '"',
        "good",
        "'good'",
        '"unterminated',
        '"a"b"',
        '"new\nline"',
        '"\\"',
        '"\\q"',
        '"\\\'"',
        '"\\x6"',
        '"\\xg0"',
        '"\\u12"',
        '"\\ud800"',
        '"\\U00110000"',
        '"\\400"',
        '"\\12"',
        '"\\18a"',
        '"\\xff"',
        '"\\u١٢٣٤"',
        '"\\x1_"',
    ],
)
def test_unquote_rejects_bad_input(literal: str) -> None:
    with pytest.raises(ValueError):
        go_unquote(literal)
