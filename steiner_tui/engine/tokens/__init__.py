"""Token estimation: tokenizers loaded offline, cached per-message counts, calibration.

``RequestEstimator`` counts a provider-projected request with the model's tokenizer (chosen by
``policy.choose_tokenizer``, loaded once by ``EncodingLoader``), and ``TokenCalibration`` scales
the count by what the provider reported for earlier requests. A tokenizer that fails to load is
an error on every call (``TokenizerLoadError``); nothing falls back silently.
"""

from steiner_tui.engine.tokens.bundled import BundledEncodingSource, default_encoding_loader
from steiner_tui.engine.tokens.cache import CountCache
from steiner_tui.engine.tokens.calibration import TokenCalibration
from steiner_tui.engine.tokens.estimate import TokenEstimate, heuristic_tokens
from steiner_tui.engine.tokens.loader import EncodingLoader, TokenizerLoadError
from steiner_tui.engine.tokens.policy import (
    HEURISTIC,
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
    "BundledEncodingSource",
    "default_encoding_loader",
    "CountCache",
    "TokenCalibration",
    "TokenEstimate",
    "heuristic_tokens",
    "EncodingLoader",
    "TokenizerLoadError",
    "HEURISTIC",
    "TokenizerChoice",
    "choose_tokenizer",
    "native_encoding",
    "IMAGE_PLACEHOLDER_TOKENS",
    "MESSAGE_FRAMING_TOKENS",
    "RequestEstimator",
    "heuristic_request_tokens",
]
