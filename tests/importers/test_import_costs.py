"""An import's cost per request and its cache causes: usage only, so compactions and time are
named, sources never (the real Claude Code fixtures)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.engine.cache_causes import USAGE_ONLY
from steiner_tui.engine.prices import PRICE_TABLE
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.importers.claude import import_claude_session
from steiner_tui.importers.figures import chart_rows
from steiner_tui.units import dollars

FIXTURES = Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))
MIXED = next(iter(sorted(FIXTURES.glob("ae4a77f8*.jsonl"))), None)
"""A session whose requests go to two models: Haiku 4.5 and Opus 4.6."""


def _imported(path: Path) -> tuple[dict[str, Any], list[RequestSummary]]:
    """The import of the Claude Code session at ``path`` as JSON, and its requests' rows."""
    data = import_claude_session(path).to_json()
    rows = [r for r in chart_rows(data["requests"], data["generations"]) if not r.compaction]
    return data, rows


@pytest.mark.skipif(MIXED is None, reason="the Claude Code fixtures are not there")
def test_each_request_is_priced_and_its_cause_named_from_usage_only() -> None:
    assert MIXED is not None
    data, rows = _imported(MIXED)
    assert len(rows) == len(data["requests"])
    for row, request in zip(rows, data["requests"], strict=True):
        assert row.reported and row.cache is not None
        model = request["model"]
        price = PRICE_TABLE[
            "claude-haiku-4" if model.startswith("claude-haiku") else "claude-opus-4-6"
        ]
        uncached = request["context_tokens"] - request["cache_read_tokens"]
        uncached -= request["cache_creation_tokens"]
        expected = (
            uncached * price.input
            + request["cache_read_tokens"] * price.read
            + request["cache_creation_tokens"] * price.write
            + request["output_tokens"] * price.output
        ) / 1e6
        assert row.cost_usd == pytest.approx(expected)
    causes = {row.cache.cause for row in rows if row.cache is not None}
    assert causes <= {"first", "kept", "compaction", "idle", "unknown"}
    assert "compaction" in causes
    assert all(
        row.cache.detail.endswith(USAGE_ONLY)
        for row in rows
        if row.cache and row.cache.cause == "unknown"
    )


INTERRUPTED = next(iter(sorted(FIXTURES.glob("258c7280*.jsonl"))), None)
"""A session whose user interrupted a tool call, after which most of the cache missed."""


@pytest.mark.skipif(INTERRUPTED is None, reason="the Claude Code fixtures are not there")
def test_an_unknown_cause_says_where_the_prefix_broke_in_tokens() -> None:
    # Where the prefix broke is known in tokens though no source can be named: here after the
    # first 21,460 tokens, about the system prompt and tools, not in the conversation.
    assert INTERRUPTED is not None
    _, rows = _imported(INTERRUPTED)
    unknown = [row.cache for row in rows if row.cache and row.cache.cause == "unknown"]
    assert unknown
    for cache in unknown:
        assert cache.detail.startswith(
            f"the prompt changed after its first {cache.reused_tokens:,} of "
        )
        assert cache.detail.endswith(f" cached tokens; {USAGE_ONLY}")
    assert any(
        c.detail.startswith("the prompt changed after its first 21,460 of ") for c in unknown
    )


@pytest.mark.skipif(MIXED is None, reason="the Claude Code fixtures are not there")
def test_a_config_price_reaches_an_import() -> None:
    from steiner_tui.config import parse_config
    from steiner_tui.engine.prices import ModelPrice

    assert MIXED is not None
    data = import_claude_session(MIXED).to_json()
    opus = [r for r in data["requests"] if r["model"].startswith("claude-opus-4-6")]
    assert opus
    price = {"input": 7.0, "output": 30.0, "cache_read": 0.7, "cache_write": 8.0}  # not the table's
    tables = {"models": {"anthropic/claude-opus-4-6": {"price": price}}}
    prices = parse_config([("test", tables)]).price_overrides
    assert prices == {"claude-opus-4-6": ModelPrice(**price)}
    rows = [
        r for r in chart_rows(data["requests"], data["generations"], 0, prices) if not r.compaction
    ]
    assert all(row.cost_usd is not None for row in rows)
    first = next(row for row in rows if row.model.startswith("claude-opus-4-6"))
    request = opus[0]
    uncached = request["context_tokens"] - request["cache_read_tokens"]
    uncached -= request["cache_creation_tokens"]
    expected = (
        uncached * 7.0
        + request["cache_read_tokens"] * 0.7
        + request["cache_creation_tokens"] * 8.0
        + request["output_tokens"] * 30.0
    ) / 1e6
    assert first.cost_usd == pytest.approx(expected)


