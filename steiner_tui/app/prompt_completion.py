"""The main screen's completion of the prompt: its text in, the dropdown out.

The screen routes the prompt's changes and completion keys here; this keeps the dropdown
(``CompletionList``) and the prompt's ``completing`` flag in step and applies an accepted
candidate. Candidates come from ``app.completion``; what arguments can name comes from the
session (``WorkbenchSession.completion_sources``) and the prompt's history. Saved sessions are
listed off the UI thread the first time ``/sessions`` gets an argument, then kept; the project's
files each time an ``@`` starts a word (the agent may have written some since), as ``grep``
walks them, up to ``PATH_LIMIT``; in a larger tree (a monorepo, a home folder) the folder the
word names (``@services/billing/``) is walked again on its own, so what is deep in it can still
be named. The dropdown is made and mounted under the prompt the first
time there is something to list: the first frame has one widget fewer to style and lay out.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from steiner_tui.app.completion import Completion, CompletionSources, complete, mention
from steiner_tui.app.widgets.completion_list import CompletionList
from steiner_tui.app.widgets.prompt import PromptEditor
from steiner_tui.sessions.store import SessionStore
from steiner_tui.tools.walk import load_ignore_rules, walk_files

if TYPE_CHECKING:
    from steiner_tui.app.workbench_session import WorkbenchSession

__all__ = ["PromptCompletion", "project_paths"]

PATH_LIMIT = 50_000
"""The most project files ``@`` lists (walk order): each key typed ranks them all, about 10 ms
at this many on these machines."""


def project_paths(root: Path, limit: int = PATH_LIMIT, under: str = "") -> tuple[str, ...]:
    """The project's files as ``grep`` and ``glob`` walk them (``.gitignore`` and the fixed
    skips honoured), relative POSIX paths, each folder that holds one (``src/``, as Claude Code
    lists it) before its first file; at most ``limit`` in all. ``under``: only those in that
    project folder (``src/app/``; none when it is no folder of the project)."""
    real_root = root.resolve()
    start = (real_root / under).resolve()
    if not start.is_relative_to(real_root) or not start.is_dir():
        return ()
    files = walk_files(root, start, load_ignore_rules(root), only_regular=True)
    return tuple(itertools.islice(_with_folders(relative for _, relative in files), limit))


def _folder(word: str) -> str:
    """The folder an ``@`` word names (``src/app/`` for ``@src/app/ma``; "" for none)."""
    folder, slash, _ = word.removeprefix('"').rpartition("/")
    return folder + slash


def _with_folders(files: Iterable[str]) -> Iterator[str]:
    """``files`` (in walk order), each preceded by its folders not named before."""
    named: set[str] = set()
    for path in files:
        end = path.find("/")
        while end >= 0:
            folder = path[: end + 1]
            if folder not in named:
                named.add(folder)
                yield folder
            end = path.find("/", end + 1)
        yield path


class PromptCompletion:
    """Completes the prompt's slash commands and ``@`` paths into the dropdown under it."""

    def __init__(self, editor: PromptEditor, hold: WorkbenchSession) -> None:
        self.editor = editor
        self.hold = hold
        """What arguments can name (``completion_sources``), and where sessions are saved."""
        self.dropdown: CompletionList | None = None
        """The dropdown, once there was something to list (mounted under the prompt)."""
        self._sessions: Sequence[tuple[str, str]] | None = None
        self._paths: Sequence[str] = ()
        self._paths_under: str | None = None
        """The folder ``_paths`` was walked in ("": the whole project), once walked because
        the whole project has more than ``PATH_LIMIT`` files (None: it has not)."""
        self._paths_for: int | None = None
        """Where the ``@`` whose word the project's files were listed for ends (None: no
        ``@`` word at the prompt's end): typed fast, the word may be longer than ``@`` by the
        time its first change is seen, and a paste brings it whole."""
        self._closed_for = ""
        """The text the user closed the list on (Esc): not reopened until it changes."""

    def sources(self) -> CompletionSources:
        """What arguments can name now (the sessions once listed)."""
        base = self.hold.completion_sources()
        prompts = self.editor.prompt_history.entries
        return CompletionSources(
            base.models, base.skills, self._sessions or (), prompts, self._paths
        )

    @property
    def wants_sessions(self) -> bool:
        """Whether the sessions must be listed for the text (``load_sessions``)."""
        return self._sessions is None and self.editor.text.lower().startswith("/sessions ")

    async def load_sessions(self) -> None:
        """List the saved sessions (off the UI thread), then complete again."""
        folder = self.hold.request.sessions_dir
        if folder is None:
            self._sessions = ()
        else:
            rows = await asyncio.to_thread(SessionStore(folder).list)
            self._sessions = tuple((row.session_id, row.problem or row.meta.title) for row in rows)
        self.update()

    async def load_paths(self, under: str = "") -> None:
        """List the project's files (``under``: in that folder only) off the UI thread, then
        complete again."""
        root = self.hold.session.project_root
        paths = await asyncio.to_thread(project_paths, root, PATH_LIMIT, under)
        if under or len(paths) >= PATH_LIMIT:
            self._paths_under = under
        self._paths = paths
        self.update()

    def update(self, *, load_sessions: bool = False) -> None:
        """Complete the prompt's text again (``load_sessions``: list the saved sessions, or
        the project's files, in a worker if the text needs them)."""
        text = self.editor.text
        candidates = [] if text == self._closed_for else complete(text, self.sources())
        self._show(candidates)
        word = mention(text)
        at = None if word is None else len(text) - len(word)
        if load_sessions and self.wants_sessions:
            self.editor.run_worker(self.load_sessions(), group="completion", exclusive=True)
        elif load_sessions and at is not None and at != self._paths_for:
            # A new "@" word: list the files anew (the agent may have written some since).
            self._paths_under = None
            self.editor.run_worker(self.load_paths(), group="paths", exclusive=True)
        elif word is not None and self._paths_under is not None:
            folder = _folder(word)
            if folder != self._paths_under:  # more files than listed: walk the word's folder
                self.editor.run_worker(self.load_paths(folder), group="paths", exclusive=True)
                self._paths_under = folder
        self._paths_for = at

    @property
    def chosen(self) -> Completion | None:
        """The highlighted candidate (None while nothing is listed)."""
        return self.dropdown.chosen if self.dropdown is not None else None

    def best(self) -> Completion | None:
        """The highlighted candidate, else the first for the prompt's text (the list was
        closed with Esc)."""
        return self.chosen or next(iter(complete(self.editor.text, self.sources())), None)

    def _show(self, candidates: Sequence[Completion]) -> None:
        dropdown = self.dropdown
        if dropdown is None and candidates:
            dropdown = self.dropdown = CompletionList(id="completions")
            self.editor.screen.mount(dropdown, after=self.editor)
        if dropdown is not None:
            dropdown.show(candidates)
        self.editor.completing = dropdown is not None and dropdown.is_open
        self.editor.refresh_bindings()

    def act(self, action: str) -> None:
        """A completion key: accept, next, previous or close."""
        if action == "accept":
            self.accept(self.chosen)
        elif action in ("next", "previous"):
            if self.dropdown is not None:
                self.dropdown.move(1 if action == "next" else -1)
        elif action == "close":
            self._closed_for = self.editor.text
            self._show([])

    def accept(self, completion: Completion | None) -> bool:
        """Put ``completion`` in the prompt, cursor at the end; returns whether it did."""
        if completion is None:
            return False
        self.editor.load_text(completion.text)
        self.editor.move_cursor(self.editor.document.end)
        self.editor.focus()
        self.update()
        return True

    def sent(self) -> None:
        """The prompt was sent: nothing to complete."""
        self._closed_for = ""
        self._show([])
