"""``steiner-tui capture open ID``: a capture, or an imported session, in the workbench.

Imported here, not in ``commands.capture``, so that running the proxy never loads Textual.
Costs use the config's ``[models."<ref>"] price`` for a request's model id before the built-in
table.
"""

from __future__ import annotations

import sys
from pathlib import Path

from steiner_tui import paths
from steiner_tui.app.readonly import ReadOnlyApp
from steiner_tui.capture.store import CaptureNotFoundError, read_capture
from steiner_tui.commands import not_terminals, refuse
from steiner_tui.commands.headless_io import load_project_config
from steiner_tui.importers.store import load_import

__all__ = ["open_capture"]


def open_capture(item_id: str, project: Path) -> int:
    """Open capture ``item_id``, or else the imported session of that id (priced with the
    configuration of ``project``: the user's and the project's)."""
    if streams := not_terminals():
        return refuse(f"opening a capture needs a terminal, and {streams} not one", "capture")
    base = paths.sessions_dir()
    prices = load_project_config(project).price_overrides
    try:
        read_capture(base, item_id)
        app = ReadOnlyApp(capture=(base, item_id), prices=prices)
    except ValueError as exc:
        return refuse(str(exc), "capture")
    except CaptureNotFoundError:
        try:
            app = ReadOnlyApp(imported=load_import(base, item_id), prices=prices)
        except (OSError, ValueError):
            print(
                f"steiner-tui capture: no capture or imported session {item_id!r} "
                "(see `steiner-tui capture list` and `steiner-tui import`)",
                file=sys.stderr,
            )
            return 2
    app.run()
    return 0