def test_config_prices_by_model_id_prefer_a_bare_ref() -> None:
    from steiner_tui.config import parse_config

    def price(input_: float) -> dict[str, float]:
        return {"input": input_, "output": 1.0}

    models = {
        "anthropic/claude-x": {"price": price(3.0)},
        "claude-x": {"price": price(2.0)},
        "openai/GPT-Y": {"price": price(4.0)},
        "anthropic/claude-z": {"context_window": 100_000},
    }
    prices = parse_config([("test", {"models": models})]).price_overrides
    assert {key: p.input for key, p in prices.items()} == {"claude-x": 2.0, "gpt-y": 4.0}


def test_the_import_command_prints_each_sessions_cost_as_the_import_screen_does(
    tmp_path: Path,
) -> None:
    folder = Path(__file__).parent / "data" / "claude-code-2.0.28"
    main = import_claude_session(folder / "74540f63-2907-49ff-a887-c1aa26959730.jsonl")
    data = main.to_json()
    rows = [r for r in chart_rows(data["requests"], data["generations"]) if not r.compaction]
    total = sum(r.cost_usd or 0 for r in rows)
    assert total > 0
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "steiner_tui", "--project", str(tmp_path), "import", str(folder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith(main.id))
    assert lines[head + 2] == (
        f"  cost {dollars(total)} · cache causes: usage only, no request bodies "
        "(compactions and time named)"
    )
    assert sum(line.lstrip().startswith("cost $") for line in lines) == 4  # and each sub-agent


ONE_HOUR = next(iter(sorted(FIXTURES.glob("258c7280*.jsonl"))), None)
"""A session whose every cache write is Claude Code's 1-hour one (``ephemeral_1h_input_tokens``)."""


@pytest.mark.skipif(ONE_HOUR is None, reason="the Claude Code fixtures are not there")
def test_a_one_hour_cache_write_is_priced_at_twice_the_input() -> None:
    from steiner_tui.importers.follow import TranscriptFollower, request_line

    assert ONE_HOUR is not None
    session = import_claude_session(ONE_HOUR)
    first = session.requests[0]
    # Its usage: 3 input, 17,842 read, 8,037 written for 1 h, 441 output; Opus 4.6 at $5/$25.
    assert (first.input_tokens, first.cache_read_tokens) == (3, 17_842)
    assert (first.cache_creation_tokens, first.cache_write_1h_tokens) == (8_037, 8_037)
    expected = (3 * 5 + 17_842 * 0.5 + 8_037 * 10 + 441 * 25) / 1e6  # $0.100331
    data = session.to_json()
    row = next(r for r in chart_rows(data["requests"], data["generations"]) if not r.compaction)
    assert row.cost_usd == pytest.approx(expected)
    follower = TranscriptFollower(ONE_HOUR)
    assert follower.poll() is not None
    assert follower.session is not None
    assert request_line(follower.session, 1)["cost"] == pytest.approx(expected, abs=1e-6)


@pytest.mark.skipif(MIXED is None, reason="the Claude Code fixtures are not there")
def test_watch_json_says_why_the_cache_missed_and_what_the_miss_cost() -> None:
    """``watch --json`` gave a request's cost but not its cache cause: a script could not tell
    a miss from a hit, nor what it cost, as the screen's ``cache`` column does. Each line now
    carries ``cache`` as ``exec --events`` does, the screen's figures."""
    from steiner_tui.importers.follow import request_line

    assert MIXED is not None
    session = import_claude_session(MIXED)
    data = session.to_json()
    rows = [r for r in chart_rows(data["requests"], data["generations"]) if not r.compaction]
    after = session.generations[0].after_request + 1  # the request after the compaction
    for number in (1, 2, after):
        line = request_line(session, number)
        cache = rows[number - 1].cache
        assert cache is not None
        assert line["cache"] == {
            "cause": cache.cause,
            "detail": cache.detail,
            "reused_tokens": cache.reused_tokens,
            "rewritten_tokens": cache.rewritten_tokens,
            "cost_usd": cache.cost_usd,
        }
        assert line["cost"] == pytest.approx(rows[number - 1].cost_usd, abs=1e-6)
    miss = request_line(session, after)["cache"]
    assert miss["cause"] == "compaction" and miss["rewritten_tokens"] > 0
    assert dollars(miss["cost_usd"]) == "$0.07"  # as the screen's "compaction $0.07"
