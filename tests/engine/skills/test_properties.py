"""Property tests: envelopes round-trip any text, the cap respects UTF-8, parsing never raises."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from steiner_tui.engine.skills.envelopes import (
    SKILL_CONTENT_CAP_BYTES,
    TRUNCATION_MARKER,
    cap_skill_body,
    parse_envelope,
    prepend_skill_blocks,
    render_skill_activation,
    render_skill_deactivation,
    split_skill_blocks,
    strip_skill_blocks,
)
from steiner_tui.engine.skills.modes import detect_mode_notice
from steiner_tui.engine.skills.quote import go_quote, go_unquote

# Any code point, lone surrogates included (hypothesis leaves them out by default).
any_text = st.text(st.characters(exclude_categories=()))
tricky = st.sampled_from(
    [
        "<steiner-skill ",
        '<steiner-skill name="a" state="active" bytes="1">\n',
        "\n</steiner-skill>",
        '"',
        "\\",
        "\n\n",
        "é",
        "\U0001f600",
        "\u2028",
        "[execution mode: build] Build mode. Normal workspace editing.\n\n",
    ]
)
mixed_text = st.lists(st.one_of(any_text, tricky)).map("".join)


@given(name=mixed_text)
def test_quote_round_trips_and_never_holds_raw_newline(name: str) -> None:
    quoted = go_quote(name)
    assert "\n" not in quoted
    assert go_unquote(quoted) == name


@given(name=mixed_text, body=mixed_text, tail=mixed_text)
def test_activation_round_trips(name: str, body: str, tail: str) -> None:
    text, truncated = render_skill_activation(name, body)
    parsed = parse_envelope(text + tail, 0)
    assert parsed is not None
    block, end = parsed
    assert (block.name, block.state, block.text, end) == (name, "active", text, len(text))
    assert block.skill_body == cap_skill_body(body)[0]
    assert truncated is False


@given(name=mixed_text, rest=mixed_text)
def test_deactivation_round_trips_through_split(name: str, rest: str) -> None:
    text = render_skill_deactivation(name)
    prefix, blocks, after = split_skill_blocks(prepend_skill_blocks([text], rest))
    assert prefix == ""
    assert rest.endswith(after)
    assert (blocks[0].name, blocks[0].state, blocks[0].text) == (name, "inactive", text)


@given(body=st.text(min_size=0, max_size=40), filler=st.integers(0, 8))
def test_truncation_ends_on_boundary_and_respects_cap(body: str, filler: int) -> None:
    big = "x" * (SKILL_CONTENT_CAP_BYTES - filler) + body
    capped, truncated = cap_skill_body(big)
    size = len(capped.encode())
    assert truncated == (len(big.encode()) > SKILL_CONTENT_CAP_BYTES)
    if truncated:
        assert capped.endswith(TRUNCATION_MARKER)
        assert size <= SKILL_CONTENT_CAP_BYTES + len(TRUNCATION_MARKER.encode())
        kept = capped.removesuffix(TRUNCATION_MARKER)
        assert big.startswith(kept) and kept == kept.rstrip(" \t\r\n")
    else:
        assert capped == big


@given(content=mixed_text)
def test_split_and_strip_never_raise_and_rebuild(content: str) -> None:
    prefix, blocks, rest = split_skill_blocks(content)
    stripped = strip_skill_blocks(content)
    assert stripped == prefix + rest
    assert content.startswith(prefix) and content.endswith(rest)
    for block in blocks:
        assert block.text in content


@given(
    names=st.lists(mixed_text, max_size=4),
    states=st.lists(st.booleans(), min_size=4, max_size=4),
    content=mixed_text,
)
def test_strip_inverts_prepend(names: list[str], states: list[bool], content: str) -> None:
    if detect_mode_notice(content) or parse_envelope(content, 0) is not None:
        content = "x" + content
    blocks = [
        render_skill_activation(name, "b")[0] if active else render_skill_deactivation(name)
        for name, active in zip(names, states, strict=False)
    ]
    assert strip_skill_blocks(prepend_skill_blocks(blocks, content)) == content
    _, parsed, _ = split_skill_blocks(prepend_skill_blocks(blocks, content))
    assert [b.text for b in parsed] == blocks
