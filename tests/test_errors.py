"""Every exception class steiner-tui defines descends from ``SteinerError``.

Cancellation signals (``asyncio.CancelledError`` subclasses) are not errors and stay apart.

Adding an error elsewhere in the tree without the root fails here, naming it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import steiner_tui
from steiner_tui.errors import ConfigError, SessionError, SteinerError


def _own_exception_classes() -> set[type[Exception]]:
    found: set[type[Exception]] = set()
    for info in pkgutil.walk_packages(steiner_tui.__path__, "steiner_tui."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Exception) and value.__module__ == info.name:
                found.add(value)
    return found


def test_every_exception_descends_from_the_root() -> None:
    classes = _own_exception_classes()
    assert len(classes) >= 15
    strays = sorted(
        f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, SteinerError)
    )
    assert strays == []


def test_branches_keep_their_builtin_bases() -> None:
    from steiner_tui.capture.store import CaptureNotFoundError
    from steiner_tui.sessions.errors import SessionNotFoundError

    assert issubclass(ConfigError, ValueError)
    assert issubclass(SessionNotFoundError, SessionError)
    assert issubclass(SessionNotFoundError, LookupError)
    assert issubclass(CaptureNotFoundError, LookupError)
