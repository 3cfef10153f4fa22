"""A new session as the workbench knows it before the session exists: what to draw, how to open.

Opening a session builds the engine's side of it (runner, context assembly, skill discovery,
session log, tools, providers), and nothing the first frame shows depends on it. So a launch
draws the workbench from a ``SessionPlan`` (the project, the model's label, theme, keymap) and
the main screen calls ``SessionPlan.open`` right after that first frame; the skills, the context
panel and every key that needs the engine wait for it. ``plan_session`` reads only the loaded
configuration and the environment, so an unknown model or provider and a missing API key are
still reported before the app starts; errors found while opening (an unwritable session folder,
an unreadable skill) end the app with ``SessionOpenFailed``, which the CLI prints.

Tests, benchmarks and resumed sessions build an ``AppSession`` first and hand it to the app
instead: the screen then attaches it before its first frame.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from steiner_tui.app.session import (
    DEFAULT_THEME,
    OFFLINE_LABEL,
    AppSession,
    keymap_for,
    theme_for,
)
from steiner_tui.config import Config
from steiner_tui.engine.frozen import FrozenDict
from steiner_tui.providers.factory import api_key_for, split_model_ref

__all__ = ["SessionOpenFailed", "SessionPlan", "plan_session"]


@dataclass(frozen=True, slots=True)
class SessionPlan:
    """A session to open once the workbench is on screen.

    Attributes:
        project_root: the project folder.
        model_label: how the status line names the model until the session says.
        open: builds the session (may raise what ``build_app_session`` raises).
        keymap: binding id -> keys, applied with ``App.set_keymap``.
        theme: the Textual theme name.
        cursor_blink: blink the prompt cursor.
    """

    project_root: Path
    model_label: str
    open: Callable[[], AppSession]
    keymap: Mapping[str, str] = field(default_factory=FrozenDict)
    theme: str = DEFAULT_THEME
    cursor_blink: bool = True


@dataclass(frozen=True, slots=True)
class SessionOpenFailed:
    """The app's exit value when the planned session could not be opened."""

    error: str


def plan_session(
    project_root: Path,
    config: Config,
    env: Mapping[str, str],
    open_session: Callable[[], AppSession],
) -> SessionPlan:
    """The plan of a new session with ``config``, opened by ``open_session``.

    Raises:
        ConfigError: the default model names an unknown provider or no model, or its
            provider's API key is not in ``env``.
    """
    alias, model = split_model_ref(config, config.default_model)
    provider = config.providers[alias]
    offline = provider.type == "offline"
    if not offline:
        api_key_for(provider, env)
    return SessionPlan(
        project_root=project_root,
        model_label=OFFLINE_LABEL if offline else f"{alias}/{model}",
        open=open_session,
        keymap=keymap_for(config),
        theme=theme_for(config),
    )
