"""Runs one tool command so that every process it starts ends with it, or with the app (Linux).

A tool command runs in its own process group, but a group is not enough: a command can leave
it (``setsid``, a daemon's double fork), a group is not killed by its parent's death, and
SIGKILL gives the app no chance to clean up. So on Linux a command runs under this small
supervisor, started as the group's leader:

1. ``prctl(PR_SET_PDEATHSIG, SIGTERM)``: the kernel sends the supervisor SIGTERM the moment the
   app (the thread that started it) dies, by SIGKILL too;
2. ``prctl(PR_SET_CHILD_SUBREAPER)``: every process the command starts that loses its parent
   becomes the supervisor's child, whatever group or session it moved to, so the supervisor
   can always find the whole tree (its descendants in ``/proc``);
3. it runs ``/bin/sh -c COMMAND`` as its child, stdin, stdout and stderr inherited, and gives
   up its own copies of them (only the command's processes hold the output pipe);
4. when the shell exits, it writes the shell's exit status to the status pipe (``STATUS_FD``
   argument) and closes it: the tool call ends there. It stays while processes the command
   left running in the background live (reaping them), and exits when the last one has;
5. on SIGTERM, SIGHUP or SIGINT (Esc, a timeout, the app ending or dying) it kills every
   descendant, then its group (itself included).

It is run as a script (``python -I -S supervisor.py COMMAND APP_PID STATUS_FD``) and imports
only the standard library, so it starts in a few tens of milliseconds and never imports the
app.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_ROUNDS = 5
"""Times the tree is walked and killed: a process may fork while the first round kills."""


def descendants(root: int) -> list[int]:
    """Every live descendant of ``root`` (from ``/proc``), parents before their children."""
    children: dict[int, list[int]] = {}
    with os.scandir("/proc") as entries:
        names = [entry.name for entry in entries if entry.name.isdigit()]
    for name in names:
        try:
            fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)
        except OSError:  # it ended meanwhile
            continue
        try:
            stat = os.read(fd, 4096)
        except OSError:
            continue
        finally:
            os.close(fd)
        # The command name is in parentheses and may hold anything: parse after the last ")".
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(name))
    found: list[int] = []
    queue = [root]
    while queue:
        for child in children.get(queue.pop(), ()):
            found.append(child)
            queue.append(child)
    return found


def _kill_tree(signum: int, frame: object) -> None:
    me = os.getpid()
    for _ in range(_ROUNDS):
        tree = descendants(me)
        if not tree:
            break
        for pid in tree:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _report(status_fd: int, code: int) -> None:
    if status_fd < 0:
        return
    with contextlib.suppress(OSError):
        os.write(status_fd, f"{code}\n".encode())
    with contextlib.suppress(OSError):
        os.close(status_fd)


def _exit_code(status: int) -> int:
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code  # killed by a signal: 128 + its number


def main(argv: list[str]) -> int:
    """Supervise ``/bin/sh -c argv[1]`` and what it leaves running; return its exit status."""
    parent = int(argv[2]) if len(argv) > 2 else os.getppid()
    status_fd = int(argv[3]) if len(argv) > 3 else -1
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        return 126
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, _kill_tree)
    if os.getppid() != parent:  # the app died before the death signal was armed
        _kill_tree(signal.SIGTERM, None)
    if status_fd >= 0:
        os.set_inheritable(status_fd, False)  # the shell and its children never hold it
    child = os.fork()
    if child == 0:
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, signal.SIG_DFL)
        try:
            os.execv("/bin/sh", ["/bin/sh", "-c", argv[1]])
        finally:
            os._exit(127)
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the output pipe closes when the command's processes close it
        os.dup2(quiet, fd)
    code = 0
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:  # no child left: the shell and its background are done
            _report(status_fd, code)
            return code
        except InterruptedError:
            continue
        if pid == child:
            code = _exit_code(status)
            _report(status_fd, code)
            status_fd = -1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
