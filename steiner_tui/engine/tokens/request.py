"""Estimates a provider-projected request: messages plus tool definitions, for one model.

Per message the base count is::

    MESSAGE_FRAMING_TOKENS + tokens(role) + tokens(content) + tokens(reasoning)
      + sum(tokens(call.name) + tokens(arguments JSON)) + IMAGE_PLACEHOLDER_TOKENS * images

where arguments JSON is the call's ``arguments_json``, written once when the call was made
(``raw_arguments`` when arguments are None), and tokens() is the encoding's
``encode_ordinary`` length (special tokens count as text). The tool list adds
tokens(``tools_json(tools)``). Counts are cached per encoding in one ``CountCache``
(``cache.py``), keyed by the message, or by the text for texts counted alone (the tool list's
JSON, and the per-source figures of request snapshots: ``count_text``, ``message_tokens``).

With the ``heuristic`` tokenizer the whole request is one text: ``heuristic_tokens(characters)``
over the same fields plus the tool JSON, plus the image cost.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.models import lookup_model
from steiner_tui.engine.tokens.cache import (
    DEFAULT_CACHE_CHARS,
    DEFAULT_CACHE_ENTRIES,
    CountCache,
    CountKey,
)
from steiner_tui.engine.tokens.calibration import TokenCalibration
from steiner_tui.engine.tokens.estimate import TokenEstimate, heuristic_tokens
from steiner_tui.engine.tokens.loader import Encoder, EncodingLoader
from steiner_tui.engine.tokens.policy import HEURISTIC, TokenizerChoice, choose_tokenizer
from steiner_tui.engine.tooldefs import ToolDefinition, tools_json

__all__ = [
    "IMAGE_PLACEHOLDER_TOKENS",
    "MESSAGE_FRAMING_TOKENS",
    "RequestEstimator",
    "heuristic_request_tokens",
]

MESSAGE_FRAMING_TOKENS = 4
"""Per-message framing (role markers and separators), as in OpenAI's chat counting recipe."""

IMAGE_PLACEHOLDER_TOKENS = 1_000
"""Flat cost per image: about a 1,000x750 image on Anthropic ((w*h)/750), mid-range on OpenAI."""

_CLAIM_TEXT = (
    "Claim's WORDS words I'M don't 1 12 123 4567 +-*/ (x) a.b/c\n\n\t  y  z \r\n"
    " \u00c9COLE \u00e9cole \u4e2d\u6587 \U0001f642 end   \n  "
)
"""Text that takes every branch of the bundled encodings' split patterns (``claim``)."""


def _arguments_text(call: ToolCall) -> str:
    return call.arguments_json if call.arguments is not None else call.raw_arguments


def _message_chars(message: Message) -> int:
    chars = len(message.role) + len(message.content) + len(message.reasoning)
    if not message.tool_calls:  # most messages: no generator to make
        return chars
    return chars + sum(len(c.name) + len(_arguments_text(c)) for c in message.tool_calls)


def heuristic_request_tokens(
    messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
) -> int:
    """The heuristic count of a whole request (one text: messages, tool calls, tool list)."""
    # ``_message_chars`` inlined, as two list sums: a resumed 10,000 messages in half the time.
    chars = sum([len(m.role) + len(m.content) + len(m.reasoning) for m in messages])
    chars += sum([len(c.name) + len(_arguments_text(c)) for m in messages for c in m.tool_calls])
    chars += len(tools_json(tools)) if tools else 0
    images = sum([len(m.images) for m in messages if m.images]) * IMAGE_PLACEHOLDER_TOKENS
    return heuristic_tokens(chars) + images


