"""The default command: open the workbench on a project.

``steiner-tui [--project PATH | PATH] [--resume [ID]]``: a new recorded session, or the project's
latest (or the given) session resumed from its log; only on a terminal (stdin and stdout: a
script gets an error naming ``exec`` instead of screens drawn into its file). On exit it prints
the session's id and the command that resumes it. Configuration (user file, then the project's
``.steiner/config.toml``, in full only once its folder is trusted: the app asks, ``screens.trust``)
chooses the model, skills, permissions, keymap and theme; errors in it (``ConfigError`` is a
``ValueError``) are printed, not raised.

The session is built by the workbench right after its first frame (``make_app(...,
defer_open=True)``), so a launch shows the workbench without waiting for the engine. What can be
checked first is checked before the terminal is taken over: the configuration, the theme, the
model and its API key (``app.session.planned_model_label``), and the session to resume (loaded
here, refused when another app has it open). Errors found while opening end the app and are
printed the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from textual.theme import BUILTIN_THEMES

from steiner_tui import paths
from steiner_tui.agent.session import SessionRequest
from steiner_tui.app.app import make_app
from steiner_tui.app.resume_request import ResumeRequest, TrustGranted
from steiner_tui.app.session import planned_model_label
from steiner_tui.app.workbench_session import SessionOpenFailed
from steiner_tui.commands import not_terminals, refuse
from steiner_tui.commands.headless_io import (
    keep_compiled_templates,
    make_estimator,
    project_folder,
)
from steiner_tui.config import Config, ConfigError, load_config
from steiner_tui.sessions.errors import (
    SessionBusyError,
    SessionLoadError,
    SessionNotFoundError,
    busy_hint,
)
from steiner_tui.sessions.fork import remove_stale_forks
from steiner_tui.sessions.resume import find_session, resumed_project
from steiner_tui.sessions.store import SessionStore

__all__ = ["run"]


NO_TERMINAL = (
    "the workbench needs a terminal, and {streams} not one; to run a task from a script: "
    'steiner-tui exec "…" (or echo "…" | steiner-tui exec)'
)
"""Said when stdin or stdout is not a terminal (``not_terminals``)."""


def run(args: argparse.Namespace) -> int:
    """Open the workbench on ``args.project`` and run the app until it quits."""
    if streams := not_terminals():
        return refuse(NO_TERMINAL.format(streams=streams))
    keep_compiled_templates()
    root = project_folder(getattr(args, "project", "."))
    if root is None:
        return 2
    resume: str | None = getattr(args, "resume", None)
    model: str | None = getattr(args, "app_model", None)
    trust: bool = getattr(args, "trust_project", False)
    draft = None
    while True:
        try:
            request = _start(root, resume, model, trust=trust)
        except (ValueError, SessionNotFoundError, SessionLoadError, OSError) as error:
            return refuse(str(error))
        app = make_app(request, defer_open=True, draft=draft)
        draft = None  # for this app only
        try:
            result = app.run()
        finally:
            if (session := app.opened_session) is not None:
                session.close()
        if isinstance(result, SessionOpenFailed):
            return refuse(str(result.error))
        if isinstance(result, TrustGranted):  # the same session again, the project trusted
            trust, draft = True, result.draft
            continue
        # The sessions screen asked for another session: open it in a fresh workbench.
        if not isinstance(result, ResumeRequest) or session is None:
            # Only a session that was saved (it had a message) can be resumed.
            if session is not None and session.log is not None and session.log.on_disk:
                if session.log.failure:  # said in the workbench too, when it happened
                    print(f"steiner-tui: {session.log.failure}", file=sys.stderr)
                    print(resume_hint(session.session_id, saved="saved until its log stopped"))
                    return 1
                print(resume_hint(session.session_id))
            return app.return_code or 0  # 128 + the signal that ended it (SIGHUP, SIGTERM)
        resume = result.session_id
        root = session.project_root
        model = None  # another session goes on with its own model


def resume_hint(session_id: str, saved: str = "saved") -> str:
    """The line printed when the app exits: the session id and how to resume it."""
    return f"steiner-tui: session {session_id} {saved}; resume it with: " + resume_command(
        session_id
    )


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


def _start(
    root: Path, resume: str | None, model: str | None = None, *, trust: bool = False
) -> SessionRequest:
    """The request of the session to open: a new one, or the saved one to resume, with
    ``model`` (a model reference) instead of the configured one or the resumed session's;
    ``trust``: the project's own config applies in full (``--trust-project``, or the trust
    prompt's answer).

    Everything that can be checked before the app starts is: the configuration and its theme,
    the model (a known provider, its API key), and the session to resume (it loads and no other
    app has it open). The session itself is built by the app after its first frame.

    Raises:
        ConfigError, ValueError, SessionNotFoundError, SessionLoadError: as above.
    """
    sessions = paths.sessions_dir()
    remove_stale_forks(sessions)  # forks killed before they were renamed into place
    loaded = None
    if resume is not None:
        loaded = find_session(root, resume, sessions)
        if SessionStore(sessions).is_open(loaded.session_id):
            raise SessionBusyError(
                f"session {loaded.session_id!r} is open in a running steiner-tui; "
                + busy_hint(loaded.session_id)
            )
        root = resumed_project(loaded, root)
    config = load_config(root, os.environ, trust_project=trust)
    check_theme(config)
    request = SessionRequest(
        root,
        config,
        config_dir=paths.config_dir(),
        env=os.environ,
        model=model,
        estimator=make_estimator(),
        resume=loaded,
    )
    planned_model_label(request)  # an unknown provider or a missing key stops here
    return request
