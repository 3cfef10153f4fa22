"""Find the packaged assets (``styles/`` and ``templates/``) in a checkout and in a wheel.

In a checkout the folders sit at the repository's top level, next to the package. The wheel
force-includes them as ``steiner_tui/_assets/<name>``. Every caller goes through this module so
that the two layouts never leak anywhere else.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

__all__ = ["styles_dir", "templates_dir", "bundled_skills_dir"]

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def asset_dir(name: str) -> Path:
    """Return the directory of asset folder ``name`` (``styles`` or ``templates``).

    Raises:
        FileNotFoundError: when neither the wheel layout nor the checkout layout holds it.
    """
    for candidate in (_PACKAGE_DIR / "_assets" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"steiner-tui asset folder {name!r} is missing from the installation")


def styles_dir() -> Path:
    """The folder holding the ``.tcss`` style sheets."""
    return asset_dir("styles")


def templates_dir() -> Path:
    """The folder holding the jinja2 prompt templates."""
    return asset_dir("templates")


def bundled_skills_dir() -> Path:
    """Skills shipped inside the package (the first skill root)."""
    return _PACKAGE_DIR / "bundled_skills"
