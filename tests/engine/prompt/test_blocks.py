"""render_blocks: the merging rules of prompt assembly.

(docs/design.md, "1. Sources and the assembly plan")
"""

from __future__ import annotations

from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.blocks import (
    ContextBlock,
    block_message_indexes,
    blocks_bytes,
    render_blocks,
)


def b(source: str, content: str) -> ContextBlock:
    return ContextBlock.of(source, content)


def test_role_follows_source_and_byte_size_is_utf8() -> None:
    block = b("project_context", "é")
    assert block.role == "user"
    assert block.byte_size == 2
    assert b("preamble", "x").role == "system"
    assert blocks_bytes([block, b("preamble", "abc")]) == 5


def test_system_blocks_merge_with_blank_line_and_user_blocks_with_newline() -> None:
    messages = render_blocks(
        [
            b("preamble", "P"),
            b("global_agents_md", "G"),
            b("project_agents_md", "A"),
            b("project_context", "C1"),
            b("project_context", "C2"),
            b("skill", "S"),
            b("session_date", "D"),
        ]
    )
    assert messages == (Message("system", "P\n\nG\n\nA"), Message("user", "C1\nC2\nS\nD"))


def test_phase_prompt_is_its_own_stripped_system_message() -> None:
    messages = render_blocks(
        [b("preamble", "P"), b("phase_prompt", "  do the phase \n"), b("session_date", "D")]
    )
    assert messages == (
        Message("system", "P"),
        Message("system", "do the phase"),
        Message("user", "D"),
    )


def test_empty_phase_prompt_adds_nothing() -> None:
    messages = render_blocks(
        [b("preamble", "P"), b("phase_prompt", " \n\t"), b("session_date", "D")]
    )
    assert messages == (Message("system", "P"), Message("user", "D"))


def test_session_date_merges_into_the_adjacent_user_block() -> None:
    messages = render_blocks([b("preamble", "P"), b("skill", "S"), b("session_date", "D")])
    assert messages[-1] == Message("user", "S\nD")


def test_session_date_after_phase_prompt_starts_a_user_message() -> None:
    blocks = [b("preamble", "P"), b("skill", "S"), b("phase_prompt", "X"), b("session_date", "D")]
    assert render_blocks(blocks) == (
        Message("system", "P"),
        Message("user", "S"),
        Message("system", "X"),
        Message("user", "D"),
    )
    assert block_message_indexes(blocks) == (0, 1, 2, 3)


def test_empty_blocks_are_skipped() -> None:
    blocks = [b("preamble", "P"), b("project_context", ""), b("session_date", "D")]
    assert render_blocks(blocks) == (Message("system", "P"), Message("user", "D"))
    assert block_message_indexes(blocks) == (0, -1, 1)
