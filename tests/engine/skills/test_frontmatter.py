"""Front matter: the scalar forms Claude Code and Codex skills use."""

from __future__ import annotations

from steiner_tui.engine.skills.frontmatter import split_front_matter


def fields(front: str) -> dict[str, str]:
    parsed = split_front_matter(f"---\n{front}\n---\nbody")
    assert parsed is not None
    return parsed[0]


def test_plain_values_and_body() -> None:
    parsed = split_front_matter("---\nname: pdf\ndescription: Work with PDFs.\n---\n\n# Body\n")
    assert parsed == ({"name": "pdf", "description": "Work with PDFs."}, "\n# Body\n")


def test_quoted_values() -> None:
    got = fields(
        'name: "quoted: name"\n'
        "description: 'It''s single'\n"
        'other: "tab\\tand \\"quote\\" \\u00e9"'
    )
    assert got == {
        "name": "quoted: name",
        "description": "It's single",
        "other": 'tab\tand "quote" é',
    }


def test_folded_and_literal_blocks() -> None:
    got = fields(
        "description: >-\n  first line\n  second line\n\n  new paragraph\n"
        "literal: |\n  keep\n    indented\n  lines\n"
        "name: x"
    )
    assert got["description"] == "first line second line\nnew paragraph"
    assert got["literal"] == "keep\n  indented\nlines"
    assert got["name"] == "x"


def test_plain_multiline_and_comments() -> None:
    got = fields("description: a long\n  description here # note\nname: n # the name")
    assert got == {"description": "a long description here", "name": "n"}


def test_nested_values_are_not_scalars() -> None:
    got = fields("name: n\nmetadata:\n  version: 1\nallowed-tools:\n  - Read\n  - Bash")
    assert got == {"name": "n", "metadata": "", "allowed-tools": ""}


def test_crlf_bom_and_missing_front_matter() -> None:
    parsed = split_front_matter("\ufeff---\r\nname: w\r\n---\r\nline\r\n")
    assert parsed == ({"name": "w"}, "line\n")
    assert split_front_matter("# no front matter\n") is None
    assert split_front_matter("---\nname: unclosed\n") is None
    assert split_front_matter("") is None
