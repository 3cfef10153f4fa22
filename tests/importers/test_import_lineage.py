"""An import's lineage checks what each summary dropped, as steiner's own sessions do: each
generation holds its messages read from the real transcript, and the engine's
``dropped_facts`` compares them (it claimed "nothing dropped" with no messages to compare)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from steiner_tui.engine.compaction.diff import dropped_facts
from steiner_tui.importers.claude import import_claude_session
from steiner_tui.importers.codex import import_codex_rollout
from steiner_tui.importers.lineage import lineage_of
from steiner_tui.importers.transcript import read_conversation, read_generations

FIXTURES = Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))
CODEX = Path(__file__).parent / "data" / "codex-0.169.0-compact.rollout.jsonl"


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.jsonl")), ids=lambda p: p.stem[:8])
def test_a_claude_import_lineage_names_what_its_summary_dropped(path: Path) -> None:
    session = import_claude_session(path).to_json()
    transcript = read_generations(path, "claude-code")
    assert len(transcript) == len(session["generations"]) + 1
    assert transcript[-1] == read_conversation(path, "claude-code")
    lineage = lineage_of(session, transcript)
    before, after = lineage.generations[0], lineage.generations[1]
    assert before.messages and after.summary == session["generations"][0]["summary"]
    dropped = dropped_facts(before, after)
    assert dropped.paths  # a long session's summary does not keep every file it touched


def test_a_codex_import_lineage_holds_its_generations() -> None:
    session = import_codex_rollout(CODEX).to_json()
    transcript = read_generations(CODEX, "codex")
    lineage = lineage_of(session, transcript)
    assert len(lineage.generations) == len(session["generations"]) + 1 == len(transcript)
    assert lineage.generations[0].messages
