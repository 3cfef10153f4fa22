"""Settings for every test process, the xdist workers included."""

from __future__ import annotations

import os
import time


def pytest_configure() -> None:
    # Times are shown in the local zone (sessions, captures, imports): the snapshots and the
    # expected texts are in UTC, wherever the suite runs.
    os.environ["TZ"] = "UTC"
    time.tzset()
    # pytest-xdist's workers carry COLUMNS=80 and LINES=24; a Textual app started by a test (in
    # tmux or as a subprocess) would take them over its terminal's real size.
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)
