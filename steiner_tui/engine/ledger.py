"""The active conversation as every request carries it, kept up to date one message at a time.

Each request re-sends the whole conversation, but only its newest messages are new. Projecting
each message for the provider, its hash, its bytes and its share of the token count are all
pure functions of an immutable message, so the ledger computes them once per message and keeps
running totals: a request over a 10,000-message conversation costs what the messages added
since the last request cost, plus copying references into the request (docs/design.md, "6.
Token estimation and calibration").

The runner that owns the conversation says when it was replaced (``forget``: a compaction, a
resume, ``/clear``); between those it only grows. ``sync`` checks that cheaply (the ends of what
it holds are still in place, by identity) and adds the new messages; a conversation that does
not pass the check, another model or another projection rebuilds it. A view's messages and
hashes are chains (``engine.chain``): the next view grows from them, sharing what they hold,
so a request costs no copy of the conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from steiner_tui.engine.chain import Chain
from steiner_tui.engine.messages import Message
from steiner_tui.engine.tokens.request import RequestEstimator

__all__ = ["ConversationLedger", "LedgerView"]


class LedgerView(msgspec.Struct, frozen=True):
    """One request's messages and their figures: the prefix it was given, then the synced
    conversation as the provider gets it.

    Attributes:
        messages: the prefix messages, then the projected conversation (``summary`` as
            ``system``, the interruption note, image placeholders for a model without vision).
        hashes: each message's hash.
        prompt_bytes: role plus content bytes over the conversation part.
        units: the conversation part's summed ``RequestEstimator.message_units``.
        images: images left in the conversation part.
    """

    messages: Chain[Message]
    hashes: Chain[str]
    prompt_bytes: int
    units: int
    images: int


class ConversationLedger:
    """Per-message request figures of one runner's active conversation.

    Args:
        estimator: counts each message's units (tokens, or characters for the heuristic).
    """

    def __init__(self, estimator: RequestEstimator) -> None:
        self.estimator = estimator
        self._key: tuple[str, str, object] | None = None
        self._source: Sequence[Message] = ()
        self._projected: list[Message] = []
        self._hashes: list[str] = []
        self._bytes = 0
        self._units = 0
        self._images = 0
        self._last: tuple[object, object, LedgerView] | None = None
        self.rebuilds = 0
        """How many times the ledger started over (a replaced conversation, another model)."""

    def forget(self) -> None:
        """The conversation was replaced: the next ``sync`` starts over."""
        self._key = None

    def sync(
        self,
        conversation: Sequence[Message],
        model_id: str,
        project: Callable[[Message], Message],
        projection_key: object,
        prefix: Sequence[Message] = (),
    ) -> LedgerView:
        """The request over ``prefix`` and ``conversation`` for ``model_id``.

        Args:
            conversation: the active conversation, as stored.
            model_id: the model the requests go to (its encoding decides the units).
            project: a stored message as the provider gets it.
            projection_key: what ``project`` depends on (e.g. whether the model has vision);
                another key rebuilds the ledger.
            prefix: the request's block messages (they lead ``messages`` and ``hashes``).

        Raises:
            TokenizerLoadError: The model's tokenizer failed to load (now or before).
        """
        last = self._last
        if last is not None and last[0] is conversation and last[1] is prefix:
            return last[2]
        key = (model_id, self.estimator.units_key(model_id), projection_key)
        held = len(self._source)
        if key != self._key or not self._extends(conversation, held):
            self._reset(key)
            held = 0
        if len(conversation) > held:
            self._extend(conversation, held, model_id, project)
        messages, hashes = self._chains(prefix)
        view = LedgerView(messages, hashes, self._bytes, self._units, self._images)
        self._last = (conversation, prefix, view)
        return view

    def unsynced(
        self, conversation: Sequence[Message], model_id: str, projection_key: object
    ) -> Sequence[Message]:
        """The messages of ``conversation`` the next ``sync`` counts (all of them when it
        starts over): counted beforehand (in a thread), they leave ``sync`` cache reads only."""
        key = (model_id, self.estimator.units_key(model_id), projection_key)
        held = len(self._source)
        if key != self._key or not self._extends(conversation, held):
            return conversation
        return conversation[held:]

    def _chains(self, prefix: Sequence[Message]) -> tuple[Chain[Message], Chain[str]]:
        """The view's messages and hashes: over the same prefix, the last view's chains grown
        by what was added since."""
        last = self._last  # None after a reset
        if last is not None and (last[1] is prefix or last[1] == prefix):
            view = last[2]
            start = len(view.messages) - len(prefix)
            return view.messages.plus(self._projected[start:]), view.hashes.plus(
                self._hashes[start:]
            )
        digests = [m.digest() for m in prefix]
        return Chain([*prefix, *self._projected]), Chain([*digests, *self._hashes])

    def _extends(self, conversation: Sequence[Message], held: int) -> bool:
        """Whether ``conversation`` still starts with what the ledger holds. Between two
        ``forget`` calls the owner only appends, so the ends being in place is enough."""
        source = self._source
        if not held or (isinstance(conversation, Chain) and conversation.extends(source)):
            return True
        if len(conversation) < held:
            return False
        return conversation[held - 1] is source[held - 1] and conversation[0] is source[0]

    def _reset(self, key: tuple[str, str, object]) -> None:
        self._key = key
        self._source = ()
        self._projected, self._hashes = [], []
        self._bytes = self._units = self._images = 0
        self._last = None
        self.rebuilds += 1

    def _extend(
        self,
        conversation: Sequence[Message],
        start: int,
        model_id: str,
        project: Callable[[Message], Message],
    ) -> None:
        projected = [project(message) for message in conversation[start:]]
        units = self.estimator.message_units
        self._units += sum(units(model_id, message) for message in projected)
        self._bytes += sum(message.prompt_bytes for message in projected)
        self._images += sum(len(message.images) for message in projected)
        self._hashes.extend(message.digest() for message in projected)
        self._projected.extend(projected)
        self._source = conversation
