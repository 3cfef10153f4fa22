"""Lazy re-exports for packages (and a few modules), so that importing them stays cheap.

A package such as ``steiner_tui.engine`` re-exports names from many submodules. Importing them all
eagerly means that ``from steiner_tui.engine.messages import Message`` (which runs the package's
``__init__`` first) loads compaction, skills, jinja2 and the rest, and the app's start-up pays
for all of it. With ``lazy_exports`` the package binds a module ``__getattr__`` and ``__dir__``
(PEP 562) instead: a re-exported name imports its submodule on first access and is then cached
on the package, so ``from package import name`` and ``package.name`` work as before.

Plain modules use it the same way for names defined elsewhere: ``engine.events`` and
``engine.provider`` re-export their turn-time dataclasses (which cost about a millisecond each
to create) from ``event_types`` and ``provider_types``.

Packages keep their ``__all__`` and import the same names under ``TYPE_CHECKING``, so type
checkers see them exactly as eager imports; the ``__getattr__`` is bound only at run time
(``if not TYPE_CHECKING:``) so that a misspelt name is still a type error.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package`` re-exporting ``exports`` lazily.

    Args:
        package: the package's ``__name__``.
        exports: absolute submodule name -> the names re-exported from it.

    Returns:
        ``(__getattr__, __dir__)`` to bind at the package's top level.
    """
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # ``__import__`` rather than ``importlib.import_module``: only the former is reported by
        # ``python -X importtime``, the tool for checking start-up costs.
        value = getattr(__import__(module, fromlist=(name,)), name)
        # Cached on the package: later lookups no longer reach this function.
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__
