"""A command's saved output stops at a cap, and the result says where (issue 29, item 5).

``yes`` for 15 s wrote a 4.5 GB spill file. The file now holds at most ``SPILL_CAP`` bytes
(made small here) and the cut note says it stops there.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from steiner_tui.tools import output
from steiner_tui.tools.bash import run_command


def test_the_spill_file_stops_at_its_cap_and_the_note_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output, "SPILL_CAP", 10_000)
    spill = tmp_path / "c1.txt"
    result = asyncio.run(
        run_command("yes 2>/dev/null | head -c 2000000", cwd=tmp_path, cap=2000, spill=spill)
    )
    assert spill.stat().st_size == 10_000
    assert spill.read_bytes() == b"y\n" * 5000
    assert result.cut is not None and result.cut.saved_bytes == 10_000
    assert result.cut.total_bytes == 2_000_000
    assert f"its first 10,000 bytes are saved at {spill} (the file stops there, at its cap)" in (
        result.content
    )


def test_a_spill_under_the_cap_is_the_whole_output(tmp_path: Path) -> None:
    spill = tmp_path / "c1.txt"
    result = asyncio.run(
        run_command("yes 2>/dev/null | head -c 200000", cwd=tmp_path, cap=2000, spill=spill)
    )
    assert spill.stat().st_size == 200_000
    assert result.cut is not None and result.cut.saved_bytes == 0
    assert f"the full output is saved at {spill}" in result.content
