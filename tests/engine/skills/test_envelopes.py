"""Envelopes: exact wire bytes, length-delimited parsing, malformed rules, split/prepend/strip."""

from __future__ import annotations

import pytest

from steiner_tui.engine.skills.envelopes import (
    SkillBlock,
    parse_envelope,
    prepend_skill_blocks,
    render_skill_activation,
    render_skill_deactivation,
    skill_framing,
    split_skill_blocks,
    strip_skill_blocks,
)
from steiner_tui.engine.skills.modes import BUILD_MODE_NOTICE, PLAN_MODE_NOTICE

GOOD_OFF = (
    '<steiner-skill name="good" state="inactive" bytes="104">\n'
    'Skill "good" is no longer active. Stop following its workflow; '
    "its earlier instructions no longer apply.\n</steiner-skill>"
)
GOOD_BODY = GOOD_OFF.split("\n")[1]


def test_deactivation_matches_the_wire_example() -> None:
    assert render_skill_deactivation("good") == GOOD_OFF


def test_activation_layout_is_exact() -> None:
    text, truncated = render_skill_activation("rev", "Do it.")
    inner = f"## Active Skill: rev\n\n{skill_framing()}\n\nDo it."
    expected = f'<steiner-skill name="rev" state="active" bytes="{len(inner.encode())}">\n'
    assert text == expected + inner + "\n</steiner-skill>"
    assert truncated is False


def test_framing_is_one_stable_paragraph() -> None:
    framing = skill_framing()
    assert framing and "\n" not in framing
    assert framing == framing.strip()
    assert "inactive" in framing


def test_name_is_quoted_in_tag_and_raw_in_heading() -> None:
    text, _ = render_skill_activation('we"ird\nname', "b")
    assert text.startswith('<steiner-skill name="we\\"ird\\nname" state="active" bytes="')
    assert '## Active Skill: we"ird\nname\n\n' in text
    assert render_skill_deactivation("é").startswith(
        '<steiner-skill name="é" state="inactive" bytes="102">'
    )


def test_body_with_close_tag_round_trips() -> None:
    body = 'before\n</steiner-skill>\n\n<steiner-skill name="x" state="active" bytes="1">\nafter'
    text, _ = render_skill_activation("tricky", body)
    prefix, blocks, rest = split_skill_blocks(text + "\n\nuser text")
    assert prefix == ""
    assert [(b.name, b.state, b.text) for b in blocks] == [("tricky", "active", text)]
    assert blocks[0].skill_body == body
    assert blocks[0].body.endswith(body)
    assert rest == "user text"


def test_parse_returns_end_position() -> None:
    content = "xx" + GOOD_OFF + "tail"
    parsed = parse_envelope(content, 2)
    assert parsed is not None
    block, end = parsed
    assert block == SkillBlock("good", "inactive", GOOD_OFF, GOOD_BODY)
    assert block.size_bytes == 104
    assert content[end:] == "tail"
    assert parse_envelope(content, 0) is None


def _with_n(n: str) -> str:
    return GOOD_OFF.replace('bytes="104"', f'bytes="{n}"')


MALFORMED = {
    "not an envelope": "hello",
    "tag spelled differently": GOOD_OFF.replace("<steiner-skill ", "<steiner-skills "),
    "two spaces between attributes": GOOD_OFF.replace('" state', '"  state'),
    "attribute order": GOOD_OFF.replace(
        'name="good" state="inactive"', 'state="inactive" name="good"'
    ),
    "unquoted name": GOOD_OFF.replace('name="good"', "name=good"),
    "single-quoted name": GOOD_OFF.replace('name="good"', "name='good'"),
    "name with a raw newline": GOOD_OFF.replace('name="good"', 'name="go\nod"'),
    "name that does not unquote": GOOD_OFF.replace('name="good"', 'name="go\\qod"'),
    "name with an invalid rune escape": GOOD_OFF.replace('name="good"', 'name="\\ud800"'),
    "unknown state": GOOD_OFF.replace('"inactive"', '"paused"'),
    "state in capitals": GOOD_OFF.replace('"inactive"', '"INACTIVE"'),
    "bytes empty": _with_n(""),
    "bytes negative": _with_n("-104"),
    "bytes with a plus sign": _with_n("+104"),
    "bytes with spaces": _with_n(" 104"),
    "bytes non-ascii digits": _with_n("١٠٤"),
    "bytes above 2^63-1": _with_n("9223372036854775808"),
    "bytes very long": _with_n("1" * 5000),
    "bytes past end of text": _with_n("105"),
    "bytes too short": _with_n("103"),
    "bytes huge but valid int": _with_n("9223372036854775807"),
    "no newline after open tag": GOOD_OFF.replace('104">\n', '104">'),
    "missing close tag": GOOD_OFF.removesuffix("</steiner-skill>"),
    "close tag without newline": GOOD_OFF.replace("\n</steiner-skill>", "</steiner-skill>"),
    "close tag misspelled": GOOD_OFF.replace("</steiner-skill>", "</steiner-skil>"),
    "leading space": " " + GOOD_OFF,
}


