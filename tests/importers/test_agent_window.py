"""The agent's own window and compaction point, from real transcripts, saying where each came
from: a Codex rollout's ``model_context_window``; Claude Code's rule (window less
``min(max output, 20,000)`` less 13,000) for its model, since its transcripts name no window."""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec
import pytest

from steiner_tui.app.screens.readonly_figures import (
    capture_budget_view,
    import_chart_view,
    import_window,
)
from steiner_tui.capture.figures import model_window
from steiner_tui.capture.report import decode_all
from steiner_tui.capture.snapshots import to_snapshots
from steiner_tui.capture.store import RecordedRequest, read_capture
from steiner_tui.cli import main
from steiner_tui.commands.capture_screenshots import write_sample_capture
from steiner_tui.importers.claude import import_claude_session
from steiner_tui.importers.codex import import_codex_rollout
from steiner_tui.importers.figures import chart_rows

DATA = Path(__file__).parent / "data"
CODEX = DATA / "codex-0.135.0" / "rollout-019e9625-802f-7e91-840a-cfe88d14117a.jsonl"
FIXTURES = Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))


def test_a_codex_window_is_the_rollouts_own() -> None:
    session = import_codex_rollout(CODEX)
    assert session.requests[-1].model == "gpt-5.5"
    assert model_window("gpt-5.5").tokens != 258_400  # the model table would say otherwise
    assert session.window.tokens == 258_400
    assert "model_context_window" in session.window.source
    assert session.window.trigger == 0  # Codex's compaction point is not in the rollout
    data = session.to_json()
    view = import_chart_view(chart_rows(data["requests"], data["generations"]), import_window(data))
    assert view.window.context_size == view.window.hard_limit == 258_400


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.jsonl")), ids=lambda p: p.stem[:8])
def test_claude_code_compacts_by_its_rule(path: Path) -> None:
    session = import_claude_session(path)
    window = session.window
    assert (window.tokens, window.trigger) == (200_000, 200_000 - 20_000 - 13_000)
    assert "model table" in window.source and "Claude Code's rule" in window.trigger_source
    for generation in session.generations:  # the automatic ones fired past that point
        assert generation.pre_tokens is not None
        if generation.trigger == "auto":
            assert window.trigger <= generation.pre_tokens < window.tokens
    data = session.to_json()
    view = import_chart_view(chart_rows(data["requests"], data["generations"]), import_window(data))
    assert (view.window.soft_threshold, view.window.hard_limit) == (167_000, 200_000)


def test_a_capture_draws_the_agents_limits_as_its_import_does(tmp_path: Path) -> None:
    """A capture of Claude Code drew steiner's own hard line (the window less our safety
    margin: 198,000 of 200,000) where its import drew the window, 200,000; and a capture of
    another agent drew our 70% soft line, a compaction point that agent does not have."""
    capture_id = write_sample_capture(tmp_path, "limits")
    _, recorded = read_capture(tmp_path, capture_id)
    requests = decode_all(recorded)
    snapshots = to_snapshots(requests)
    view = capture_budget_view(requests, snapshots, len(requests) - 1)
    assert (view.window.soft_threshold, view.window.hard_limit) == (167_000, 200_000)
    assert view.window.context_size == 200_000
    others = [msgspec.structs.replace(r, recorded=_another_agent(r.recorded)) for r in requests]
    unnamed = [msgspec.structs.replace(s, model="gpt-4o") for s in snapshots]
    other = capture_budget_view(others, unnamed, len(requests) - 1)
    window = model_window("gpt-4o").tokens
    assert (other.window.soft_threshold, other.window.hard_limit) == (window, window)
    # A request that sets no reply limit (Codex's) may get the model's largest reply.
    unlimited = [msgspec.structs.replace(s, model="gpt-5", max_tokens=0) for s in snapshots]
    codex = capture_budget_view(others, unlimited, len(requests) - 1)
    assert (codex.window.context_size, codex.window.reserve) == (400_000, 128_000)


def _another_agent(recorded: RecordedRequest) -> RecordedRequest:
    """The request without the header by which Claude Code names itself."""
    body = recorded.body.replace(b"x-anthropic-billing-header", b"x-another-header")
    return msgspec.structs.replace(recorded, body=body)


def test_import_json_gives_each_session_its_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert main(["import", str(CODEX), "--json"]) == 0
    [session] = json.loads(capsys.readouterr().out)["sessions"]
    assert session["window"]["tokens"] == 258_400
    assert "model_context_window" in session["window"]["source"]
