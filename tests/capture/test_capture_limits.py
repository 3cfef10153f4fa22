"""Nothing a capture holds can flood memory or disk, or tear (issue 29, item 5).

A 1 MB gzip body decoded to 4.1 GB and 98 KB of zstd to 6 GB in the proxy; the stored 1 GB
line then made ``capture list`` hold 3.2 GB; a deeply nested body crashed ``capture show``; a
full disk dropped the agent's request and tore the next record. Memory is measured with
``tracemalloc`` (the peak of what Python allocated), never time.
"""

from __future__ import annotations

import errno
import gzip
import json
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import pytest
import zstandard

from steiner_tui.capture import encoding, store
from steiner_tui.capture.encoding import decode_content
from steiner_tui.capture.report import capture_report
from steiner_tui.capture.store import CaptureWriter, list_captures, read_capture
from tests.capture.fake_upstream import FakeUpstream
from tests.capture.helpers import ProxyThread

T = TypeVar("T")
MIB = 1024 * 1024
BODY = json.dumps({"model": "gpt-5.5", "stream": True, "input": "say hi"}).encode()


def _peak(call: Callable[[], T]) -> tuple[T, int]:
    """``call()``'s result and the most memory Python held at once while it ran."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _bombs(size: int) -> dict[str, bytes]:
    zeros = b"\0" * size
    zstd = zstandard.ZstdCompressor(write_content_size=False).compressobj()
    return {"gzip": gzip.compress(zeros), "zstd": zstd.compress(zeros) + zstd.flush()}


@pytest.mark.parametrize("name", ["gzip", "zstd"])
def test_a_body_that_decodes_past_the_cap_is_kept_as_it_came(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(encoding, "DECODED_CAP", 4 * MIB)
    bomb = _bombs(256 * MIB)[name]
    decoded, peak = _peak(lambda: decode_content(bomb, name))
    assert decoded.body == bomb
    assert "decodes to over 4,194,304 B: recorded as it came" in decoded.problem
    assert peak < 16 * MIB, f"decoding held {peak:,} bytes"
    assert decode_content(gzip.compress(BODY) + gzip.compress(BODY), "gzip").body == BODY * 2


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    fake = FakeUpstream().start()
    yield fake
    fake.stop()


def test_the_proxy_forwards_a_bomb_byte_for_byte_and_records_it_as_it_came(
    tmp_path: Path, upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(encoding, "DECODED_CAP", 4 * MIB)
    bomb = _bombs(64 * MIB)["gzip"]
    proxy = ProxyThread(tmp_path, upstream.url).start()
    try:
        with httpx2.Client(timeout=60) as client:
            reply = client.post(
                f"{proxy.url}/v1/responses", content=bomb, headers={"Content-Encoding": "gzip"}
            )
    finally:
        proxy.stop()
    assert reply.status_code == 200
    assert [r.body for r in upstream.received] == [bomb]
    _, [recorded] = read_capture(tmp_path, proxy.writer.capture_id)
    assert recorded.body == bomb


class _FullDisk(CaptureWriter):
    """A writer whose every write fails as on a full disk."""

    def request(self, *args: Any, **kwargs: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def reply(self, *args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_never_drops_the_agents_request(tmp_path: Path, upstream: FakeUpstream) -> None:
    proxy = ProxyThread(tmp_path, upstream.url)
    proxy.writer.close()
    proxy.writer = proxy.proxy.writer = _FullDisk(tmp_path, upstream.url)
    problems: list[str] = []
    proxy.proxy.on_problem = problems.append
    proxy.start()
    try:
        with httpx2.Client(timeout=60) as client:
            reply = client.post(f"{proxy.url}/v1/responses", content=BODY)
    finally:
        proxy.stop()
    assert reply.status_code == 200 and reply.content
    assert [r.body for r in upstream.received] == [BODY]
    assert problems == ["request to /v1/responses not recorded: [Errno 28] No space left on device"]


def test_a_write_that_fails_part_way_leaves_no_torn_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = CaptureWriter(tmp_path, "http://upstream", "c1")
    first = writer.request("POST", "/v1/responses", BODY)
    real = store._append  # noqa: SLF001  (the test's own injection point)

    def half_then_full(fd: int, data: bytes) -> None:
        real(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store, "_append", half_then_full)
    with pytest.raises(OSError, match="No space"):
        writer.request("POST", "/v1/responses", BODY)
    monkeypatch.setattr(store, "_append", real)
    third = writer.request("POST", "/v1/responses", BODY)
    writer.reply(third, 200, "text/event-stream", 10, None)
    writer.close()
    info, recorded = read_capture(tmp_path, "c1")
    assert info.problems == ()
    assert [r.seq for r in recorded] == [first, third]
    assert all(r.body == BODY for r in recorded)


def test_a_body_over_the_record_cap_is_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "RECORD_CAP", 1000)
    writer = CaptureWriter(tmp_path, "http://upstream", "c1")
    writer.request("POST", "/v1/responses", b"x" * 5000)
    writer.close()
    log = writer.directory / "requests.jsonl"
    assert log.stat().st_size < 1000
    assert "a body of 5,000 bytes, over the 1,000 stored: not stored" in log.read_text()


def test_listing_reads_no_body_whole(tmp_path: Path) -> None:
    writer = CaptureWriter(tmp_path, "http://upstream", "c1")
    huge = json.dumps({"model": "m", "input": "x" * (48 * MIB)}).encode()
    writer.request("POST", "/v1/responses", huge)
    writer.request("POST", "/v1/responses", BODY)
    writer.close()
    listed, peak = _peak(lambda: list_captures(tmp_path))
    assert [(c.capture_id, c.requests, c.problems) for c in listed] == [("c1", 2, ())]
    assert peak < 8 * MIB, f"listing held {peak:,} bytes"


def test_a_deeply_nested_body_is_shown_not_a_crash(tmp_path: Path) -> None:
    writer = CaptureWriter(tmp_path, "http://upstream", "c1")
    writer.request(
        "POST",
        "/v1/messages",
        b'{"model": "m", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    )
    writer.request(
        "POST",
        "/v1/messages",
        b'{"model": "m", "system": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    )
    writer.close()
    _, recorded = read_capture(tmp_path, "c1")
    requests = capture_report(recorded)["requests"]
    assert len(requests) == 2
