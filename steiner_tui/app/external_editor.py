"""The prompt edited in the person's own editor (Ctrl+G), as Claude Code's Ctrl+G and aider's
``/editor`` do: a long message is easier to write in the editor one uses every day.

The editor is ``$VISUAL``, else ``$EDITOR``, else ``vi`` (git's order), split as a shell would
split it (``code --wait``). The prompt's text goes to a private temporary file, the app hands
the terminal over while the editor runs (``App.suspend``, Textual's documented way: the event
loop waits for the editor, so nothing is drawn under it), and what the file holds when the
editor exits with status 0 replaces the prompt's text. Anything else (no editor, a failed
editor, text that is not UTF-8, a terminal that cannot be handed over) leaves the prompt as it
was and says why. A long paste stays its placeholder line in the file, so the editor never
opens megabytes and the paste still goes whole.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path

from steiner_tui.errors import SteinerError

__all__ = ["EditorError", "edit_text", "editor_command"]


class EditorError(SteinerError):
    """The editor could not give the text back (the message says why; nothing changed)."""


def editor_command(environ: Mapping[str, str]) -> list[str]:
    """The editor to run: ``$VISUAL``, ``$EDITOR``, else ``vi``, split like a shell would.

    Raises:
        EditorError: the variable cannot be split, or none is set and there is no ``vi``.
    """
    for name in ("VISUAL", "EDITOR"):
        value = environ.get(name, "").strip()
        if value:
            try:
                command = shlex.split(value)
            except ValueError as error:
                raise EditorError(f"${name} ({value!r}) cannot be read: {error}") from None
            if command:
                return command
    if shutil.which("vi") is None:
        raise EditorError("no editor: set $VISUAL or $EDITOR (e.g. export EDITOR=nano)")
    return ["vi"]


def edit_text(
    text: str,
    command: list[str],
    handed_over: Callable[[], AbstractContextManager[object]],
) -> str:
    """Run ``command`` on a temporary file holding ``text`` inside ``handed_over`` (the app
    suspended) and return what the file holds after (one final newline, which editors add,
    taken off).

    Raises:
        EditorError: the editor did not start or failed, or the file is not UTF-8 text.
    """
    fd, name = tempfile.mkstemp(prefix="steiner-prompt-", suffix=".md")  # mode 0600
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        failure = ""
        with handed_over():
            # Nothing may be raised in here: Textual's ``App.suspend`` hands the terminal back
            # only when its block ends normally, and a missing editor left the app suspended
            # and hung on its full output queue, the screen blank.
            try:
                done = subprocess.run([*command, str(path)], check=False)
            except (OSError, ValueError) as error:
                failure = f"cannot run {command[0]}: {getattr(error, 'strerror', None) or error}"
        if failure:
            raise EditorError(failure)
        if done.returncode:
            raise EditorError(f"{shlex.join(command)} exited with status {done.returncode}")
        try:
            edited = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise EditorError(f"the edited text is not UTF-8 ({error.reason})") from None
        except OSError as error:
            raise EditorError(f"cannot read the edited text: {error.strerror}") from None
    finally:
        path.unlink(missing_ok=True)
    return edited.removesuffix("\n")
