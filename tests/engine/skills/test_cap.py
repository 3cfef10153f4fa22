"""The skill body cap: exactly the cap is kept; one byte more is cut on a character boundary."""

from __future__ import annotations

from steiner_tui.engine.skills.envelopes import (
    SKILL_CONTENT_CAP_BYTES,
    TRUNCATION_MARKER,
    cap_skill_body,
    render_skill_activation,
    split_skill_blocks,
)

CAP = SKILL_CONTENT_CAP_BYTES


def test_constants() -> None:
    assert CAP == 106496
    assert TRUNCATION_MARKER == "\n\n[truncated: skill exceeded the 106496-byte cap]"


def test_body_of_exactly_the_cap_is_not_cut() -> None:
    body = "a" * (CAP - 2) + "é"
    assert len(body.encode()) == CAP
    assert cap_skill_body(body) == (body, False)


def test_one_byte_over_cuts_back_to_character_start() -> None:
    # "€" is three bytes, placed so it straddles byte 106496.
    body = "a" * (CAP - 1) + "€"
    assert len(body.encode()) == CAP + 2
    capped, truncated = cap_skill_body(body)
    assert truncated is True
    assert capped == "a" * (CAP - 1) + TRUNCATION_MARKER


def test_cap_plus_one_with_multibyte_char_straddling() -> None:
    body = "a" * (CAP - 2) + "€"  # 106497 bytes; "€" occupies bytes 106494..106496
    assert len(body.encode()) == CAP + 1
    capped, truncated = cap_skill_body(body)
    assert truncated
    assert capped == "a" * (CAP - 2) + TRUNCATION_MARKER


def test_cap_plus_one_ascii() -> None:
    body = "b" * (CAP + 1)
    assert cap_skill_body(body) == ("b" * CAP + TRUNCATION_MARKER, True)


def test_trailing_whitespace_is_stripped_before_the_marker() -> None:
    body = "x" * (CAP - 6) + " \t\r\n \n" + "tail"
    capped, truncated = cap_skill_body(body)
    assert truncated
    assert capped == "x" * (CAP - 6) + TRUNCATION_MARKER


def test_marker_is_counted_in_n() -> None:
    text, truncated = render_skill_activation("big", "z" * (CAP + 10))
    assert truncated
    block = split_skill_blocks(text)[1][0]
    assert block.skill_body == "z" * CAP + TRUNCATION_MARKER
    assert f'bytes="{len(block.body.encode())}"' in text
