"""The collector paused around a burst of long-lived objects (an import, a session's load) and
put back as it was: on when it was on, also after an error; off when the program had it off."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from steiner_tui.engine.events import MessageAppended
from steiner_tui.engine.messages import Message
from steiner_tui.gc_pause import gc_paused
from steiner_tui.sessions import loader
from steiner_tui.sessions.log_parse import LogState
from steiner_tui.sessions.writer import SessionLog


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_inside_and_back_on_after(collector_on: None) -> None:
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("x")
    assert gc.isenabled()


def test_a_collector_the_program_turned_off_stays_off(collector_on: None) -> None:
    gc.disable()
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def _session(tmp_path: Path) -> Path:
    directory = tmp_path / "s1"
    log = SessionLog.create(directory, clock=lambda: datetime(2026, 9, 13, tzinfo=UTC))
    log.emit(MessageAppended(Message("user", "hello", turn=1)))
    log.close()
    return directory


def test_a_log_is_parsed_with_the_collector_paused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, collector_on: None
) -> None:
    directory = _session(tmp_path)
    parse = loader.parse_log_bytes
    seen: list[bool] = []

    def parse_noting(data: bytes, texts: bytes = b"", partials: object = None) -> LogState:
        seen.append(gc.isenabled())
        return parse(data, texts)

    monkeypatch.setattr(loader, "parse_log_bytes", parse_noting)
    assert len(loader.load_session(directory).as_logged) == 1
    assert seen == [False] and gc.isenabled()

    def parse_failing(data: bytes, texts: bytes = b"", partials: object = None) -> LogState:
        raise MemoryError

    monkeypatch.setattr(loader, "parse_log_bytes", parse_failing)
    with pytest.raises(MemoryError):
        loader.load_session(directory)
    assert gc.isenabled()
