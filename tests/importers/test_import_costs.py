"""An import's cost per request and its cache causes: usage only, so compactions and time are
named, sources never (the real Claude Code fixtures)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from steiner_tui.engine.cache_causes import USAGE_ONLY
from steiner_tui.engine.prices import PRICE_TABLE
from steiner_tui.importers.claude import import_claude_session
from steiner_tui.importers.figures import chart_rows

FIXTURES = Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))
MIXED = next(iter(sorted(FIXTURES.glob("ae4a77f8*.jsonl"))), None)
"""A session whose requests go to two models: Haiku (priced) and Opus 4.6 (not in the table)."""


@pytest.mark.skipif(MIXED is None, reason="the Claude Code fixtures are not there")
def test_each_request_is_priced_and_its_cause_named_from_usage_only() -> None:
    assert MIXED is not None
    data = import_claude_session(MIXED).to_json()
    rows = [r for r in chart_rows(data["requests"], data["generations"]) if not r.compaction]
    assert len(rows) == len(data["requests"])
    haiku = PRICE_TABLE["claude-haiku-4"]
    for row, request in zip(rows, data["requests"], strict=True):
        assert row.reported and row.cache is not None
        if request["model"].startswith("claude-haiku-4-5"):
            uncached = request["context_tokens"] - request["cache_read_tokens"]
            uncached -= request["cache_creation_tokens"]
            expected = (
                uncached * haiku.input
                + request["cache_read_tokens"] * haiku.read
                + request["cache_creation_tokens"] * haiku.write
                + request["output_tokens"] * haiku.output
            ) / 1e6
            assert row.cost_usd == pytest.approx(expected)
        else:
            assert row.cost_usd is None  # an unknown price is never $0
    causes = {row.cache.cause for row in rows if row.cache is not None}
    assert causes <= {"first", "kept", "compaction", "idle", "unknown"}
    assert "compaction" in causes
    assert all(
        row.cache.detail == USAGE_ONLY for row in rows if row.cache and row.cache.cause == "unknown"
    )
