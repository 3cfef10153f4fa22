"""The default command: open the workbench on a project.

``steiner-tui [--project PATH] [--resume [ID]]``: a new recorded session, or the project's latest
(or the given) session resumed from its log. Configuration (user file, then the project's
``.steiner/config.toml``) chooses the model, skills, permissions, keymap and theme; errors in it
(``ConfigError`` is a ``ValueError``) are printed, not raised.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

from steiner_tui import paths

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    """Build the session for ``args.project`` and run the app until it quits."""
    root = Path(getattr(args, "project", ".")).expanduser().resolve()
    if not root.is_dir():
        print(f"steiner-tui: {root} is not a folder", file=sys.stderr)
        return 2
    # Start-up allocates hundreds of thousands of objects (modules, classes, styles) and creates
    # few cycles: collecting while it runs only delays the first frame. The app applies its GC
    # settings, collector on, once that frame is drawn (``make_app(tune_gc=True)``).
    gc.disable()
    # Imported here so that other commands never pay for Textual.
    from steiner_tui.app.app import make_app
    from steiner_tui.app.resume_request import ResumeRequest
    from steiner_tui.app.session import build_app_session
    from steiner_tui.config import load_config
    from steiner_tui.sessions import SessionLoadError, SessionNotFoundError

    resume: str | None = getattr(args, "resume", None)
    tuned = False
    while True:
        try:
            config = load_config(root, os.environ)
            session = build_app_session(
                root,
                config_dir=paths.config_dir(),
                config=config,
                env=os.environ,
                cache_dir=paths.cache_dir(),
                resume=resume,
            )
        except (ValueError, SessionNotFoundError, SessionLoadError, OSError) as error:
            print(f"steiner-tui: {error}", file=sys.stderr)
            return 2
        app = make_app(session, tune_gc=not tuned)
        tuned = True
        try:
            result = app.run()
        finally:
            session.close()
        # The sessions screen asked for another session: open it in a fresh workbench.
        if not isinstance(result, ResumeRequest):
            return 0
        resume = result.session_id
        root = session.project_root