@pytest.mark.parametrize("content", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_envelopes_are_left_alone(content: str) -> None:
    assert parse_envelope(content, 0) is None
    assert split_skill_blocks(content + "\n\nrest") == ("", [], content + "\n\nrest")
    assert strip_skill_blocks(content) == content


def test_leading_zeros_in_bytes_are_allowed() -> None:
    content = _with_n("000104")
    assert split_skill_blocks(content) == (
        "",
        [SkillBlock("good", "inactive", content, GOOD_BODY)],
        "",
    )


def test_bytes_ending_inside_a_character_is_malformed() -> None:
    text = render_skill_deactivation("é")  # the body holds "é" (two bytes) in the quoted name
    assert split_skill_blocks(text)[1]
    broken = text.replace('bytes="102"', 'bytes="8"')
    assert parse_envelope(broken, 0) is None


def test_split_stops_at_first_malformed_envelope() -> None:
    first = render_skill_deactivation("a")
    bad = MALFORMED["unknown state"]
    last = render_skill_deactivation("b")
    content = f"{first}\n\n{bad}\n\n{last}\n\ntext"
    prefix, blocks, rest = split_skill_blocks(content)
    assert prefix == ""
    assert [b.name for b in blocks] == ["a"]
    assert rest == f"{bad}\n\n{last}\n\ntext"


def test_split_skips_exactly_one_blank_line_and_allows_none() -> None:
    a = render_skill_deactivation("a")
    b = render_skill_deactivation("b")
    _, blocks, rest = split_skill_blocks(f"{a}{b}\n\n\n\ntext")
    assert [x.name for x in blocks] == ["a", "b"]
    assert rest == "\n\ntext"
    _, blocks, rest = split_skill_blocks(f"{a}\n{b}")
    assert [x.name for x in blocks] == ["a"]
    assert rest == f"\n{b}"


def test_only_leading_envelopes_count() -> None:
    content = "hello\n\n" + GOOD_OFF
    assert split_skill_blocks(content) == ("", [], content)


@pytest.mark.parametrize("notice", [PLAN_MODE_NOTICE, BUILD_MODE_NOTICE])
def test_split_reads_mode_notice_first(notice: str) -> None:
    content = f"{notice}\n\n{GOOD_OFF}\n\nhi"
    prefix, blocks, rest = split_skill_blocks(content)
    assert prefix == notice + "\n\n"
    assert [b.name for b in blocks] == ["good"]
    assert rest == "hi"
    assert strip_skill_blocks(content) == f"{notice}\n\nhi"


def test_prepend() -> None:
    assert prepend_skill_blocks(None, "x") == "x"
    assert prepend_skill_blocks([], "x") == "x"
    a, b = render_skill_deactivation("a"), render_skill_deactivation("b")
    assert prepend_skill_blocks([a, b], "x") == f"{a}\n\n{b}\n\nx"
    assert prepend_skill_blocks((a,), "") == f"{a}\n\n"
    assert strip_skill_blocks(prepend_skill_blocks([a, b], "x")) == "x"


def test_lone_surrogates_never_raise() -> None:
    text, _ = render_skill_activation("\ud800name", "body \udcff")
    prefix, blocks, rest = split_skill_blocks(text + "\n\n\ud800")
    assert prefix == ""
    assert [b.name for b in blocks] == ["\ud800name"]
    assert blocks[0].skill_body == "body \udcff"
    assert rest == "\ud800"
