"""Runs one tool command so that it dies with the app, however the app ends (Linux).

A tool command runs in its own process group (so a timeout or Esc kills all of it), which also
means nothing kills it when the app itself dies: a group is not killed by its parent's death,
and SIGKILL gives the app no chance to clean up. So on Linux a command runs under this small
supervisor, started as the group's leader:

1. ``prctl(PR_SET_PDEATHSIG, SIGTERM)``: the kernel sends the supervisor SIGTERM the moment the
   app (the thread that started it) dies, by SIGKILL too;
2. it runs ``/bin/sh -c COMMAND`` as its child, in its own group, stdin, stdout and stderr
   inherited;
3. on SIGTERM, SIGHUP or SIGINT it kills the whole group with SIGKILL (itself included);
4. otherwise it exits with the shell's status when the shell exits.

It is run as a script (``python -I -S supervisor.py COMMAND``) and imports only the standard
library, so it starts in a few tens of milliseconds and never imports the app.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def _kill_group(signum: int, frame: object) -> None:
    os.killpg(os.getpgrp(), signal.SIGKILL)


def main(argv: list[str]) -> int:
    """Supervise ``/bin/sh -c argv[1]`` until it exits; return its exit status."""
    parent = int(argv[2]) if len(argv) > 2 else os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        return 126
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, _kill_group)
    if os.getppid() != parent:  # the app died before the death signal was armed
        _kill_group(signal.SIGTERM, None)
    child = os.fork()
    if child == 0:
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, signal.SIG_DFL)
        try:
            os.execv("/bin/sh", ["/bin/sh", "-c", argv[1]])
        finally:
            os._exit(127)
    while True:
        try:
            _, status = os.waitpid(child, 0)
        except ChildProcessError:
            return 0
        except InterruptedError:
            continue
        code = os.waitstatus_to_exitcode(status)
        return 128 - code if code < 0 else code  # killed by a signal: 128 + its number


if __name__ == "__main__":
    sys.exit(main(sys.argv))
