"""Captures keep what an agent sent, not how it authenticates: 0600 files, no key in a query.

Issue 29: capture files were readable by every user on the machine, and an API key sent in a
query string (``?key=`` on Gemini's API) was stored with the path.
"""

from __future__ import annotations

import stat
from pathlib import Path

from steiner_tui.capture.store import CAPTURES_DIR, CaptureWriter, read_capture, without_secrets


def test_capture_files_are_the_user_s_alone_and_hold_no_query_key(tmp_path: Path) -> None:
    writer = CaptureWriter(tmp_path, "http://upstream/?api_key=sk-up-123", "cap")
    writer.request("POST", "/v1beta/models/g:generate?key=AIzaSECRET&alt=sse", b"{}")
    writer.close()
    folder = tmp_path / CAPTURES_DIR / "cap"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for file in folder.iterdir():
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
        text = file.read_text(encoding="utf-8")
        assert "AIzaSECRET" not in text and "sk-up-123" not in text
    _, [request] = read_capture(tmp_path, "cap")
    assert request.path == "/v1beta/models/g:generate?key=[redacted]&alt=sse"


def test_only_key_like_parameters_are_redacted() -> None:
    assert without_secrets("/v1/messages?beta=true") == "/v1/messages?beta=true"
    assert without_secrets("/x?access_token=t&Signature=s&page=2") == (
        "/x?access_token=[redacted]&Signature=[redacted]&page=2"
    )
    assert without_secrets("/plain") == "/plain"
