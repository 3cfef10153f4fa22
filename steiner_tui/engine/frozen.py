"""Deep-frozen JSON values, so immutable messages cannot be changed through their arguments.

A tool call's ``arguments`` is a JSON object. Storing the caller's ``dict`` in a frozen value
would leave a back door: whoever still holds the dict could edit a stored message or snapshot.
``freeze`` copies such values into ``FrozenDict`` (a ``dict`` subclass that refuses mutation, so
``json.dumps`` still encodes it natively) and tuples.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

__all__ = ["FrozenDict", "freeze", "thaw"]


class FrozenDict(dict[str, Any]):
    """A read-only ``dict``; equal to a plain dict with the same items."""

    __slots__ = ("_hash",)

    def _readonly(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("FrozenDict is immutable")

    __setitem__ = _readonly
    __delitem__ = _readonly
    clear = _readonly
    pop = _readonly
    popitem = _readonly
    setdefault = _readonly
    update = _readonly
    __ior__ = _readonly

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:  # computed once: a tool call is hashed at every cache lookup
            self._hash: int = hash(frozenset(self.items()))
            return self._hash

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return (FrozenDict, (dict(self),))


_SCALARS = frozenset((str, int, float, bool, type(None)))


def freeze(value: Any) -> Any:
    """Return a deep, immutable copy of a JSON-like value (mappings, sequences, scalars)."""
    kind = type(value)
    if kind in _SCALARS:  # most values: no abstract class asked
        return value
    if kind is dict:  # most tool calls' arguments (a resume freezes every logged call's)
        for key, item in value.items():
            if type(key) is not str or type(item) not in _SCALARS:
                break
        else:
            return FrozenDict(value)
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Return plain mutable ``dict``/``list`` copies of a frozen value (for SDKs that mutate)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple) or (isinstance(value, Iterable) and isinstance(value, list)):
        return [thaw(v) for v in value]
    return value
