"""Settings for every test process, the xdist workers included."""

from __future__ import annotations

import os
import signal
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
    # A run started with SIGINT ignored (under nohup, or as a background job of a shell without
    # job control) would hand that to every process a test starts, and the tests that stop one
    # with SIGINT (Ctrl+C) would wait in vain: Python's own handler, which a child resets to
    # the default when it starts.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
