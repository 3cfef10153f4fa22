"""The root of the errors steiner-tui raises on purpose, and its few branches.

A caller that wants "anything this program refused" catches ``SteinerError``; one that handles a
kind catches its branch (``ConfigError``, ``SessionError``, ``ToolError``, ``CompactionError``,
``CaptureError``; provider failures are ``steiner_tui.engine.provider.ProviderError``). Each
concrete error keeps the built-in base it always had (``ValueError``, ``LookupError``...), so
existing ``except`` clauses match as before. The module imports nothing, so every layer, the
engine included, may use it.
"""

from __future__ import annotations

__all__ = [
    "CaptureError",
    "CompactionError",
    "ConfigError",
    "SessionError",
    "SteinerError",
    "ToolError",
]


class SteinerError(Exception):
    """Something steiner-tui refused or could not do, with a message for people."""


class ConfigError(SteinerError, ValueError):
    """The configuration cannot be used; the message names the file, the key and the value
    (several problems found at once, ``joined``: one per line)."""

    problems: tuple[str, ...] = ()
    """What ``joined`` joined (empty: the message is the one problem)."""

    @classmethod
    def joined(cls, errors: list[ConfigError]) -> ConfigError:
        """One error naming every problem of ``errors``: the error itself when there is one;
        else ``N problems in the configuration:`` and each on an indented line of its own."""
        lines = [line for error in errors for line in error.problems or (str(error),)]
        if len(lines) == 1:
            return errors[0]
        heading = f"{len(lines)} problems in the configuration:"
        error = cls(heading + "".join(f"\n  {line}" for line in lines))
        error.problems = tuple(lines)
        return error


class SessionError(SteinerError):
    """A recorded session cannot be found, read or opened."""


class ToolError(SteinerError):
    """A tool call cannot be carried out as asked (the model is told why)."""


class CompactionError(SteinerError):
    """A compaction stage cannot produce a usable generation."""


class CaptureError(SteinerError):
    """A capture or an imported transcript cannot be found or read."""
