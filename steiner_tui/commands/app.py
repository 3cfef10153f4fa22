"""The default command: open the workbench on a project.

``steiner-tui [--project PATH | PATH] [--resume [ID]]``: a new recorded session, or the project's
latest (or the given) session resumed from its log. On exit it prints the session's id and the
command that resumes it. Configuration (user file, then the project's
``.steiner/config.toml``) chooses the model, skills, permissions, keymap and theme; errors in it
(``ConfigError`` is a ``ValueError``) are printed, not raised.

A new session is opened by the workbench right after its first frame (``app.session_plan``),
so a launch shows the workbench without waiting for the engine; errors found while opening it
end the app and are printed the same way.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from pathlib import Path

from textual.theme import BUILTIN_THEMES

from steiner_tui import paths
from steiner_tui.app.app import make_app
from steiner_tui.app.resume_request import ResumeRequest
from steiner_tui.app.session import AppSession, build_app_session
from steiner_tui.app.session_plan import SessionOpenFailed, SessionPlan, plan_session
from steiner_tui.config import Config, ConfigError, load_config
from steiner_tui.sessions.errors import SessionLoadError, SessionNotFoundError

__all__ = ["resume_command", "resume_hint", "run"]


def run(args: argparse.Namespace) -> int:
    """Open the workbench on ``args.project`` and run the app until it quits."""
    root = Path(getattr(args, "project", ".")).expanduser().resolve()
    if not root.is_dir():
        print(f"steiner-tui: {root} is not a folder", file=sys.stderr)
        return 2
    # Start-up allocates hundreds of thousands of objects (modules, classes, styles) and creates
    # few cycles: collecting while it runs only delays the first frame. The app applies its GC
    # settings, collector on, once its start-up is over (``make_app(tune_gc=True)``).
    gc.disable()
    resume: str | None = getattr(args, "resume", None)
    tuned = False
    while True:
        try:
            start = _start(root, resume)
        except (ValueError, SessionNotFoundError, SessionLoadError, OSError) as error:
            print(f"steiner-tui: {error}", file=sys.stderr)
            return 2
        app = make_app(start, tune_gc=not tuned)
        tuned = True
        try:
            result = app.run()
        finally:
            if (session := app.opened_session) is not None:
                session.close()
        if isinstance(result, SessionOpenFailed):
            print(f"steiner-tui: {result.error}", file=sys.stderr)
            return 2
        # The sessions screen asked for another session: open it in a fresh workbench.
        if not isinstance(result, ResumeRequest) or session is None:
            # Only a session that was saved (it had a message) can be resumed.
            if session is not None and session.log is not None and session.log.on_disk:
                print(resume_hint(session.log.session_dir.name))
            return 0
        resume = result.session_id
        root = session.project_root


def resume_hint(session_id: str) -> str:
    """The line printed when the app exits: the session id and how to resume it."""
    return f"steiner-tui: session {session_id} saved; resume it with: " + resume_command(session_id)


def resume_command(session_id: str) -> str:
    """The command that resumes ``session_id`` from any folder (the session knows its project)."""
    return f"steiner-tui --resume {session_id}"


def check_theme(config: Config) -> None:
    """The configured ``[ui] theme`` is one of Textual's themes.

    Raises:
        ConfigError: naming the file, the key, the value and the themes there are.
    """
    theme = config.theme
    if theme and theme not in BUILTIN_THEMES:
        names = ", ".join(sorted(BUILTIN_THEMES))
        raise ConfigError(
            f"{config.where('ui.theme')}: 'ui.theme' = {json.dumps(theme)}: not a theme "
            f"(themes: {names})"
        )


def _start(root: Path, resume: str | None) -> AppSession | SessionPlan:
    """What the app starts from: a new session's plan, or the resumed session itself.

    A new session opens after the workbench's first frame (``session_plan``); a resumed one is
    opened first, so a wrong id or an unreadable log is reported before the app starts.

    Raises:
        ConfigError, ValueError, SessionNotFoundError, SessionLoadError, OSError: as
            ``build_app_session`` (a plan only checks the configuration and its model).
    """

    config = load_config(root, os.environ)
    check_theme(config)

    def open_session() -> AppSession:
        return build_app_session(
            root,
            config_dir=paths.config_dir(),
            config=config,
            env=os.environ,
            cache_dir=paths.cache_dir(),
            resume=resume,
        )

    if resume is not None:
        return open_session()
    return plan_session(root, config, os.environ, open_session)
