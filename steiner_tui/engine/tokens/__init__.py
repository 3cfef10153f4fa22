"""Token estimation: tokenizers loaded offline, cached per-message counts, calibration.

``RequestEstimator`` counts a provider-projected request with the model's tokenizer (chosen by
``policy.choose_tokenizer``, loaded once by ``EncodingLoader``), and ``TokenCalibration`` scales
the count by what the provider reported for earlier requests. A tokenizer that fails to load is
an error on every call (``TokenizerLoadError``); nothing falls back silently.
"""

from steiner_tui.engine.tokens.bundled import BundledEncodingSource, default_encoding_loader
from steiner_tui.engine.tokens.cache import DEFAULT_CACHE_CHARS, DEFAULT_CACHE_ENTRIES, CountCache
from steiner_tui.engine.tokens.calibration import TokenCalibration
from steiner_tui.engine.tokens.estimate import (
    CONFIDENCES,
    STRATEGIES,
    Confidence,
    Strategy,
    TokenEstimate,
    heuristic_tokens,
)
from steiner_tui.engine.tokens.loader import (
    Encoder,
    EncodingLoader,
    EncodingSource,
    TokenizerLoadError,
)
from steiner_tui.engine.tokens.policy import (
    CL100K,
    HEURISTIC,
    O200K,
    TokenizerChoice,
    choose_tokenizer,
    native_encoding,
)
from steiner_tui.engine.tokens.request import (
    IMAGE_PLACEHOLDER_TOKENS,
    MESSAGE_FRAMING_TOKENS,
    RequestEstimator,
    heuristic_request_tokens,
)

__all__ = [
    "CL100K",
    "CONFIDENCES",
    "DEFAULT_CACHE_CHARS",
    "DEFAULT_CACHE_ENTRIES",
    "HEURISTIC",
    "IMAGE_PLACEHOLDER_TOKENS",
    "MESSAGE_FRAMING_TOKENS",
    "O200K",
    "STRATEGIES",
    "BundledEncodingSource",
    "Confidence",
    "CountCache",
    "Encoder",
    "EncodingLoader",
    "EncodingSource",
    "RequestEstimator",
    "Strategy",
    "TokenCalibration",
    "TokenEstimate",
    "TokenizerChoice",
    "TokenizerLoadError",
    "choose_tokenizer",
    "default_encoding_loader",
    "heuristic_request_tokens",
    "heuristic_tokens",
    "native_encoding",
]
