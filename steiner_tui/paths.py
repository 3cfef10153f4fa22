"""Where steiner-tui keeps its files, resolved once through platformdirs.

``CONFIG`` is the user config dir for the app name ``steiner`` (``$XDG_CONFIG_HOME/steiner``,
default ``~/.config/steiner`` on Linux). Tests point ``XDG_CONFIG_HOME`` at a temporary folder.
"""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_cache_path, user_config_path

__all__ = [
    "config_dir",
    "cache_dir",
    "user_config_file",
    "sessions_dir",
    "project_config_file",
]

APP_NAME = "steiner"


def config_dir() -> Path:
    """The user config folder (``CONFIG``)."""
    return user_config_path(APP_NAME, appauthor=False)


def cache_dir() -> Path:
    """The user cache folder (tokenizer files and other derived data)."""
    return user_cache_path(APP_NAME, appauthor=False)


def user_config_file() -> Path:
    return config_dir() / "config.toml"


def sessions_dir() -> Path:
    return config_dir() / "sessions"


def project_config_file(root: Path) -> Path:
    return root / ".steiner" / "config.toml"
