"""A tool result's own reshaping travels beside its fields, outside its equality."""

from __future__ import annotations

import gc

import msgspec

from steiner_tui.tools.base import ToolResult


def test_a_results_reshape_takes_no_part_in_equality_or_copies() -> None:
    def smaller(chars: int) -> ToolResult:
        return ToolResult("x" * chars)

    plain = ToolResult("output", data={"k": [1]})
    shaped = plain.with_reshape(smaller)
    assert shaped == plain and "reshape" not in repr(shaped)
    assert shaped.reshape is smaller and plain.reshape is None
    assert shaped.reshape(3).content == "xxx"
    assert msgspec.structs.replace(shaped, content="cut").reshape is None
    assert plain.with_reshape(smaller, content="cut").content == "cut"
    assert gc.is_tracked(shaped)  # a cycle through its reshape is still collected
