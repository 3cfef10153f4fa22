"""The default command: open the workbench on a project (``steiner-tui [--project PATH]``)."""

from __future__ import annotations

import argparse
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
    # Imported here so that other commands never pay for Textual.
    from steiner_tui.app.app import make_app
    from steiner_tui.app.session import build_app_session

    session = build_app_session(root, config_dir=paths.config_dir(), cache_dir=paths.cache_dir())
    make_app(session).run()
    return 0
