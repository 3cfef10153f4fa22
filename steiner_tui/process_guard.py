"""What the app's own process asks of the kernel at start: no dumps.

``PR_SET_DUMPABLE 0`` (as ssh-agent does): a process of the same user, such as a command the
model runs, can no longer read ``/proc/<app pid>/environ`` (where the provider keys are) or the
app's memory, nor attach a debugger to it. Linux only (``prctl`` through ``ctypes``); elsewhere
nothing is done.
"""

from __future__ import annotations

import ctypes
import sys

__all__ = ["guard_process"]

PR_SET_DUMPABLE = 4


def guard_process() -> bool:
    """Make this process non-dumpable; whether it took effect."""
    if sys.platform != "linux":
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    return bool(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0)
