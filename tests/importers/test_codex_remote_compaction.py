"""Codex's remote compaction (the server's ``/responses/compact``): Codex 0.104 writes no usage
of a summarizer of its own before the ``compacted`` line (whose ``message`` is empty), only a
zeroed ``token_count`` with the same totals; the tokens before the compaction are the last real
turn's. Read from a rollout the real Codex 0.104.0 wrote (``data/README.md``); the expected
figures are taken from its ``token_count`` events here."""

from __future__ import annotations

import json
from pathlib import Path

from steiner_tui.importers.codex import import_codex_rollout

[ROLLOUT] = (Path(__file__).parent / "data" / "codex-0.104.0-remote-compact").glob("*.jsonl")


def test_tokens_before_a_remote_compaction_are_the_last_real_turns() -> None:
    records = [json.loads(line) for line in ROLLOUT.read_text(encoding="utf-8").splitlines()]
    compacted = next(i for i, r in enumerate(records) if r["type"] == "compacted")
    assert records[compacted]["payload"]["message"] == ""
    real_before = [
        r["payload"]["info"]["last_token_usage"]["input_tokens"]
        for r in records[:compacted]
        if r["payload"].get("type") == "token_count"
        and r["payload"].get("info")
        and r["payload"]["info"]["last_token_usage"]["input_tokens"]
    ]
    assert len(set(real_before)) == 2  # two requests, the first written twice

    session = import_codex_rollout(ROLLOUT)
    assert session.version == "0.104.0"
    assert [r.context_tokens for r in session.requests] == [4_868, 4_986, 4_867]
    [generation] = session.generations
    assert generation.after_request == 2
    assert generation.pre_tokens == real_before[-1] == 4_986  # not 4,868, one request early