class RequestEstimator:
    """Counts requests with the model's tokenizer, caching per-message counts.

    Thread-safe. ``tokenizer_for`` maps a model id to its configured tokenizer (default: the
    model registry's ``ModelInfo.tokenizer``; callers with config overrides pass their own).
    """

    def __init__(
        self,
        loader: EncodingLoader,
        calibration: TokenCalibration | None = None,
        *,
        tokenizer_for: Callable[[str], str] | None = None,
        cache_entries: int = DEFAULT_CACHE_ENTRIES,
        cache_chars: int = DEFAULT_CACHE_CHARS,
    ) -> None:
        self.loader = loader
        self.calibration = calibration if calibration is not None else TokenCalibration()
        self._tokenizer_for = tokenizer_for or (lambda model_id: lookup_model(model_id).tokenizer)
        self._cache_bounds = (cache_entries, cache_chars)
        self._lock = threading.Lock()
        self._message_caches: dict[str, CountCache] = {}
        self._choices: dict[str, TokenizerChoice] = {}
        self._claimed: set[str] = set()

    def choice(self, model_id: str) -> TokenizerChoice:
        """The tokenizer and base confidence used for ``model_id`` (decided once per model id:
        every count of a request asks)."""
        found = self._choices.get(model_id)
        if found is None:
            found = choose_tokenizer(model_id, self._tokenizer_for(model_id))
            self._choices[model_id] = found
        return found

    def load(self, model_id: str) -> None:
        """Build ``model_id``'s tokenizer now, counting nothing (a worker thread builds it;
        the thread that counts most then ``claim``s it).

        Raises:
            TokenizerLoadError: The model's tokenizer failed to load (now or before).
        """
        encoding = self.choice(model_id).encoding
        if encoding != HEURISTIC:
            self.loader.get(encoding)

    def claimed(self, model_id: str) -> bool:
        """Whether ``claim`` ran for ``model_id``'s encoding (the heuristic needs none)."""
        encoding = self.choice(model_id).encoding
        return encoding == HEURISTIC or encoding in self._claimed

    def claim(self, model_id: str) -> None:
        """Make the calling thread the first to count with ``model_id``'s tokenizer.

        tiktoken's split pattern keeps its search state for the first thread that uses it,
        and every other thread takes a locked path: an o200k count on the event loop took
        15-20% longer when a worker thread had counted first (as counting ahead did, to keep
        the quarter-second load off the loop). So the loop, which counts nearly every text,
        counts a short text of every kind first: microseconds once the tokenizer is built
        (``load``). Another tokenizer just counts it.

        Raises:
            TokenizerLoadError: The model's tokenizer failed to load (now or before).
        """
        encoding = self.choice(model_id).encoding
        if encoding == HEURISTIC or encoding in self._claimed:
            return
        self.loader.get(encoding).encode_ordinary(_CLAIM_TEXT)
        self._claimed.add(encoding)

    def raw_tokens(
        self, model_id: str, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> int:
        """The uncalibrated estimate of a request.

        Raises:
            TokenizerLoadError: The model's tokenizer failed to load (now or before).
        """
        choice = self.choice(model_id)
        if choice.encoding == HEURISTIC:
            return heuristic_request_tokens(messages, tools)
        tools_text = tools_json(tools) if tools else ""
        encoder = self.loader.get(choice.encoding)
        total = self._messages_tokens(choice.encoding, encoder, messages)
        return total + self._text_tokens(choice.encoding, encoder, tools_text)

    def estimate(
        self, model_id: str, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> TokenEstimate:
        """The calibrated estimate of a request (see ``calibrated``)."""
        return self.calibrated(model_id, self.raw_tokens(model_id, messages, tools))

    def calibrated(self, model_id: str, raw_tokens: int) -> TokenEstimate:
        """Calibrate a raw estimate made earlier for ``model_id`` (e.g. a prepared request's)."""
        choice = self.choice(model_id)
        return self.calibration.apply(model_id, raw_tokens, choice.strategy, choice.confidence)

    def message_units(self, model_id: str, message: Message) -> int:
        """One projected message's share of a request's raw count, for ``raw_from_units``.

        With a tokenizer it is the message's tokens (framing and images included, cached per
        message); with the character heuristic, its characters (images are added by
        ``raw_from_units``, which counts the whole request as one text).

        Raises:
            TokenizerLoadError: The model's tokenizer failed to load (now or before).
        """
        choice = self.choice(model_id)
        if choice.encoding == HEURISTIC:
            return _message_chars(message)
        encoder = self.loader.get(choice.encoding)
        return self._message_count(self._cache(choice.encoding), encoder, message)

    def raw_from_units(
        self, model_id: str, units: int, images: int, tools: Sequence[ToolDefinition] = ()
    ) -> int:
        """The raw count of a request whose messages' ``message_units`` sum to ``units`` and
        hold ``images`` images: the same figure ``raw_tokens`` gives for those messages.

        Raises:
            TokenizerLoadError: The model's tokenizer failed to load (now or before).
        """
        choice = self.choice(model_id)
        if choice.encoding == HEURISTIC:
            chars = units + (len(tools_json(tools)) if tools else 0)
            return heuristic_tokens(chars) + images * IMAGE_PLACEHOLDER_TOKENS
        encoder = self.loader.get(choice.encoding)
        tools_text = tools_json(tools) if tools else ""
        return units + self._text_tokens(choice.encoding, encoder, tools_text)

    def units_key(self, model_id: str) -> str:
        """What ``message_units`` depends on for ``model_id`` (its encoding): units counted
        under one key can be summed with any other counted under the same key."""
        return self.choice(model_id).encoding

    def count_text(self, model_id: str, text: str) -> int:
        """Tokens of one text with the model's tokenizer (per-source figures), cached.

        Raises:
            TokenizerLoadError: The model's tokenizer failed to load (now or before).
        """
        choice = self.choice(model_id)
        if choice.encoding == HEURISTIC:
            return heuristic_tokens(len(text))
        return self._text_tokens(choice.encoding, self.loader.get(choice.encoding), text)

    def message_tokens(self, model_id: str, messages: Sequence[Message]) -> tuple[int, ...]:
        """Each message's share of a request's uncalibrated count, in order.

        With a tokenizer these are the cached per-message counts an estimate adds up (so the
        counts of an estimate just made are reused). The heuristic counts a request as one
        text; a message's share is then a quarter of its characters plus its images (the
        request's count adds its constant once).

        Raises:
            TokenizerLoadError: The model's tokenizer failed to load (now or before).
        """
        choice = self.choice(model_id)
        if choice.encoding == HEURISTIC:
            return tuple(
                _message_chars(m) // 4 + IMAGE_PLACEHOLDER_TOKENS * len(m.images) for m in messages
            )
        encoder = self.loader.get(choice.encoding)
        return tuple(self._counts(choice.encoding, encoder, messages))

    def count_parts(self, model_id: str, texts: Sequence[str]) -> tuple[int, ...]:
        """Each text's share of a request that carries it (a block, a skill envelope), cached.

        With a tokenizer: the text's own count (``count_text``). With the heuristic: a quarter
        of its characters, as ``message_tokens`` shares a request's count out.

        Raises:
            TokenizerLoadError: The model's tokenizer failed to load (now or before).
        """
        choice = self.choice(model_id)
        if choice.encoding == HEURISTIC:
            return tuple(len(text) // 4 for text in texts)
        encoder = self.loader.get(choice.encoding)
        return tuple(self._text_tokens(choice.encoding, encoder, text) for text in texts)

    def _cache(self, encoding: str) -> CountCache:
        cache = self._message_caches.get(encoding)
        if cache is None:
            with self._lock:
                cache = self._message_caches.setdefault(encoding, CountCache(*self._cache_bounds))
        return cache

    def _messages_tokens(self, encoding: str, encoder: Encoder, messages: Sequence[Message]) -> int:
        return sum(self._counts(encoding, encoder, messages))

    def _counts(self, encoding: str, encoder: Encoder, messages: Sequence[Message]) -> list[int]:
        cache = self._cache(encoding)
        if len(messages) == 1:  # a request's new message, or one alone (tokens_of)
            return [self._message_count(cache, encoder, messages[0])]
        found = cache.get_many(messages)
        counts: list[int] = []
        fresh: list[tuple[CountKey, int]] = []
        for count, message in zip(found, messages, strict=True):
            if count is None:
                count = self._count_message(cache, encoder, message)
                fresh.append((message, count))
            counts.append(count)
        if fresh:
            cache.put_many(fresh)
        return counts

    def _message_count(self, cache: CountCache, encoder: Encoder, message: Message) -> int:
        count = cache.get(message)
        if count is None:
            count = self._count_message(cache, encoder, message)
            cache.put(message, count)
        return count

    def _count_message(self, cache: CountCache, encoder: Encoder, message: Message) -> int:
        """A message's tokens. Its role and tool names are counted once (cached texts), and
        its content is not encoded again when it was counted on its own before: a tool result
        is measured against its budget (``count_text``) before it becomes a message."""
        role = self._cached_text_tokens(cache, encoder, message.role)
        content = message.content
        counted = cache.get(content) if content else 0
        tokens = role + (len(encoder.encode_ordinary(content)) if counted is None else counted)
        if message.reasoning:
            tokens += len(encoder.encode_ordinary(message.reasoning))
        for call in message.tool_calls:
            tokens += self._cached_text_tokens(cache, encoder, call.name)
            arguments = _arguments_text(call)
            tokens += len(encoder.encode_ordinary(arguments)) if arguments else 0
        return MESSAGE_FRAMING_TOKENS + tokens + IMAGE_PLACEHOLDER_TOKENS * len(message.images)

    def _cached_text_tokens(self, cache: CountCache, encoder: Encoder, text: str) -> int:
        if not text:
            return 0
        count = cache.get(text)
        if count is None:
            count = len(encoder.encode_ordinary(text))
            cache.put(text, count)
        return count

    def _text_tokens(self, encoding: str, encoder: Encoder, text: str) -> int:
        return self._cached_text_tokens(self._cache(encoding), encoder, text)
